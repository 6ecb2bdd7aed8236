// The review queue's rule (extract/review_queue.h), review.csv's check (journal/page_arithmetic.h),
// the page's own checks that feed the OCR
// confidences (ocr/page_checks.h) and a calibration's per-field shifts (ocr/calibration.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/extract/addresses.h"
#include "docsift/extract/review_queue.h"
#include "docsift/extract/schema.h"
#include "docsift/journal/page_arithmetic.h"
#include "docsift/ocr/calibration.h"
#include "docsift/ocr/engine.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/settings.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>

namespace {

using docsift::extract::ReviewReason;
using Fields = std::map<std::string, std::string>;
using Confidences = std::map<std::string, double>;

const docsift::extract::FieldSchema& schema() {
  static const auto s =
      docsift::extract::load_field_schema(std::string(docsift::extract::kBuiltinSchema));
  return s;
}

const docsift::ocr::Rules& rules() {
  static const auto r = docsift::ocr::load_rules("builtin:ocr-rules");
  return r;
}

const docsift::extract::ReviewThresholds everywhere{0.9, {}};

// field → reason, in the queue's order.
std::vector<std::pair<std::string, std::string>> queue_of(const Fields& f, const Confidences& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& q : docsift::extract::review_queue(schema(), f, c, everywhere)) {
    out.emplace_back(q.field, std::string(to_string(q.reason)));
  }
  return out;
}

// A page's words, one line per string, 40 px apart, each word 10 px a character with a space
// between.
std::vector<docsift::ocr::Word> words_of(const std::vector<std::string>& lines) {
  std::vector<docsift::ocr::Word> words;
  int y = 20;
  for (const auto& line : lines) {
    int x = 20;
    std::size_t from = 0;
    while (from < line.size()) {
      const std::size_t to = std::min(line.find(' ', from), line.size());
      const std::string w = line.substr(from, to - from);
      words.push_back({w, {x, y, x + 10 * static_cast<int>(w.size()), y + 20}, 91.0f});
      x += 10 * static_cast<int>(w.size()) + 10;
      from = to + 1;
    }
    y += 40;
  }
  return words;
}

}  // namespace

TEST_CASE(
    "review queue: a required field that is N/A is queued as missing, first, on the types that "
    "require it") {
  const Fields invoice{{"DOCUMENT_TYPE", "TAX INVOICE"},
                       {"TOTAL", "N/A"},
                       {"ABN", "51 824 753 556"},
                       {"GST", "$1.00"}};
  const Confidences sure{{"DOCUMENT_TYPE", 0.99}, {"ABN", 0.99}, {"GST", 0.5}};
  const auto q = queue_of(invoice, sure);
  REQUIRE(q.size() == 2);
  CHECK(q[0] == std::pair<std::string, std::string>{"TOTAL", "missing"});
  CHECK(q[1] == std::pair<std::string, std::string>{"GST", "low confidence"});
  // A statement does not require TOTAL or ABN (applies_to), and a page of no type requires nothing.
  CHECK(queue_of({{"DOCUMENT_TYPE", "BANK STATEMENT"}}, {{"DOCUMENT_TYPE", 0.99}}).empty());
  CHECK(queue_of({{"TOTAL", "N/A"}}, {}).empty());
}

TEST_CASE(
    "review queue: a required N/A the engine judged absent from the page is not missing at its "
    "threshold, and is queued under it") {
  const Fields receipt{{"DOCUMENT_TYPE", "RECEIPT"}, {"TOTAL", "$9.00"}, {"ABN", "N/A"}};
  // The confidence on an N/A is the engine's that the page prints none (ocr/calibration.h).
  CHECK(queue_of(receipt, {{"DOCUMENT_TYPE", 0.99}, {"TOTAL", 0.99}, {"ABN", 0.95}}).empty());
  const auto doubtful = docsift::extract::review_queue(
      schema(), receipt, {{"DOCUMENT_TYPE", 0.99}, {"TOTAL", 0.99}, {"ABN", 0.4}}, everywhere);
  REQUIRE(doubtful.size() == 1);
  CHECK(doubtful[0].field == "ABN");
  CHECK(doubtful[0].reason == ReviewReason::kMissing);
  CHECK(doubtful[0].confidence == 0.4);
  // Without a threshold (eval given none) a judged N/A is still missing.
  CHECK(docsift::extract::review_queue(
            schema(), receipt, {{"DOCUMENT_TYPE", 0.99}, {"TOTAL", 0.99}, {"ABN", 0.95}}, {})
            .size() == 1);
}

TEST_CASE(
    "OCR absence evidence: a field's label or a run shaped like its value, read anywhere on the "
    "page") {
  using docsift::ocr::absence_of;
  const auto page = [](const std::vector<std::string>& lines) {
    return docsift::ocr::layout_page(words_of(lines), 600,
                                     40 * static_cast<int>(lines.size()) + 60);
  };
  // A Malaysian receipt: a GST registration of 12 digits and a phone number, no ABN; its address
  // in Selangor, its amounts in ringgit: from abroad.
  const auto abroad =
      absence_of(page({"KEDAI RUNCIT SDN BHD", "JALAN 3, 47100 SELANGOR", "GST ID: 001234567890",
                       "TEL 03-12345678", "TOTAL RM 12.50"}),
                 rules(), "ABN");
  CHECK_FALSE(abroad.label_seen);
  CHECK_FALSE(abroad.shape_seen);
  CHECK(abroad.abroad);
  CHECK_FALSE(abroad.home);
  CHECK(absence_of(page({"TOTAL RM 12.50", "CASH RM 20.00"}), rules(), "ABN").abroad);
  // An Australian receipt whose ABN was misread (its check digits fail): both seen, not abroad.
  const auto misread = absence_of(
      page({"CORNER STORE PTY LTD", "ABN 51 824 753 557", "TOTAL $12.50"}), rules(), "ABN");
  CHECK(misread.label_seen);
  CHECK(misread.shape_seen);
  CHECK_FALSE(misread.abroad);
  CHECK(misread.home);  // Pty Ltd
  CHECK(absence_of(page({"7 Elizabeth Street, Hobart TAS 7000"}), rules(), "ABN").home);
  CHECK(absence_of(page({"www.kookaburra.com.au"}), rules(), "ABN").home);
  CHECK_FALSE(absence_of(page({"TAS 70001", "the act of 2000 pages"}), rules(), "ABN").home);
  // Stops and commas may stand between the state and its postcode; letters may not.
  CHECK(absence_of(page({"Sydney, Nsw., 2000"}), rules(), "ABN").home);
  CHECK_FALSE(absence_of(page({"QLD4000", "NSWX 2000"}), rules(), "ABN").home);
  // 11 digits with no label: an ABN's shape alone; and what a page's edge leaves of a printed one:
  // the label's last two words, the start of its grouping.
  const auto bare = absence_of(page({"Ref 12345678901"}), rules(), "ABN");
  CHECK_FALSE(bare.label_seen);
  CHECK(bare.shape_seen);
  const auto cut = absence_of(page({"stralian Business Number: 42 920 319 2"}), rules(), "ABN");
  CHECK(cut.label_seen);
  CHECK(cut.shape_seen);
  // Another kind's shape is a value its parser reads: an amount for TOTAL.
  CHECK(absence_of(page({"CASH 12.50"}), rules(), "TOTAL").shape_seen);
  // A field with no label rule shows nothing.
  const auto none = absence_of(page({"ABN 51 824 753 556"}), rules(), "DESCRIPTIONS");
  CHECK_FALSE(none.label_seen);
  CHECK_FALSE(none.shape_seen);
}

