// The OCR rules' steps over one page (ocr/ only), run in order: each a const function of the page's
// facts (PageFacts) and of what the steps before it found, returning what it finds (a Finding, or
// a typed result of its own), which the steps' table (find_steps.cpp) alone writes (docs/ocr.md,
// "Rules"). Members by concern: find_steps.cpp (order), find_fields.cpp (labels, evidence),
// find_totals*.cpp, find_dates.cpp, find_parties.cpp (ABN, seller, payer, bank), find_seller.cpp
// (the seller's name), find_address.cpp (its address), find_domains.cpp (names in web, email
// addresses), find_items.cpp (line items), find_transactions.cpp (statements).
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/finder.h"
#include "docsift/ocr/findings.h"
#include "docsift/ocr/page_facts.h"
#include "docsift/ocr/rule_text.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/table_receipt.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr::detail {

class FieldFinder {
 public:
  FieldFinder(const Page& page, const Rules& rules, DateOrderRule date_order)
      : page(page),
        rules(rules),
        r(segments_of(page, rules)),
        n(r.size()),
        facts(page_facts(page, r, rules, date_order)) {}

  Extraction run(const std::vector<std::string>& field_names);

 private:
  // The steps, in order (find_steps.cpp): what each returns written into what was found.
  void find(nlohmann::json& checks);
  // Writes a step's finding where no step before it found the field: its value, its evidence, its
  // check; true where it was written. `repair` writes one that mends a field found before (its
  // value and segment; the evidence stays the first finding's, marked repaired where the repair's
  // is).
  bool take(const std::optional<Finding>& finding, nlohmann::json& checks);
  void take(const std::vector<Finding>& findings, nlohmann::json& checks) {
    for (const Finding& finding : findings) take(finding, checks);
  }
  void repair(const std::optional<Finding>& finding, nlohmann::json& checks);

  // DOCUMENT_TYPE: the one the page's heading names (PageFacts::heading), marked repaired where
  // the heading was read garbled.
  std::optional<Finding> document_type() const;
  // A page with no heading word read: a BANK STATEMENT where a line says "statement" and the page
  // prints an opening or closing balance ("NAB Statement"), before TOTAL is chosen, which a
  // statement has none of (choose_total); a RECEIPT where it prints a total and what was paid for
  // it (cash tendered, change: `pay`) and no balance, after. Marked repaired (not read as
  // printed). Each reads the fields found before it, never changes them.
  std::optional<Finding> statement_without_heading() const;
  std::optional<Finding> receipt_without_heading(const Payments& pay) const;

  // An amount's label followed by digits read without their point ("Total Sales Inclusive GST
  // @0.00%: 3045"): the amount they make with two decimals, where the page prints that amount with
  // its point elsewhere ("SR 0.00 30.45 0.00"). nullopt otherwise.
  std::optional<Amount> pointless_amount(const std::string& value) const;

  // Labelled values: each field's first that passes its kind's check, top to bottom (its evidence:
  // read beside a label, and whether the label matched only with an edit). TOTAL and the payment
  // lines are gathered as candidates, for choose_total to rank. `other_dates`: the segments of
  // labelled dates and of their labels, whose dates are not the invoice's (date_by_position).
  Labelled labelled_values() const;

  // What the bill comes to after its rounding line ("Sub-total 88.97", "Rounding Adj -0.02"): the
  // subtotal, with its tax where the tax was read, plus or minus the rounding line's amount (the
  // minus sign is often lost), or, where OCR left that amount unread, rounded to the nearest 5
  // cents as cash is (Malaysia, Australia, Switzerland). Empty on a page with no rounding line.
  std::vector<long long> rounded_sums(std::optional<long long> sub,
                                      std::optional<long long> tax) const;

