// The engine's second recognizer (ocr.recognizer: both; engine.h): the values the rules chose
// cross-read (cross_read.h), their boxes cut and read once a page by page_crops.h.
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "docsift/ocr/cross_read.h"
#include "docsift/ocr/engine.h"
#include "docsift/ocr/page_checks.h"

namespace docsift::ocr {

namespace {

// A list field the rows are read again for: its value and its evidence, or nulls where it is N/A
// or has no evidence.
std::pair<std::string*, Evidence*> read_list(Engine::Result& result, const std::string& name) {
  const auto value = result.fields.find(name);
  const auto list = result.evidence.find(name);
  if (list == result.evidence.end() || value == result.fields.end() || value->second == "N/A")
    return {nullptr, nullptr};
  return {&value->second, &list->second};
}

}  // namespace

std::optional<nlohmann::json> cross_read_rows(
    Engine::Result& result,
    const std::function<std::optional<LineText>(const std::vector<Box>&)>& read,
    const Lexicon& lexicon) {
  const auto [value, list] = read_list(result, "DESCRIPTIONS");
  if (!value) return std::nullopt;
  // The list is its rows' descriptions (find_items.cpp): a letter taken into a row's is taken into
  // the list only where that still holds.
  std::string joined;
  for (const LineItem& item : result.items) append_joined(joined, " | ", item.description);
  const bool rows_make_list = joined == *value;
  // Each row's description read again (its words: Evidence::parts) and compared: the lists' sums
  // vouch for their figures, never for a description's letters ("Coffee beans lkg" in a table
  // that adds up). A disagreement is settled as an address's letters are (substituted_name, with
  // its digits: "Ad paper ream" read "A4 paper ream"). Row by row, so that the reviewer is shown
  // which.
  std::size_t rows = 0, agreed = 0, taken = 0;
  nlohmann::json disagreed = nlohmann::json::array();
  for (LineItem& item : result.items) {
    if (item.description.empty() || item.evidence.parts.empty()) continue;
    const std::optional<LineText> second = read(item.evidence.parts);
    if (!second) continue;
    Evidence& e = item.evidence;
    e.reader_read = true;
    e.reader_agreed = readings_agree("list", item.description, second->text, lexicon);
    ++rows;
    if (e.reader_agreed) {
      ++agreed;
      continue;
    }
    nlohmann::json row = {{"description", item.description}, {"read", second->text}};
    const std::optional<std::string> letters =
        rows_make_list ? substituted_name(item.description, second->text, second->probabilities,
                                          kLetterTaken, true)
                       : std::nullopt;
    if (letters && *letters != item.description) {
      row["taken"] = *letters;
      item.description = *letters;
      e.reader_taken = true;
      ++taken;
    }
    disagreed.push_back(std::move(row));
  }
  if (rows == 0) return std::nullopt;
  if (taken > 0) {
    value->clear();
    for (const LineItem& item : result.items) append_joined(*value, " | ", item.description);
  }
  // The list's evidence as a value's: agreed where every row read agreed, taken where the others
  // were each settled, disagreed otherwise.
  list->reader_read = true;
  list->reader_agreed = agreed == rows;
  list->reader_taken = taken > 0 && agreed + taken == rows;
  return nlohmann::json{
      {"rows", rows}, {"agreed", agreed}, {"taken", taken}, {"disagreed", disagreed}};
}

std::optional<nlohmann::json> cross_read_prices(
    Engine::Result& result,
    const std::function<std::optional<LineText>(const std::vector<Box>&)>& read,
    const Lexicon& lexicon) {
  const auto [value, list] = read_list(result, "PRICES");
  // Figures the rows' products or their sum tie to the page (page_checks.h: TableCheck) are not
  // read again: the arithmetic settles them, and such lists had been read alike on 269 of 272
  // development receipts and 93 of 94 generated pages (docs/ocr.md). A total its sums agree with is
  // still read: there, a reading that disagrees still marks wrong totals (bench/ocr/README.md,
  // 2026-12-06).
  if (!value || check_table(result.items, result.fields).prices_checked()) return std::nullopt;
  // The rows' entries in order (mark_price_words found a word for a row only where PRICES is one
  // cell of every row, in the rows' order).
  const std::vector<std::string> entries = items_of(*value);
  if (entries.size() != result.items.size()) return std::nullopt;
  std::size_t rows = 0, agreed = 0;
  nlohmann::json disagreed = nlohmann::json::array();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LineItem& item = result.items[i];
    if (!item.price_box) continue;
    const std::optional<LineText> second = read({*item.price_box});
    if (!second) continue;
    ++rows;
    if (readings_agree("amount", entries[i], second->text, lexicon))
      ++agreed;
    else
      disagreed.push_back({{"price", entries[i]}, {"read", second->text}});
  }
  if (rows == 0) return std::nullopt;
  list->reader_read = true;
  list->reader_agreed = agreed == rows;
  return nlohmann::json{{"rows", rows}, {"agreed", agreed}, {"disagreed", disagreed}};
}

