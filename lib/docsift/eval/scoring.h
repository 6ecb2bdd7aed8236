// Scoring one extracted value against ground truth, per field type, as the reference system does
// (docs/eval.md, "The fields" and "Scoring"). Scores are in [0, 1].
//
//   both missing → 1; one missing → 0; equal after lower-casing and removing , $ % ( ) and
//   spaces → 1; then by type:
//   numeric_id  the digits alone must be equal
//   monetary    the numbers agree within 1 % of the truth (0.01 absolute when the truth is 0)
//   date        the same set of digit groups → 1; at least two groups in common → 0.8
//   list        items split on , ; | and newlines; predicted items that match a truth item
//               (case-insensitive containment either way, each counted once) ÷ the longer list
//   text        containment either way (case-insensitive) → 0.9; else the share of truth words
//               found in the prediction when it is ≥ 0.8; else 0
#pragma once

#include <string_view>

#include "docsift/extract/field.h"

namespace docsift::eval {

double score_field(extract::FieldType type, std::string_view predicted, std::string_view truth);

}  // namespace docsift::eval
