// A model confidence for each field value: the token probabilities of the value's picks, which the
// decode loop records from the logits it already computed (GenerationOptions::logprobs), folded
// into one number in (0, 1] (docs/decoding.md, "Confidence"). Raw: not calibrated, since fitting
// needs labelled pages read by real weights.
//   keys: a field's evidence is its value's picks and, where a stop token ended it, that stop's;
//         the keys docsift forced are not the model's choices and carry none.
//   free: the value's characters are found by the response parser and mapped back to the tokens
//         that wrote them, through the newline that ends its line (or the stop token on the last).
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "docsift/generate/aggregate.h"
#include "docsift/generate/generate.h"
#include "docsift/names.h"
#include "docsift/text/tokenizer.h"

namespace docsift::generate {

// The aggregate of natural-log probabilities as a probability in (0, 1] (the smallest positive
// double where exp underflows); nullopt for none.
std::optional<double> aggregate(std::span<const double> logprobs, Aggregate how);

struct Confidences {
  std::map<std::string, double> fields;  // every field of `values` that is not N/A
  std::optional<double> document_type;   // DOCUMENT_TYPE's, where it has a value
};

// The confidence of each value in `values` (parse_response of the answer: the keyed answer under
// keys, the decoded tokens under free) that is not N/A. `keys`: the plan `result` was decoded
// with, null for free. Empty when the generation recorded no log-probabilities.
Confidences field_confidences(const GenerationResult& result, const KeyPlan* keys,
                              const text::Tokenizer& tokenizer,
                              const std::map<std::string, std::string>& values, Aggregate how);

// Free decoding's evidence per field: the log-probabilities of the tokens whose text overlaps the
// value's bytes through its line's newline, plus the stop token's on the last line. The text is
// the tokens decoded as text::StreamDecoder writes them (a token that completes no character
// counts with the one that does). Exposed for tests.
std::map<std::string, std::vector<double>> free_value_logprobs(
    const GenerationResult& result, const text::Tokenizer& tokenizer,
    const std::vector<std::string>& fields);

}  // namespace docsift::generate
