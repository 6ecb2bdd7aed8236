#include "docsift/generate/keys.h"

#include <algorithm>

#include "docsift/error.h"

namespace docsift::generate {

KeyPlan make_key_plan(const extract::FieldSchema& schema, const text::Tokenizer& tokenizer,
                      bool tables) {
  KeyPlan plan;
  const std::vector<int32_t> newline = tokenizer.encode("\n");
  if (newline.size() != 1) {
    throw ConfigError(
        "extraction.decoding: keys needs a tokenizer that writes \"\\n\" as one token (" +
        tokenizer.source() + " takes " + std::to_string(newline.size()) + "); use free");
  }
  plan.newline = newline.front();
  // Keys are encoded as whole strings, the way the chat template's text would be. Qwen2's and
  // Llama 3's pre-tokenizers split a newline from the letters after it and ':' from the space
  // after it, so "\nNAME:" is "\n" + "NAME:" and the value's " word" starts a token of its own:
  // exactly the split of the full answer's text. A tokenizer that merged them differently is
  // followed all the same, since each chunk is its own encode.
  for (const extract::Field& f : schema.fields) {
    KeyedField k;
    k.name = f.name;
    k.field = f;
    k.max_tokens = f.max_tokens > 0 ? f.max_tokens : extract::default_max_tokens(f.type);
    k.key = tokenizer.encode(f.name + ":");
    k.newline_key = tokenizer.encode("\n" + f.name + ":");
    plan.fields.push_back(std::move(k));
  }
  // A table is asked as a field is: its key, then its line, routed by the document type.
  for (const extract::TableSpec& t : tables ? schema.tables : std::vector<extract::TableSpec>{}) {
    KeyedField k;
    k.name = t.name;
    k.field.name = t.name;
    k.field.instruction = t.instruction;
    k.field.applies_to = t.applies_to;
    k.max_tokens = k.field.max_tokens = t.max_tokens;
    k.key = tokenizer.encode(t.name + ":");
    k.newline_key = tokenizer.encode("\n" + t.name + ":");
    plan.fields.push_back(std::move(k));
  }
  plan.type_names = schema.document_types();
  const auto type =
      std::find_if(schema.fields.begin(), schema.fields.end(),
                   [](const extract::Field& f) { return f.name == extract::kDocumentTypeField; });
  if (type != schema.fields.end() && !plan.type_names.empty()) {
    plan.type_field = static_cast<int>(type - schema.fields.begin());
    for (const std::string& name : plan.type_names) plan.type_values.push_back(" " + name);
  }
  const auto vocab = static_cast<int32_t>(tokenizer.vocab_size());
  plan.ends_line.assign(static_cast<std::size_t>(vocab), false);
  for (int32_t id = 0; id < vocab; ++id) {
    std::string bytes;
    try {
      if (tokenizer.is_special(id)) continue;
      bytes = tokenizer.token_bytes(id);
    } catch (const Error&) {
      continue;  // an id the vocabulary skips
    }
    if (bytes.empty()) continue;
    plan.ends_line[static_cast<std::size_t>(id)] = bytes.find('\n') != std::string::npos;
    for (const std::string& v : plan.type_values) {
      if (v.find(bytes) != std::string::npos) {
        plan.type_candidates.push_back(id);
        plan.type_candidate_bytes.push_back(bytes);
        break;
      }
    }
  }
  return plan;
}

int64_t KeyPlan::max_stream_tokens() const {
  int64_t total = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const KeyedField& f = fields[i];
    total += static_cast<int64_t>(std::max(f.key.size(), f.newline_key.size()));
    if (static_cast<int>(i) == type_field) {
      std::size_t longest = 0;  // a type token holds at least one byte
      for (const std::string& v : type_values) longest = std::max(longest, v.size());
      total += static_cast<int64_t>(longest) + 1;
    } else {
      total += f.max_tokens;
    }
  }
  return total;
}

int64_t KeyPlan::max_key_tokens() const {
  int64_t total = 0;
  for (const KeyedField& f : fields)
    total += static_cast<int64_t>(std::max(f.key.size(), f.newline_key.size()));
  return total;
}

std::string keyed_answer(const KeyPlan& plan, const std::vector<KeyedValue>& values,
                         const text::Tokenizer& tokenizer) {
  std::string answer;
  for (std::size_t i = 0; i < plan.fields.size(); ++i) {
    const auto v = std::find_if(values.begin(), values.end(), [&](const KeyedValue& kv) {
      return kv.field == static_cast<int>(i);
    });
    std::string value = " N/A";  // not asked: outside the document type
    if (v != values.end()) {
      value = tokenizer.decode(v->tokens, /*skip_special_tokens=*/true);
      value = value.substr(0, value.find('\n'));
    }
    answer += (i ? "\n" : "") + plan.fields[i].name + ":" + value;
  }
  return answer;
}

}  // namespace docsift::generate