  // What a second recognizer reads again (rules.h: WordRun), top to bottom: the amounts of payment
  // lines (a label of an amount field: TOTAL, SUBTOTAL, GST, tendered, change, a statement's
  // balances) read from words under
  // kAmountWordDoubt, or that read as no amount with cents; and, on a page where no date was found,
  // up to kMaxDateRereads runs: a date's label's words, words shaped like a date (find_dates.cpp).
  std::vector<WordRun> doubtful_amounts() const;
  std::vector<WordRun> doubtful_dates() const;
  // On a page whose seller no label names, its top lines' segments that OCR read under kNameDoubt
  // (a logo, a faded heading), a line's as one run: up to kMaxNameRereads (find_seller.cpp).
  std::vector<WordRun> doubtful_names() const;

  // TOTAL: the trained finder (finder.h) picks among total_options (find_totals.cpp), each
  // described by total_features, and describe_total gives the winner its evidence
  // (find_totals_rank.cpp). A function of the page's facts, the fields found before it and the
  // payment lines (`pay`); the steps' table writes what it chose (take_total).
  TotalChoice choose_total(const Payments& pay) const;
  void take_total(const TotalChoice& choice, nlohmann::json& checks);
  bool sums_agree(long long v, const Paid& p) const;
  std::vector<long long> figures_sum() const;
  bool sums_make(long long v) const;  // v among figures_sum()
  // The amounts sums_make accepts, and what was paid where change was given: Extraction::sums.
  std::vector<long long> printed_sums(const Payments& pay) const;
  // The candidates: the labelled amounts, a labelled one's misread digit repaired, what was paid, a
  // card's charge, subtotal + tax printed below the subtotal, the subtotal, and every other amount
  // with cents on the page.
  std::vector<TotalOption> total_options(const Payments& pay) const;
  // Two of them: a labelled one's misread digit repaired, and the amounts no label names (not the
  // tax where it was read, at `tax_at`, nor a payment line's).
  void add_repaired_totals(std::vector<TotalOption>& out, const Paid& p) const;
  void add_unlabelled_totals(std::vector<TotalOption>& out, const Payments& pay,
                             std::optional<std::size_t> tax_at, std::optional<long long> tax) const;
  // What total_features reads of the whole page beside its facts (PageFacts: how many segments
  // print each amount, the segments' median height, the last line), once per page, not per
  // candidate.
  struct TotalPage {
    std::vector<long long> ranked;   // the page's amounts with cents, largest first
    long long largest_labelled = 0;  // the largest labelled total
  };
  TotalPage total_page(const Payments& pay) const;
  Features total_features(const TotalOption& o, const Payments& pay, const TotalPage& whole) const;
  void describe_total(const std::vector<TotalOption>& options,
                      const std::vector<double>& probability, const Paid& p,
                      TotalChoice& choice) const;

  // INVOICE_DATE without a label: the most plausible (by a time, high, not a due date's), on no
  // segment of `labelled`'s other dates (a due date and its label: Labelled::other_dates).
  std::optional<Finding> date_by_position(const Labelled& labelled) const;
  // INVOICE_DATE's repaired year, where the page prints the date again as read (find_dates.cpp):
  // a repair of the date found before.
  std::optional<Finding> date_from_twin() const;
  // An ABN without its label: any group of 11 digits that passes the checksum.
  std::optional<Finding> abn_by_checksum() const;

  // The line items, from whole lines (a row's cells are far apart): a header row with a
  // description column and a quantity or price column, then its rows (table_lines); or a
  // statement's transactions.
  Rows line_items() const;
  // The table's `columns` and lines [first, end): under its header (table.h, table_end), or rows
  // that check themselves on a page without one (headless_table). False without a table.
  bool table_lines(std::vector<TableColumn>& columns, std::size_t& first, std::size_t& end) const;
  // Per line, what it says of a table above it (table.h, Stop): a line that starts with an
  // amount's, a date's or a period's label (not after a date, "22/03 EFTPOS"; not with a
  // description's words after it, "Tax return preparation") ends it, a sum's label whatever
  // follows.
  std::vector<Stop> table_stops() const;
  // A receipt's rows read without a heading (table_receipt.h) as the items; none without them.
  Rows receipt_items(std::optional<ReceiptRows> rows) const;
  struct ItemRow {
    std::string description;
    std::optional<std::string> quantity, price;
  };
  std::optional<ItemRow> item_row(std::size_t line) const;
  // A table row's item: its description, quantity and price cells (the unit price column's, or the
  // amount's when `unit_prices` is false). None without a description.
  std::optional<ItemRow> table_item(const TableRow& row, bool unit_prices) const;
  std::optional<long long> row_amount(const TableRow& row, const ItemRow& item) const;
  // Per item: a transaction off its running balance only by its sign is turned (cell, `amounts`);
  // one with no figure read between two balances gets their difference (`split`: as debit/credit).
  void amounts_from_balances(std::vector<LineItem>& items,
                             std::vector<std::optional<long long>>& amounts, bool split) const;
  // The words of `lowered` (lower case) that no label covers (no label of `kind`, when given),
  // not abbreviated ("incl."), with `letters` letters or more (and letters only, from 3): what a
  // line says beside its labels.
  std::size_t unlabelled_words(const std::string& lowered, std::size_t letters = 3,
                               const char* kind = nullptr) const;
  LineItem line_item(const TableRow& row, const ItemRow& item, bool unit_prices) const;

