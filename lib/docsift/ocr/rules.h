// The OCR engine's field rules: a page's lines → the schema's fields, by labels and position, with
// the data in configs/fields/ocr-rules.yaml (compiled in as builtin:ocr-rules). No OCR here: the
// input is a laid-out page (page.h), so every rule is tested on pages made from strings.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/finder.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/table.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

struct LabelRule {
  std::string field;  // a schema field, or one of the total's helpers ("_NOT_TOTAL", "_TENDERED",
                      // "_CHANGE")
  std::string kind;   // abn, date, period, amount, bsb, account, phone, email, name, text; "none"
                      // for _NOT_TOTAL
  std::vector<std::string> labels;  // lower case (values.h: lowercase)
  std::vector<int> strength;        // per label, for TOTAL: 3 strong, 2 plain, 1 weak; else 0
};

// How to choose TOTAL (ocr-rules.yaml's `total:` says why).
struct TotalRules {
  std::vector<std::string> tax_summary, rounding;
};

struct Rules {
  std::vector<std::pair<std::string, std::vector<std::string>>>
      document_types;  // type → heading words
  std::vector<LabelRule> fields;
  TotalRules total;
  std::vector<std::string> company_forms, not_supplier, address_words, regions;
  // The words of address_words, regions and home.cities of three letters or more, lower case,
  // once: the words repair_address puts a misread one right to.
  std::vector<std::string> address_vocabulary;
  std::vector<std::string> address_labels;  // "Address:" leading an address line in, lower case
  // Words that, right after a party's name label, make it part of another phrase ("Customer
  // Service", "Customer Copy"): the label then names no one.
  std::vector<std::string> party_label_phrases;
  // Words of trade that sellers' names carry (hardware, stationery, bakery, …), lower case: a word
  // of a name one OCR edit away from exactly one of them is read as it (repair_name).
  std::vector<std::string> business_words;
  // A table's header words per column (table.h), in ocr-rules.yaml's order.
  TableWords table;
  // The header words of `column` (empty when the rules name none).
  const std::vector<std::string>& table_words(Column column) const;
  std::vector<std::string> banks;
  // What shows a page to be Australian (ocr-rules.yaml's `home`, lower case): the country named,
  // a state or territory before a four-digit postcode, a web or e-mail domain, a company form; and
  // its cities, whose names repair_address puts right (optional: empty without).
  struct Home {
    std::string country;  // "" when the rules name none
    std::vector<std::string> regions, domains, company_forms, cities;
  } home;
  Lexicon lexicon;
  // The trained field finder's weights (finder.h): builtin:ocr-finder unless the engine loads
  // ocr.finder's file over it.
  FinderModel finder;
};

// How numeric dates are read: day first, month first, or decided per page from the dates that can
// only be read one way (day first when none can).
enum class DateOrderRule { Dmy, Mdy, Auto };

// A seller's name as OCR read it, with two kinds of misreading undone: a digit among the capitals
// of dotted initials ("D.1.Y." → "D.I.Y."; 0, 1, 5, 8 → O, I, S, B), and a word of six letters or
// more one edit away from exactly one of `rules.business_words` ("HARDUARE" → "HARDWARE"), written
// in the word's own case, and two of those words of six letters or more read as one
// ("SYARIKATPERNIAGAAN" → "SYARIKAT PERNIAGAAN").
std::string repair_name(const std::string& name, const Rules& rules);

// A seller's address as OCR read it, with each word that can only be one of the address words the
// rules know (address_words, the words of regions) put right: a word of six letters or more one
// edit from it, not a plural's s ("Selangot" → "Selangor", "PERINIDUSTRIAN" → "PERINDUSTRIAN");
// a shorter one the same length, one letter different, the two letters ones OCR takes for each
// other (h and m, n and m, i and l, …), and in a word of three or four letters neither the first
// nor the last ("TAHAN" → "TAMAN", "Jin" → "Jln", "THN" → "TMN"; "Hall" stays: a street's own
// word as often as a misread Mall). A word alone (no digit glued to it), written in its own case;
// one that could be either of two stays as read.
std::string repair_address(const std::string& address, const Rules& rules);

