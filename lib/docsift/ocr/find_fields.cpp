// What the steps found, as an Extraction; labelled values; each field's evidence. (field_finder.h;
// the steps' order: find_steps.cpp)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <tuple>

#include "docsift/ocr/page_checks.h"

namespace docsift::ocr::detail {

Extraction FieldFinder::run(const std::vector<std::string>& field_names) {
  Extraction out;
  for (const auto& line : page.lines) out.text += line.text() + "\n";
  find(out.checks);
  for (const auto& name : field_names) {
    const auto it = found.find(name);
    out.fields[name] = it != found.end() ? it->second.value : "N/A";
  }
  for (const auto& [name, f] : found)
    if (f.at) out.confidence[name] = r[*f.at].confidence;
  // A total the page's own sums vouch for is as sure as a reading gets (take_second_reading
  // keeps it over a reading whose sums do not agree).
  if (total.vouched && out.confidence.count("TOTAL")) out.confidence["TOTAL"] = 100;
  for (const auto& [name, f] : found)
    if (f.at) out.evidence[name] = evidence_of(name, f.value, *f.at);
  // The address is read from the lines under the seller's, and is found at the seller's segment:
  // its box and word confidences are its own lines' words (what a reviewer's report draws, and
  // what tells a misread word), each line a part for the second recognizer (cross_read.h).
  if (const auto e = out.evidence.find("BUSINESS_ADDRESS");
      e != out.evidence.end() && !address_segments.empty()) {
    e->second.box = words_box(address_segments, &e->second);
    for (const std::size_t k : address_segments) e->second.parts.push_back(words_box({k}));
  }
  for (const auto& [name, f] : found) {  // the lists: read from table rows, not one segment
    if (f.at) continue;
    out.evidence[name] = f.noted;
    out.evidence[name].exact = page.exact;
  }
  out.sums = total.sums;
  out.registration = facts.registration;
  out.candidates = std::move(candidates);
  out.items = std::move(rows.items);
  for (LineItem& item : out.items) {
    item.evidence = row_evidence(page, item.box, item.description);
    item.evidence.labelled = rows.columned;
  }
  if (const auto prices = found.find("PRICES"); prices != found.end())
    mark_price_words(page, out.items, prices->second.value, rules.lexicon);
  out.doubtful = doubtful_amounts();
  for (WordRun& run : doubtful_dates()) out.doubtful.push_back(std::move(run));
  for (WordRun& run : doubtful_names()) out.doubtful.push_back(std::move(run));
  out.doubtful.insert(out.doubtful.end(), rows.misread.begin(), rows.misread.end());
  // Reading order (read_again's contract); of two runs at one place, amounts, dates, names in turn.
  std::stable_sort(out.doubtful.begin(), out.doubtful.end(),
                   [](const WordRun& a, const WordRun& b) {
                     return std::tie(a.line, a.first) < std::tie(b.line, b.first);
                   });
  return out;
}

std::optional<Finding> FieldFinder::statement_without_heading() const {
  if (found.count("DOCUMENT_TYPE")) return std::nullopt;
  if (!found.count("OPENING_BALANCE") && !found.count("CLOSING_BALANCE")) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i) {
    if (find_phrase(r[i].lowered, "statement") == std::string::npos) continue;
    Finding out{"DOCUMENT_TYPE", "BANK STATEMENT", i, {}, nullptr};
    out.noted.repaired = true;
    return out;
  }
  return std::nullopt;
}

std::optional<Finding> FieldFinder::receipt_without_heading(const Payments& pay) const {
  if (found.count("DOCUMENT_TYPE")) return std::nullopt;
  if (found.count("OPENING_BALANCE") || found.count("CLOSING_BALANCE")) return std::nullopt;
  const auto total_at = segment_of("TOTAL");
  if (!total_at || (pay.tendered.empty() && pay.change.empty())) return std::nullopt;
  Finding out{"DOCUMENT_TYPE", "RECEIPT", *total_at, {}, nullptr};
  out.noted.inferred = true;
  out.noted.repaired = true;
  return out;
}

std::optional<Finding> FieldFinder::document_type() const {
  if (!facts.heading.at) return std::nullopt;
  Finding out{"DOCUMENT_TYPE", facts.heading.type, *facts.heading.at, {}, nullptr};
  out.noted.repaired = facts.heading.garbled;
  return out;
}

