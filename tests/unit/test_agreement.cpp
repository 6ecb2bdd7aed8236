// Pages that agree (batch/agreement.h): the count over a run's latest records, the weight added to
// the logit of each value another page read alike and taken off again when that page no longer
// does, a value other pages read with other digits disputed and queued, the review queue redone,
// corrected values left out; the record's `agreement` as the
// journal holds it (journal/record.h); the weight the calibration gives it (ocr/calibration.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "docsift/batch/agreement.h"
#include "docsift/batch/outputs.h"
#include "docsift/extract/schema.h"
#include "docsift/io/journal.h"
#include "docsift/journal/page_arithmetic.h"
#include "docsift/ocr/calibration.h"
#include "docsift/ocr/known_names.h"
#include "docsift/ocr/rules.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace {

using docsift::batch::agreed;
using docsift::batch::PageCounts;
using docsift::batch::Record;
using docsift::testing::TempDir;
using docsift::testing::write_text;

const docsift::extract::FieldSchema& schema() {
  static const auto s =
      docsift::extract::load_field_schema(std::string(docsift::extract::kBuiltinSchema));
  return s;
}

double logit(double p) { return std::log(p / (1 - p)); }
double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// An OCR page of a receipt whose seller the engine marked with `key` at confidence `read`.
Record page(const std::string& file, const std::string& seller, const std::string& key,
            double read) {
  Record r;
  r.file = file;
  r.status = Record::Status::Ok;
  r.tier = "ocr";
  r.fields = {{"DOCUMENT_TYPE", "RECEIPT"}, {"SUPPLIER", seller}, {"TOTAL", "9.50"}};
  r.confidence = {{"DOCUMENT_TYPE", 0.99}, {"SUPPLIER", read}, {"TOTAL", 0.99}};
  r.agreement.emplace();
  (*r.agreement)["SUPPLIER"] = {key, 1.25, read, false, std::nullopt, std::nullopt, std::nullopt};
  r.memory = nlohmann::json::object();
  r.tokens = Record::Tokens{0, 0};
  return r;
}

docsift::config::ReviewConfig review() {
  docsift::config::ReviewConfig c;
  c.threshold = 0.5;
  c.fields = {{"SUPPLIER", 0.8}};
  return c;
}

bool queued(const Record& r, const std::string& field) {
  return r.review && std::find(r.review->begin(), r.review->end(), field) != r.review->end();
}

PageCounts counted(const std::vector<Record>& records) {
  PageCounts counts;
  for (const Record& r : records) counts.add(r);
  return counts;
}

// Each record as the pass leaves it: its new copy where it returned one.
std::vector<Record> pass(const std::vector<Record>& records, bool spelling = false) {
  const PageCounts counts = counted(records);
  std::vector<Record> out;
  for (const Record& r : records)
    out.push_back(agreed(r, counts, review(), schema(), spelling).value_or(r));
  return out;
}

// A seller as the engine marks it: its key is its words (ocr::words_key).
Record seller(const std::string& file, const std::string& name, double read) {
  return page(file, name, docsift::ocr::words_key(name), read);
}

// The journal keeps `r`'s agreement to the byte, and refuses it where `field`'s `member` is not a
// string.
void journal_keeps(const Record& r, const std::string& field, const std::string& member) {
  const Record back = Record::from_journal(r.to_json());
  CHECK(*back.agreement == *r.agreement);
  nlohmann::json bad = r.to_json();
  bad["agreement"][field][member] = 7;
  CHECK_THROWS_AS(Record::from_journal(bad), docsift::io::BadRecord);
}

// Pages as a pass left them, counted again in either order: nothing more to write.
void settled(const std::vector<Record>& after, bool spelling) {
  for (const Record& r : after)
    CHECK_FALSE(agreed(r, counted(after), review(), schema(), spelling));
  const std::vector<Record> reversed(after.rbegin(), after.rend());
  for (const Record& r : reversed)
    CHECK_FALSE(agreed(r, counted(reversed), review(), schema(), spelling));
}

}  // namespace