  // Where the payer's lines are: the segment and block of the payer's (or account holder's)
  // name, where a label read it. Read by the steps after it (in_payer_column, contacts).
  Payer payer_of() const;
  // The supplier: the seller's name, ranked among the lines at the top (and, for a PDF's footer,
  // lines at the bottom that carry a legal form): early, prominent (taller than the page's usual
  // line, in capitals), with a company-form word ("Sdn Bhd", "GmbH"); never a heading, a label, an
  // address, a registration number or a contact line; or a label's, or a letter's sender line's.
  // Where its name was read (none for a sender line, whose block is the recipient's address
  // window), for the address and contact steps, and what it found: the name, and a sender line's
  // address.
  Seller supplier() const;
  std::optional<double> seller_score(std::size_t i, double median, int& rank) const;
  // The names the page's web and email addresses carry, as name_key()s (find_domains.cpp).
  std::vector<std::string> domain_names() const;
  bool names_a_domain(std::size_t i) const;
  std::string name_from_domain(const std::string& name) const;
  std::optional<std::size_t> sender_line(std::string& name, std::string& address) const;
  // `pieces`: the segments the name was read from, one group per line, top to bottom.
  std::string seller_name(std::size_t& best, std::vector<std::vector<std::size_t>>& pieces) const;

  // BUSINESS_ADDRESS: the address lines under `seller`'s name, after any registration lines;
  // the segments it was read from (the evidence's words and parts).
  Address business_address(const Seller& seller) const;

  // The supplier's and the payer's contact lines, by block, top to bottom: the first of each
  // field is taken.
  std::vector<Finding> contacts() const;
  // Either address's home region that OCR misread ("Brisbane OLD 4000"), put back: repairs.
  std::vector<Finding> home_regions() const;
  // A statement's bank (a known bank's name near the top, else its title line) and holder: a name
  // under a payer's label where no holder's label was read (a statement's payer is its holder).
  std::vector<Finding> bank_name() const;

  // SUBTOTAL by the page's sums where no label gave it; then subtotal + GST = total (all read):
  // checks.sum, null where one of the three was not found.
  std::optional<Finding> subtotal_by_sums() const;
  nlohmann::json sum_check() const;
  // A statement's rows against its balances: the opening balance plus the rows' amounts is the
  // closing balance ("sum": DESCRIPTIONS vouched for), or the last row's amount is (a running
  // balance column: "running", nothing vouched), or neither (DESCRIPTIONS contradicted).
  // What it found: checks.balance, and checks.balance_off where they disagree (by how much); the
  // fields it ties together vouched for (true) or contradicted (false), or neither.
  std::optional<BalanceCheck> balance_check(const Rows& rows) const;
  void take_balance_check(const std::optional<BalanceCheck>& check, nlohmann::json& checks);

  // A field's amount in cents, when it was found.
  std::optional<long long> cents(const char* field) const {
    const auto it = found.find(field);
    return it != found.end() ? amount_cents(it->second.value) : std::nullopt;
  }