Labelled FieldFinder::labelled_values() const {
  Labelled out;
  Payments& pay = out.payments;
  auto& totals = pay.totals;
  // The fields found so far: the steps' before this one, then this one's (the first value of
  // each).
  std::map<std::string, std::string> values;
  std::map<std::string, std::size_t> at;
  for (const auto& [name, f] : found) {
    values[name] = f.value;
    if (f.at) at[name] = *f.at;
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& h : r[i].hits) {
      const LabelRule& rule = rules.fields[h.rule];
      if (rule.kind == "none") continue;
      const bool ranked =
          rule.field == "TOTAL" || rule.field == "_TENDERED" || rule.field == "_CHANGE";
      // Nothing below the rounding line is before rounding: a subtotal's label there ("NET
      // TOTAL 7.40" under "ROUNDING ADJ -0.02") gives the bill's total.
      if (rule.field == "SUBTOTAL" && facts.rounding_line && r[i].line > *facts.rounding_line) {
        for (const auto& [value, from] : value_of(i, h)) {
          if (const auto a = money(value, true); a && a->cents > kMaxRounding) {
            totals.push_back({*a, 2, from});
            break;
          }
        }
        continue;
      }
      if (!ranked && values.count(rule.field)) {
        // A second subtotal below the first and larger ("SUB TOTAL 169.00", a service charge
        // and tax, then "NET TOTAL 174.9"): a running total after them, a weak candidate for
        // the bill's total.
        if (rule.field == "SUBTOTAL" && at.at("SUBTOTAL") < i) {
          const auto first = amount_cents(values.at("SUBTOTAL"));
          for (const auto& [value, from] : value_of(i, h)) {
            if (const auto a = money(value, true); a && first && a->cents > *first) {
              totals.push_back({*a, 1, from});
              break;
            }
          }
        }
        continue;
      }
      for (const auto& [value, from] : value_of(i, h)) {
        if (ranked) {
          // A label vouches for a whole amount ("Rs 1939", "Totaal 56").
          auto a = money(value, true);
          if (rule.field == "TOTAL" && (!a || a->cents == 0)) a = pointless_amount(value);
          if (!a || (a->cents == 0 && rule.field == "TOTAL"))
            continue;  // "Total 0.00": a tax summary's line
          if (rule.field == "TOTAL" && facts.rounds[r[i].line] && a->cents <= kMaxRounding)
            continue;  // "Rounding Adj 0.02": the rounding, not the rounded total
          // A weak label's whole number only on a page that prints no cents: "Inclusive GST
          // @6.00%: aa 80" beside "Master Card 63.80" is a misread amount, not 80.00.
          if (rule.field == "TOTAL" && h.strength == 1 && !a->has_cents && facts.with_cents > 0)
            continue;
          auto& list = rule.field == "TOTAL"       ? totals
                       : rule.field == "_TENDERED" ? pay.tendered
                                                   : pay.change;
          list.push_back({*a, h.strength, from, h.fuzzy});
          break;
        }
        if (auto v = parse(rule, value)) {
          // A balance keeps its sign as printed ("-$1,367.90", "$45.10 DR"): an overdrawn account.
          if (rule.field == "OPENING_BALANCE" || rule.field == "CLOSING_BALANCE") {
            const auto a = find_amounts(value, rules.lexicon);
            if (!a.empty() && negative_at(value, a.back().begin, a.back().end)) v = "-" + *v;
          }
          values[rule.field] = *v, at[rule.field] = from;
          out.fields.push_back({rule.field, *v, from, {}, nullptr});
          out.fields.back().noted.labelled = true;
          out.fields.back().noted.label_fuzzy = h.fuzzy;
          if (rule.kind == "date" || rule.kind == "period") out.other_dates.emplace_back(from, i);
          break;
        }
      }
    }
  }
  return out;
}

Box FieldFinder::words_box(const std::vector<std::size_t>& segments, Evidence* e) const {
  std::optional<Box> box;
  double sum = 0, least = 100;
  int words = 0;
  for (const std::size_t k : segments) {
    for (const Word& w : page.lines[r[k].line].words) {
      if (w.box.left < r[k].left || w.box.right > r[k].right) continue;
      box = box ? box->with(w.box) : w.box;
      sum += w.confidence, least = std::min(least, static_cast<double>(w.confidence)), ++words;
    }
  }
  if (e && words > 0) e->word_mean = sum / words, e->word_min = least;
  return box.value_or(Box{});
}

