// Tables scored row by row (eval/rows.h, docs/eval.md "Rows"): the assignment against brute force
// and where a greedy one fails, the counts of rows and cells on a hand-made truth, the truth's
// line_items read and refused, and PRED's rows found (a journal's, line_items.csv beside
// predictions.csv).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/rows.h"
#include "docsift/extract/schema.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using docsift::eval::best_assignment;
using docsift::eval::DocumentRows;
using docsift::eval::Row;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

using Weights = std::vector<std::vector<int>>;

int total(const Weights& w, const std::vector<int>& assigned) {
  int sum = 0;
  for (std::size_t i = 0; i < assigned.size(); ++i) {
    if (assigned[i] >= 0) sum += w[i][static_cast<std::size_t>(assigned[i])];
  }
  return sum;
}

// The best total by trying every injection of the shorter side into the longer.
int brute_force(const Weights& w) {
  const std::size_t n = w.size(), m = w.front().size();
  std::vector<int> columns(std::max(n, m));
  std::iota(columns.begin(), columns.end(), 0);
  int best = 0;
  do {
    int sum = 0;
    for (std::size_t i = 0; i < std::min(n, m); ++i) {
      const auto j = static_cast<std::size_t>(columns[i]);
      sum += n <= m ? w[i][j] : w[j][i];
    }
    best = std::max(best, sum);
  } while (std::next_permutation(columns.begin(), columns.end()));
  return best;
}

// An assignment is one: no predicted row twice, every row of the shorter side assigned.
void check_is_assignment(const Weights& w, const std::vector<int>& assigned) {
  const std::size_t n = w.size(), m = w.front().size();
  REQUIRE(assigned.size() == n);
  std::vector<int> used;
  for (const int j : assigned) {
    if (j < 0) continue;
    CHECK(j < static_cast<int>(m));
    used.push_back(j);
  }
  std::sort(used.begin(), used.end());
  CHECK(std::adjacent_find(used.begin(), used.end()) == used.end());
  CHECK(used.size() == std::min(n, m));
}

Row row(std::initializer_list<std::pair<const char*, const char*>> cells) {
  Row r;
  for (const auto& [name, value] : cells) {
    const auto c = std::find(docsift::eval::kRowColumns.begin(), docsift::eval::kRowColumns.end(),
                             std::string_view(name));
    REQUIRE(c != docsift::eval::kRowColumns.end());
    r[static_cast<std::size_t>(c - docsift::eval::kRowColumns.begin())] = value;
  }
  return r;
}

std::size_t column(std::string_view name) {
  return static_cast<std::size_t>(
      std::find(docsift::eval::kRowColumns.begin(), docsift::eval::kRowColumns.end(), name) -
      docsift::eval::kRowColumns.begin());
}

}  // namespace

TEST_CASE("rows: the assignment is optimal where a greedy one is not") {
  // Truth row 0 agrees best with predicted row 0 (2 cells), but predicted row 0 is the only good
  // match of truth row 1: greedy in order takes 2 + 0, the best is 1 + 2.
  const Weights w = {{2, 1}, {2, 0}};
  const auto assigned = best_assignment(w);
  CHECK(assigned == std::vector<int>{1, 0});
  CHECK(total(w, assigned) == 3);
  // Wider and taller than square: the best of each, every row of the shorter side assigned.
  const Weights wide = {{1, 5, 0}, {0, 5, 1}};
  CHECK(total(wide, best_assignment(wide)) == 6);
  check_is_assignment(wide, best_assignment(wide));
  const Weights tall = {{3, 0}, {4, 1}, {0, 2}};
  CHECK(total(tall, best_assignment(tall)) == 6);
  check_is_assignment(tall, best_assignment(tall));
  CHECK(best_assignment({}).empty());
  CHECK(best_assignment({{}, {}}) == std::vector<int>{-1, -1});
}

TEST_CASE("rows: the assignment equals brute force on random tables, and 300 rows are quick") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng() % 6, m = 1 + rng() % 6;
    Weights w(n, std::vector<int>(m));
    for (auto& r : w) {
      for (int& x : r) x = static_cast<int>(rng() % 9);
    }
    CAPTURE(trial);
    const auto assigned = best_assignment(w);
    check_is_assignment(w, assigned);
    CHECK(total(w, assigned) == brute_force(w));
  }
  // 300 rows shuffled: the one assignment of 8 cells each is found among weights of 0 to 7.
  const std::size_t n = 300;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  Weights w(n, std::vector<int>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) w[i][j] = static_cast<int>(rng() % 8);
    w[i][static_cast<std::size_t>(order[i])] = 8;
  }
  CHECK(best_assignment(w) == order);
}

