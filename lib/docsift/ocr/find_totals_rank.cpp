// TOTAL, ranked: what the trained finder (finder.h) reads of the page and of each candidate
// (find_totals.cpp gathers them), the winner chosen and written with its evidence. (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace docsift::ocr::detail {

FieldFinder::TotalPage FieldFinder::total_page(const Payments& pay) const {
  TotalPage out;
  out.ranked.assign(facts.printed.rbegin(), facts.printed.rend());
  for (const auto& t : pay.totals)
    out.largest_labelled = std::max(out.largest_labelled, t.amount.cents);
  return out;
}

Features FieldFinder::total_features(const TotalOption& o, const Payments& pay,
                                     const TotalPage& whole) const {
  const Paid p = pay.paid();
  const std::vector<Candidate>& tendered = pay.tendered;
  const long long v = o.c.amount.cents;
  const auto sub = cents("SUBTOTAL"), tax = cents("GST");
  const Segment& s = r[o.c.segment];
  const bool label = o.source == TotalSource::Label || o.source == TotalSource::Repaired;
  const auto flag = [](bool b) { return b ? 1.0 : 0.0; };
  const std::vector<long long>& ranked = whole.ranked;
  const auto rank =
      static_cast<double>(std::find(ranked.begin(), ranked.end(), v) - ranked.begin());
  const auto printed_on = facts.segments_printing.find(v);
  const int times = printed_on == facts.segments_printing.end() ? 0 : printed_on->second;
  const long long largest = whole.largest_labelled;
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
      {"tax_summary", flag(facts.tax_summary[s.line])},
      // Two printed figures agree with it; not the tendered figure itself.
      {"paid", flag(!pay.is_tendered(o.c.segment) && p.was_paid(v))},
      {"tendered", flag(pay.is_tendered(o.c.segment))},
      // Below the rounding line, or on it with a total's own label ("Total After Adj Incl
      // GST 17.70").
      {"after_rounding", flag(facts.rounding_line &&
                              (s.line > *facts.rounding_line ||
                               (s.line == *facts.rounding_line && label && o.c.strength >= 2)))},
      {"sub_plus_tax", flag((sub && tax && v == *sub + *tax) ||
                            (!facts.rounding_line && facts.row_sums.count(v) != 0))},
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

namespace {

// Each amount's probability: its candidates' summed. `Options`: FieldFinder's TotalOption list.
template <class Options>
std::map<long long, double> amount_shares(const Options& options,
                                          const std::vector<double>& probability) {
  std::map<long long, double> share;
  for (std::size_t i = 0; i < options.size(); ++i)
    share[options[i].c.amount.cents] += probability[i];
  return share;
}

}  // namespace

// The winner's evidence (how it was found, how contested) and its checks, into `choice`.
void FieldFinder::describe_total(const std::vector<TotalOption>& options,
                                 const std::vector<double>& probability, const Paid& p,
                                 TotalChoice& choice) const {
  const TotalOption& o = *choice.winner;
  // engine.checks says where a winner no label read came from.
  static const std::map<TotalSource, const char*> kCheck{
      {TotalSource::Payment, "total_from_payment"},   {TotalSource::Repaired, "total_repaired"},
      {TotalSource::Sum, "total_from_sum"},           {TotalSource::Card, "total_from_card"},
      {TotalSource::Subtotal, "total_from_subtotal"}, {TotalSource::Page, "total_unlabelled"}};
  if (const auto check = kCheck.find(o.source); check != kCheck.end()) choice.check = check->second;
  choice.vouched = o.source == TotalSource::Repaired || o.source == TotalSource::Sum ||
                   ((o.source == TotalSource::Label || o.source == TotalSource::Page) &&
                    sums_agree(o.c.amount.cents, p));
  Evidence& e = choice.evidence;
  e.sums_agree = choice.vouched;
  e.repaired = o.source == TotalSource::Repaired;
  e.labelled = o.source == TotalSource::Label || o.source == TotalSource::Repaired;
  e.label_fuzzy = e.labelled && o.c.fuzzy;
  // Values that competed: the amounts the finder gave 1 % or more; the margin: the winner's
  // probability over the best other amount's, each summed over its candidates, in points (the
  // calibration log-scales it).
  const std::map<long long, double> share = amount_shares(options, probability);
  std::set<long long> amounts{o.c.amount.cents};
  double runner_up = 0;
  for (const auto& [cents, q] : share) {
    if (q < 0.01 || cents == o.c.amount.cents) continue;
    amounts.insert(cents);
    runner_up = std::max(runner_up, q);
  }
  e.candidates = static_cast<int>(amounts.size());
  e.margin = e.candidates > 1 ? 1000.0 * (share.at(o.c.amount.cents) - runner_up) : 0.0;
}

TotalChoice FieldFinder::choose_total(const Payments& pay) const {
  TotalChoice choice;
  choice.sums = printed_sums(pay);
  if (statement()) return choice;  // a statement's balances are not a bill's total
  const std::vector<TotalOption> options = total_options(pay);
  if (options.empty()) return choice;
  const TotalPage whole = total_page(pay);
  std::vector<Features> x;
  for (const TotalOption& o : options) x.push_back(total_features(o, pay, whole));
  const std::vector<double> probability = rules.finder.probabilities("TOTAL", x);
  // The amount whose candidates' probabilities add up highest, as the finder was trained (the
  // likelihood of the right amount wherever it was proposed: bench/ocr/train_finder.py, `fit`):
  // 33.50 proposed by its label and by cash - change outweighs a misread 3.50 that either alone
  // would lose to. Its likeliest candidate gives the evidence.
  const std::map<long long, double> share = amount_shares(options, probability);
  std::size_t best = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    choice.ranked.push_back({format_amount(options[i].c.amount.cents, options[i].c.amount.currency),
                             std::move(x[i]), probability[i]});
    const double mine = share.at(options[i].c.amount.cents),
                 theirs = share.at(options[best].c.amount.cents);
    if (mine > theirs || (mine == theirs && probability[i] > probability[best])) best = i;
  }
  choice.winner = options[best];
  describe_total(options, probability, pay.paid(), choice);
  return choice;
}

void FieldFinder::take_total(const TotalChoice& choice, nlohmann::json& checks) {
  if (!choice.winner) return;
  const Candidate& c = choice.winner->c;
  if (take(Finding{"TOTAL", format_amount(c.amount.cents, c.amount.currency), c.segment,
                   choice.evidence, choice.check},
           checks))
    candidates["TOTAL"] = choice.ranked;
}

// A total's column with a row per tax rate and the sum under them ("Endbetrag" over "382,47",
// "136,52", "518,99"): from segment k down, the first row after two or more whose last amount is
// the sum of theirs. Each row's last amount has cents; nullopt where none sums the rows above.
std::optional<std::size_t> FieldFinder::column_sum(std::size_t k) const {
  constexpr int kMaxRows = 6;
  long long sum = 0;
  int rows = 0;
  for (std::optional<std::size_t> at = k; at && rows <= kMaxRows; at = below(*at)) {
    const std::vector<Amount> amounts = find_amounts(r[*at].text, rules.lexicon);
    if (amounts.empty() || !amounts.back().has_cents) return std::nullopt;
    if (rows >= 2 && amounts.back().cents == sum) return at;
    sum += amounts.back().cents;
    ++rows;
  }
  return std::nullopt;
}

}  // namespace docsift::ocr::detail