TEST_CASE(
    "OCR engine: an ABN left N/A gets the shipped absence model's probability, high on a page "
    "from abroad, low on an Australian page that prints a label") {
  docsift::ocr::Engine engine{docsift::ocr::Settings{}};
  const std::vector<std::string> fields = {"DOCUMENT_TYPE", "ABN", "TOTAL"};
  const auto read = [&](const std::vector<std::string>& lines) {
    return engine.read_words(words_of(lines), 600, 40 * static_cast<int>(lines.size()) + 60,
                             fields);
  };
  const auto abroad = read({"KEDAI RUNCIT SDN BHD", "JALAN 3, 47100 SELANGOR", "RECEIPT",
                            "TOTAL RM 12.50", "CASH RM 20.00"});
  REQUIRE(abroad.fields.at("ABN") == "N/A");
  REQUIRE(abroad.probability.count("ABN"));
  CHECK(abroad.probability.at("ABN") > 0.9);
  const auto home = read({"CORNER STORE PTY LTD", "Brisbane QLD 4000", "TAX INVOICE",
                          "ABN 51 824 753 557", "TOTAL $12.50"});  // its check digits fail
  REQUIRE(home.fields.at("ABN") == "N/A");
  REQUIRE(home.probability.count("ABN"));
  CHECK(home.probability.at("ABN") < 0.2);
  // A value read has its own confidence, and a TOTAL left N/A none (no absence model).
  CHECK(abroad.fields.at("TOTAL") != "N/A");
  const auto bare = read({"KEDAI RUNCIT SDN BHD", "RECEIPT"});
  CHECK(bare.fields.at("TOTAL") == "N/A");
  CHECK_FALSE(bare.probability.count("TOTAL"));
}

