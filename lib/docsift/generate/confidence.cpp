#include "docsift/generate/confidence.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "docsift/extract/field.h"
#include "docsift/extract/response_parser.h"
#include "docsift/extract/schema.h"

namespace docsift::generate {

std::optional<double> aggregate(std::span<const double> logprobs, Aggregate how) {
  if (logprobs.empty()) return std::nullopt;
  double log_p = 0;
  switch (how) {
    case Aggregate::kMin:
      log_p = *std::min_element(logprobs.begin(), logprobs.end());
      break;
    case Aggregate::kMean:
      log_p = std::accumulate(logprobs.begin(), logprobs.end(), 0.0) /
              static_cast<double>(logprobs.size());
      break;
    case Aggregate::kProduct:
      log_p = std::accumulate(logprobs.begin(), logprobs.end(), 0.0);
      break;
  }
  // (0, 1]: a log-probability is never above 0, and a product of many unlikely picks may underflow.
  return std::clamp(std::exp(log_p), std::numeric_limits<double>::min(), 1.0);
}

std::map<std::string, std::vector<double>> free_value_logprobs(
    const GenerationResult& result, const text::Tokenizer& tokenizer,
    const std::vector<std::string>& fields) {
  const std::size_t n = result.tokens.size();
  // Each token's bytes [begin, end) in the text. A token that completes no character (part of a
  // UTF-8 sequence, or a skipped special token) takes the range of the next that writes some.
  std::vector<std::size_t> begin(n), end(n);
  std::string text;
  text::StreamDecoder decoder(tokenizer, /*skip_special_tokens=*/true);
  std::size_t waiting = 0;  // tokens [waiting, i) wrote nothing yet
  const auto place = [&](std::size_t upto, std::size_t from) {
    for (; waiting < upto; ++waiting) {
      begin[waiting] = from;
      end[waiting] = text.size();
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from = text.size();
    text += decoder.push(result.tokens[i]);
    if (text.size() > from) place(i + 1, from);
  }
  const std::size_t from = text.size();
  text += decoder.finish();
  place(n, from);

  std::map<std::string, extract::ValueSpan> spans;
  (void)extract::parse_response(text, fields, &spans);
  std::map<std::string, std::vector<double>> out;
  for (const auto& [name, span] : spans) {
    std::vector<double>& picks = out[name];
    for (std::size_t i = 0; i < n && i < result.logprobs.size(); ++i) {
      // Overlaps [span.begin, span.line_end]: the value, any markdown after it, and its newline.
      if (begin[i] <= span.line_end && end[i] > span.begin) picks.push_back(result.logprobs[i]);
    }
    if (span.line_end >= text.size() && result.stop_logprob) picks.push_back(*result.stop_logprob);
  }
  return out;
}

Confidences field_confidences(const GenerationResult& result, const KeyPlan* keys,
                              const text::Tokenizer& tokenizer,
                              const std::map<std::string, std::string>& values, Aggregate how) {
  std::map<std::string, std::vector<double>> evidence;
  if (keys != nullptr) {
    for (const KeyedValue& v : result.values) {
      std::vector<double> picks = v.logprobs;
      if (v.stop_logprob) picks.push_back(*v.stop_logprob);
      evidence[keys->fields[static_cast<std::size_t>(v.field)].name] = std::move(picks);
    }
  } else {
    std::vector<std::string> names;
    for (const auto& [name, value] : values) names.push_back(name);
    evidence = free_value_logprobs(result, tokenizer, names);
  }
  Confidences out;
  for (const auto& [name, value] : values) {
    if (extract::is_missing(value)) continue;
    const auto e = evidence.find(name);
    if (e == evidence.end()) continue;
    if (const auto c = aggregate(e->second, how)) out.fields[name] = *c;
  }
  if (const auto t = out.fields.find(std::string(extract::kDocumentTypeField));
      t != out.fields.end()) {
    out.document_type = t->second;
  }
  return out;
}

}  // namespace docsift::generate
