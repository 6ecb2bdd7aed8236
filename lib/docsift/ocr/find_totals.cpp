// TOTAL: the page's money, tax summaries and rounding, the candidates and their features for the
// trained finder (finder.h), the sum check. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace docsift::ocr::detail {

void FieldFinder::read_page_money() {
  {
    std::map<std::string, int> marks;
    for (const auto& seg : r) {
      for (const auto& a : find_amounts(seg.text, rules.lexicon)) {
        if (!a.currency.empty()) ++marks[a.currency];
        with_cents += a.has_cents ? 1 : 0;
        if (a.has_cents) printed.insert(a.cents);
      }
    }
    int best = 0;
    for (const auto& [mark, count] : marks) {
      if (count > best) best = count, page_currency = mark;
    }
  }
}

void FieldFinder::mark_totals_context() {
  tax_summary.assign(page.lines.size(), false);
  rounds.assign(page.lines.size(), false);
  for (std::size_t i = 0; i < page.lines.size(); ++i) {
    const std::string l = lowercase(page.lines[i].text());
    const auto says = [&](const std::vector<std::string>&
                              phrases) {  // as labels are matched: misread letters too
      return std::any_of(phrases.begin(), phrases.end(),
                         [&](const auto& w) { return !find_label(l, w).empty(); });
    };
    rounds[i] = says(rules.total.rounding);
    if (!rounding_line && rounds[i]) {
      rounding_line = i;
      for (const auto& a : find_amounts(page.lines[i].text(), rules.lexicon)) {
        if (a.has_cents && a.cents <= kMaxRounding) rounding_amount = a.cents;
      }
    }
    if (says(rules.total.tax_summary)) {
      for (std::size_t k = i; k < page.lines.size() && k <= i + 6; ++k) tax_summary[k] = true;
    }
    add_tax_rows(find_amounts(page.lines[i].text(), rules.lexicon));
  }
}

// A net amount and the tax on it, in that order on one line: the tax within a cent of a whole
// percentage (1-25 %) of a net of at least kMinTaxedNet, so that a percent is 10 cents or more and a
// pair of unrelated amounts seldom passes. Their sum is what a bill with that one rate comes to.
void FieldFinder::add_tax_rows(const std::vector<Amount>& amounts) {
  for (std::size_t a = 0; a < amounts.size(); ++a) {
    const long long net = amounts[a].cents;
    if (!amounts[a].has_cents || net < kMinTaxedNet) continue;
    for (std::size_t b = a + 1; b < amounts.size(); ++b) {
      const long long tax = amounts[b].cents;
      if (!amounts[b].has_cents || tax <= 0 || tax * 4 > net) continue;
      const long long rate = (tax * 100 + net / 2) / net;  // the nearest whole percent
      if (rate >= 1 && std::llabs(net * rate - tax * 100) <= 100) row_sums.insert(net + tax);
    }
  }
}

std::optional<Amount> FieldFinder::pointless_amount(const std::string& value) const {
  static const std::regex kBareDigits(R"((?:^|[^\d.,])(\d{3,7})[^\w.,]*$)");
  std::smatch m;
  if (!std::regex_search(value, m, kBareDigits)) return std::nullopt;
  const long long cents = std::stoll(m[1].str());
  if (!printed.count(cents)) return std::nullopt;
  return Amount{cents, true, page_currency, 0, 0};
}

std::vector<long long> FieldFinder::rounded_sums(std::optional<long long> sub, std::optional<long long> tax) const {
  std::vector<long long> out;
  if (!rounding_line) return out;
  // The bill before rounding: subtotal, subtotal + tax, or a tax row's net + tax.
  std::vector<long long> bases(row_sums.begin(), row_sums.end());
  if (sub) bases.push_back(*sub);
  if (sub && tax) bases.push_back(*sub + *tax);
  for (const long long base : bases) {
    if (base <= 0) continue;
    if (rounding_amount) {
      out.push_back(base + *rounding_amount);
      out.push_back(base - *rounding_amount);
    } else {
      out.push_back((base + 2) / 5 * 5);
    }
  }
  return out;
}