TEST_CASE("rows: rows and cells counted on a hand-made truth, matched whatever the order") {
  DocumentRows truth, predicted;
  truth["a.png"] = {
      row({{"description", "Widget"}, {"quantity", "2"}, {"amount", "$10.00"}}),
      row({{"description", "Widget"}, {"quantity", "3"}, {"amount", "$10.00"}}),
      row({{"description", "Cable"}, {"quantity", "1"}, {"amount", "$4.50"}}),
  };
  // Out of order, the second Widget's quantity wrong (9), a row nothing like any truth row.
  predicted["a.png"] = {
      row({{"description", "Cable"}, {"quantity", "1.0"}, {"amount", "4.50"}, {"date", "1/2/25"}}),
      row({{"description", "Widget"}, {"quantity", "9"}, {"amount", "$10.00"}}),
      row({{"description", "Nozzle"}, {"quantity", "2"}, {"amount", "$99.00"}}),
      row({{"description", "Zzzzzz"}, {"amount", "$1.23"}}),
  };
  // b.png: the truth has a row, PRED none; c.png: no rows in the truth, one predicted; d.png is
  // not in the truth (not scored).
  truth["b.png"] = {row({{"description", "Labour"}, {"unit_price", "$80.00"}})};
  truth["c.png"] = {};
  predicted["c.png"] = {row({{"description", "Stray"}, {"balance", "$5.00"}})};
  predicted["d.png"] = {row({{"description", "Other"}})};
  const auto e = docsift::eval::evaluate_rows(truth, predicted, {});
  CHECK(e.documents == 3);
  // Rows: Cable right; Widget 2 pairs with Nozzle (quantity only), Widget 3 with Widget/9
  // (description and amount): 3 + 2 + 1 cells, where taking Widget/9 for Widget 2 first (2
  // cells) leaves Widget 3 nothing (5 in all). Zzzzzz and Stray are extra; Labour is missed.
  CHECK(e.rows.truth == 4);
  CHECK(e.rows.predicted == 5);
  CHECK(e.rows.right == 1);
  CHECK(e.rows.precision() == doctest::Approx(1.0 / 5));
  CHECK(e.rows.recall() == doctest::Approx(1.0 / 4));
  CHECK(e.rows.f1() == doctest::Approx(2 * 0.2 * 0.25 / 0.45));
  // Cells in truth: 3 + 3 + 3 + 2. Right: Cable 3, Widget 2 → Gadget 1, Widget 3 → 2.
  CHECK(e.cells.truth == 11);
  CHECK(e.cells.right == 6);
  // Predicted, in the truth rows' columns: 3 + 3 + 3 (Cable's date is no column the truth gives),
  // Zzzzzz's description and amount (a.png's columns), Stray's description (c.png's truth has no
  // rows: the whole truth's columns, which have no balance).
  CHECK(e.cells.predicted == 12);
  CHECK(e.cells.precision() == doctest::Approx(6.0 / 12));
  CHECK(e.cells.recall() == doctest::Approx(6.0 / 11));
  CHECK(e.cells.f1() == doctest::Approx(2 * 0.5 * (6.0 / 11) / (0.5 + 6.0 / 11)));
  const auto& description = e.columns[column("description")];
  CHECK(description.truth == 4);
  CHECK(description.predicted == 5);
  CHECK(description.right == 2);
  const auto& quantity = e.columns[column("quantity")];
  CHECK(quantity.truth == 3);
  CHECK(quantity.predicted == 3);
  CHECK(quantity.right == 2);
  CHECK(e.columns[column("amount")].right == 2);
  CHECK(e.columns[column("unit_price")].truth == 1);
  CHECK(e.columns[column("unit_price")].right == 0);
  CHECK(e.columns[column("date")].predicted == 0);
  // The columns add up to the cells.
  std::size_t truth_sum = 0, predicted_sum = 0, right_sum = 0;
  for (const auto& c : e.columns) {
    truth_sum += c.truth;
    predicted_sum += c.predicted;
    right_sum += c.right;
  }
  CHECK(truth_sum == e.cells.truth);
  CHECK(predicted_sum == e.cells.predicted);
  CHECK(right_sum == e.cells.right);
  // The reports: the JSON object, the lines on stdout.
  const auto json = docsift::eval::rows_json(e);
  CHECK(json["rows"]["right"] == 1);
  CHECK(json["cells"]["predicted"] == 12);
  CHECK(json["columns"]["quantity"]["right"] == 2);
  CHECK_FALSE(json["columns"].contains("balance"));
  const std::string table = docsift::eval::rows_table(e);
  CHECK(table.find("\nrows             4      5          1      0.200      0.250   0.222\n") !=
        std::string::npos);
  CHECK(docsift::eval::rows_markdown(e).find("| rows | 4 | 5 | 1 | 0.200 | 0.250 | 0.222 |") !=
        std::string::npos);
}

