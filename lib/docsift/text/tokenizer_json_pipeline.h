// Internal: reading tokenizer.json's pipeline sections around the model
// (tokenizer_json_pipeline.cpp), for Tokenizer::from_tokenizer_json_text (tokenizer_files.cpp).
// Each takes the section's node, or nullptr when the file has none, and `where`, the file and
// section for messages.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/text/pre_tokenizer.h"
#include "docsift/text/tokenizer_impl.h"

namespace docsift::text {

// "normalizer": NFC, or a Sequence of NFC; none is no normalization.
Normalizer parse_normalizer(const nlohmann::json* node, const std::string& where);

// "pre_tokenizer": Split steps, then the ByteLevel step that must come last (required).
std::unique_ptr<PreTokenizer> parse_pre_tokenizer(const nlohmann::json* node,
                                                  const std::string& where);

// "decoder": required, and ByteLevel.
void check_decoder(const nlohmann::json* node, const std::string& where);

// "post_processor": a single-sequence TemplateProcessing's special token ids, into impl's
// template_prefix and template_suffix; `seen_template` is set once one is read.
void parse_post_processor(const nlohmann::json* node, const std::string& where,
                          Tokenizer::Impl& impl, bool& seen_template);

}  // namespace docsift::text