FieldFinder::Paid FieldFinder::paid() const {
  Paid p;
  if (!tendered.empty() && !change.empty() && tendered.back().amount.cents >= change.back().amount.cents) {
    p.paid = tendered.back().amount.cents - change.back().amount.cents;
  }
  // A card payment has no change: what was tendered was the total.
  if (!tendered.empty() && change.empty()) p.tendered_exact = tendered.back().amount.cents;
  return p;
}

// The tendered figure itself: it agrees with itself whenever the change is nil.
bool FieldFinder::is_tendered(std::size_t segment) const {
  return !tendered.empty() && segment == tendered.back().segment;
}

// What the page's printed figures, payments aside, sum to: subtotal + tax, a tax row (the bill
// itself where nothing is rounded, its base where something is), the rounded bill.
std::vector<long long> FieldFinder::figures_sum() const {
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  std::vector<long long> out = rounded_sums(sub, tax);
  if (!rounding_line) out.insert(out.end(), row_sums.begin(), row_sums.end());
  if (sub && tax) out.push_back(*sub + *tax);
  return out;
}

bool FieldFinder::sums_make(long long v) const {
  const std::vector<long long> sums = figures_sum();
  return std::find(sums.begin(), sums.end(), v) != sums.end();
}

std::vector<long long> FieldFinder::printed_sums(const Paid& p) const {
  std::vector<long long> out = figures_sum();
  // What was paid where change was given: two figures that agree ("Cash 50.00", "CHANGE 44.25").
  // With no change it is the tendered figure alone, which a total read from it would vouch for.
  if (p.paid && change.back().amount.cents > 0) out.push_back(*p.paid);
  return out;
}

// Whether a printed sum agrees with `v`: what was paid, or what the figures sum to.
bool FieldFinder::sums_agree(long long v, const Paid& p) const { return p.was_paid(v) || sums_make(v); }