TEST_CASE(
    "OCR engine: a value read for a field the page's type does not have is left N/A, with no "
    "confidence, and kept in info's not_of_type, and without applies_to every field stays") {
  const std::vector<std::string> fields = schema().names();
  // A statement whose holder is labelled as a customer and whose first row carries a date.
  const std::vector<std::string> lines = {"NAB",
                                          "Statement of account",
                                          "Customer: Liam O'Connor",
                                          "BSB: 999 584",
                                          "Statement period: 01/02/2025 to 28/02/2025",
                                          "Opening balance: $6,297.64",
                                          "Date: 09/02/2025 Fuel $351.95 $6,649.59",
                                          "Closing balance: $6,649.59"};
  const int height = 40 * static_cast<int>(lines.size()) + 60;
  docsift::ocr::Engine plain{docsift::ocr::Settings{}};
  const auto all = plain.read_words(words_of(lines), 700, height, fields);
  REQUIRE(all.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  // The rules read them: without the schema's applies_to the engine keeps them.
  REQUIRE(all.fields.at("INVOICE_DATE") != "N/A");
  REQUIRE(all.fields.at("PAYER_NAME") != "N/A");
  docsift::ocr::Engine typed{docsift::ocr::Settings{}, nullptr,
                             [](const std::string& field, const std::string& type) {
                               const auto* f = schema().find(field);
                               return f == nullptr || f->applies(type);
                             }};
  const auto kept = typed.read_words(words_of(lines), 700, height, fields);
  for (const char* field : {"INVOICE_DATE", "PAYER_NAME"}) {
    CAPTURE(field);
    CHECK(kept.fields.at(field) == "N/A");
    CHECK_FALSE(kept.probability.count(field));
    CHECK(kept.info.at("not_of_type").at(field) == all.fields.at(field));
  }
  // The statement's own fields are untouched.
  for (const char* field : {"STATEMENT_PERIOD", "OPENING_BALANCE", "CLOSING_BALANCE", "BSB_NUMBER"})
    CHECK(kept.fields.at(field) == all.fields.at(field));
  CHECK(kept.probability.count("CLOSING_BALANCE"));
  // A page with no type keeps every field: nothing says which type's fields it has.
  const std::vector<std::string> untyped = {"CORNER STORE", "Date: 09/02/2025", "Total: $12.50"};
  const auto bare = typed.read_words(words_of(untyped), 700, 180, fields);
  REQUIRE(bare.fields.at("DOCUMENT_TYPE") == "N/A");
  CHECK(bare.fields.at("INVOICE_DATE") != "N/A");
  CHECK_FALSE(bare.info.contains("not_of_type"));
}

TEST_CASE(
    "review queue: a payer's name, address or phone that is the seller's queues both, however "
    "sure, letters and digits alone compared") {
  Fields f{{"DOCUMENT_TYPE", "TAX INVOICE"},
           {"ABN", "51 824 753 556"},
           {"TOTAL", "$11.00"},
           {"SUPPLIER", "Harbour Office Supplies"},
           {"BUSINESS_ADDRESS", "44 Rundle Mall, Adelaide SA 5000"},
           {"BUSINESS_PHONE", "(07) 2227 1007"},
           {"PAYER_NAME", "Liam O'Connor"},
           {"PAYER_ADDRESS", "88 Collins Street, Melbourne VIC 3000"},
           {"PAYER_PHONE", "(07) 3061 8665"}};
  Confidences c;
  for (const auto& [k, v] : f) c[k] = 0.99;
  CHECK(queue_of(f, c).empty());
  CHECK(docsift::extract::parties_clash(schema(), f).empty());
  f["PAYER_ADDRESS"] = "44 rundle mall adelaide SA 5000.";
  f["PAYER_PHONE"] = "(07) 2227 1007";
  const auto q = queue_of(f, c);
  const std::map<std::string, std::string> why(q.begin(), q.end());
  CHECK(why == std::map<std::string, std::string>{{"PAYER_ADDRESS", "parties clash"},
                                                  {"BUSINESS_ADDRESS", "parties clash"},
                                                  {"PAYER_PHONE", "parties clash"},
                                                  {"BUSINESS_PHONE", "parties clash"}});
  // A payer named as the seller is named; one side N/A clashes with nothing.
  f = Fields{{"DOCUMENT_TYPE", "RECEIPT"},
             {"SUPPLIER", "KEDAI RUNCIT"},
             {"PAYER_NAME", "Kedai Runcit"},
             {"PAYER_PHONE", "03 1234 5678"},
             {"BUSINESS_PHONE", "N/A"}};
  CHECK(docsift::extract::parties_clash(schema(), f) ==
        std::set<std::string>{"PAYER_NAME", "SUPPLIER"});
  // A statement has no seller: an address read as a business's there is the holder's own.
  f = Fields{{"DOCUMENT_TYPE", "BANK STATEMENT"},
             {"PAYER_ADDRESS", "7 Elizabeth Street, Hobart TAS 7000"},
             {"BUSINESS_ADDRESS", "7 Elizabeth Street, Hobart TAS 7000"}};
  CHECK(docsift::extract::parties_clash(schema(), f).empty());
}

TEST_CASE(
    "review queue: dates that contradict each other are queued, however sure, in any date order") {
  using docsift::extract::dates_disagree;
  Fields f{{"DOCUMENT_TYPE", "TAX INVOICE"},
           {"ABN", "51 824 753 556"},
           {"TOTAL", "$11.00"},
           {"INVOICE_DATE", "03/04/2025"},
           {"DUE_DATE", "02/05/2025"}};
  Confidences c;
  for (const auto& [k, v] : f) c[k] = 0.99;
  CHECK(queue_of(f, c).empty());
  // Due months before issued is printed so on samples/' invoices: no contradiction. Years before
  // is a misread year, and either date may be the misread one.
  f["DUE_DATE"] = "02/03/2025";
  CHECK(queue_of(f, c).empty());
  f["DUE_DATE"] = "02/03/2020";
  CHECK(queue_of(f, c) == std::vector<std::pair<std::string, std::string>>{
                              {"INVOICE_DATE", "dates disagree"}, {"DUE_DATE", "dates disagree"}});
  // Over a year after it, read day first or month first: a misread year.
  f["DUE_DATE"] = "03/05/2027";
  CHECK(dates_disagree(schema(), f) == std::set<std::string>{"INVOICE_DATE", "DUE_DATE"});
  // Read day first, 23 months apart; month first, 42 days: nothing says which order a value is in.
  f["INVOICE_DATE"] = "12/01/2025";
  f["DUE_DATE"] = "01/12/2026";
  CHECK(dates_disagree(schema(), f).empty());
  // Other forms of date; and a value that is no date contradicts nothing.
  f["INVOICE_DATE"] = "3 April 2025";
  f["DUE_DATE"] = "2023-03-02";
  CHECK(dates_disagree(schema(), f) == std::set<std::string>{"INVOICE_DATE", "DUE_DATE"});
  f["DUE_DATE"] = "on receipt";
  CHECK(dates_disagree(schema(), f).empty());

  // A statement period that ends before it starts (a misread year), or spans more than a year.
  Fields s{{"DOCUMENT_TYPE", "BANK STATEMENT"}, {"STATEMENT_PERIOD", "01/04/2025 to 28/04/2025"}};
  Confidences sure{{"DOCUMENT_TYPE", 0.99}, {"STATEMENT_PERIOD", 0.99}};
  CHECK(queue_of(s, sure).empty());
  s["STATEMENT_PERIOD"] = "01/04/2025 to 28/04/2020";
  CHECK(queue_of(s, sure) ==
        std::vector<std::pair<std::string, std::string>>{{"STATEMENT_PERIOD", "dates disagree"}});
  s["STATEMENT_PERIOD"] = "01/04/2025 to 28/04/2027";
  CHECK(dates_disagree(schema(), s) == std::set<std::string>{"STATEMENT_PERIOD"});
  s["STATEMENT_PERIOD"] = "01/01/2025 to 31/12/2025";  // a whole year is a statement's
  CHECK(dates_disagree(schema(), s).empty());
  // Fields not of the page's type say nothing: a statement's due date is not read against it.
  s["INVOICE_DATE"] = "03/04/2025";
  s["DUE_DATE"] = "02/03/2020";
  CHECK(dates_disagree(schema(), s).empty());
}

TEST_CASE(
    "review queue: an ABN, website or email address that cannot be one is queued, however sure") {
  using docsift::extract::email_well_formed;
  using docsift::extract::is_top_level_domain;
  using docsift::extract::malformed_values;
  using docsift::extract::website_well_formed;
  CHECK(is_top_level_domain("au"));
  CHECK(is_top_level_domain("com"));
  CHECK(is_top_level_domain("my"));
  CHECK_FALSE(is_top_level_domain("du"));  // "au" misread
  CHECK_FALSE(is_top_level_domain("u"));
  CHECK_FALSE(is_top_level_domain("com.au"));  // a label, not a suffix
  CHECK(website_well_formed("www.redgum.com.au"));
  CHECK(website_well_formed("HTTPS://Shop.Example.COM/contact?x=1"));
  CHECK(website_well_formed("http://www.aubonmoulin.fr"));
  CHECK(website_well_formed("example.de:8080/a"));
  CHECK(website_well_formed("bücher.de"));
  CHECK_FALSE(website_well_formed("www.redgum.com.du"));
  CHECK_FALSE(website_well_formed("www.blue.com.u"));
  CHECK_FALSE(website_well_formed("www.coastal.com.au-"));
  CHECK_FALSE(website_well_formed("https://m.facebook"));  // cut before its domain
  CHECK_FALSE(website_well_formed("www..com.au"));
  CHECK_FALSE(website_well_formed("www.red gum.com.au"));
  CHECK_FALSE(website_well_formed("au"));
  CHECK(email_well_formed("aisha.rahman@example.com.au"));
  CHECK_FALSE(email_well_formed("aisha.rahman@example.com.du"));
  // A generic second level misread under a country's code; a name registered under the code stays.
  CHECK_FALSE(email_well_formed("mei.chen@example.coim.au"));
  CHECK_FALSE(website_well_formed("www.example.c0m.au"));
  CHECK(website_well_formed("www.con.au"));
  CHECK(email_well_formed("jo@con.au"));
  CHECK(website_well_formed("www.bbc.co.uk"));
  CHECK(email_well_formed("jo@shop.example.com.my"));
  CHECK_FALSE(email_well_formed("aisha rahman@example.com.au"));
  CHECK_FALSE(email_well_formed("aisha@rahman@example.com.au"));
  CHECK_FALSE(email_well_formed("@example.com.au"));
  CHECK_FALSE(email_well_formed("aisha.rahman.example.com.au"));

  Fields f{{"DOCUMENT_TYPE", "RECEIPT"},
           {"ABN", "51 824 753 556"},
           {"TOTAL", "$11.00"},
           {"SUPPLIER_WEBSITE", "www.redgum.com.au"},
           {"PAYER_EMAIL", "mei.chen@example.com.au"}};
  Confidences c;
  for (const auto& [k, v] : f) c[k] = 0.99;
  CHECK(queue_of(f, c).empty());
  f["SUPPLIER_WEBSITE"] = "www.redgum.com.du";
  f["PAYER_EMAIL"] = "mei.chen@example";
  CHECK(queue_of(f, c) == std::vector<std::pair<std::string, std::string>>{
                              {"PAYER_EMAIL", "malformed"}, {"SUPPLIER_WEBSITE", "malformed"}});
  // An ABN whose check digits fail, in any layout of its groups; one that passes, in any.
  f["SUPPLIER_WEBSITE"] = "www.redgum.com.au";
  f["PAYER_EMAIL"] = "mei.chen@example.com.au";
  f["ABN"] = "51 824 753 557";
  CHECK(queue_of(f, c) == std::vector<std::pair<std::string, std::string>>{{"ABN", "malformed"}});
  f["ABN"] = "5182475355";  // ten digits
  CHECK(malformed_values(schema(), f) == std::set<std::string>{"ABN"});
  f["ABN"] = "51-824-753-556";
  CHECK(malformed_values(schema(), f).empty());
  f["SUPPLIER_WEBSITE"] = "www.redgum.com.du";
  // Not of the page's type, or N/A: nothing to check.
  f["DOCUMENT_TYPE"] = "BANK STATEMENT";
  CHECK(malformed_values(schema(), f).empty());
  f = Fields{{"SUPPLIER_WEBSITE", "N/A"}};
  CHECK(malformed_values(schema(), f).empty());
}

TEST_CASE(
    "review queue: a host that lost its stop or reads a digit for a letter, an address with a sign "
    "no address prints, and descriptions holding an amount or a count read as a letter are "
    "malformed") {
  using docsift::extract::email_well_formed;
  using docsift::extract::malformed_values;
  using docsift::extract::postal_address_well_formed;
  using docsift::extract::website_well_formed;
  // The stop before a generic label the country's code takes; names that merely end so stay.
  CHECK_FALSE(website_well_formed("www.harbourcom.au"));
  CHECK_FALSE(email_well_formed("accounts@harbournet.au"));
  CHECK(website_well_formed("www.harbour.com.au"));
  CHECK(website_well_formed("www.telecom.com"));  // com.com is no public suffix
  CHECK(website_well_formed("www.con.au"));
  // OCR's 0 and 1 for o and l inside a word; digits of a name's own stay.
  CHECK_FALSE(email_well_formed("aisha.rahman@examp1e.com.au"));
  CHECK_FALSE(website_well_formed("www.g0ogle.com"));
  CHECK(website_well_formed("www.web2print.com.au"));
  CHECK(website_well_formed("www.a1b.com"));
  CHECK(website_well_formed("www.shop101.com.au"));
  // A sign no address prints, where OCR read a speck or a digit.
  CHECK(postal_address_well_formed("7 Elizabeth Street, Hobart TAS 7000"));
  CHECK(postal_address_well_formed("No. 2 & 4, Jalan 7/118B (Lot 3), 56000 Kuala Lumpur."));
  CHECK(postal_address_well_formed("Level 2\u20133, 12 O\u2019Connell Street, Sydney NSW 2000"));
  CHECK(postal_address_well_formed("12 Rue de l'\u00c9glise, 75001 Paris"));
  CHECK_FALSE(postal_address_well_formed("7 Elizabeth Street, Hobart TAS 700\u00a2"));
  CHECK_FALSE(postal_address_well_formed("No.4\u00a2, Jalan Ginar, 40150 Shah Alam DE.\u20ac."));
  CHECK_FALSE(postal_address_well_formed("JALAN $SS6/5A, 47301 PETALING JAYA"));
  CHECK_FALSE(postal_address_well_formed("NO 18, JALAN BUNGA 2/12, ? 40000 SHAH ALAM"));
  CHECK_FALSE(postal_address_well_formed("176 JLN SUNGEI BESI \u00a757100 KUALA LUMPUR"));
  CHECK_FALSE(postal_address_well_formed("Level G2, ~ Solaris Dutamas, 50480 Kuala Lumpur"));
  CHECK_FALSE(postal_address_well_formed("12 Main St\xff"));  // not UTF-8
  Fields f{{"BUSINESS_ADDRESS", "7 Elizabeth Street, Hobart TAS 7000"},
           {"PAYER_ADDRESS", "7 Elizabeth Street, Hobart TAS 7000"},
           {"DESCRIPTIONS", "Toner cartridge | Coffee beans 1kg | Flyers x500 | Milk 2L"}};
  CHECK(malformed_values(schema(), f).empty());
  f["PAYER_ADDRESS"] = "7 Elizabeth Street, Hobart TAS 700\u00a2";
  f["DESCRIPTIONS"] = "Toner cartridge | Coffee beans lkg";
  CHECK(malformed_values(schema(), f) == std::set<std::string>{"DESCRIPTIONS", "PAYER_ADDRESS"});
  f["PAYER_ADDRESS"] = "7 Elizabeth Street, Hobart TAS 7000";
  for (const char* bad : {"Coffee beans 1lkg", "Coffee beans Ikg | Stapler",
                          "Coles -$508:47 Rent payment | Woolworths", "Refund $12:50"}) {
    CAPTURE(bad);
    f["DESCRIPTIONS"] = bad;
    CHECK(malformed_values(schema(), f) == std::set<std::string>{"DESCRIPTIONS"});
  }
  for (const char* good : {"LG monitor 24in", "Oil 1l | Flour 5kg", "Cable 3m", "Fee (incl. GST)",
                           "SR 100100000035- 1 Meat 3 Vege $7.10 | Add Vegetable $0.50"}) {
    CAPTURE(good);
    f["DESCRIPTIONS"] = good;
    CHECK(malformed_values(schema(), f).empty());
  }
  // A party's name that is the start of an address the page read: taken from the address's line.
  f["DESCRIPTIONS"] = "Stapler";
  f["SUPPLIER"] = "7 Elizabeth Street, Hobart TAS";
  f["PAYER_NAME"] = "Jordan Smith";
  CHECK(malformed_values(schema(), f) == std::set<std::string>{"SUPPLIER"});
  f["SUPPLIER"] = "Jordan Smith";
  f["PAYER_NAME"] = "7 Elizabeth St";  // under 60 % of the address
  CHECK(malformed_values(schema(), f).empty());
  f["PAYER_NAME"] = "Elizabeth Street Hobart";  // no digit: a name that begins like a street
  f["PAYER_ADDRESS"] = "Elizabeth Street Hobart Pty Ltd";
  CHECK(malformed_values(schema(), f).empty());
  f["PAYER_NAME"] = "a";  // a speck read after its label
  CHECK(malformed_values(schema(), f) == std::set<std::string>{"PAYER_NAME"});
  f["PAYER_NAME"] = "Li";
  CHECK(malformed_values(schema(), f).empty());
  // Letters, not bytes: one accented letter is one letter; two are a name.
  f["PAYER_NAME"] = "\u00c9";  // É
  CHECK(malformed_values(schema(), f) == std::set<std::string>{"PAYER_NAME"});
  f["PAYER_NAME"] = "\u00c9\u00e9";
  CHECK(malformed_values(schema(), f).empty());
  f["PAYER_NAME"] = "\u4e2d\u6587";  // 中文: letters of the category Lo
  CHECK(malformed_values(schema(), f).empty());
}

TEST_CASE(
    "review queue: sums and list counts that disagree queue the values they tie, however sure") {
  Fields f{{"DOCUMENT_TYPE", "TAX INVOICE"},
           {"ABN", "51 824 753 556"},
           {"SUBTOTAL", "$10.00"},
           {"GST", "$1.00"},
           {"TOTAL", "$11.00"},
           {"QUANTITIES", "1 | 2"},
           {"PRICES", "$4.00 | $3.00"},
           {"DESCRIPTIONS", "a | b"}};
  Confidences c;
  for (const auto& [k, v] : f) c[k] = 0.99;
  CHECK(queue_of(f, c).empty());
  f["TOTAL"] = "$11.50";
  f["DESCRIPTIONS"] = "a | b | c";
  const auto q = queue_of(f, c);
  std::map<std::string, std::string> why(q.begin(), q.end());
  CHECK(why.size() == 6);
  CHECK(why["TOTAL"] == "sums disagree");
  CHECK(why["SUBTOTAL"] == "sums disagree");
  CHECK(why["GST"] == "sums disagree");
  CHECK(why["QUANTITIES"] == "counts disagree");
  CHECK(why["DESCRIPTIONS"] == "counts disagree");
  // Cash rounding (to 5 cents: 2 cents either way) is not a disagreement; 3 cents is.
  f["DESCRIPTIONS"] = "a | b";
  for (const char* total : {"$11.01", "$10.98", "$11.02"}) {
    f["TOTAL"] = total;
    CHECK_MESSAGE(queue_of(f, c).empty(), total);
  }
  f["TOTAL"] = "$11.03";
  CHECK(queue_of(f, c).size() == 3);
  // A subtotal printed with the tax in it, the total rounded: nothing contradicted. A "GST" that is
  // more than a fifth of the total (the total read twice) is.
  f = Fields{{"DOCUMENT_TYPE", "RECEIPT"},
             {"ABN", "51 824 753 556"},
             {"SUBTOTAL", "RM 88.97"},
             {"GST", "RM 5.04"},
             {"TOTAL", "RM 88.95"}};
  c.clear();
  for (const auto& [k, v] : f) c[k] = 0.99;
  CHECK(queue_of(f, c).empty());
  CHECK_FALSE(docsift::extract::sums_disagree(f));
  f["GST"] = "RM 58.00";
  CHECK(docsift::extract::sums_disagree(f));
  CHECK(queue_of(f, c).size() == 3);
}

TEST_CASE("review queue: a TOTAL at review.sums_total is accepted over sums that disagree") {
  const Fields f{{"DOCUMENT_TYPE", "RECEIPT"},
                 {"ABN", "51 824 753 556"},
                 {"SUBTOTAL", "RM 10.00"},
                 {"GST", "RM 1.00"},
                 {"TOTAL", "RM 11.50"}};
  Confidences c;
  for (const auto& [k, v] : f) c[k] = 0.99;
  docsift::extract::ReviewThresholds t{0.5, {}};
  const auto why = [&] {
    std::map<std::string, std::string> out;
    for (const auto& q : docsift::extract::review_queue(schema(), f, c, t))
      out[q.field] = std::string(to_string(q.reason));
    return out;
  };
  // Without the bar (1, the type's default), every TOTAL whose sums disagree is queued, one at a
  // confidence of 1 too.
  CHECK(why() == std::map<std::string, std::string>{{"GST", "sums disagree"},
                                                    {"SUBTOTAL", "sums disagree"},
                                                    {"TOTAL", "sums disagree"}});
  c["TOTAL"] = 1.0;
  CHECK(why().at("TOTAL") == "sums disagree");
  c["TOTAL"] = 0.99;
  // At the bar TOTAL is accepted and its sums still queue the other two; under it, queued.
  t.sums_total = 0.99;
  CHECK(why() == std::map<std::string, std::string>{{"GST", "sums disagree"},
                                                    {"SUBTOTAL", "sums disagree"}});
  c["TOTAL"] = 0.98;
  CHECK(why().at("TOTAL") == "sums disagree");
  // Over the bar, TOTAL is held to its own threshold as any value is.
  t.sums_total = 0.97;
  t.fields["TOTAL"] = 0.985;
  CHECK(why().at("TOTAL") == "low confidence");
}

TEST_CASE(
    "review queue: rising confidence, a value without a confidence first, no threshold queues "
    "nothing for it") {
  const Fields f{{"DOCUMENT_TYPE", "RECEIPT"},
                 {"ABN", "51 824 753 556"},
                 {"TOTAL", "$5.00"},
                 {"SUPPLIER", "ACME"},
                 {"PAYER_NAME", "Jo"}};
  const Confidences c{{"DOCUMENT_TYPE", 0.95}, {"ABN", 0.2}, {"TOTAL", 0.5}, {"PAYER_NAME", 0.3}};
  const auto q = queue_of(f, c);
  REQUIRE(q.size() == 4);
  CHECK(q[0] == std::pair<std::string, std::string>{"SUPPLIER", "no confidence"});
  CHECK(q[1].first == "ABN");
  CHECK(q[2].first == "PAYER_NAME");
  CHECK(q[3].first == "TOTAL");
  const auto none = docsift::extract::review_queue(schema(), f, c, {});
  REQUIRE(none.size() == 1);  // only the value without a confidence
  CHECK(none[0].reason == ReviewReason::kNoConfidence);
}

TEST_CASE(
    "page checks: sums, tax rate, line items, ABN check digits, date order, type and e-mail vouch "
    "or contradict") {
  using docsift::ocr::Evidence;
  Fields f{{"DOCUMENT_TYPE", "TAX INVOICE"},
           {"SUBTOTAL", "$10.00"},
           {"GST", "$1.00"},
           {"TOTAL", "$11.00"},
           {"QUANTITIES", "2 | 1"},
           {"PRICES", "$3.00 | $4.00"},
           {"DESCRIPTIONS", "a | b"},
           {"ABN", "51 824 753 556"},
           {"INVOICE_DATE", "01/02/2025"},
           {"DUE_DATE", "15/02/2025"},
           {"PAYER_EMAIL", "jo@example.com"},
           {"PAYER_NAME", "Jo"}};
  std::map<std::string, Evidence> e;
  for (const auto& [k, v] : f) e[k] = Evidence{};
  docsift::ocr::check_page(f, e, rules());
  for (const auto& [k, v] : e) {
    CAPTURE(k);
    CHECK_FALSE(v.contradicted);
    CHECK(v.vouched == (k != "PAYER_NAME"));  // no check ties a payer's name to anything
  }
  f["ABN"] = "51 824 753 557";
  f["DUE_DATE"] = "15/01/2025";
  f["TOTAL"] = "$12.00";
  f["PAYER_EMAIL"] = "jo at example";
  f["PAYER_ADDRESS"] = "12 George Street, Sydney NSW 2000 Acct 37701471";
  e["PAYER_ADDRESS"] = Evidence{};
  f["DOCUMENT_TYPE"] = "BANK STATEMENT";
  f["SUPPLIER"] = "jo";
  e["SUPPLIER"] = Evidence{};
  for (auto& [k, v] : e) v = Evidence{};
  docsift::ocr::check_page(f, e, rules());
  for (const std::string k : {"ABN", "DUE_DATE", "INVOICE_DATE", "TOTAL", "GST", "PAYER_EMAIL",
                              "DOCUMENT_TYPE", "PAYER_ADDRESS"}) {
    CAPTURE(k);
    CHECK(e[k].contradicted);
  }
  CHECK_FALSE(e["PAYER_NAME"].contradicted);  // a statement has no seller to compare the payer with
  CHECK(e["QUANTITIES"].vouched);             // 2 × 3 + 1 × 4 is still the subtotal
  CHECK(e["SUBTOTAL"].contradicted);          // SUBTOTAL + GST is no longer TOTAL
  f["DOCUMENT_TYPE"] = "TAX INVOICE";
  for (auto& [k, v] : e) v = Evidence{};
  docsift::ocr::check_page(f, e, rules());
  CHECK(e["PAYER_NAME"].contradicted);  // the payer's name read as the seller's: both doubted
  CHECK(e["SUPPLIER"].contradicted);
}

TEST_CASE(
    "calibration: a field's own offset shifts its kind's intercept, and a bad entry is refused at "
    "its place") {
  docsift::testing::TempDir dir;
  const auto write = [&](const std::string& text) {
    std::ofstream(dir / "c.yaml") << text;
    return (dir / "c.yaml").string();
  };
  const std::string kinds = "kinds:\n  text: {intercept: 0.0, weights: {vouched: 1.0}}\n";
  const auto c = docsift::ocr::load_calibration(
      write(kinds + "fields:\n  SUPPLIER: {kind: text, offset: 2.0}\n  PAYER_NAME: text\n"));
  docsift::ocr::Evidence e;
  CHECK(c.probability("PAYER_NAME", e) == doctest::Approx(0.5));
  CHECK(c.probability("SUPPLIER", e) == doctest::Approx(1.0 / (1.0 + std::exp(-2.0))));
  e.vouched = true;
  CHECK(c.probability("SUPPLIER", e) == doctest::Approx(1.0 / (1.0 + std::exp(-3.0))));
  CHECK_THROWS_WITH_AS(docsift::ocr::load_calibration(
                           write(kinds + "fields:\n  SUPPLIER: {kind: text, offst: 2}\n")),
                       doctest::Contains("c.yaml:4:33: fields.SUPPLIER.offst: unknown key"),
                       docsift::ConfigError);
  CHECK_THROWS_WITH_AS(docsift::ocr::load_calibration(
                           write(kinds + "fields:\n  SUPPLIER: {kind: text, offset: nan}\n")),
                       doctest::Contains("fields.SUPPLIER.offset: expected a finite number"),
                       docsift::ConfigError);
  CHECK_THROWS_WITH_AS(
      docsift::ocr::load_calibration(write(kinds + "fields:\n  SUPPLIER: {offset: 1}\n")),
      doctest::Contains("fields.SUPPLIER: has no kind"), docsift::ConfigError);
}

TEST_CASE(
    "review.csv's check says what the page's arithmetic says against a value, with the "
    "difference, and nothing where it agrees") {
  using docsift::journal::disagreement_about;
  using docsift::journal::page_disagreements;
  docsift::journal::Record r;
  r.fields = Fields{{"SUBTOTAL", "$100.00"}, {"GST", "$10.00"}, {"TOTAL", "$111.00"}};
  r.engine = nlohmann::json::parse(R"({"checks": {"balance": false, "balance_off": "-2.49",
      "table": {"rows": 5, "sum": "3,524.00", "against": "TOTAL", "difference": "-4721.42",
                "products": {"checked": 5, "off": 2}}}})");
  const auto all = page_disagreements(r);
  CHECK(disagreement_about(all, "GST") == "SUBTOTAL + GST is 1.00 under TOTAL");
  CHECK(disagreement_about(all, "TOTAL") ==
        "SUBTOTAL + GST is 1.00 under TOTAL; the rows' amounts sum to 3,524.00, 4,721.42 under "
        "TOTAL");
  // A sum under its figure speaks against every list of the rows (a row missed).
  CHECK(disagreement_about(all, "QUANTITIES") ==
        "the rows' amounts sum to 3,524.00, 4,721.42 under TOTAL; quantity × unit price is not the "
        "amount on 2 of 5 rows");
  CHECK(disagreement_about(all, "DESCRIPTIONS") ==
        "the rows' amounts sum to 3,524.00, 4,721.42 under TOTAL; opening balance + transactions "
        "is 2.49 under the closing balance");
  CHECK(disagreement_about(all, "OPENING_BALANCE") ==
        "opening balance + transactions is 2.49 under the closing balance");
  CHECK(disagreement_about(all, "CLOSING_BALANCE") == disagreement_about(all, "OPENING_BALANCE"));
  CHECK(disagreement_about(all, "ABN").empty());
  // Agreement (to the cent's rounding) says nothing; nor does a record without checks.
  r.fields = Fields{{"SUBTOTAL", "100.00"}, {"GST", "10.00"}, {"TOTAL", "110.01"}};
  r.engine = nlohmann::json::parse(R"({"checks": {"balance": "sum",
      "table": {"rows": 2, "sum": "110.00", "against": "SUBTOTAL", "difference": "0.01",
                "products": {"checked": 2, "off": 0}}}})");
  CHECK(page_disagreements(r).empty());
  CHECK(docsift::journal::table_agreements(r) ==
        std::vector<std::string>{
            "the rows' amounts sum to the page's SUBTOTAL",
            "quantity × unit price is the amount on every row that prints all three",
            "opening balance + transactions = closing balance"});
  // A journal edited by hand: checks of the wrong types say nothing and throw nothing.
  r.engine = nlohmann::json::parse(R"({"checks": {"balance": "no", "balance_off": 3,
      "table": {"sum": 1, "against": [], "difference": {}, "products": {"checked": "5",
                "off": "2"}}}})");
  CHECK(page_disagreements(r).empty());
  CHECK(docsift::journal::table_agreements(r).empty());
  r.engine = nullptr;
  r.fields.reset();
  CHECK(page_disagreements(r).empty());
}