TEST_CASE(
    "rows: cells compare by their kind, and a predicted table equal to the truth is all right") {
  DocumentRows truth, predicted;
  truth["a.png"] = {row({{"description", "Toner cartridge"},
                         {"quantity", "3"},
                         {"unit_price", "$1,234.56"},
                         {"date", "03/04/2025"},
                         {"debit", "($5.00)"}})};
  predicted["a.png"] = {row({{"description", "toner cartrdge"},
                             {"quantity", "3.00"},
                             {"unit_price", "1234.56"},
                             {"date", "3 April 2025"},
                             {"debit", "-5.00"}})};
  auto e = docsift::eval::evaluate_rows(truth, predicted, {});
  CHECK(e.rows.right == 1);
  CHECK(e.cells.right == 5);
  // A cent off, a year off, a sign lost: each a cell wrong, the row wrong.
  predicted["a.png"][0][column("unit_price")] = "$1,234.57";
  predicted["a.png"][0][column("date")] = "03/04/2024";
  predicted["a.png"][0][column("debit")] = "$5.00";
  e = docsift::eval::evaluate_rows(truth, predicted, {});
  CHECK(e.rows.right == 0);
  CHECK(e.cells.right == 2);
  CHECK(e.cells.predicted == 5);
  CHECK(docsift::eval::evaluate_rows(truth, truth, {}).rows.right == 1);
}

TEST_CASE(
    "rows: a JSONL truth's line_items are rows, not a field, and malformed ones are refused") {
  TempDir dir;
  const auto schema = docsift::extract::load_field_schema("builtin:business-documents");
  write_text(dir / "t.jsonl",
             "{\"image_file\":\"a.png\",\"TOTAL\":\"$10.00\",\"line_items\":[{\"description\":"
             "\"Widget\",\"quantity\":2,\"unit_price\":\"$5.00\",\"amount\":10.5,\"box\":[1,2,3,"
             "4]},{\"description\":\"Bolt\",\"quantity\":\"N/A\"}]}\n"
             "{\"image_file\":\"b.pdf#page=1\",\"line_items\":[]}\n"
             "{\"image_file\":\"c.png\",\"TOTAL\":\"$1.00\"}\n");
  DocumentRows rows;
  const auto truth = docsift::eval::read_truth_jsonl(dir / "t.jsonl", schema.names(), "GT", &rows);
  CHECK(truth.at("a.png").count("line_items") == 0);
  CHECK(truth.at("a.png").at("TOTAL") == "$10.00");
  REQUIRE(rows.size() == 2);  // c.png carries no line_items
  REQUIRE(rows.at("a.png").size() == 2);
  CHECK(rows.at("a.png")[0] == row({{"description", "Widget"},
                                    {"quantity", "2"},
                                    {"unit_price", "$5.00"},
                                    {"amount", "10.5"}}));
  CHECK(rows.at("a.png")[1] == row({{"description", "Bolt"}, {"quantity", "N/A"}}));
  CHECK(rows.at("b.pdf").empty());  // the page of a one-page file is the file
  // Without a place for the rows they are still checked, and still no field.
  CHECK(docsift::eval::read_truth_jsonl(dir / "t.jsonl", schema.names())
            .at("a.png")
            .count("line_items") == 0);

  const auto refused = [&](const std::string& items, const std::string& message) {
    write_text(dir / "bad.jsonl",
               "{\"image_file\":\"a.png\"}\n{\"image_file\":\"b.png\","
               "\"line_items\":" +
                   items + "}\n");
    CAPTURE(items);
    const std::string expected = (dir / "bad.jsonl").string() + ":2: " + message;
    CHECK_THROWS_WITH_AS(docsift::eval::read_truth_jsonl(dir / "bad.jsonl", schema.names()),
                         expected.c_str(), docsift::MalformedInputError);
  };
  refused("{\"description\":\"x\"}", "\"line_items\" is not an array");
  refused("\"Widget | Bolt\"", "\"line_items\" is not an array");
  refused("[{\"description\":\"x\"},[\"y\"]]", "line_items row 2 is not an object");
  refused("[{\"description\":true}]",
          "line_items row 1: \"description\" is not a string or a number");
  refused("[{\"quantity\":null}]", "line_items row 1: \"quantity\" is not a string or a number");
  refused("[{\"amount\":[\"$1\"]}]", "line_items row 1: \"amount\" is not a string or a number");
  refused("[{\"quantiy\":\"3\"}]",
          "line_items row 1: unknown cell \"quantiy\" (did you mean quantity?); a row's cells "
          "are description, quantity, unit_price, amount, date, debit, credit, balance");
  refused("[{\"description\":\"N/A\",\"box\":[1,2,3,4]}]",
          "line_items row 1 gives no cell (description, quantity, unit_price, amount, date, "
          "debit, credit, balance)");
}

