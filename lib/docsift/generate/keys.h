// `extraction.decoding: keys`: docsift writes the keys, the model writes only the values of its
// document type's fields (docs/decoding.md).
//
// After the prompt's prefill: "DOCUMENT_TYPE:" goes into the KV cache as one extend, and the value
// is generated under a token trie of the schema's type names, so only a token that continues
// " TAX INVOICE", " RECEIPT", … can win the argmax. Then, for each field of that type in schema
// order, "\nNAME:" is one extend and the value is generated greedily until a token holding a
// newline, a stop token, or the field's max_tokens. Fields outside the type are N/A and cost
// nothing. The answer is assembled as the same "KEY: value" lines free decoding gives, every
// field in schema order, so the parser, the journal and the CSV read it unchanged.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "docsift/extract/schema.h"
#include "docsift/text/tokenizer.h"

namespace docsift::generate {

// One field as `keys` decoding writes it: its key's tokens, both ways they can follow a value.
struct KeyedField {
  std::string name;
  extract::Field field;  // the schema's, for Field::applies
  int max_tokens = 32;
  // "NAME:" where the newline before it is already in the cache (the first key after the prompt,
  // or after a value the model ended with a token holding "\n", which the chunk carries first).
  std::vector<int32_t> key;
  // "\nNAME:" where docsift writes the newline (after a stop token or a value that hit its cap).
  std::vector<int32_t> newline_key;
};

// What `keys` needs of the schema and the tokenizer, made once per run (make_key_plan).
struct KeyPlan {
  std::vector<KeyedField> fields;  // schema order
  int type_field = -1;             // index of DOCUMENT_TYPE in `fields`; -1: no routing
  // The allowed type values as the model writes them after "DOCUMENT_TYPE:", with the leading
  // space (" TAX INVOICE"), and the schema's spelling of each.
  std::vector<std::string> type_values;
  std::vector<std::string> type_names;
  // The trie's alphabet: every non-special token whose bytes occur inside some type value, with
  // those bytes. A token is allowed when the value so far plus its bytes is a prefix of a type
  // value; that walk over the candidates is the trie (type values are a handful of short
  // strings, so no node structure pays).
  std::vector<int32_t> type_candidates;
  std::vector<std::string> type_candidate_bytes;
  int32_t newline = -1;         // the token of "\n" alone
  std::vector<bool> ends_line;  // per token id: its text holds a newline
  // The most tokens the stream after the prompt can hold (keys, values at their caps, newlines):
  // the KV cache's capacity beyond the prompt.
  int64_t max_stream_tokens() const;
  // The keys' tokens alone, each with a newline.
  int64_t max_key_tokens() const;
  // The stream's bound when the model may pick at most `budget` tokens for the page.
  int64_t stream_tokens(int64_t budget) const {
    return std::min(max_stream_tokens(), max_key_tokens() + budget);
  }
  bool routes() const { return type_field >= 0; }
};

// Builds the plan. With `tables`, the schema's tables are asked after the fields, each a key like a
// field's whose value is one line of JSON rows up to the table's max_tokens (extract/tables.h).
// Throws docsift::ConfigError when the tokenizer cannot write "\n" as one token.
KeyPlan make_key_plan(const extract::FieldSchema& schema, const text::Tokenizer& tokenizer,
                      bool tables = false);

// How a value's generation ended.
enum class ValueEnd { kNewline, kCap, kStop, kType };

// One asked field's value as generated.
struct KeyedValue {
  int field = -1;               // index into KeyPlan::fields
  std::vector<int32_t> tokens;  // the model's tokens (the one that holds the newline included)
  ValueEnd end = ValueEnd::kNewline;
  // With GenerationOptions::logprobs: the natural log of each token's probability, one per
  // `tokens` entry; for the document type, the probability among the tokens the trie allowed at
  // that step (the type is a choice among the schema's names). kStop: the stop token's too.
  std::vector<double> logprobs;
  std::optional<double> stop_logprob;
};

// The "KEY: value" answer: every field of the plan in schema order, a value as the model wrote it
// up to its first newline, N/A for a field it was not asked (outside the document type).
std::string keyed_answer(const KeyPlan& plan, const std::vector<KeyedValue>& values,
                         const text::Tokenizer& tokenizer);

}  // namespace docsift::generate
