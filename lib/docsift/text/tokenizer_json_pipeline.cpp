// tokenizer.json's pipeline sections around the model: normalizer, pre_tokenizer, decoder and
// post_processor, each read or rejected by name (tokenizer_files.cpp reads the rest).
#include "docsift/text/tokenizer_json_pipeline.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/error.h"
#include "docsift/json_fields.h"
#include "docsift/text/pre_tokenizer.h"
#include "docsift/text/tokenizer_impl.h"

namespace docsift::text {
using nlohmann::json;

namespace {

void parse_pre_tokenizer_step(const json& node, const std::string& where,
                              std::vector<SplitStep>& splits,
                              std::optional<ByteLevelStep>& byte_level) {
  const JsonFields f(node, where);
  const std::string type = f.string("type");
  if (byte_level)
    f.fail("\"" + type + "\" after ByteLevel is not supported: ByteLevel must come last");
  if (type == "Sequence") {
    const json& list = f.require("pretokenizers");
    if (!list.is_array()) f.fail("\"pretokenizers\" must be a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      parse_pre_tokenizer_step(list[i], where + "[" + std::to_string(i) + "]", splits, byte_level);
    }
  } else if (type == "Split") {
    const JsonFields pattern(f.require("pattern"), where + ".pattern");
    SplitStep step;
    if (const auto regex = pattern.optional_string("Regex")) {
      step.regex = std::make_shared<Regex>(*regex, /*literal=*/false, where);
    } else if (const auto literal = pattern.optional_string("String")) {
      step.regex = std::make_shared<Regex>(*literal, /*literal=*/true, where);
    } else {
      pattern.fail("expected {\"Regex\": ...} or {\"String\": ...}");
    }
    const std::string behavior = f.string("behavior");
    if (behavior == "Isolated") {
      step.behavior = SplitBehavior::kIsolated;
    } else if (behavior == "Removed") {
      step.behavior = SplitBehavior::kRemoved;
    } else {
      f.fail("Split behavior \"" + behavior + "\" is not supported (supported: Isolated, Removed)");
    }
    if (f.boolean("invert", false)) f.fail("Split with \"invert\": true is not supported");
    splits.push_back(std::move(step));
  } else if (type == "ByteLevel") {
    ByteLevelStep step;
    step.add_prefix_space = f.boolean("add_prefix_space", true);
    if (f.boolean("use_regex", true))
      step.gpt2_regex = std::make_shared<Regex>(gpt2_pattern(), false, where);
    byte_level = std::move(step);
  } else {
    f.fail("pre-tokenizer type \"" + type +
           "\" is not supported (supported: Sequence, Split, ByteLevel)");
  }
}

}  // namespace

Normalizer parse_normalizer(const json* node, const std::string& where) {
  Normalizer normalizer;
  if (node == nullptr) return normalizer;
  const JsonFields f(*node, where);
  const std::string type = f.string("type");
  if (type == "NFC") {
    normalizer.nfc = true;
  } else if (type == "Sequence") {
    const json& list = f.require("normalizers");
    if (!list.is_array()) f.fail("\"normalizers\" must be a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (parse_normalizer(&list[i], where + "[" + std::to_string(i) + "]").nfc)
        normalizer.nfc = true;
    }
  } else {
    f.fail("normalizer type \"" + type + "\" is not supported (supported: NFC, Sequence of NFC)");
  }
  return normalizer;
}

std::unique_ptr<PreTokenizer> parse_pre_tokenizer(const json* node, const std::string& where) {
  if (node == nullptr) {
    throw FileError(where +
                    ": missing; docsift supports byte-level BPE tokenizers, which need a ByteLevel "
                    "pre-tokenizer");
  }
  std::vector<SplitStep> splits;
  std::optional<ByteLevelStep> byte_level;
  parse_pre_tokenizer_step(*node, where, splits, byte_level);
  if (!byte_level) {
    throw FileError(where +
                    ": has no ByteLevel step; docsift supports byte-level BPE tokenizers only");
  }
  return std::make_unique<PreTokenizer>(std::move(splits), std::move(*byte_level));
}

void check_decoder(const json* node, const std::string& where) {
  if (node == nullptr) throw FileError(where + ": missing; a ByteLevel decoder is required");
  const JsonFields f(*node, where);
  const std::string type = f.string("type");
  if (type != "ByteLevel")
    f.fail("decoder type \"" + type + "\" is not supported (supported: ByteLevel)");
}

// TemplateProcessing for a single sequence: special token ids around "$A".
void parse_post_processor(const json* node, const std::string& where, Tokenizer::Impl& impl,
                          bool& seen_template) {
  if (node == nullptr) return;
  const JsonFields f(*node, where);
  const std::string type = f.string("type");
  if (type == "ByteLevel") return;  // only adjusts offsets, never ids
  if (type == "Sequence") {
    const json& list = f.require("processors");
    if (!list.is_array()) f.fail("\"processors\" must be a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      parse_post_processor(&list[i], where + "[" + std::to_string(i) + "]", impl, seen_template);
    }
    return;
  }
  if (type != "TemplateProcessing") {
    f.fail("post-processor type \"" + type +
           "\" is not supported (supported: ByteLevel, TemplateProcessing, Sequence)");
  }
  if (seen_template) f.fail("more than one TemplateProcessing is not supported");
  seen_template = true;
  const json& specials = f.require("special_tokens");
  if (!specials.is_object()) f.fail("\"special_tokens\" must be an object");
  const json& single = f.require("single");
  if (!single.is_array()) f.fail("\"single\" must be a list");
  bool seen_sequence = false;
  for (const json& item : single) {
    const JsonFields piece(item, where + ".single");
    if (const json* seq = piece.find("Sequence")) {
      const JsonFields s(*seq, where + ".single.Sequence");
      if (s.string("id") != "A") s.fail("a single-sequence template may only use sequence A");
      if (seen_sequence) s.fail("sequence A appears twice");
      seen_sequence = true;
    } else if (const json* special = piece.find("SpecialToken")) {
      const std::string name = JsonFields(*special, where + ".single.SpecialToken").string("id");
      const auto it = specials.find(name);
      if (it == specials.end())
        f.fail("template uses \"" + name + "\", which \"special_tokens\" does not define");
      const JsonFields entry(*it, where + ".special_tokens." + name);
      const json& ids = entry.require("ids");
      if (!ids.is_array()) entry.fail("\"ids\" must be a list");
      for (const json& id : ids) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
          entry.fail("\"ids\" must hold non-negative integers");
        }
        (seen_sequence ? impl.template_suffix : impl.template_prefix).push_back(id.get<int32_t>());
      }
    } else {
      piece.fail("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  if (!seen_sequence) f.fail("\"single\" never places sequence A");
}

}  // namespace docsift::text