TEST_CASE("rows: PRED's rows from a journal, from line_items.csv beside predictions.csv, or none") {
  TempDir dir;
  // A journal: the last record of a page counts; a failed page has no rows.
  write_text(dir / "results.jsonl",
             "{\"file\":\"a.png\",\"status\":\"ok\",\"fields\":{},\"line_items\":[{\"description\":"
             "\"Old\",\"box\":[0,0,1,1]}]}\n"
             "{\"file\":\"a.png\",\"status\":\"ok\",\"fields\":{},\"line_items\":[{\"description\":"
             "\"Widget\",\"quantity\":\"2\",\"box\":[0,0,1,1]}]}\n"
             "{\"file\":\"b.png\",\"status\":\"ok\",\"fields\":{},\"line_items\":[{\"description\":"
             "\"Bolt\",\"box\":[0,0,1,1]}]}\n"
             "{\"file\":\"b.png\",\"status\":\"failed\",\"error\":\"x\"}\n");
  const auto journal = docsift::eval::read_prediction_file(dir / "results.jsonl");
  const auto from_journal = docsift::eval::predicted_rows(dir / "results.jsonl", journal);
  REQUIRE(from_journal.rows);
  CHECK(from_journal.rows->size() == 1);
  CHECK(from_journal.rows->at("a.png") ==
        std::vector<Row>{row({{"description", "Widget"}, {"quantity", "2"}})});
  // A journal without line_items has none to compare.
  write_text(dir / "none.jsonl", "{\"file\":\"a.png\",\"status\":\"ok\",\"fields\":{}}\n");
  const auto none = docsift::eval::predicted_rows(
      dir / "none.jsonl", docsift::eval::read_prediction_file(dir / "none.jsonl"));
  CHECK_FALSE(none.rows);
  CHECK(none.missing.find("has no page with line_items") != std::string::npos);

  // predictions.csv: line_items.csv beside it, its other columns ignored, empty cells none.
  fs::create_directories(dir / "run");
  write_text(dir / "run" / "predictions.csv", "image_file,TOTAL\nx.pdf#page=1,$1.00\n");
  const auto csv = docsift::eval::read_prediction_file(dir / "run" / "predictions.csv");
  const auto absent = docsift::eval::predicted_rows(dir / "run" / "predictions.csv", csv);
  CHECK_FALSE(absent.rows);
  CHECK(absent.missing ==
        "PRED " + (dir / "run" / "predictions.csv").string() + " has no line_items.csv beside it");
  write_text(dir / "run" / "line_items.csv",
             "image_file,row,description,quantity,unit_price,amount,date,debit,credit,balance,x,"
             "y,width,height\nx.pdf#page=1,1,Widget,2,$5.00,,,,,,1,2,3,4\n"
             "x.pdf#page=1,2,\"Bolt, steel\",,,$1.00,,,,,1,2,3,4\n");
  const auto beside = docsift::eval::predicted_rows(dir / "run" / "predictions.csv", csv);
  REQUIRE(beside.rows);
  CHECK(
      beside.rows->at("x.pdf") ==
      std::vector<Row>{row({{"description", "Widget"}, {"quantity", "2"}, {"unit_price", "$5.00"}}),
                       row({{"description", "Bolt, steel"}, {"amount", "$1.00"}})});
  // Any other CSV has no rows; a line_items.csv that is not one is malformed.
  CHECK_FALSE(docsift::eval::predicted_rows(dir / "run" / "documents.csv", csv).rows);
  write_text(dir / "run" / "line_items.csv", "row,description\n1,Widget\n");
  CHECK_THROWS_AS(docsift::eval::predicted_rows(dir / "run" / "predictions.csv", csv),
                  docsift::MalformedInputError);
}