std::vector<FieldFinder::TotalOption> FieldFinder::total_options(const Paid& p) const {
  std::vector<TotalOption> out;
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  const auto at = [&](const char* field) { return found_at.count(field) ? std::optional(found_at.at(field)) : std::nullopt; };
  const auto with_currency = [&](Amount a) {
    if (a.currency.empty()) a.currency = page_currency;
    return a;
  };
  for (const Candidate& t : totals) out.push_back({t, TotalSource::Label});
  // A subtotal's label whose amount is what was paid ("Net Total 21.20", cash 21.20, change
  // 0.00, under "5 Item(s) Total 20.00"): nobody pays a sum before tax, so it is a total too.
  if (sub && at("SUBTOTAL") && p.was_paid(*sub) && !is_tendered(*at("SUBTOTAL"))) {
    if (const auto a = money(r[*at("SUBTOTAL")].text, true); a && a->cents == *sub)
      out.push_back({{*a, 1, *at("SUBTOTAL")}, TotalSource::Label});
  }
  // A labelled total that no printed sum agrees with, one misread digit away from the one that
  // does ("TOTAL 11.66" under "Sub Total 10.94" and "GST 0.66"): the one repair that makes it
  // agree, as a candidate of its own.
  for (std::size_t i = 0, labelled = out.size(); i < labelled && !page.exact; ++i) {
    if (sums_agree(out[i].c.amount.cents, p)) continue;
    std::vector<long long> fixes;
    for (const long long v : misread_amounts(out[i].c.amount.cents)) {
      if (sums_agree(v, p)) fixes.push_back(v);
    }
    if (fixes.size() != 1) continue;
    TotalOption fixed = out[i];
    fixed.c.amount.cents = fixes.front();
    fixed.source = TotalSource::Repaired;
    out.push_back(fixed);
  }
  // What was paid (tendered - change): "Accepted total 10.00", "Change 5.00" is a total of 5.00.
  if (p.paid && *p.paid > 0)
    out.push_back({{Amount{*p.paid, true, tendered.back().amount.currency, 0, 0}, 2, tendered.back().segment}, TotalSource::Payment});
  // A card payment with no change ("Master Card 63.80"): a card is charged the total exactly.
  if (p.tendered_exact > 0 && tendered.back().strength == 1) out.push_back({tendered.back(), TotalSource::Card});
  // An amount below the subtotal that is subtotal + tax ("1 210,00 Kč" under "Celkem bez DPH
  // 1 000,00" and "DPH 21 % 210,00").
  if (sub && tax && at("SUBTOTAL")) {
    bool taken = false;
    for (std::size_t k = *at("SUBTOTAL"); k < n && !taken; ++k) {
      for (const auto& a : find_amounts(r[k].text, rules.lexicon)) {
        if (a.cents != *sub + *tax || a.cents <= 0) continue;
        out.push_back({{with_currency(a), 1, k}, TotalSource::Sum});
        taken = true;
        break;
      }
    }
  }
  // A subtotal with no tax read below it: a receipt that prints only "SUBTOTAL" above its payment
  // lines (the tax, if any, above it and included) bills that.
  if (sub && *sub > 0 && at("SUBTOTAL") && (!tax || !at("GST") || *at("GST") < *at("SUBTOTAL"))) {
    bool taken = false;
    for (std::size_t k = *at("SUBTOTAL"); k < n && k <= *at("SUBTOTAL") + 2 && !taken; ++k) {
      for (const auto& a : find_amounts(r[k].text, rules.lexicon, true)) {
        if (a.cents != *sub) continue;
        out.push_back({{with_currency(a), 1, k}, TotalSource::Subtotal});
        taken = true;
        break;
      }
    }
  }
  // Every other amount with cents printed on the page: the finder may take one no label names. Not
  // what the rules know is something else: a rounding line's adjustment, a payment line's figure
  // (what was paid and a card's charge are proposed above), the tax.
  const auto payment_line = [&](std::size_t k) {
    const auto on = [&](const Candidate& c) { return c.segment == k; };
    return std::any_of(tendered.begin(), tendered.end(), on) || std::any_of(change.begin(), change.end(), on);
  };
  for (std::size_t k = 0; k < n; ++k) {
    if (payment_line(k)) continue;
    for (const auto& a : find_amounts(r[k].text, rules.lexicon)) {
      if (!a.has_cents || a.cents <= 0) continue;
      if (rounds[r[k].line] && a.cents <= kMaxRounding) continue;
      if (at("GST") == k && tax == a.cents) continue;
      if (std::any_of(out.begin(), out.end(), [&](const TotalOption& o) { return o.c.segment == k && o.c.amount.cents == a.cents; }))
        continue;
      out.push_back({{with_currency(a), 0, k}, TotalSource::Page});
    }
  }
  return out;
}

FieldFinder::TotalPage FieldFinder::total_page() const {
  TotalPage out;
  out.ranked.assign(printed.rbegin(), printed.rend());
  for (const auto& t : totals) out.largest_labelled = std::max(out.largest_labelled, t.amount.cents);
  std::vector<int> heights;
  for (const auto& g : r) {
    heights.push_back(g.height);
    std::set<long long> here;  // a segment counts once per amount
    for (const auto& a : find_amounts(g.text, rules.lexicon)) here.insert(a.cents);
    for (const long long v : here) ++out.segments_printing[v];
  }
  if (!heights.empty()) {
    std::nth_element(heights.begin(), heights.begin() + static_cast<long>(heights.size() / 2), heights.end());
    out.median_height = std::max(1, heights[heights.size() / 2]);
  }
  out.last_line = std::max<std::size_t>(1, page.lines.size() - 1);
  return out;
}