Evidence FieldFinder::evidence_of(const std::string& field, const std::string& value,
                                  std::size_t at) const {
  Evidence e;
  if (const auto it = found.find(field); it != found.end()) e = it->second.noted;
  e.exact = page.exact;
  // The value's words: those of its line piece that carry its digits, where it is mostly digits
  // (an amount, a date, an id), preferring words whose digits are the value's ("11.80" in
  // "TOTAL 2 items 11.80"); all of them for a name or an address.
  std::string value_digits;
  int letters = 0;
  for (const char c : value) {
    if (std::isdigit(static_cast<unsigned char>(c))) value_digits += c;
    letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  }
  const bool numeric = value_digits.size() > static_cast<std::size_t>(letters);
  const Line& line = page.lines[r[at].line];
  std::vector<const Word*> all, digits, own;
  for (const Word& w : line.words) {
    if (w.box.left < r[at].left || w.box.right > r[at].right) continue;
    all.push_back(&w);
    std::string d;
    for (const char c : w.text) {
      if (std::isdigit(static_cast<unsigned char>(c))) d += c;
    }
    if (d.empty()) continue;
    digits.push_back(&w);
    // A lone digit ("2 items", the 0 of "T0TAL") is in most values by chance.
    if (value_digits.find(d) != std::string::npos && (d.size() >= 2 || value_digits.size() < 2))
      own.push_back(&w);
  }
  const std::vector<const Word*>& words = !numeric          ? all
                                          : !own.empty()    ? own
                                          : !digits.empty() ? digits
                                                            : all;
  if (!words.empty()) {
    double sum = 0, least = 100;
    Box box = words.front()->box;
    for (const Word* w : words) {
      sum += w->confidence;
      least = std::min(least, static_cast<double>(w->confidence));
      box = box.with(w->box);
    }
    e.word_mean = sum / static_cast<double>(words.size());
    e.word_min = least;
    e.box = box;
  }
  e.legal = has_company_form(value, rules);
  if (field == "BUSINESS_ADDRESS" || field == "PAYER_ADDRESS") {
    e.cut = address_cut(value);
    e.ended = address_ended(value, rules);
  }
  // The same amount or date read on another line: two readings of one figure rarely share a
  // misread.
  const std::string kind = field == "TOTAL" ? "amount" : rules_kind(field);
  const auto value_cents = kind == "amount" ? amount_cents(value) : std::nullopt;
  for (std::size_t k = 0; k < n && !e.repeated; ++k) {
    if (k == at) continue;
    if (value_cents) {
      for (const auto& a : find_amounts(r[k].text, rules.lexicon))
        e.repeated = e.repeated || a.cents == *value_cents;
    } else if (kind == "date") {
      for (const auto& d : find_dates(r[k].text, rules.lexicon, facts.order))
        e.repeated = e.repeated || format_date(d) == value;
    }
  }
  // A date whose printed digits are not its own: a misread day, month or year undone (values.h).
  if (!e.repaired &&
      (rules_kind(field) == "date" || field == "INVOICE_DATE" || field == "DUE_DATE")) {
    std::string printed;
    for (const char c : r[at].text) {
      if (std::isdigit(static_cast<unsigned char>(c))) printed += c;
    }
    const std::string year = value.size() >= 2 ? value.substr(value.size() - 2) : value;
    const std::string day = value.size() >= 2 ? value.substr(0, 2) : value;
    const std::string day1 = day.size() == 2 && day[0] == '0' ? day.substr(1) : day;
    e.repaired = printed.find(year) == std::string::npos || printed.find(day1) == std::string::npos;
  }
  return e;
}

std::string FieldFinder::rules_kind(const std::string& field) const {
  for (const auto& f : rules.fields) {
    if (f.field == field) return f.kind;
  }
  return "";
}

void FieldFinder::note_contest(Evidence& e, const std::string& winner, double best,
                               const std::vector<std::pair<std::string, double>>& scored) {
  std::set<std::string> values;
  std::optional<double> runner_up;
  for (const auto& [v, score] : scored) {
    values.insert(v);
    if (v != winner && (!runner_up || score > *runner_up)) runner_up = score;
  }
  e.candidates = std::max<int>(1, static_cast<int>(values.size()));
  e.margin = runner_up ? best - *runner_up : 0.0;
}

std::vector<FieldFinder::Value> FieldFinder::value_of(std::size_t i, const Hit& h) const {
  std::vector<Value> tries{{r[i].text.substr(h.end, h.value_end - h.end), i}};
  const std::string& kind = rules.fields[h.rule].kind;
  if (h.value_end != r[i].text.size())
    return tries;  // another label follows: what is right of it is its value
  if (is_empty(tries[0].text) || kind == "amount" || kind == "date") {
    // Every segment to the right up to the next label: OCR splits specks off ("CASH tee” 50.50").
    for (std::size_t k = i + 1; k < n && r[k].line == r[i].line; ++k) {
      tries.push_back({unlabelled_start(k), k});
      if (!r[k].hits.empty()) break;
    }
    std::optional<std::size_t> k = below(i);
    // A name's label that starts its segment may head a column whose first lines are the party's
    // numbers ("Verkäufer:", "Nummer : 12345676", then the name). Not one that ends a line of other
    // words: "CHOPSTICK HOLDER" over "72/1" is an item.
    const bool heading = kind == "name" && h.at == 0;
    for (int skipped = 0; heading && k && skipped < 2 && mostly_digits(*k); ++skipped)
      k = below(*k);
    if (const auto sum = kind == "amount" && k ? column_sum(*k) : std::nullopt)
      tries.push_back({r[*sum].text, *sum});
    if (k) tries.push_back({unlabelled_start(*k), *k});
    // An amount's label that ends its line over a line of nothing but the amount, set to the
    // right where the segment below the label has none ("Total Payable:" over "23.20").
    if (kind == "amount") {
      if (const auto alone = amount_line_below(i); alone && alone != k)
        tries.push_back({r[*alone].text, *alone});
    }
  }
  return tries;
}

}  // namespace docsift::ocr::detail

namespace docsift::ocr {

Extraction extract_fields(const Page& page, const Rules& rules,
                          const std::vector<std::string>& field_names, DateOrderRule date_order) {
  return detail::FieldFinder(page, rules, date_order).run(field_names);
}

}  // namespace docsift::ocr