TEST_CASE(
    "review queue: a table that does not add up queues its lists, however sure, and eval's "
    "reading of a journal predicts it") {
  docsift::journal::Record r;
  r.fields = Fields{
      {"DOCUMENT_TYPE", "TAX INVOICE"}, {"ABN", "51 824 753 556"},   {"TOTAL", "$11.00"},
      {"QUANTITIES", "1 | 2"},          {"PRICES", "$4.00 | $3.50"}, {"DESCRIPTIONS", "a | b"}};
  Confidences c;
  for (const auto& [k, v] : *r.fields) c[k] = 0.99;
  // The rows sum to 11.00 against a TOTAL of 11.00, and each quantity × unit price is its amount.
  r.engine = nlohmann::json::parse(R"({"checks": {
      "table": {"rows": 2, "sum": "11.00", "against": "TOTAL", "difference": "0.00",
                "products": {"checked": 2, "off": 0}}}})");
  CHECK(docsift::journal::table_disagreement_fields(r).empty());
  CHECK(docsift::extract::review_queue(schema(), *r.fields, c, everywhere,
                                       docsift::journal::page_doubts(r))
            .empty());
  // A row's product off, the rows 0.50 under TOTAL: the three lists go to a person, not TOTAL,
  // which the rows' sum does not tell wrong from a row missed.
  r.engine = nlohmann::json::parse(R"({"checks": {
      "table": {"rows": 2, "sum": "10.50", "against": "TOTAL", "difference": "-0.50",
                "products": {"checked": 2, "off": 1}}}})");
  const auto off = docsift::journal::table_disagreement_fields(r);
  CHECK(off == std::set<std::string>{"DESCRIPTIONS", "PRICES", "QUANTITIES", "TOTAL"});
  // Each value queued, and why.
  const auto why = [&] {
    std::map<std::string, std::string> out;
    for (const auto& q : docsift::extract::review_queue(schema(), *r.fields, c, everywhere,
                                                        docsift::journal::page_doubts(r)))
      out[q.field] = std::string(to_string(q.reason));
    return out;
  };
  const std::map<std::string, std::string> lists_queued{{"DESCRIPTIONS", "rows disagree"},
                                                        {"PRICES", "rows disagree"},
                                                        {"QUANTITIES", "rows disagree"}};
  CHECK(why() == lists_queued);
  // Rows whose products make the sum (no amount to check a product by): a sum that misses speaks
  // against the quantities and prices it is made of, not the descriptions alone; a journal written
  // before `made_of` names the descriptions alone, and a hand-edited one nothing else.
  r.engine = nlohmann::json::parse(R"({"checks": {
      "table": {"rows": 2, "sum": "110.00", "against": "TOTAL", "difference": "99.00",
                "made_of": ["QUANTITIES", "PRICES"]}}})");
  CHECK(docsift::journal::table_disagreement_fields(r) ==
        std::set<std::string>{"DESCRIPTIONS", "PRICES", "QUANTITIES", "TOTAL"});
  r.engine["checks"]["table"].erase("made_of");
  CHECK(docsift::journal::table_disagreement_fields(r) ==
        std::set<std::string>{"DESCRIPTIONS", "TOTAL"});
  r.engine["checks"]["table"]["made_of"] = nlohmann::json::array({"ABN", 3, "PRICES"});
  CHECK(docsift::journal::table_disagreement_fields(r) ==
        std::set<std::string>{"DESCRIPTIONS", "PRICES", "TOTAL"});
  // A sum under its figure may have missed a row, which the quantities and prices miss too,
  // whatever the sum is made of (the rows' amounts, a column of their own).
  r.engine["checks"]["table"]["difference"] = "-21.19";
  r.engine["checks"]["table"]["made_of"] = nlohmann::json::array();
  CHECK(docsift::journal::table_disagreement_fields(r) ==
        std::set<std::string>{"DESCRIPTIONS", "PRICES", "QUANTITIES", "TOTAL"});
  // A receipt's rows that add up to no figure printed under them and do not each check: every
  // list of them is queued, however sure, though their one row's amount is the TOTAL read.
  r.engine = nlohmann::json::parse(R"({"checks": {"rows_unchecked": true,
      "table": {"rows": 1, "sum": "11.00", "against": "TOTAL", "difference": "0.00",
                "made_of": ["PRICES"]}}})");
  CHECK(docsift::journal::table_disagreement_fields(r) ==
        std::set<std::string>{"DESCRIPTIONS", "PRICES", "QUANTITIES"});
  CHECK(why() == lists_queued);
  // Nor does the report say that they agree with the TOTAL (the page's checks take no word of
  // theirs).
  CHECK(docsift::journal::table_agreements(r).empty());
  r.engine["checks"]["rows_unchecked"] = false;
  CHECK(docsift::journal::table_disagreement_fields(r).empty());
  CHECK(docsift::journal::table_agreements(r) ==
        std::vector<std::string>{"the rows' amounts sum to the page's TOTAL"});
  // A statement whose balances do not add up queues its transactions and both balances, however
  // sure: any of them may be the misread one.
  r.fields = Fields{{"DOCUMENT_TYPE", "BANK STATEMENT"},
                    {"OPENING_BALANCE", "$100.00"},
                    {"CLOSING_BALANCE", "$90.00"},
                    {"DESCRIPTIONS", "fee | interest"}};
  c.clear();
  for (const auto& [k, v] : *r.fields) c[k] = 0.99;
  r.engine = nlohmann::json::parse(R"({"checks": {"balance": false, "balance_off": "-2.49"}})");
  const auto statement = docsift::extract::review_queue(schema(), *r.fields, c, everywhere,
                                                        docsift::journal::page_doubts(r));
  std::map<std::string, std::string> held;
  for (const auto& q : statement) held[q.field] = std::string(to_string(q.reason));
  CHECK(held == std::map<std::string, std::string>{{"CLOSING_BALANCE", "rows disagree"},
                                                   {"DESCRIPTIONS", "rows disagree"},
                                                   {"OPENING_BALANCE", "rows disagree"}});
  r.engine = nlohmann::json::parse(R"({"checks": {"balance": "sum"}})");
  CHECK(docsift::journal::table_disagreement_fields(r).empty());
  // Its rows against a TOTAL read on it (a "Line total" heading's figure) say nothing while its
  // balances add up; they do when the balances do not either.
  r.engine = nlohmann::json::parse(R"({"checks": {"balance": "running",
      "table": {"rows": 2, "sum": "10.50", "against": "TOTAL", "difference": "-0.50"}}})");
  CHECK(docsift::journal::table_disagreement_fields(r).empty());
  r.engine["checks"]["balance"] = false;  // (a sum under: the rows' lists too, where it has them)
  CHECK(docsift::journal::table_disagreement_fields(r) ==
        std::set<std::string>{"CLOSING_BALANCE", "DESCRIPTIONS", "OPENING_BALANCE", "PRICES",
                              "QUANTITIES", "TOTAL"});
}

