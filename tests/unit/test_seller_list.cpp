// `docsift review sellers`' list (batch/seller_list.h) from journal records written here: which
// pages give their seller and address, each seller's spellings written once as the weightiest (a
// page a person corrected counting half again as much as one read), the latest record of a page
// alone counted, and the list a run then loads.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "docsift/batch/seller_list.h"
#include "docsift/ocr/known_names.h"
#include "support/fixture_files.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::testing::file_bytes;
using docsift::testing::list_lines;
using docsift::testing::TempDir;
using docsift::testing::write_text;
using nlohmann::json;

namespace {

// A page's record as a run journals it, with only what the list reads filled in.
json page(const std::string& file, const std::string& seller, const std::string& address,
          const json& review) {
  return {{"file", file},
          {"status", "ok"},
          {"timings_s", json::object()},
          {"memory", json::object()},
          {"tier", "ocr"},
          {"tokens", {{"generated", 0}}},
          {"fields", {{"SUPPLIER", seller}, {"BUSINESS_ADDRESS", address}, {"TOTAL", "9.00"}}},
          {"review", review}};
}

}  // namespace

TEST_CASE(
    "review sellers' list: accepted and corrected sellers, one spelling each, the latest record "
    "alone") {
  TempDir dir;
  const std::string sanyu_at = "NO. 31G&33G, JALAN SETIA INDAH X ,U13/X",
                    sanyo_at = "NO. 31G833G, JALAN SETIA INDAH X{U13/x";
  json corrected = page("p5.jpg", "THREE STOOGES", "N/A", json::array());
  corrected["corrections"] = {
      {"SUPPLIER", {{"original", "THREE STOOGF"}, {"at", "2026-12-02T08:00:00Z"}}}};
  const json failed = {{"file", "p6.jpg"},
                       {"status", "failed"},
                       {"error", "unreadable"},
                       {"timings_s", json::object()},
                       {"memory", json::object()}};
  std::string journal;
  for (const json& r : {
           page("p1.jpg", "SANYU STATIONERY SHOP", sanyu_at, json::array()),
           page("p2.jpg", "SANYU STATIONERY SHOP", sanyu_at, json::array()),
           page("p8.jpg", "SANYU STATIONERY SHOP", sanyu_at, json::array()),
           // One receipt of the shop misread and accepted, its address too.
           page("p3.jpg", "SANYO STATIONERY SHOP", sanyo_at, json::array()),
           page("p4.jpg", "HREE STOOGES", "N/A", json::array({"SUPPLIER"})),  // queued
           corrected,
           failed,
           page("p7.jpg", "#1 NOODLE HOUSE", "N/A", json::array()),  // a comment to the list
           // p1 read again (a later record supersedes): its seller now N/A.
           page("p1.jpg", "N/A", "N/A", json::array()),
       })
    journal += r.dump() + "\n";
  fs::create_directories(dir / "run");
  write_text(dir / "run" / "results.jsonl", journal);

  docsift::batch::SellerListOptions o;
  o.results = {dir / "run"};
  o.out = dir / "sellers.tsv";
  auto report = docsift::batch::write_seller_list(o);
  // The shop's misread name is its right one's; its addresses are both kept (a run takes the
  // nearest to its page).
  const std::set<std::string> expected = {"SANYU STATIONERY SHOP\t" + sanyu_at,
                                          "SANYU STATIONERY SHOP\t" + sanyo_at, "THREE STOOGES"};
  CHECK(list_lines(o.out) == expected);
  CHECK(report.runs == 1);
  CHECK(report.pages == 7);        // p1 (its latest), p2, p3, p4, p5, p7, p8; p6 failed
  CHECK(report.given == 4);        // p2, p3, p5, p8
  CHECK(report.unconfirmed == 1);  // p4
  CHECK(report.unfit == 1);        // p7
  CHECK(report.sellers == 2);
  CHECK(report.lines == 3);
  CHECK(report.addressed == 2);

  // A person read the whole queue: p4's seller counts, and the correction's spelling outweighs it.
  o.checked = true;
  o.out = dir / "checked.tsv";
  report = docsift::batch::write_seller_list(o);
  CHECK(list_lines(o.out) == expected);
  CHECK(report.given == 5);
  CHECK(report.unconfirmed == 0);

  // What a run loads: the shop's misread finds the listed spelling.
  const auto list = docsift::ocr::KnownNames::load(o.out.string());
  CHECK(list.size() == 3);
  CHECK(list.find_in("SANYO STATIONERY SHOP")->name == "SANYU STATIONERY SHOP");
}
