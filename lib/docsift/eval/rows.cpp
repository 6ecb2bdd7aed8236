// rows.h: the assignment of predicted rows to the truth's, and the counts over every document.
#include "docsift/eval/rows.h"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "docsift/eval/scoring.h"
#include "docsift/extract/field.h"

namespace docsift::eval {

namespace {

// The columns one row gives, or agrees in: bit c for kRowColumns[c].
using Columns = std::bitset<kColumnCount>;

enum class CellKind { kText, kNumber, kMoney, kDate };

constexpr std::array<CellKind, kColumnCount> kCellKinds = {
    CellKind::kText, CellKind::kNumber, CellKind::kMoney, CellKind::kMoney,
    CellKind::kDate, CellKind::kMoney,  CellKind::kMoney, CellKind::kMoney};

bool gives(const std::string& cell) { return !extract::is_missing(cell); }

Columns given(const Row& row) {
  Columns out;
  for (std::size_t c = 0; c < kColumnCount; ++c) out[c] = gives(row[c]);
  return out;
}

// Equal but for case and the spaces around them.
bool same_text(std::string_view a, std::string_view b) {
  const auto trimmed = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  a = trimmed(a);
  b = trimmed(b);
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool cell_agrees(std::size_t column, const std::string& predicted, const std::string& truth,
                 const extract::ScoringRules& rules) {
  if (!gives(predicted) || !gives(truth)) return false;
  switch (kCellKinds[column]) {
    case CellKind::kText:
      return items_agree(extract::ItemType::kText, predicted, truth, rules.money_tolerance);
    case CellKind::kNumber:  // a cell that is not a number ("two") agrees with the same text
      return items_agree(extract::ItemType::kNumber, predicted, truth, rules.money_tolerance) ||
             same_text(predicted, truth);
    case CellKind::kMoney:
      return items_agree(extract::ItemType::kMonetary, predicted, truth, rules.money_tolerance);
    case CellKind::kDate:
      return same_day(predicted, truth, rules.date_order);
  }
  return false;
}

double ratio(std::size_t part, std::size_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// The Hungarian algorithm on an n × m cost matrix, n ≤ m (potentials u, v; the columns' rows p):
// per row, the column of a least-cost assignment. Costs are 1-based in the loops below.
std::vector<int> least_cost(const std::vector<std::vector<std::int64_t>>& cost, std::size_t m) {
  const std::size_t n = cost.size();
  constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> u(n + 1, 0), v(m + 1, 0);
  std::vector<std::size_t> p(m + 1, 0), way(m + 1, 0);
  for (std::size_t i = 1; i <= n; ++i) {
    p[0] = i;
    std::size_t j0 = 0;
    std::vector<std::int64_t> min_v(m + 1, kInf);
    std::vector<bool> used(m + 1, false);
    do {  // grow an alternating tree from row i until it reaches a free column
      used[j0] = true;
      const std::size_t i0 = p[j0];
      std::int64_t delta = kInf;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const std::int64_t reduced = cost[i0 - 1][j - 1] - u[i0] - v[j];
        if (reduced < min_v[j]) {
          min_v[j] = reduced;
          way[j] = j0;
        }
        if (min_v[j] < delta) {
          delta = min_v[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= m; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          min_v[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {  // flip the path: row i is assigned, every row on the way moves along it
      const std::size_t j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> column_of(n, -1);
  for (std::size_t j = 1; j <= m; ++j) {
    if (p[j] != 0) column_of[p[j] - 1] = static_cast<int>(j - 1);
  }
  return column_of;
}

// One document: its truth rows against its predicted rows, counted into `e`. `scored`: the
// columns a predicted row left unassigned is counted in. Returns, per predicted row, whether it is
// right.
std::vector<bool> score_document(const std::vector<Row>& truth, const std::vector<Row>& predicted,
                                 const Columns& scored, const extract::ScoringRules& rules,
                                 RowEvaluation& e) {
  const std::size_t n = truth.size(), m = predicted.size();
  std::vector<std::vector<Columns>> agree(n, std::vector<Columns>(m));
  std::vector<std::vector<int>> weight(n, std::vector<int>(m, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      for (std::size_t c = 0; c < kColumnCount; ++c)
        agree[i][j][c] = cell_agrees(c, predicted[j][c], truth[i][c], rules);
      weight[i][j] = static_cast<int>(agree[i][j].count());
    }
  }
  const std::vector<int> assigned = m == 0 ? std::vector<int>(n, -1) : best_assignment(weight);
  const auto count = [&e](const Columns& columns, std::size_t RowCounts::*what) {
    for (std::size_t c = 0; c < kColumnCount; ++c) {
      if (!columns[c]) continue;
      ++(e.columns[c].*what);
      ++(e.cells.*what);
    }
  };
  e.rows.truth += n;
  e.rows.predicted += m;
  std::vector<bool> paired(m, false), right(m, false);
  for (std::size_t i = 0; i < n; ++i) {
    const Columns truth_columns = given(truth[i]);
    count(truth_columns, &RowCounts::truth);
    const int j = assigned[i];
    if (j < 0 || weight[i][static_cast<std::size_t>(j)] == 0) continue;  // a missed row
    const auto pj = static_cast<std::size_t>(j);
    paired[pj] = true;
    count(given(predicted[pj]) & truth_columns, &RowCounts::predicted);
    count(agree[i][pj], &RowCounts::right);
    right[pj] = agree[i][pj] == truth_columns;
    if (right[pj]) ++e.rows.right;
  }
  for (std::size_t j = 0; j < m; ++j) {
    if (!paired[j]) count(given(predicted[j]) & scored, &RowCounts::predicted);
  }
  return right;
}

}  // namespace

double RowCounts::precision() const { return ratio(right, predicted); }
double RowCounts::recall() const { return ratio(right, truth); }
double RowCounts::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

std::vector<int> best_assignment(const std::vector<std::vector<int>>& weight) {
  const std::size_t n = weight.size(), m = n == 0 ? 0 : weight.front().size();
  if (n == 0 || m == 0) return std::vector<int>(n, -1);
  // The most weight is the least cost −weight; the algorithm wants no more rows than columns.
  const bool turned = n > m;
  std::vector<std::vector<std::int64_t>> cost(turned ? m : n,
                                              std::vector<std::int64_t>(turned ? n : m));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) (turned ? cost[j][i] : cost[i][j]) = -weight[i][j];
  }
  const std::vector<int> found = least_cost(cost, turned ? n : m);
  if (!turned) return found;
  std::vector<int> row_of(n, -1);
  for (std::size_t j = 0; j < m; ++j)
    row_of[static_cast<std::size_t>(found[j])] = static_cast<int>(j);
  return row_of;
}

RowEvaluation evaluate_rows(const DocumentRows& truth, const DocumentRows& predicted,
                            const extract::ScoringRules& rules, const RowConfidences& confidences) {
  RowEvaluation e;
  Columns anywhere;  // the columns any truth row gives
  for (const auto& [document, rows] : truth) {
    for (const Row& row : rows) anywhere |= given(row);
  }
  const std::vector<Row> none;
  for (const auto& [document, rows] : truth) {
    ++e.documents;
    Columns scored;
    for (const Row& row : rows) scored |= given(row);
    const auto p = predicted.find(document);
    const std::vector<bool> right = score_document(rows, p == predicted.end() ? none : p->second,
                                                   rows.empty() ? anywhere : scored, rules, e);
    const auto c = confidences.find(document);
    if (c == confidences.end()) continue;
    for (std::size_t j = 0; j < right.size() && j < c->second.size(); ++j) {
      if (c->second[j]) e.judged.push_back({document, j + 1, *c->second[j], right[j]});
    }
  }
  return e;
}

}  // namespace docsift::eval
