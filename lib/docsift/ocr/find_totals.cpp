// TOTAL: the page's money, tax summaries and rounding, the printed sums, the candidates for the
// trained finder (finder.h; find_totals_rank.cpp ranks them), the sum check. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

namespace docsift::ocr::detail {

std::optional<Amount> FieldFinder::pointless_amount(const std::string& value) const {
  static const std::regex kBareDigits(R"((?:^|[^\d.,])(\d{3,7})[^\w.,]*$)");
  std::smatch m;
  if (!std::regex_search(value, m, kBareDigits)) return std::nullopt;
  const long long cents = std::stoll(m[1].str());
  if (!facts.printed.count(cents)) return std::nullopt;
  return Amount{cents, true, facts.currency, 0, 0};
}

std::vector<long long> FieldFinder::rounded_sums(std::optional<long long> sub,
                                                 std::optional<long long> tax) const {
  std::vector<long long> out;
  if (!facts.rounding_line) return out;
  // The bill before rounding: subtotal, subtotal + tax, or a tax row's net + tax.
  std::vector<long long> bases(facts.row_sums.begin(), facts.row_sums.end());
  if (sub) bases.push_back(*sub);
  if (sub && tax) bases.push_back(*sub + *tax);
  for (const long long base : bases) {
    if (base <= 0) continue;
    if (facts.rounding_amount) {
      out.push_back(base + *facts.rounding_amount);
      out.push_back(base - *facts.rounding_amount);
    } else {
      out.push_back((base + 2) / 5 * 5);
    }
  }
  return out;
}

Paid Payments::paid() const {
  Paid p;
  if (!tendered.empty() && !change.empty() &&
      tendered.back().amount.cents >= change.back().amount.cents) {
    p.paid = tendered.back().amount.cents - change.back().amount.cents;
  }
  // A card payment has no change: what was tendered was the total.
  if (!tendered.empty() && change.empty()) p.tendered_exact = tendered.back().amount.cents;
  return p;
}

bool Payments::on_payment_line(std::size_t segment) const {
  const auto on = [&](const Candidate& c) { return c.segment == segment; };
  return std::any_of(tendered.begin(), tendered.end(), on) ||
         std::any_of(change.begin(), change.end(), on);
}

// What the page's printed figures, payments aside, sum to: subtotal + tax, a tax row (the bill
// itself where nothing is rounded, its base where something is), the rounded bill.
std::vector<long long> FieldFinder::figures_sum() const {
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  std::vector<long long> out = rounded_sums(sub, tax);
  if (!facts.rounding_line) out.insert(out.end(), facts.row_sums.begin(), facts.row_sums.end());
  if (sub && tax) out.push_back(*sub + *tax);
  return out;
}

bool FieldFinder::sums_make(long long v) const {
  const std::vector<long long> sums = figures_sum();
  return std::find(sums.begin(), sums.end(), v) != sums.end();
}

std::vector<long long> FieldFinder::printed_sums(const Payments& pay) const {
  const Paid p = pay.paid();
  std::vector<long long> out = figures_sum();
  // What was paid where change was given: two figures that agree ("Cash 50.00", "CHANGE 44.25").
  // With no change it is the tendered figure alone, which a total read from it would vouch for.
  if (p.paid && pay.change.back().amount.cents > 0) out.push_back(*p.paid);
  return out;
}

// Whether a printed sum agrees with `v`: what was paid, or what the figures sum to.
bool FieldFinder::sums_agree(long long v, const Paid& p) const {
  return p.was_paid(v) || sums_make(v);
}

std::vector<TotalOption> FieldFinder::total_options(const Payments& pay) const {
  const Paid p = pay.paid();
  const std::vector<Candidate>& tendered = pay.tendered;
  std::vector<TotalOption> out;
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  const auto sub_at = segment_of("SUBTOTAL"), tax_at = segment_of("GST");
  for (const Candidate& t : pay.totals) out.push_back({t, TotalSource::Label});
  // A subtotal's label whose amount is what was paid ("Net Total 21.20", cash 21.20, change
  // 0.00, under "5 Item(s) Total 20.00"): nobody pays a sum before tax, so it is a total too.
  if (sub && sub_at && p.was_paid(*sub) && !pay.is_tendered(*sub_at)) {
    if (const auto a = money(r[*sub_at].text, true); a && a->cents == *sub)
      out.push_back({{*a, 1, *sub_at}, TotalSource::Label});
  }
  add_repaired_totals(out, p);
  // What was paid (tendered - change): "Accepted total 10.00", "Change 5.00" is a total of 5.00.
  if (p.paid && *p.paid > 0)
    out.push_back(
        {{Amount{*p.paid, true, tendered.back().amount.currency, 0, 0}, 2, tendered.back().segment},
         TotalSource::Payment});
  // A card payment with no change ("Master Card 63.80"): a card is charged the total exactly.
  if (p.tendered_exact > 0 && tendered.back().strength == 1)
    out.push_back({tendered.back(), TotalSource::Card});
  // An amount below the subtotal that is subtotal + tax ("1 210,00 Kč" under "Celkem bez DPH
  // 1 000,00" and "DPH 21 % 210,00").
  if (sub && tax && sub_at) {
    bool taken = false;
    for (std::size_t k = *sub_at; k < n && !taken; ++k) {
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
  if (sub && *sub > 0 && sub_at && (!tax || !tax_at || *tax_at < *sub_at)) {
    bool taken = false;
    for (std::size_t k = *sub_at; k < n && k <= *sub_at + 2 && !taken; ++k) {
      for (const auto& a : find_amounts(r[k].text, rules.lexicon, true)) {
        if (a.cents != *sub) continue;
        out.push_back({{with_currency(a), 1, k}, TotalSource::Subtotal});
        taken = true;
        break;
      }
    }
  }
  add_unlabelled_totals(out, pay, tax_at, tax);
  return out;
}

// A labelled total that no printed sum agrees with, one misread digit away from the one that
// does ("TOTAL 11.66" under "Sub Total 10.94" and "GST 0.66"): the one repair that makes it
// agree, as a candidate of its own. Not where the tax is the misread figure: a tax is a whole
// percentage of what it is levied on (GST 10 %, SST 6 %), and a total as read that leaves one over
// the subtotal beside a tax as read that is none ("GST 1,472.00" for 1,472.90 on 14,729.00, "TOTAL
// 16,201.90") is right; repaired to agree with the tax, it would be wrong and vouched for.
void FieldFinder::add_repaired_totals(std::vector<TotalOption>& out, const Paid& p) const {
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  const auto levied = [&](long long t) { return whole_percentage(*sub, t, 1, 30); };
  for (std::size_t i = 0, labelled = out.size(); i < labelled && !page.exact; ++i) {
    if (sums_agree(out[i].c.amount.cents, p)) continue;
    if (sub && tax && *tax > 0 && levied(out[i].c.amount.cents - *sub) && !levied(*tax)) continue;
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
}

// Every other amount with cents printed on the page: the finder may take one no label names. Not
// what the rules know is something else: a rounding line's adjustment, a payment line's figure
// (what was paid and a card's charge are proposed above), the tax.
void FieldFinder::add_unlabelled_totals(std::vector<TotalOption>& out, const Payments& pay,
                                        std::optional<std::size_t> tax_at,
                                        std::optional<long long> tax) const {
  for (std::size_t k = 0; k < n; ++k) {
    if (pay.on_payment_line(k)) continue;
    for (const auto& a : find_amounts(r[k].text, rules.lexicon)) {
      if (!a.has_cents || a.cents <= 0) continue;
      if (facts.rounds[r[k].line] && a.cents <= kMaxRounding) continue;
      if (tax_at == k && tax == a.cents) continue;
      if (std::any_of(out.begin(), out.end(), [&](const TotalOption& o) {
            return o.c.segment == k && o.c.amount.cents == a.cents;
          }))
        continue;
      out.push_back({{with_currency(a), 0, k}, TotalSource::Page});
    }
  }
}

// How far above the total's line a subtotal is looked for by its sum: a totals block ("Net",
// "Tax", "Total") stacks them on consecutive lines, one line between at most.
constexpr std::size_t kSubtotalLinesAbove = 3;

// A subtotal whose label no rule lists is still printed where the page sums it up: on one of the
// lines just above the total, the amount that is the total less the tax. Only with a tax above nil
// (with none, the subtotal is the total and says nothing), never the tax's own figure, and only a
// figure printed with cents, so the page's arithmetic vouches for a printed value, not a made one.
std::optional<Finding> FieldFinder::subtotal_by_sums() const {
  const auto total_at = segment_of("TOTAL"), tax_at = segment_of("GST");
  if (found.count("SUBTOTAL") || !total_at || !tax_at) return std::nullopt;
  const auto total = cents("TOTAL"), tax = cents("GST");
  if (!total || !tax || *tax <= 0 || *total <= *tax) return std::nullopt;
  // A tax of more than 30 % of what it is levied on is a misread tax (no VAT or GST rate is above
  // 27 %): SROIE's 117.jpg, "GST" 19.34 of a 20.50 total, would make 1.16 on another line a
  // subtotal.
  if (*tax * 10 > (*total - *tax) * 3) return std::nullopt;
  const std::size_t total_line = r[*total_at].line;
  for (std::size_t k = 0; k < n; ++k) {
    if (r[k].line >= total_line || r[k].line + kSubtotalLinesAbove < total_line) continue;
    if (k == *tax_at) continue;
    for (const auto& a : find_amounts(r[k].text, rules.lexicon)) {
      if (!a.has_cents || a.cents != *total - *tax) continue;
      const Amount subtotal = with_currency(a);  // written as a labelled amount is
      return Finding{"SUBTOTAL", format_amount(subtotal.cents, subtotal.currency), k, {}, nullptr};
    }
  }
  return std::nullopt;
}

nlohmann::json FieldFinder::sum_check() const {
  const auto subtotal = cents("SUBTOTAL"), gst = cents("GST"), total = cents("TOTAL");
  return subtotal && gst && total ? nlohmann::json(std::llabs(*subtotal + *gst - *total) <= 1)
                                  : nlohmann::json(nullptr);
}

std::vector<WordRun> FieldFinder::doubtful_amounts() const {
  std::vector<WordRun> out;
  if (page.exact) return out;  // a PDF's text layer: nothing misread
  for (std::size_t i = 0; i < n; ++i) {
    const auto hit = std::find_if(r[i].hits.begin(), r[i].hits.end(), [&](const Hit& h) {
      return rules.fields[h.rule].kind == "amount";
    });
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
                                               return s.line == r[i].line &&
                                                      s.left <= word.box.left &&
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
      append_joined(text, " ", line.words[w].text);
      least = std::min(least, line.words[w].confidence);
    }
    // A registration number beside a tax label ("GST Reg No : 000683900928") is no amount.
    const std::size_t digits = digits_in(text);
    if (digits == 0 || digits > kMaxAmountDigits) continue;
    const auto amount = money(text, true);
    if (least < kAmountWordDoubt || !amount || !amount->has_cents)
      out.push_back({r[i].line, *first, *last, "TOTAL"});
  }
  return out;
}

}  // namespace docsift::ocr::detail