TEST_CASE(
    "review queue: the payer's name and the name its email address spells, read one or two letters "
    "apart, are both queued") {
  using docsift::extract::names_disagree;
  Fields f{{"DOCUMENT_TYPE", "TAX INVOICE"},
           {"ABN", "51 824 753 556"},
           {"TOTAL", "$11.00"},
           {"PAYER_NAME", "Jordan Smith"},
           {"PAYER_EMAIL", "jordan.smith@example.com.au"}};
  Confidences c;
  for (const auto& [k, v] : f) c[k] = 0.99;
  // The same name, by a stop or none; another spelling altogether says nothing.
  for (const char* same :
       {"jordan.smith@example.com.au", "JordanSmith@example.com.au", "accounts@example.com.au",
        "j.smith@example.com.au", "jordan_smith@example.com.au", "jordan-smith77@example.com.au",
        "jordan.smith+invoices@example.com.au"}) {
    CAPTURE(std::string(same));
    f["PAYER_EMAIL"] = same;
    CHECK(queue_of(f, c).empty());
  }
  // A title or an initial the email's name leaves out.
  for (const char* same : {"Dr Jordan K. Smith", "Mr Jordan Smith"}) {
    CAPTURE(std::string(same));
    f["PAYER_NAME"] = same;
    f["PAYER_EMAIL"] = "jordan.smith@example.com.au";
    CHECK(queue_of(f, c).empty());
  }
  f["PAYER_NAME"] = "Jordan Smith";
  // As the generated pages read them (docs/confidence.md, "The review queue").
  const std::vector<std::pair<std::string, std::string>> both{{"PAYER_NAME", "names disagree"},
                                                              {"PAYER_EMAIL", "names disagree"}};
  f["PAYER_EMAIL"] = "jjordan.smith@example.com.au";
  CHECK(queue_of(f, c) == both);
  f["PAYER_EMAIL"] = "jordan.smith@example.com.au";
  f["PAYER_NAME"] = "Jordan Sinith";
  CHECK(queue_of(f, c) == both);
  f["PAYER_NAME"] = "Liam 0' Connor";
  f["PAYER_EMAIL"] = "lliam.oconnor@example.com.au";
  CHECK(queue_of(f, c) == both);
  // A name too short to tell a misreading from another name; a page of another type.
  f["PAYER_NAME"] = "Jo Li";
  f["PAYER_EMAIL"] = "jo.lim@example.com.au";
  CHECK(names_disagree(schema(), f).empty());
  f["PAYER_NAME"] = "Jordan Sinith";
  f["PAYER_EMAIL"] = "jordan.smith@example.com.au";
  f["DOCUMENT_TYPE"] = "BANK STATEMENT";
  CHECK(names_disagree(schema(), f).empty());
}