// `source`: "builtin:ocr-rules" or a YAML file in that layout. Throws docsift::ConfigError naming
// the source and the problem (an unknown kind, a field listed twice, an empty label list).
Rules load_rules(const std::string& source);

// What the rules knew about one field's value: the evidence its calibrated confidence is computed
// from (calibration.h, docs/confidence.md). Filled by extract_fields; the `second_*` members by the
// engine, which alone knows whether a page was read twice.
struct Evidence {
  // Tesseract's confidences (0-100) of the value's words: the words of its line piece that carry
  // its digits (an amount, a date, an id) or all of them (a name, an address). 100 from a PDF's
  // text layer.
  double word_min = 100, word_mean = 100;
  bool labelled = false;  // read beside one of its labels (not by position, checksum or a fallback)
  bool label_fuzzy = false;  // that label matched only with one edit ("T0TAL")
  bool sums_agree =
      false;  // TOTAL: a printed sum agrees (tendered - change, subtotal + tax, rounding)
  bool repaired =
      false;  // a misread was undone: a total's digit, a date's digit or year, a name's word
  int candidates =
      1;  // values that competed for the field (TOTAL's amounts, unlabelled dates, sellers' lines)
  // The winner's score over the best other value's, 0 when alone: for TOTAL the field finder's
  // probability over the best other amount's, in thousandths (finder.h); else the rules' points.
  double margin = 0;
  bool exact = false;  // a PDF's text layer: no OCR misread
  bool repeated =
      false;           // an amount or a date printed on another line of the page too ("CASH 11.80")
  bool legal = false;  // a name with a company form ("Sdn Bhd", "GmbH"): a seller's, as a rule
  bool known =
      false;  // SUPPLIER: a name of ocr.known_sellers (as read, or written as the list spells it)
  bool listed = false;         // SUPPLIER: the run had a list of known sellers (known_names.h)
  bool second_read = false;    // the page was read twice (engine.h)
  bool second_agreed = false;  // ... and both readings gave this value
  bool second_taken = false;   // ... and the value is the second reading's (filled or surer)
  bool reader_read =
      false;  // its box was read again by the second recognizer (ocr.recognizer: both)
  bool reader_agreed = false;  // ... which read the same value (cross_read.h)
  bool reader_taken = false;   // ... which read another, and the value is now that one
  // ... the second reading's mean probability per character, and how far the value (as finally
  // taken) still is from it: edits between their letters and digits (the reading may run on past
  // the value) per letter of the value (cross_read.h: reading_gap).
  double reader_mean = 0, reader_gap = 0;
  // The page's own checks (page_checks.h): a sum, a check digit, a date order, a count of items
  // that ties this value to others passed, or failed.
  bool vouched = false, contradicted = false;
  bool cut = false;    // an address that stops short of its whole (rule_text.h: address_cut)
  bool ended = false;  // an address read to where it ends (rule_text.h: address_ended)
  // SUPPLIER, BUSINESS_ADDRESS: another page of the run read the same value (batch/agreement.h).
  // No page knows this of itself: false as the engine reads it; the run adds the feature's weight
  // (Calibration::agreement_weight) once it has counted the pages.
  bool agreed = false;
  // The seller's address: lines under the seller's passed over before its first line (its
  // registration number aside). An address that starts late has often missed its first lines:
  // "27, Jalan Sultan Ismail" under a "Menara Dion #02-03, Level 2" that OCR read "Lavel".
  int lines_skipped = 0;
  // DOCUMENT_TYPE: told by the page's figures (a total and what was paid for it, no balance: a
  // receipt), no heading read. Not a feature of the calibration: the engine keeps the fields of
  // other types on such a page (engine.h, keep_type_fields).
  bool inferred = false;
  // A field left N/A (absence_of, page_checks.h): one of its labels was read on the page, or a run
  // of characters shaped like its value (an ABN's 11 digits) that did not pass as one; the page is
  // from abroad (names a country or region other than Australia, or prints its amounts in another
  // currency than dollars), where an Australian Business Number is not printed, or shows itself
  // Australian (Rules::home).
  bool label_seen = false, shape_seen = false, abroad = false, home = false;
  Box box;  // the value's words, in page pixels (as read: deskewed, turned)
  // A name read over lines ("POPULAR BOOK" above "CO. (M) SDN BHD"): each line's piece, top to
  // bottom, in the same pixels; empty when the value is one line's (then `box` is its piece).
  std::vector<Box> parts;
};

