// Reading tokenizers from files: tokenizer.json, and the vocab.json + merges.txt layout.
// Every field the reference would act on is either implemented or rejected by name.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "docsift/error.h"
#include "docsift/json_fields.h"
#include "docsift/strict_json.h"
#include "docsift/text/tokenizer_impl.h"
#include "docsift/text/tokenizer_json_pipeline.h"
#include "docsift/text/utf8.h"

namespace docsift::text {
namespace fs = std::filesystem;
using nlohmann::json;

// Qwen2's pre-tokenizer pattern, which the slow→fast converter writes for the vocab.json layout
// (transformers convert_slow_tokenizer.Qwen2Converter).
constexpr const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Builds a Tokenizer from parts; the one place that can call the private constructor.
struct TokenizerBuilder {
  static Tokenizer build(std::shared_ptr<Tokenizer::Impl> impl) {
    impl->max_id = static_cast<int64_t>(impl->bpe->id_limit()) - 1;
    impl->finish_setup();
    return Tokenizer(std::move(impl));
  }
};

namespace {

constexpr std::size_t kMaxTokenizerFileBytes = 256u << 20;

std::string read_text_file(const fs::path& path) {
  return docsift::read_text_file(path.string(), kMaxTokenizerFileBytes);
}

AddedToken parse_added_token(const json& entry, const std::string& where) {
  const JsonFields f(entry, where);
  AddedToken token;
  const json& id = f.require("id");
  if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
    f.fail("\"id\" must be an integer from 0 to 2^31-1");
  }
  token.id = id.get<int32_t>();
  token.content = f.string("content");
  if (token.content.empty()) f.fail("\"content\" is empty");
  token.special = f.boolean("special", false);
  token.lstrip = f.boolean("lstrip", false);
  token.rstrip = f.boolean("rstrip", false);
  token.single_word = f.boolean("single_word", false);
  token.normalized = f.boolean("normalized", !token.special);
  return token;
}

std::vector<std::pair<std::string, std::string>> parse_merges(const json& merges,
                                                              const JsonFields& f) {
  if (!merges.is_array()) f.fail("\"merges\" must be a list");
  std::vector<std::pair<std::string, std::string>> result;
  result.reserve(merges.size());
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const json& m = merges[rank];
    if (m.is_string()) {  // "a b", the older format: exactly one space
      const std::string& s = m.get_ref<const std::string&>();
      const auto space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        f.fail("merge " + std::to_string(rank) + " (\"" + s +
               "\") is not two tokens separated by one space");
      }
      result.emplace_back(s.substr(0, space), s.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      result.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      f.fail("merge " + std::to_string(rank) + " must be \"a b\" or [\"a\", \"b\"], found " +
             m.dump());
    }
  }
  return result;
}

std::vector<std::pair<std::string, int32_t>> parse_vocab(const json& vocab,
                                                         const std::string& where) {
  if (!vocab.is_object())
    throw FileError(where + ": the vocabulary must be an object of token → id");
  std::vector<std::pair<std::string, int32_t>> result;
  result.reserve(vocab.size());
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
      throw FileError(where + ": the id of '" + token + "' must be an integer from 0 to 2^31-1");
    }
    result.emplace_back(token, id.get<int32_t>());
  }
  return result;
}

std::unique_ptr<BpeModel> parse_model(const json& node, const std::string& where) {
  const JsonFields f(node, where);
  const std::string type = f.string("type");
  if (type != "BPE") f.fail("model type \"" + type + "\" is not supported (supported: BPE)");
  if (const json* dropout = f.find("dropout")) {
    if (!dropout->is_number() || dropout->get<double>() != 0.0) {
      f.fail(
          "\"dropout\" is set; BPE dropout is for training and makes ids random, so it is not "
          "supported");
    }
  }
  if (f.boolean("byte_fallback", false)) f.fail("\"byte_fallback\": true is not supported");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (const auto value = f.optional_string(key); value && !value->empty()) {
      f.fail(std::string("\"") + key + "\" (\"" + *value + "\") is not supported");
    }
  }
  BpeOptions options;
  options.ignore_merges = f.boolean("ignore_merges", false);
  options.unk_token = f.optional_string("unk_token");
  options.fuse_unk = f.boolean("fuse_unk", false);
  return std::make_unique<BpeModel>(parse_vocab(f.require("vocab"), where + ".vocab"),
                                    parse_merges(f.require("merges"), f), std::move(options),
                                    where);
}

