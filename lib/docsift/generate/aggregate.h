// The names of the model-confidence aggregates, apart from generate/confidence.h so that the
// config (and the fuzz targets built without LibTorch) can name one without the decode loop.
#pragma once

#include <string_view>

#include "docsift/names.h"

namespace docsift::generate {

// How a value's token log-probabilities become one confidence (extraction.confidence).
//   min:     the least likely pick's probability; one doubtful digit makes a doubtful amount.
//   mean:    exp of the mean log-probability (the picks' geometric mean); length-neutral.
//   product: the value's probability as a sequence; falls with every token, so long values look
//            doubtful whatever the model thought of them.
enum class Aggregate { kMin, kMean, kProduct };
inline constexpr Names<Aggregate, 3> kAggregateNames{
    {{Aggregate::kMin, "min"}, {Aggregate::kMean, "mean"}, {Aggregate::kProduct, "product"}}};
constexpr std::string_view to_string(Aggregate v) { return name_of(kAggregateNames, v); }

}  // namespace docsift::generate