void Engine::cross_read(Result& result, PageCrops& crops) const {
  if (!second_) return;
  nlohmann::json read = nlohmann::json::object();
  const DateOrder order = date_order_ == DateOrderRule::Mdy ? DateOrder::Mdy : DateOrder::Dmy;
  for (const char* field : kCrossReadFields) {
    const auto value = result.fields.find(field);
    const auto evidence = result.evidence.find(field);
    if (value == result.fields.end() || value->second == "N/A" || evidence == result.evidence.end())
      continue;
    Evidence& e = evidence->second;
    std::optional<LineText> second =
        e.parts.empty() ? crops.read(e.box) : crops.read_lines(e.parts);
    if (!second) continue;
    const std::string kind = calibration_.kind_of(field);
    e.reader_read = true;
    e.reader_agreed = readings_agree(kind, value->second, second->text, rules_.lexicon);
    std::optional<std::string> taken;
    if (!e.reader_agreed)
      taken = settle(kind, value->second, e, result.sums, *second, rules_.lexicon, order);
    // Names that agree letter for letter may still differ in their spaces ("CW KHOO", "C W KHOO").
    else if (name_kind(kind))
      taken = substituted_name(value->second, second->text, second->probabilities, kLetterTaken,
                               kind == "address");
    // A seller's name or address taken letter by letter from the second reading gets its repairs
    // too: a word both readers misread the same way ("CONFECTIUNERY") stays repaired, and one the
    // second misread alone ("Tamar" for a Taman read right) is put right again.
    if (taken && std::string_view(field) == "SUPPLIER") taken = repair_name(*taken, rules_);
    if (taken && std::string_view(field) == "BUSINESS_ADDRESS")
      taken = repair_address(*taken, rules_);
    // A value the user's list gave (ocr.known_sellers) is written as the list spells it: the
    // second reading is evidence for it, never a change to it.
    if (taken && (*taken == value->second || e.known)) taken.reset();
    read[field] = {{"read", second->text},
                   {"score", std::round(second->mean * 1000) / 1000},
                   {"agreed", e.reader_agreed}};
    if (taken) {
      read[field]["replaced"] = value->second;
      value->second = *taken;
      e.reader_taken = true;
    }
    e.reader_mean = second->mean;
    e.reader_gap = reading_gap(value->second, second->text);
  }
  const auto lines = [&](const std::vector<Box>& parts) { return crops.read_lines(parts); };
  if (auto rows = cross_read_rows(result, lines, rules_.lexicon)) read["DESCRIPTIONS"] = *rows;
  if (auto rows = cross_read_prices(result, lines, rules_.lexicon)) read["PRICES"] = *rows;
  result.info["readers"] = {"tesseract", second_->name()};
  result.info["cross_read"] = std::move(read);
}

}  // namespace docsift::ocr