void check_added_ids(const Tokenizer::Impl& impl, const std::string& where) {
  std::unordered_map<int32_t, const std::string*> seen;
  for (const AddedToken& token : impl.added) {
    const auto [it, inserted] = seen.emplace(token.id, &token.content);
    if (!inserted) {
      throw FileError(where + ": id " + std::to_string(token.id) + " is given to both '" +
                      *it->second + "' and '" + token.content + "'");
    }
    if (find_invalid_utf8(token.content) != kNoError)
      throw FileError(where + ": token content is not UTF-8");
  }
}

// merges.txt: one merge a line, its two tokens separated by one space; blank lines and the
// "#version" header skipped.
std::vector<std::pair<std::string, std::string>> read_merges_txt(const fs::path& merges_path) {
  std::vector<std::pair<std::string, std::string>> merges;
  const std::string text = read_text_file(merges_path);
  std::size_t line_no = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.starts_with("#version")) continue;
    const auto space = line.find(' ');
    if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos) {
      throw FileError(merges_path.string() + ":" + std::to_string(line_no) +
                      ": expected two tokens separated by one space, found \"" + std::string(line) +
                      "\"");
    }
    merges.emplace_back(std::string(line.substr(0, space)), std::string(line.substr(space + 1)));
  }
  return merges;
}

}  // namespace

Tokenizer Tokenizer::from_tokenizer_json_text(std::string_view text, const std::string& label) {
  const json root = parse_json_strict(text, label, /*max_depth=*/16);
  const JsonFields top(root, label);
  for (const char* key : {"truncation", "padding"}) {
    if (top.find(key) != nullptr) {
      top.fail(std::string("\"") + key +
               "\" is set; docsift encodes whole prompts and does not support it");
    }
  }
  auto impl = std::make_shared<Impl>();
  impl->source = label;
  impl->bpe = parse_model(top.require("model"), label + ": model");
  impl->normalizer = parse_normalizer(top.find("normalizer"), label + ": normalizer");
  impl->pre_tokenizer = parse_pre_tokenizer(top.find("pre_tokenizer"), label + ": pre_tokenizer");
  check_decoder(top.find("decoder"), label + ": decoder");
  bool seen_template = false;
  parse_post_processor(top.find("post_processor"), label + ": post_processor", *impl,
                       seen_template);
  if (const json* added = top.find("added_tokens")) {
    if (!added->is_array()) top.fail("\"added_tokens\" must be a list");
    for (std::size_t i = 0; i < added->size(); ++i) {
      impl->added.push_back(
          parse_added_token((*added)[i], label + ": added_tokens[" + std::to_string(i) + "]"));
    }
  }
  check_added_ids(*impl, label + ": added_tokens");
  return TokenizerBuilder::build(std::move(impl));
}

Tokenizer Tokenizer::from_tokenizer_json(const fs::path& file) {
  return from_tokenizer_json_text(read_text_file(file), file.string());
}

