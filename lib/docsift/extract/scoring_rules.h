// How `docsift eval` compares a value with the truth: the rule set and its settings (the config's
// eval.* keys, docs/eval.md "Rule sets"). The scoring itself is eval/'s; these enums live here,
// beside the field types they refine, because config/ (below eval/) must know their names and
// config/ owns no enum (docs/architecture.md).
#pragma once

#include "docsift/names.h"

namespace docsift::extract {

// docsift: dates as calendar dates, lists split on | and newlines with items compared by type,
// text by ANLS. reference2025: the reference's first version, quirks included, so that scores
// compare with its published ones.
enum class RuleSet { kDocsift, kReference2025 };
// How the truth writes a numeric date such as 03/04/2025 (predictions are read the same way).
enum class DateOrder { kDmy, kMdy, kYmd };
// List F1: ordered pairs item i with item i; any pairs each predicted item with any unused truth
// item.
enum class ListMatch { kOrdered, kAny };

inline constexpr Names<RuleSet, 2> kRuleSetNames{
    {{RuleSet::kDocsift, "docsift"}, {RuleSet::kReference2025, "reference-2025"}}};
inline constexpr Names<DateOrder, 3> kDateOrderNames{
    {{DateOrder::kDmy, "dmy"}, {DateOrder::kMdy, "mdy"}, {DateOrder::kYmd, "ymd"}}};
inline constexpr Names<ListMatch, 2> kListMatchNames{
    {{ListMatch::kOrdered, "ordered"}, {ListMatch::kAny, "any"}}};

struct ScoringRules {
  RuleSet rules = RuleSet::kDocsift;
  DateOrder date_order = DateOrder::kDmy;
  ListMatch list_match = ListMatch::kOrdered;
  // docsift rules: how far an amount may be from the truth's, relative to it (0.01 = 1 %), and
  // still score; 0 asks for the same amount to the cent (a finance gate wants cents and signs).
  double money_tolerance = 0.0;
};

// The reference's first version exactly (reference2025 ignores date_order, list_match and
// money_tolerance: its money is always within 1 %).
inline constexpr ScoringRules kReference2025Rules{RuleSet::kReference2025, DateOrder::kDmy,
                                                  ListMatch::kOrdered};

}  // namespace docsift::extract