Features FieldFinder::total_features(const TotalOption& o, const Paid& p, const TotalPage& facts) const {
  const long long v = o.c.amount.cents;
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  const Segment& s = r[o.c.segment];
  const bool label = o.source == TotalSource::Label || o.source == TotalSource::Repaired;
  const auto flag = [](bool b) { return b ? 1.0 : 0.0; };
  const std::vector<long long>& ranked = facts.ranked;
  const auto rank = static_cast<double>(std::find(ranked.begin(), ranked.end(), v) - ranked.begin());
  const auto printed_on = facts.segments_printing.find(v);
  const int times = printed_on == facts.segments_printing.end() ? 0 : printed_on->second;
  const long long largest = facts.largest_labelled;
  const double median = facts.median_height;
  const std::size_t lines = facts.last_line;
  return {
      {"label_weak", flag(label && o.c.strength == 1)},
      {"label_plain", flag(label && o.c.strength == 2)},
      {"label_strong", flag(label && o.c.strength >= 3)},
      {"label_fuzzy", flag(label && o.c.fuzzy)},
      {"paid_source", flag(o.source == TotalSource::Payment)},
      {"card_source", flag(o.source == TotalSource::Card)},
      {"sum_source", flag(o.source == TotalSource::Sum)},
      {"subtotal_source", flag(o.source == TotalSource::Subtotal)},
      {"repaired", flag(o.source == TotalSource::Repaired)},
      {"unlabelled", flag(o.source == TotalSource::Page)},
      {"tax_summary", flag(tax_summary[s.line])},
      // Two printed figures agree with it; not the tendered figure itself.
      {"paid", flag(!is_tendered(o.c.segment) && p.was_paid(v))},
      {"tendered", flag(is_tendered(o.c.segment))},
      // Below the rounding line, or on it with a total's own label ("Total After Adj Incl GST 17.70").
      {"after_rounding", flag(rounding_line && (s.line > *rounding_line || (s.line == *rounding_line && label && o.c.strength >= 2)))},
      {"sub_plus_tax", flag((sub && tax && v == *sub + *tax) || (!rounding_line && row_sums.count(v) != 0))},
      {"sums_make", flag(sums_make(v))},
      {"largest_labelled", flag(v == largest)},
      {"largest_printed", flag(!ranked.empty() && v == ranked.front())},
      {"amount_rank", 1.0 / (1.0 + rank)},
      {"cents", flag(o.c.amount.has_cents)},
      {"repeated", std::min(3.0, static_cast<double>(times)) / 3.0},
      {"above_payment", flag(!tendered.empty() && s.line < r[tendered.back().segment].line)},
      {"down", static_cast<double>(s.line) / static_cast<double>(lines)},
      {"tall", std::clamp(s.height / median - 1.0, -1.0, 2.0)},
      {"word_conf", s.confidence / 100.0},
  };
}

// The winner written, with its checks and its evidence (how it was found, how contested).
void FieldFinder::record_total(const std::vector<TotalOption>& options, const std::vector<double>& probability,
                               std::size_t best, const Paid& p, nlohmann::json& checks) {
  const TotalOption& o = options[best];
  set("TOTAL", format_amount(o.c.amount.cents, o.c.amount.currency), o.c.segment);
  // engine.checks says where a winner no label read came from.
  static const std::map<TotalSource, const char*> kCheck{
      {TotalSource::Payment, "total_from_payment"}, {TotalSource::Repaired, "total_repaired"},
      {TotalSource::Sum, "total_from_sum"},         {TotalSource::Card, "total_from_card"},
      {TotalSource::Subtotal, "total_from_subtotal"}, {TotalSource::Page, "total_unlabelled"}};
  if (const auto check = kCheck.find(o.source); check != kCheck.end()) checks[check->second] = true;
  // A total read on the page (or repaired) that a printed sum agrees with, or one found as
  // subtotal + tax: vouched for by figures read apart from it.
  total_vouched = o.source == TotalSource::Repaired || o.source == TotalSource::Sum ||
                  ((o.source == TotalSource::Label || o.source == TotalSource::Page) && sums_agree(o.c.amount.cents, p));
  Evidence& e = evidence["TOTAL"];
  e.sums_agree = total_vouched;
  e.repaired = o.source == TotalSource::Repaired;
  e.labelled = o.source == TotalSource::Label || o.source == TotalSource::Repaired;
  e.label_fuzzy = e.labelled && o.c.fuzzy;
  // Values that competed: the amounts the finder gave 1 % or more; the margin: the winner's
  // probability over the best other amount's, in points (the calibration log-scales it).
  std::set<long long> amounts{o.c.amount.cents};
  double runner_up = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (probability[i] < 0.01 || options[i].c.amount.cents == o.c.amount.cents) continue;
    amounts.insert(options[i].c.amount.cents);
    runner_up = std::max(runner_up, probability[i]);
  }
  e.candidates = static_cast<int>(amounts.size());
  e.margin = e.candidates > 1 ? 1000.0 * (probability[best] - runner_up) : 0.0;
}