TEST_CASE("Pages that agree: a value another page read alike gets the weight on its logit") {
  const std::vector<Record> before = {page("a.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6),
                                      page("b.jpg", "ACME SDN. BHD.", "ACMESDNBHD", 0.7),
                                      page("c.jpg", "ACNE SDN BHD", "ACNESDNBHD", 0.6)};
  const PageCounts counts = counted(before);
  CHECK(counts.pages("SUPPLIER", "ACMESDNBHD") == 2);
  CHECK(counts.pages("SUPPLIER", "ACNESDNBHD") == 1);
  CHECK(counts.pages("TOTAL", "ACMESDNBHD") == 0);

  const std::optional<Record> a = agreed(before[0], counts, review(), schema(), false);
  REQUIRE(a);
  CHECK(a->agreement->at("SUPPLIER").agreed);
  CHECK(a->agreement->at("SUPPLIER").read == 0.6);  // what the page alone gave, kept
  CHECK(a->confidence->at("SUPPLIER") == doctest::Approx(sigmoid(logit(0.6) + 1.25)));
  CHECK(a->confidence->at("TOTAL") == 0.99);  // a field not compared is left as it was
  // 0.6 was under SUPPLIER's 0.8; 0.80 is not: accepted now.
  Record alone = before[0];
  docsift::batch::mark_review(alone, review(), schema());
  CHECK(queued(alone, "SUPPLIER"));
  CHECK_FALSE(queued(*a, "SUPPLIER"));
  // A page no other page agrees with, already as the count says: nothing to write.
  CHECK_FALSE(agreed(before[2], counts, review(), schema(), false));

  // The pass applied to its own output changes nothing, whichever order the pages are counted in.
  settled(pass(before), false);
}

TEST_CASE("Pages that agree: agreement lost gives the page its own confidence back") {
  std::vector<Record> pages = pass({page("a.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6),
                                    page("b.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6)});
  REQUIRE(pages[0].agreement->at("SUPPLIER").agreed);
  // b.jpg's file changed and was read again: another seller now.
  pages[1] = page("b.jpg", "BETA TRADING", "BETATRADING", 0.9);
  const std::optional<Record> a = agreed(pages[0], counted(pages), review(), schema(), false);
  REQUIRE(a);
  CHECK_FALSE(a->agreement->at("SUPPLIER").agreed);
  CHECK(a->confidence->at("SUPPLIER") == 0.6);
  CHECK(queued(*a, "SUPPLIER"));
  CHECK(a->review_reasons->at("SUPPLIER") == "low confidence");
  CHECK(a->review_thresholds->at("SUPPLIER") == 0.8);
}

TEST_CASE("Pages that agree: a corrected value neither agrees nor is agreed with") {
  std::vector<Record> pages = {page("a.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6),
                               page("b.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6)};
  // A person corrected b.jpg's seller (review apply): confidence 1, the reading it replaced kept.
  pages[1].fields->at("SUPPLIER") = "ACME SUPPLIES SDN BHD";
  pages[1].confidence->at("SUPPLIER") = 1.0;
  pages[1].corrections.emplace();
  (*pages[1].corrections)["SUPPLIER"] = {"ACME SDN BHD", "2026-12-02T10:00:00Z"};
  const PageCounts counts = counted(pages);
  CHECK(counts.pages("SUPPLIER", "ACMESDNBHD") == 1);
  CHECK_FALSE(agreed(pages[0], counts, review(), schema(), false));
  CHECK_FALSE(agreed(pages[1], counts, review(), schema(), false));
  // A failed page holds no reading to agree with.
  Record failed = page("c.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6);
  failed.status = Record::Status::Failed;
  pages.push_back(failed);
  CHECK(counted(pages).pages("SUPPLIER", "ACMESDNBHD") == 1);
}

TEST_CASE("Pages that agree: the record's agreement as the journal holds it") {
  Record r = pass({page("a.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6),
                   page("b.jpg", "ACME SDN BHD", "ACMESDNBHD", 0.6)})[0];
  const Record back = Record::from_journal(r.to_json());
  REQUIRE(back.agreement);
  CHECK(*back.agreement == *r.agreement);
  CHECK(back.confidence->at("SUPPLIER") == r.confidence->at("SUPPLIER"));  // to the bit

  const auto rejected = [&](const nlohmann::json& agreement) {
    nlohmann::json j = r.to_json();
    j["agreement"] = agreement;
    CHECK_THROWS_AS(Record::from_journal(j), docsift::io::BadRecord);
  };
  const nlohmann::json good = {
      {"key", "ACMESDNBHD"}, {"weight", 1.25}, {"read", 0.6}, {"agreed", true}};
  rejected(nlohmann::json::array());
  rejected(
      {{"SUPPLIER", {{"key", "ACMESDNBHD"}, {"weight", 1.25}, {"read", 1.5}, {"agreed", true}}}});
  rejected({{"SUPPLIER", {{"key", 7}, {"weight", 1.25}, {"read", 0.6}, {"agreed", true}}}});
  rejected({{"SUPPLIER", {{"key", "ACMESDNBHD"}, {"weight", 1.25}, {"read", 0.6}}}});
  rejected({{"PAYER_NAME", good}});  // not a field of the record
  nlohmann::json failed = r.to_json();
  failed["status"] = "failed";
  failed["error"] = "x";
  failed["agreement"] = {{"SUPPLIER", good}};
  CHECK_THROWS_AS(Record::from_journal(failed), docsift::io::BadRecord);
}

TEST_CASE("Pages that agree: the weight is the one of the model that scores the value") {
  TempDir dir;
  write_text(dir.path() / "c.yaml",
             "kinds:\n  text: {intercept: -1.5, weights: {word_mean: 2.0, agreed: 0.75}, "
             "read_again: {intercept: 0.5, weights: {reader_agreed: 1.0, agreed: 1.5}}}\n"
             "  address: {intercept: -1.0, weights: {word_mean: 1.0}}\n"
             "fields: {SUPPLIER: {kind: text, offset: -0.25}, BUSINESS_ADDRESS: address}\n");
  const docsift::ocr::Calibration c =
      docsift::ocr::load_calibration((dir.path() / "c.yaml").string());
  docsift::ocr::Evidence e;
  e.word_mean = 80;
  CHECK(c.agreement_weight("SUPPLIER", e) == 0.75);
  CHECK(c.agreement_weight("BUSINESS_ADDRESS", e) == 0);  // its kind weighs none
  // The weight added to the logit is what the feature adds to it in the model.
  const double alone = c.probability("SUPPLIER", e);
  e.agreed = true;
  CHECK(c.probability("SUPPLIER", e) == doctest::Approx(sigmoid(logit(alone) + 0.75)));
  e.reader_read = e.reader_agreed = true;  // read again: that model's weight
  CHECK(c.agreement_weight("SUPPLIER", e) == 1.5);
  const docsift::ocr::Calibration shipped =
      docsift::ocr::load_calibration("builtin:ocr-calibration");
  e = {};
  CHECK(shipped.agreement_weight("SUPPLIER", e) > 0);
  CHECK(shipped.agreement_weight("BUSINESS_ADDRESS", e) > 0);
}

TEST_CASE("The spelling the pages agree on: a value one page alone misread takes theirs") {
  const std::vector<Record> before = {seller("a.jpg", "GARDENIA BAKERIES (KL) SDN BHD", 0.9),
                                      seller("b.jpg", "GARDENIA BAKERIES (KL) SDN. BHD.", 0.9),
                                      seller("c.jpg", "GARDENIA BAKERIES (KL) SDN BHD", 0.9),
                                      seller("d.jpg", "GARDENIA BAKERIES (KE) SDN BHD", 0.6)};
  const PageCounts counts = counted(before);
  // Two spellings of the same words, one read by two pages: that one.
  CHECK(counts.spelling_near("SUPPLIER", "GARDENIA BAKERIES KE SDN BHD") ==
        "GARDENIA BAKERIES (KL) SDN BHD");
  CHECK_FALSE(agreed(before[3], counts, review(), schema(), false));  // ocr.batch_spelling: false
  const std::optional<Record> d = agreed(before[3], counts, review(), schema(), true);
  REQUIRE(d);
  CHECK(d->fields->at("SUPPLIER") == "GARDENIA BAKERIES (KL) SDN BHD");
  const auto& a = d->agreement->at("SUPPLIER");
  CHECK(a.agreed);
  CHECK(a.read_value == "GARDENIA BAKERIES (KE) SDN BHD");  // the page's own, kept
  CHECK(a.key == "GARDENIA BAKERIES KE SDN BHD");           // and its key: what it is counted by
  CHECK(d->confidence->at("SUPPLIER") == doctest::Approx(sigmoid(logit(0.6) + 1.25)));
  CHECK_FALSE(queued(*d, "SUPPLIER"));

  // The journal keeps it to the byte; a read_value that is not a string is refused.
  journal_keeps(*d, "SUPPLIER", "read_value");

  // Counted again with the value written in, in either order: nothing more to write.
  const std::vector<Record> after = pass(before, true);
  CHECK(after[3].fields->at("SUPPLIER") == "GARDENIA BAKERIES (KL) SDN BHD");
  CHECK(counted(after).pages("SUPPLIER", "GARDENIA BAKERIES KL SDN BHD") == 3);  // not 4
  settled(after, true);

  // The pages it was taken from read again as another seller: the page's own reading back.
  std::vector<Record> lost = {after[0], seller("b.jpg", "BETA TRADING", 0.9), after[2], after[3]};
  lost[2] = seller("c.jpg", "BETA TRADING", 0.9);
  const std::optional<Record> back_own = agreed(lost[3], counted(lost), review(), schema(), true);
  REQUIRE(back_own);
  CHECK(back_own->fields->at("SUPPLIER") == "GARDENIA BAKERIES (KE) SDN BHD");
  CHECK_FALSE(back_own->agreement->at("SUPPLIER").read_value);
  CHECK_FALSE(back_own->agreement->at("SUPPLIER").agreed);
  CHECK(back_own->confidence->at("SUPPLIER") == 0.6);
  CHECK(queued(*back_own, "SUPPLIER"));

  // Another page read it as this one did: the two agree on their own reading, which is kept.
  std::vector<Record> twice = after;
  twice.push_back(seller("e.jpg", "GARDENIA BAKERIES (KE) SDN BHD", 0.6));
  const std::optional<Record> own = agreed(twice[3], counted(twice), review(), schema(), true);
  REQUIRE(own);
  CHECK(own->fields->at("SUPPLIER") == "GARDENIA BAKERIES (KE) SDN BHD");
  CHECK(own->agreement->at("SUPPLIER").agreed);
  CHECK_FALSE(own->agreement->at("SUPPLIER").read_value);
}

TEST_CASE("The spelling the pages agree on: other digits, too far, or two equally near: none") {
  const auto near = [](std::vector<Record> pages, const std::string& name) {
    pages.push_back(seller("z.jpg", name, 0.6));
    return counted(pages).spelling_near("SUPPLIER", docsift::ocr::words_key(name));
  };
  const std::vector<Record> shop = {seller("a.jpg", "NO 12, JALAN TAMPOI 7/4, JOHOR", 0.9),
                                    seller("b.jpg", "NO 12, JALAN TAMPOI 7/4, JOHOR", 0.9)};
  CHECK(near(shop, "NO 12, JALAN TAMPAI 7/4, JOHOR") == "NO 12, JALAN TAMPOI 7/4, JOHOR");
  CHECK(near(shop, "NO12, JALAN TAMPOI 7/4,JOHOR") == "NO 12, JALAN TAMPOI 7/4, JOHOR");
  CHECK_FALSE(near(shop, "NO 42, JALAN TAMPOI 7/4, JOHOR"));  // another house: its digits differ
  // The same letters and digits, a slash lost: the same value, as they spell it.
  CHECK(near(shop, "NO 12, JALAN TAMPOI 74, JOHOR") == "NO 12, JALAN TAMPOI 7/4, JOHOR");
  // 22 letters and digits: two edits allowed, not three.
  CHECK(near(shop, "NO 12, JALAN TAMPQI 7/4, JOHDR") == "NO 12, JALAN TAMPOI 7/4, JOHOR");
  CHECK_FALSE(near(shop, "NO 12, JALAN TQMPQI 7/4, JOHDR"));
  // One page's reading is no spelling to take.
  CHECK_FALSE(near({shop[0]}, "NO 12, JALAN TAMPAI 7/4, JOHOR"));
  // Equally near two values other pages agree on: the count cannot say which.
  const std::vector<Record> two = {
      seller("a.jpg", "ACME SDN BHD", 0.9), seller("b.jpg", "ACME SDN BHD", 0.9),
      seller("c.jpg", "ACNE SDN BHD", 0.9), seller("d.jpg", "ACNE SDN BHD", 0.9)};
  CHECK_FALSE(near(two, "ACXE SDN BHD"));
  CHECK(near(two, "ACME SDM BHD") == "ACME SDN BHD");
}

namespace {

// An OCR page of a tax invoice whose payer's address the engine marked at weight 0, as it marks a
// payer's (ocr/engine_calibrate.cpp), at confidence `read`.
Record payer(const std::string& file, const std::string& address, double read) {
  Record r = page(file, "ACME SDN BHD", "ACME SDN BHD", 0.9);
  r.agreement->clear();  // the payer's alone
  (*r.fields)["DOCUMENT_TYPE"] = "TAX INVOICE";
  (*r.fields)["PAYER_ADDRESS"] = address;
  (*r.confidence)["PAYER_ADDRESS"] = read;
  (*r.agreement)["PAYER_ADDRESS"] = {
      docsift::ocr::words_key(address), 0.0, read, false, std::nullopt, std::nullopt, std::nullopt};
  return r;
}

}  // namespace

TEST_CASE("Pages that disagree: a value one page alone read with other digits is queued as such") {
  const std::vector<Record> before = {payer("a.png", "7 Elizabeth Street, Hobart TAS 7000", 0.95),
                                      payer("b.png", "7 Elizabeth Street, Hobart TAS 7000", 0.95),
                                      payer("c.png", "7 Elizabeth Street, Hobart TAS 7006", 0.98),
                                      payer("d.png", "7 Elizabeth Stret, Hobart TAS 7000", 0.97)};
  const PageCounts counts = counted(before);
  CHECK(counts.spelling_apart("PAYER_ADDRESS", "7 ELIZABETH STREET HOBART TAS 7006") ==
        "7 Elizabeth Street, Hobart TAS 7000");
  // c.png: over its threshold, and still queued, its value and confidence as the page read them.
  const std::optional<Record> c = agreed(before[2], counts, review(), schema(), true);
  REQUIRE(c);
  CHECK(c->fields->at("PAYER_ADDRESS") == "7 Elizabeth Street, Hobart TAS 7006");
  CHECK(c->confidence->at("PAYER_ADDRESS") == 0.98);
  CHECK(c->agreement->at("PAYER_ADDRESS").disputed == "7 Elizabeth Street, Hobart TAS 7000");
  CHECK_FALSE(c->agreement->at("PAYER_ADDRESS").agreed);
  REQUIRE(queued(*c, "PAYER_ADDRESS"));
  CHECK(c->review_reasons->at("PAYER_ADDRESS") == "pages disagree");
  // review.csv's check cell (its quotes doubled, as CSV writes them) says what they read.
  CHECK(docsift::batch::review_rows(*c).find(
            R"(other pages read ""7 Elizabeth Street, Hobart TAS 7000"")") != std::string::npos);
  // d.png: the same digits, a letter misread: a payer's is not respelled (weight 0: no fit measured
  // it), but disputed by the spelling a seller's would have taken.
  const std::optional<Record> d = agreed(before[3], counts, review(), schema(), true);
  REQUIRE(d);
  CHECK(d->fields->at("PAYER_ADDRESS") == "7 Elizabeth Stret, Hobart TAS 7000");
  CHECK(d->confidence->at("PAYER_ADDRESS") == 0.97);
  CHECK(d->agreement->at("PAYER_ADDRESS").disputed == "7 Elizabeth Street, Hobart TAS 7000");
  CHECK(d->review_reasons->at("PAYER_ADDRESS") == "pages disagree");
  // a.png: read alike by two pages, a payer's: not agreed (no record to write), nor disputed.
  CHECK_FALSE(agreed(before[0], counts, review(), schema(), true));

  // The journal keeps it; a disputed that is not a string is refused.
  journal_keeps(*c, "PAYER_ADDRESS", "disputed");

  // Counted again as the pass left them, in either order: nothing more to write.
  const std::vector<Record> after = pass(before, true);
  settled(after, true);

  // Another page read 7006 too: the two read it alike, and neither is disputed.
  std::vector<Record> twice = after;
  twice.push_back(payer("e.png", "7 Elizabeth Street, Hobart TAS 7006", 0.98));
  const std::optional<Record> own = agreed(twice[2], counted(twice), review(), schema(), true);
  REQUIRE(own);
  CHECK_FALSE(own->agreement->at("PAYER_ADDRESS").disputed);
  CHECK_FALSE(queued(*own, "PAYER_ADDRESS"));

  // The pages it was disputed by read again as another address: no longer disputed.
  std::vector<Record> moved = after;
  moved[0] = payer("a.png", "88 Collins Street, Melbourne VIC 3000", 0.95);
  moved[1] = payer("b.png", "88 Collins Street, Melbourne VIC 3000", 0.95);
  const std::optional<Record> freed = agreed(moved[2], counted(moved), review(), schema(), true);
  REQUIRE(freed);
  CHECK_FALSE(freed->agreement->at("PAYER_ADDRESS").disputed);
  CHECK_FALSE(queued(*freed, "PAYER_ADDRESS"));

  // A value a person corrected is disputed by nothing, and queued for nothing the pages say.
  Record corrected = after[2];
  corrected.corrections.emplace();
  (*corrected.corrections)["PAYER_ADDRESS"] = {"7 Elizabeth Street, Hobart TAS 7006",
                                               "2026-12-04T10:00:00Z"};
  CHECK(docsift::journal::page_doubts(corrected).pages_off.empty());
  CHECK(docsift::journal::page_doubts(after[2]).pages_off ==
        std::set<std::string>{"PAYER_ADDRESS"});
}

TEST_CASE(
    "Pages that disagree: other digits only within one edit per 8, the nearest, a seller too") {
  const auto apart = [](std::vector<Record> pages, const std::string& name) {
    pages.push_back(seller("z.jpg", name, 0.95));
    return counted(pages).spelling_apart("SUPPLIER", docsift::ocr::words_key(name));
  };
  const std::vector<Record> shop = {seller("a.jpg", "GERBANG ALAF RESTAURANTS SDN BHD", 0.9),
                                    seller("b.jpg", "GERBANG ALAF RESTAURANTS SDN BHD", 0.9)};
  // A speck read as a digit before the name.
  CHECK(apart(shop, "2 Gerbang Alaf Restaurants Sdn Bhd") == "GERBANG ALAF RESTAURANTS SDN BHD");
  CHECK_FALSE(apart(shop, "Gerbang Alaf Restaurant Sdn Bhd"));  // the same digits: spelling_near's
  // 28 letters and digits allow 3 edits; this is 4 off.
  CHECK_FALSE(apart(shop, "22 Gerbang Alaf Restaurantz Sdn Bhd 7"));
  CHECK_FALSE(apart({shop[0]}, "2 Gerbang Alaf Restaurants Sdn Bhd"));  // one page is no spelling
  // Equally near two spellings: disputed all the same, by the first in byte order.
  const std::vector<Record> two = {
      seller("a.jpg", "NO 12 JALAN X", 0.9), seller("b.jpg", "NO 12 JALAN X", 0.9),
      seller("c.jpg", "NO 14 JALAN X", 0.9), seller("d.jpg", "NO 14 JALAN X", 0.9)};
  CHECK(apart(two, "NO 13 JALAN X") == "NO 12 JALAN X");

  // The seller's: disputed and queued, where spelling would have written a near one in.
  std::vector<Record> pages = shop;
  pages.push_back(seller("c.jpg", "2 Gerbang Alaf Restaurants Sdn Bhd", 0.95));
  const std::optional<Record> c = agreed(pages[2], counted(pages), review(), schema(), true);
  REQUIRE(c);
  CHECK(c->fields->at("SUPPLIER") == "2 Gerbang Alaf Restaurants Sdn Bhd");
  CHECK(c->review_reasons->at("SUPPLIER") == "pages disagree");
}

namespace {

// A seller as the engine marks it on a page that printed its registration number `number`.
Record registered(const std::string& file, const std::string& name, const std::string& number,
                  double read) {
  Record r = seller(file, name, read);
  r.agreement->at("SUPPLIER").registration = number;
  return r;
}

}  // namespace

TEST_CASE("A name read in part: the pages that print its registration number complete it") {
  const std::vector<Record> before = {registered("a.jpg", "99 SPEED MART S/B", "519537", 0.9),
                                      registered("b.jpg", "99 SPEED MART S/B", "519537", 0.9),
                                      registered("c.jpg", "99 SPEED MART 5/B", "519537", 0.9),
                                      registered("d.jpg", "99 SPEED", "519537", 0.6)};
  const PageCounts counts = counted(before);
  CHECK(counts.spelling_completed("SUPPLIER", "519537", "99 SPEED") == "99 SPEED MART S/B");
  // Too far from the whole name to be a misreading of it: spelling_near has none.
  CHECK_FALSE(counts.spelling_near("SUPPLIER", "99 SPEED"));
  CHECK_FALSE(agreed(before[3], counts, review(), schema(), false));  // ocr.batch_spelling: false
  const std::optional<Record> d = agreed(before[3], counts, review(), schema(), true);
  REQUIRE(d);
  CHECK(d->fields->at("SUPPLIER") == "99 SPEED MART S/B");
  const auto& a = d->agreement->at("SUPPLIER");
  CHECK(a.agreed);
  CHECK(a.read_value == "99 SPEED");  // the page's own, kept, and its key
  CHECK(a.key == "99 SPEED");
  CHECK(d->confidence->at("SUPPLIER") == doctest::Approx(sigmoid(logit(0.6) + 1.25)));
  journal_keeps(*d, "SUPPLIER", "registration");
  // Queued (a reviewer's threshold over its confidence), review.csv's check cell says that the run
  // completed the page's own reading, not that it respelled it.
  Record shown = *d;
  shown.review = std::vector<std::string>{"SUPPLIER"};
  const std::string row = docsift::batch::review_rows(shown);
  CHECK(row.find(R"(this page read ""99 SPEED""; completed as the pages printing its registration)"
                 R"( number read it)") != std::string::npos);
  CHECK(row.find("respelled") == std::string::npos);
  // Completed: more letters and digits that hold the page's, spaces aside; the same ones respelled.
  CHECK(docsift::batch::holds_in_part("99 SPEED MART S B", "99 SPEED"));
  CHECK(docsift::batch::holds_in_part("99 SPEED MART S B", "SPEEDMART"));
  CHECK_FALSE(docsift::batch::holds_in_part("99 SPEED", "99SPEED"));
  CHECK_FALSE(docsift::batch::holds_in_part("99 SPEED MART S B", "99 SPEEDY"));
  CHECK_FALSE(docsift::batch::holds_in_part("99 SPEED MART S B", ""));
  const std::vector<Record> after = pass(before, true);
  CHECK(after[3].fields->at("SUPPLIER") == "99 SPEED MART S/B");
  settled(after, true);

  const auto completed = [](std::vector<Record> pages, const std::string& name,
                            const std::string& number) {
    pages.push_back(registered("z.jpg", name, number, 0.6));
    return counted(pages).spelling_completed("SUPPLIER", number, docsift::ocr::words_key(name));
  };
  const std::vector<Record> shop(before.begin(), before.begin() + 3);
  // Letters and digits, spaces and punctuation aside, anywhere in the whole name.
  CHECK(completed(shop, "SPEED MART", "519537") == "99 SPEED MART S/B");
  CHECK(completed(shop, "99SPEED", "519537") == "99 SPEED MART S/B");
  // Another number, another name, or no more than the page's own: nothing to complete.
  CHECK_FALSE(completed(shop, "99 SPEED", "534506"));
  CHECK_FALSE(completed(shop, "GOLDEN ARCHES", "519537"));
  CHECK_FALSE(completed(shop, "99 SPEED MART S/B", "519537"));
  // One other page is no agreement; two names as many pages each: the count cannot say which.
  CHECK_FALSE(completed({shop[0]}, "99 SPEED", "519537"));
  const std::vector<Record> two = {shop[0], shop[1],
                                   registered("e.jpg", "99 SPEEDY SHOP", "519537", 0.9),
                                   registered("f.jpg", "99 SPEEDY SHOP", "519537", 0.9)};
  CHECK_FALSE(completed(two, "99 SPEED", "519537"));
  // A page that printed no number is not completed by theirs.
  std::vector<Record> unnumbered = shop;
  unnumbered.push_back(seller("z.jpg", "99 SPEED", 0.6));
  CHECK_FALSE(agreed(unnumbered[3], counted(unnumbered), review(), schema(), true));
}

namespace {

// A page whose date the engine marked by its year (ocr/engine_calibrate.cpp), at weight 0.
Record dated(const std::string& file, const std::string& date, double read) {
  Record r = page(file, "ACME SDN BHD", "ACME SDN BHD", 0.9);
  r.agreement->clear();  // the date's alone
  (*r.fields)["INVOICE_DATE"] = date;
  (*r.confidence)["INVOICE_DATE"] = read;
  (*r.agreement)["INVOICE_DATE"] = {date.substr(6), 0.0,          read,        false,
                                    std::nullopt,   std::nullopt, std::nullopt};
  return r;
}

// A page's file name, `n`.png (appended, not concatenated: GCC 12 warns falsely of the latter).
std::string png(int n) {
  std::string name = std::to_string(n);
  name.append(".png");
  return name;
}

// `n` pages dated in 2017 and 2018, then `more`.
std::vector<Record> batch(int n, const std::vector<Record>& more) {
  static const char* const kDates[] = {"12/03/2017", "02/05/2018", "03/05/2018"};
  std::vector<Record> out;
  for (int i = 0; i < n; ++i) out.push_back(dated(png(i), kDates[i % 3], 0.95));
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

}  // namespace

TEST_CASE(
    "A year apart from the run's: one page alone read it, outside the span the dates lie in") {
  // Nine pages of 2017 and 2018 and one of 2013 (a misread 8): the 2013 is disputed and queued,
  // its value and confidence the page's own.
  const std::vector<Record> before = batch(9, {dated("x.png", "15/03/2013", 0.99)});
  const PageCounts counts = counted(before);
  CHECK(counts.years_apart("INVOICE_DATE", "2013") == "2017 to 2018");
  const std::optional<Record> x = agreed(before.back(), counts, review(), schema(), true);
  REQUIRE(x);
  CHECK(x->fields->at("INVOICE_DATE") == "15/03/2013");
  CHECK(x->confidence->at("INVOICE_DATE") == 0.99);
  CHECK(x->agreement->at("INVOICE_DATE").disputed == "2017 to 2018");
  CHECK_FALSE(x->agreement->at("INVOICE_DATE").agreed);
  REQUIRE(queued(*x, "INVOICE_DATE"));
  CHECK(x->review_reasons->at("INVOICE_DATE") == "pages disagree");
  CHECK(docsift::batch::review_rows(*x).find(R"(other pages read ""2017 to 2018"")") !=
        std::string::npos);
  // Pages of a year read alike neither agree (weight 0: nothing to write) nor are disputed.
  CHECK_FALSE(agreed(before.front(), counts, review(), schema(), true));
  journal_keeps(*x, "INVOICE_DATE", "disputed");
  settled(pass(before, true), true);
  // Corrected, it is disputed by nothing.
  Record corrected = *x;
  corrected.corrections.emplace();
  (*corrected.corrections)["INVOICE_DATE"] = {"15/03/2013", "2026-12-08T00:00:00Z"};
  CHECK(docsift::journal::page_doubts(corrected).pages_off.empty());
  CHECK(docsift::journal::page_doubts(*x).pages_off == std::set<std::string>{"INVOICE_DATE"});
}

TEST_CASE("A year apart from the run's: not where too few pages, two pages, or the span say so") {
  // Eight pages and the one: with one page outside the span, 9 in 10 needs 10 dated pages.
  const std::vector<Record> few = batch(8, {dated("x.png", "15/03/2013", 0.99)});
  CHECK_FALSE(counted(few).years_apart("INVOICE_DATE", "2013"));
  CHECK_FALSE(agreed(few.back(), counted(few), review(), schema(), true));
  // Two pages read 2013: a year two pages read is no misread digit (20 of the 22 in the span hold
  // the share: only the two pages keep it from being apart).
  const std::vector<Record> two =
      batch(20, {dated("x.png", "15/03/2013", 0.99), dated("y.png", "16/03/2013", 0.99)});
  CHECK_FALSE(counted(two).years_apart("INVOICE_DATE", "2013"));
  // A year one page alone read inside the span (2016 beside 2017 and 2018) is not apart.
  const std::vector<Record> inside = batch(9, {dated("x.png", "15/03/2016", 0.99)});
  CHECK(counted(inside).years_apart("INVOICE_DATE", "2016") == std::nullopt);
  // Invoices of many years (no span of three holds 9 in 10 of them): none is apart.
  std::vector<Record> years;
  for (int y = 2013; y <= 2024; ++y)
    years.push_back(dated(png(y), std::string("01/02/").append(std::to_string(y)), 0.95));
  const PageCounts spread = counted(years);
  for (int y = 2013; y <= 2024; ++y)
    CHECK_FALSE(spread.years_apart("INVOICE_DATE", std::to_string(y)));
  // 9 in 10 of the dated pages in the span: 17 of 20 are not (three pages alone of 2011 to 2013
  // lie outside), 27 of 30 are.
  std::vector<Record> share = batch(17, {});
  for (const char* d : {"01/01/2011", "01/01/2012", "01/01/2013"})
    share.push_back(dated(png(std::stoi(d + 6)), d, 0.9));
  CHECK_FALSE(counted(share).years_apart("INVOICE_DATE", "2011"));
  for (int i = 100; i < 110; ++i) share.push_back(dated(png(i), "02/05/2018", 0.9));
  CHECK(counted(share).years_apart("INVOICE_DATE", "2011") == "2017 to 2018");
}