// Words OCR read doubtfully, for a second recognizer to read again (engine.h: ocr.recognizer
// both): line.words[first..last] of page.lines[line], read for `field` (TOTAL: a payment line's
// amount; INVOICE_DATE: a word shaped like a date on a page where no date was found).
struct WordRun {
  std::size_t line = 0;
  std::size_t first = 0, last = 0;
  std::string field;
};

// A row of the page's table (table.h) as the field finder read it: each cell as its list field
// writes it (a quantity's digits, an amount as format_amount writes it, a date as printed), absent
// where the row printed none; `box` holds the row's words, in the page as read.
struct LineItem {
  std::string description;
  std::optional<std::string> quantity, unit_price, amount, date, debit, credit, balance;
  Box box;
  // The row's own evidence (docs/confidence.md, "Rows"): its words' confidences, and the checks
  // that tie it to the page (check_rows: its quantity × unit price, its running balance, the
  // table's sum); `probability`, calibrated from it by the calibration's `row` model.
  Evidence evidence;
  std::optional<double> probability;
  bool from_balances = false;  // its amount read off the running balances: no figure was read
  // The word its PRICES entry was read from, in the page's pixels (page_checks.h:
  // mark_price_words), for the second recognizer; none where PRICES is not one cell of every row,
  // or no one word holds it.
  std::optional<Box> price_box{};
};

struct Extraction {
  std::map<std::string, std::string> fields;  // every name asked for; "N/A" when not found
  // What the checks found: "sum" (subtotal + GST = total: true, false, or null when one is
  // missing), and "abn_by_checksum" when the ABN had no label.
  nlohmann::json checks = nlohmann::json::object();
  std::string text;  // the page's lines, one per line: the record's raw_response
  // Per field found, the mean confidence (Tesseract's 0-100) of the words of the line piece it was
  // read from: how sure OCR was of what the value was read from. 100 for a PDF's text layer.
  std::map<std::string, double> confidence;
  std::map<std::string, Evidence> evidence;  // per field found
  std::vector<WordRun> doubtful;             // top to bottom
  // The amounts the page's printed figures sum to (subtotal + tax, tax rows, the rounded bill, what
  // was paid where change was given), whether or not a total was found: Engine::Result::sums, which
  // cross_read.h's settle weighs a second reading of the total against. Not a tendered figure with
  // no change: a total read from it would vouch for itself.
  std::vector<long long> sums;
  // Per field the trained finder ranks (finder.h): every candidate, its features and probability.
  std::map<std::string, std::vector<Ranked>> candidates;
  // The table's rows, top to bottom: DESCRIPTIONS, QUANTITIES and PRICES are read from them.
  std::vector<LineItem> items;
  // The seller's registration number as the page prints it at its top, digits alone; empty where
  // none (page_facts.h: PageFacts::registration).
  std::string registration;
};

Extraction extract_fields(const Page& page, const Rules& rules,
                          const std::vector<std::string>& field_names,
                          DateOrderRule date_order = DateOrderRule::Auto);

// Where a label occurs in `lowered` (text through values.h's lowercase) as whole words, exactly, or
// with one edit in each of its words of 5 letters or more (OCR's "T0TAL", "SUBTOTAI"): {begin, end}
// byte ranges.
std::vector<std::pair<std::size_t, std::size_t>> find_label(const std::string& lowered,
                                                            const std::string& label,
                                                            bool fuzzy = true);

}  // namespace docsift::ocr
