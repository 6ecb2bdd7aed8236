// Scoring one extracted value against ground truth, per field type, under one of two rule sets
// (docs/eval.md, "The fields", "Scoring" and "Rule sets"). Scores are in [0, 1].
//
// Both: both missing → 1; one missing → 0; equal after lower-casing and removing , $ % ( ) and
// spaces (the common normalisation) → 1; then by type.
//
// docsift (the default):
//   numeric_id  the digits alone must be equal
//   monetary    the same amount to the cent, its sign included: "($5.00)", "-5.00" and "5.00-" are
//               negative (so the common normalisation, which drops parentheses, is not tried);
//               rules.money_tolerance allows a difference relative to the truth; a side that is
//               not an amount scores by the normalised match alone
//   date        every date parsed (extract/dates.h, in rules.date_order): the same day → 1, the
//   same day
//               and month in another year → 0.8, else 0; a period is as good as its worse end; a
//               side that does not parse → 0 (only the normalised match above scores)
//   list        items split on | and newlines only, compared by the field's item type (money as
//               above, numbers equal, text by ANLS ≥ 0.5); F1 of the matched items, pairing
//               them by position (ordered) or with any unused truth item (any)
//   text        ANLS: 1 − edit distance ÷ the longer length, after the common normalisation; 0
//               below 0.5
//
// reference-2025 (the reference's first version, quirks kept so scores compare with its own):
//   numeric_id  as above
//   monetary    within 1 % of the truth (0.01 absolute at 0), after the common normalisation (so
//               "($5.00)" equals "$5.00")
//   date        the same set of digit groups → 1; at least two groups in common → 0.8 (so a
//               swapped day and month scores 1)
//   list        items split on , ; | and newlines (so "$1,234.56" is two items); predicted items
//               that match a truth item (case-insensitive containment either way, each counted
//               once) ÷ the longer list (so "$1" matches "$12.00")
//   text        containment either way (case-insensitive) → 0.9 (so "A" scores 0.9 against
//               "Acme Pty Ltd"); else the share of truth words found in the prediction when ≥ 0.8
#pragma once

#include <string_view>

#include "docsift/extract/field.h"
#include "docsift/extract/scoring_rules.h"

namespace docsift::eval {

// `items`: what a list field's items are (the schema's `items:`); only the docsift rules use it.
double score_field(extract::FieldType type, std::string_view predicted, std::string_view truth,
                   const extract::ScoringRules& rules,
                   extract::ItemType items = extract::ItemType::kText);

// What the docsift rules compare a list's items and a date by, for the cells of a table's rows
// (eval/rows.h). Two items agree: money the same to the cent (or within `money_tolerance` of the
// truth), numbers equal, text by ANLS ≥ 0.5. Neither side may be missing (not checked here).
bool items_agree(extract::ItemType type, std::string_view predicted, std::string_view truth,
                 double money_tolerance);
// Two dates are the same day, read in `order` (a year off is not), or equal once normalised.
bool same_day(std::string_view predicted, std::string_view truth, extract::DateOrder order);

}  // namespace docsift::eval