// The layout of `save_pretrained` for slow tokenizers. Rebuilt as transformers' Qwen2 slow→fast
// converter does: NFC, the Qwen2 split pattern, ByteLevel without prefix space, no unk token;
// added tokens and their flags from tokenizer_config.json's added_tokens_decoder, plus any
// added_tokens.json entry it lacks (as a normalized, non-special token).
Tokenizer Tokenizer::from_vocab_merges(const fs::path& folder) {
  const fs::path vocab_path = folder / "vocab.json";
  const fs::path merges_path = folder / "merges.txt";
  const fs::path config_path = folder / "tokenizer_config.json";
  const fs::path added_path = folder / "added_tokens.json";

  json config = json::object();
  if (fs::exists(config_path))
    config = parse_json_strict(read_text_file(config_path), config_path.string(), 8);
  const JsonFields config_fields(config, config_path.string());
  if (const auto cls = config_fields.optional_string("tokenizer_class")) {
    if (*cls != "Qwen2Tokenizer" && *cls != "Qwen2TokenizerFast") {
      config_fields.fail(
          "tokenizer_class \"" + *cls +
          "\" is not supported without a tokenizer.json (supported: Qwen2Tokenizer); save the "
          "tokenizer with a fast tokenizer to get tokenizer.json");
    }
  }

  auto vocab = parse_vocab(parse_json_strict(read_text_file(vocab_path), vocab_path.string(), 2),
                           vocab_path.string());
  const std::vector<std::pair<std::string, std::string>> merges = read_merges_txt(merges_path);

  auto impl = std::make_shared<Impl>();
  impl->source = folder.string();
  impl->normalizer.nfc = true;
  impl->bpe =
      std::make_unique<BpeModel>(std::move(vocab), merges, BpeOptions{}, vocab_path.string());
  std::vector<SplitStep> splits;
  splits.push_back(
      {std::make_shared<Regex>(kQwen2Pattern, false, "Qwen2 pattern"), SplitBehavior::kIsolated});
  impl->pre_tokenizer = std::make_unique<PreTokenizer>(std::move(splits), ByteLevelStep{});

  if (const json* decoder = config_fields.find("added_tokens_decoder")) {
    const JsonFields entries(*decoder, config_path.string() + ": added_tokens_decoder");
    for (const auto& [key, value] : decoder->items()) {
      json entry = value;
      if (!entry.is_object()) entries.fail("entry \"" + key + "\" must be an object");
      try {
        std::size_t used = 0;
        const long long id = std::stoll(key, &used);
        if (used != key.size() || id < 0 || id > INT32_MAX) throw std::invalid_argument(key);
        entry["id"] = id;
      } catch (const std::exception&) {
        entries.fail("key \"" + key + "\" is not a token id");
      }
      impl->added.push_back(parse_added_token(entry, entries.where() + "." + key));
    }
  }
  if (fs::exists(added_path)) {
    const json added = parse_json_strict(read_text_file(added_path), added_path.string(), 2);
    for (const auto& entry : parse_vocab(added, added_path.string())) {
      const auto& [content, id] = entry;  // clang: structured bindings cannot be captured (C++20)
      const bool known = std::any_of(impl->added.begin(), impl->added.end(),
                                     [&](const AddedToken& t) { return t.content == entry.first; });
      if (known) continue;
      AddedToken token;
      token.id = id;
      token.content = content;
      token.normalized = true;
      impl->added.push_back(std::move(token));
    }
  }
  std::sort(impl->added.begin(), impl->added.end(),
            [](const AddedToken& a, const AddedToken& b) { return a.id < b.id; });
  check_added_ids(*impl, folder.string() + ": added tokens");
  return TokenizerBuilder::build(std::move(impl));
}

Tokenizer Tokenizer::load(const fs::path& file_or_folder) {
  std::error_code ec;
  if (fs::is_directory(file_or_folder, ec)) {
    if (fs::exists(file_or_folder / "tokenizer.json"))
      return from_tokenizer_json(file_or_folder / "tokenizer.json");
    if (fs::exists(file_or_folder / "vocab.json") && fs::exists(file_or_folder / "merges.txt")) {
      return from_vocab_merges(file_or_folder);
    }
    throw FileError(file_or_folder.string() +
                    ": no tokenizer found; expected tokenizer.json, or vocab.json with merges.txt");
  }
  if (!fs::exists(file_or_folder, ec)) {
    throw InputMissingError(file_or_folder.string() +
                            ": no such file or folder; pass a tokenizer.json or a model folder");
  }
  return from_tokenizer_json(file_or_folder);
}

}  // namespace docsift::text