  // The box around the words of `segments` (each in its segment); `e` gets their confidences.
  Box words_box(const std::vector<std::size_t>& segments, Evidence* e = nullptr) const;

  // A field's evidence (rules.h): what its step noted (Found::noted), its label, and its words.
  Evidence evidence_of(const std::string& field, const std::string& value, std::size_t at) const;
  // A field's kind in the rules ("" for one without labels, as SUPPLIER found by position).
  std::string rules_kind(const std::string& field) const;
  // How many values competed for a field and by how much `winner` (scored `best`) won, into its
  // evidence `e`.
  static void note_contest(Evidence& e, const std::string& winner, double best,
                           const std::vector<std::pair<std::string, double>>& scored);

  std::optional<Amount> money(const std::string& text, bool whole) const {
    auto all = find_amounts(text, rules.lexicon, whole);
    if (facts.with_cents >= 2) {
      all.erase(std::remove_if(all.begin(), all.end(),
                               [](const Amount& a) { return !a.has_cents && a.currency.empty(); }),
                all.end());
    }
    if (all.empty()) return std::nullopt;
    Amount a = all.back();
    if (a.currency.empty()) a.currency = facts.currency;
    return a;
  }
  // An amount printed bare is in the page's currency.
  Amount with_currency(Amount a) const {
    if (a.currency.empty()) a.currency = facts.currency;
    return a;
  }
  std::optional<std::string> parse(const LabelRule& rule, const std::string& text) const {
    if (rule.kind == "amount") {
      auto a = money(text, true);  // the label vouches for it
      if (!a) a = pointless_amount(text);
      return a ? std::optional(format_amount(a->cents, a->currency)) : std::nullopt;
    }
    return parse_kind(rule.kind, text, rules.lexicon, facts.order);
  }
  std::optional<std::size_t> below(std::size_t i) const {
    for (std::size_t k = i + 1; k < n && r[k].line <= r[i].line + 1; ++k) {
      if (r[k].line == r[i].line + 1 && r[k].left < r[i].right && r[i].left < r[k].right) return k;
    }
    return std::nullopt;
  }
  // The one segment of the line below segment i's when it is one amount with cents and at most a
  // currency's letters around it ("23.20", "RM 23.20", "~~ 109.70"): nullopt otherwise.
  std::optional<std::size_t> amount_line_below(std::size_t i) const {
    std::optional<std::size_t> only;
    for (std::size_t k = i + 1; k < n && r[k].line <= r[i].line + 1; ++k) {
      if (r[k].line != r[i].line + 1) continue;
      if (only) return std::nullopt;
      only = k;
    }
    if (!only) return std::nullopt;
    const std::vector<Amount> amounts = find_amounts(r[*only].text, rules.lexicon);
    return amounts.size() == 1 && amounts[0].has_cents && letters_in(r[*only].text) <= 3
               ? only
               : std::nullopt;
  }
  std::optional<std::size_t> column_sum(std::size_t k) const;
  // A segment on a line of more digits than letters: a number's line ("GLN 4333741000005",
  // "Nummer : 12345676", whose label and number OCR may part into two segments).
  bool mostly_digits(std::size_t k) const {
    const std::string t = page.lines[r[k].line].text();
    const auto digits = std::count_if(t.begin(), t.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    const auto letters = std::count_if(t.begin(), t.end(), [](char c) {
      return std::isalpha(static_cast<unsigned char>(c)) != 0;
    });
    return digits > letters;
  }
  std::string unlabelled_start(std::size_t k) const {
    const auto& hits = r[k].hits;
    return r[k].text.substr(0, hits.empty() ? std::string::npos : hits.front().at);
  }
  static bool is_empty(const std::string& v) {
    return !has_letters(v) && std::none_of(v.begin(), v.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
  }
  // A label's value: after it on its segment, up to the next label. When it is the segment's last
  // label and that leaves nothing (or it wants an amount or a date), the segments to its right
  // (across OCR's specks, up to the next label) and then the segment below are tried in turn.
  struct Value {
    std::string text;
    std::size_t segment;
  };
  std::vector<Value> value_of(std::size_t i, const Hit& h) const;
  // A long region name misread by a letter ("Selanger") is still one; a short one must be exact
  // ("Kedai" is one letter from "Kedah").
  static bool has_any_fuzzy(const std::string& lowered, const std::vector<std::string>& words) {
    return std::any_of(words.begin(), words.end(), [&](const auto& w) {
      return !find_label(lowered, w, w.size() >= 7).empty();
    });
  }
  // `regions`: whether naming a state or country alone makes a line an address.
  bool address_text(const std::string& t, bool regions = true) const;
  bool address_like(std::size_t i) const { return address_text(r[i].text); }
  // Whether segment i cannot be a party's name. `legal_below`: it would head the legal form on the
  // line below ("Nando's Chickenland Malaysia" over "Sdn Bhd"), so a region's name in it names the
  // company, not an address, as it does in a line with its own legal form.
  bool not_a_name(std::size_t i, bool legal_below = false) const;
  bool in_payer_column(std::size_t i) const;
  bool left_of_payer(std::size_t i) const;
  bool registration_number(std::size_t k) const;
  bool shares_a_word(std::size_t a, std::size_t b) const;
  // A name with no legal form written in full on a line at most kFullNameLines below, starting with
  // its letters and with a legal form ("EIGHT OUNCE" over "COFFEE" over "EIGHT OUNCE COFFEE CO. THE
  // GARDENS MALL"): that line's segment.
  static constexpr std::size_t kFullNameLines = 3;
  std::optional<std::size_t> name_in_full(std::size_t best, const std::string& name) const;
  // The segment that continues a name on the line above (skipping lines without letters: a
  // stray ':' read between "POPULAR BOOK" and "CO. (M) SDN BHD").
  std::optional<std::size_t> above(std::size_t i) const {
    for (std::size_t k = i; k-- > 0 && r[k].line + 3 >= r[i].line;) {
      if (r[k].line == r[i].line) continue;
      if (!has_letters(r[k].text) || r[k].text.size() <= 2) continue;
      return r[k].left < r[i].right && r[i].left < r[k].right ? std::optional(k) : std::nullopt;
    }
    return std::nullopt;
  }
  bool in_block(std::optional<int> block, std::size_t i) const {
    return block && r[i].block == *block;
  }

  const Page& page;
  const Rules& rules;
  const std::vector<Segment> r;  // the page's segments, in reading order
  const std::size_t n;
  const PageFacts facts;
  // What the steps found, per field, written by the steps' table alone (take, repair and each
  // step's result kept whole), read by the steps after the one that found it: a value, where it
  // was read and what was noted of it always go together.
  struct Found {
    std::string value;
    // The segment it was read from; none for the rows' lists, which replace whatever a label of
    // a user's rules file read for them (the list's value and evidence are its rows').
    std::optional<std::size_t> at;
    Evidence noted;  // what the steps noted of it (evidence_of adds its words)
  };
  std::map<std::string, Found> found;
  // A bank statement: by its heading (document_type), by a label of a user's rules file that reads
  // "BANK STATEMENT", or a line that says statement on a page that prints a balance
  // (statement_without_heading): what the steps found of DOCUMENT_TYPE.
  bool statement() const {
    const auto it = found.find("DOCUMENT_TYPE");
    return it != found.end() && it->second.value == "BANK STATEMENT";
  }
  // The segment a found field was read from; nullopt where none was found or it has none.
  std::optional<std::size_t> segment_of(const std::string& field) const {
    const auto it = found.find(field);
    return it == found.end() ? std::nullopt : it->second.at;
  }
  std::map<std::string, std::vector<Ranked>> candidates;  // what the finder ranked (Extraction's)
  Labelled labelled;                                      // labelled_values'
  TotalChoice total;                                      // choose_total's
  Rows rows;                                              // line_items'
  Payer payer;                                            // payer_of's
  std::vector<std::string> domains;                       // domain_names', for seller_score
  Seller seller;                                          // supplier's
  std::vector<std::size_t> address_segments;              // business_address's, where it was taken
};

}  // namespace docsift::ocr::detail
