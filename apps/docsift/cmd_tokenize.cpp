#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "docsift/error.h"
#include "docsift/io/input_file.h"
#include "docsift/text/tokenizer.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

std::string read_input_file(const std::string& path) {
  if (path == "-")
    return {std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  std::ifstream in = io::open_input(path, "--file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "1,2,3", "1 2 3" or "[1, 2, 3]".
std::vector<int32_t> parse_ids(const std::string& text) {
  std::string cleaned = text;
  for (char& c : cleaned) {
    if (c == ',' || c == '[' || c == ']' || c == '\n' || c == '\t') c = ' ';
  }
  std::istringstream in(cleaned);
  std::vector<int32_t> ids;
  std::string word;
  while (in >> word) {
    std::size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size() || value < 0 || value > INT32_MAX) {
      throw ConfigError("--decode: \"" + word +
                        "\" is not a token id (expected non-negative integers like 1,2,3)");
    }
    ids.push_back(static_cast<int32_t>(value));
  }
  return ids;
}

}  // namespace

Command add_tokenize_command(CLI::App& root) {
  struct Options {
    std::string tokenizer;
    std::optional<std::string> text, file, decode;
    bool json = false, add_special = false, skip_special = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "tokenize", "Encode text to token ids, or decode ids to text, with a model's own tokenizer");
  app->add_option("--tokenizer", o->tokenizer,
                  "tokenizer.json, or a model folder (tokenizer.json or vocab.json + merges.txt)")
      ->required();
  auto* text = app->add_option("--text", o->text, "Text to encode");
  auto* file =
      app->add_option("--file", o->file, "File whose UTF-8 contents to encode ('-' for stdin)");
  auto* decode =
      app->add_option("--decode", o->decode, "Ids to decode, e.g. \"1,2,3\" or \"[1, 2, 3]\"");
  text->excludes(file)->excludes(decode);
  file->excludes(decode);
  app->add_flag("--json", o->json, "Print a JSON array of ids (encode) or a JSON string (decode)");
  app->add_flag("--add-special-tokens", o->add_special,
                "Apply the tokenizer's post-processor (e.g. a BOS template); off by default, as "
                "docsift's chat templates write special tokens themselves");
  app->add_flag("--skip-special-tokens", o->skip_special,
                "When decoding, leave out special tokens");
  app->footer("Exactly one of --text, --file or --decode.");
  return {app, [o] {
            if (!o->text && !o->file && !o->decode)
              throw ConfigError("tokenize: give one of --text, --file or --decode");
            const auto tokenizer = text::Tokenizer::load(o->tokenizer);
            if (o->decode) {
              const std::string decoded = tokenizer.decode(parse_ids(*o->decode), o->skip_special);
              if (o->json) {
                std::cout << nlohmann::json(decoded).dump() << '\n';
              } else {
                std::cout << decoded << '\n';
              }
              return kExitOk;
            }
            const std::string input = o->text ? *o->text : read_input_file(*o->file);
            std::vector<int32_t> ids;
            try {
              ids = tokenizer.encode(input, o->add_special);
            } catch (const ConfigError&) {
              throw;
            } catch (const FileError&) {
              throw;
            } catch (const Error& e) {
              // Bad input text is the caller's to fix: a usage error, naming where it came from.
              throw ConfigError((o->file ? *o->file : std::string("--text")) + ": " + e.what());
            }
            if (o->json) {
              std::cout << nlohmann::json(ids).dump() << '\n';
            } else {
              for (std::size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
              std::cout << '\n';
            }
            return kExitOk;
          }};
}

}  // namespace docsift::cli
