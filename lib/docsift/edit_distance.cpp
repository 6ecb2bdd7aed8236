#include "docsift/edit_distance.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace docsift {

int edit_distance(std::string_view a, std::string_view b, int limit) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (std::abs(n - m) > limit) return limit + 1;
  std::vector<int> prev(static_cast<std::size_t>(m) + 1), cur(static_cast<std::size_t>(m) + 1);
  for (int j = 0; j <= m; ++j) prev[static_cast<std::size_t>(j)] = j;
  for (int i = 1; i <= n; ++i) {
    cur[0] = i;
    int best = cur[0];
    for (int j = 1; j <= m; ++j) {
      const auto J = static_cast<std::size_t>(j);
      cur[J] = std::min({prev[J] + 1, cur[J - 1] + 1,
                         prev[J - 1] + (a[static_cast<std::size_t>(i - 1)] != b[J - 1] ? 1 : 0)});
      best = std::min(best, cur[J]);
    }
    if (best > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[static_cast<std::size_t>(m)], limit + 1);
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates,
                          int limit) {
  std::string best;
  int best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const int d = edit_distance(word, c, limit);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace docsift