void FieldFinder::choose_total(nlohmann::json& checks) {
  const Paid p = paid();
  page_sums = printed_sums(p);
  if (statement) return;  // a statement's balances are not a bill's total
  const std::vector<TotalOption> options = total_options(p);
  if (options.empty()) return;
  const TotalPage facts = total_page();
  std::vector<Features> x;
  for (const TotalOption& o : options) x.push_back(total_features(o, p, facts));
  const std::vector<double> probability = rules.finder.probabilities("TOTAL", x);
  auto& out = candidates["TOTAL"];
  std::size_t best = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    out.push_back({format_amount(options[i].c.amount.cents, options[i].c.amount.currency), std::move(x[i]), probability[i]});
    if (probability[i] > probability[best]) best = i;
  }
  record_total(options, probability, best, p, checks);
}

void FieldFinder::sum_check(nlohmann::json& checks) {
  const auto subtotal = cents("SUBTOTAL"), gst = cents("GST"), total = cents("TOTAL");
  checks["sum"] = subtotal && gst && total
                      ? nlohmann::json(std::llabs(*subtotal + *gst - *total) <= 1)
                      : nlohmann::json(nullptr);
}

std::vector<WordRun> FieldFinder::doubtful_amounts() const {
  std::vector<WordRun> out;
  if (page.exact) return out;  // a PDF's text layer: nothing misread
  for (std::size_t i = 0; i < n; ++i) {
    const auto hit = std::find_if(r[i].hits.begin(), r[i].hits.end(),
                                  [&](const Hit& h) { return rules.fields[h.rule].kind == "amount"; });
    if (hit == r[i].hits.end()) continue;
    // The label's words end at hit->end of the segment's text (its words joined by single spaces);
    // its value runs to the next label, or, where the segment holds none, on through the segments
    // to its right up to one that has a label of its own ("TOTAL ........ 42.60" with a gap).
    const Line& line = page.lines[r[i].line];
    std::optional<std::size_t> first, last;
    std::size_t offset = 0;
    bool inside = true;        // still in segment i
    bool digits_read = false;  // a word with a digit among the value's words so far
    for (std::size_t w = 0; w < line.words.size(); ++w) {
      const Word& word = line.words[w];
      if (word.box.right < r[i].left) continue;
      if (inside && word.box.left > r[i].right) {
        inside = false;
        // Another label on the segment ends the value, and so does a figure read on the segment
        // (not a lone ":" before a gap).
        if (hit->value_end < r[i].text.size() || digits_read) break;
      }
      if (inside) {
        const std::size_t start = offset;
        offset += word.text.size() + 1;
        if (start < hit->end || start >= hit->value_end) continue;
      } else if (const auto k = std::find_if(r.begin(), r.end(),
                                             [&](const Segment& s) {
                                               return s.line == r[i].line && s.left <= word.box.left &&
                                                      word.box.right <= s.right;
                                             });
                 k != r.end() && !k->hits.empty()) {
        break;
      }
      if (!first) first = w;
      last = w;
      digits_read = digits_read || digits_in(word.text) > 0;
    }
    if (!first) continue;
    std::string text;
    float least = 100;
    for (std::size_t w = *first; w <= *last; ++w) {
      text += (text.empty() ? "" : " ") + line.words[w].text;
      least = std::min(least, line.words[w].confidence);
    }
    // A registration number beside a tax label ("GST Reg No : 000683900928") is no amount.
    const std::size_t digits = digits_in(text);
    if (digits == 0 || digits > kMaxAmountDigits) continue;
    const auto amount = money(text, true);
    if (least < kAmountWordDoubt || !amount || !amount->has_cents) out.push_back({r[i].line, *first, *last, "TOTAL"});
  }
  return out;
}

}  // namespace docsift::ocr::detail
