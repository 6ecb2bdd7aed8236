// libFuzzer target: what a model folder's text files give docsift besides tokenizer.json, and the
// chat templates fed with untrusted text. The first input byte picks what is fuzzed:
//  - 0 mod 2: the rest is a tokenizer_config.json beside the slow tokenizer's vocab.json and
//    merges.txt (tests/fixtures/tokenizers/tiny-qwen-slow); loading must succeed or throw
//    docsift::Error;
//  - 1 mod 2: the rest is a question (as a prompt template's text could be) for every chat format
//    with its tiny tokenizer, with 1 to 16 tiles; render and encode must succeed or throw
//    docsift::Error, and what encodes holds the format's image token.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "docsift/error.h"
#include "docsift/family/internvl/chat.h"
#include "docsift/family/mllama/chat.h"
#include "docsift/family/qwen25vl/chat.h"
#include "docsift/family/qwen3vl/chat.h"
#include "docsift/text/chat_template.h"
#include "docsift/text/tokenizer.h"
#include "scratch_folder.h"

namespace fs = std::filesystem;

namespace {

// A folder with the slow tokenizer's files, made once; tokenizer_config.json is rewritten per
// input.
const fs::path& slow_folder() {
  static const fs::path folder = [] {
    const std::string pattern =
        docsift::fuzz::make_scratch_folder("docsift-fuzz-tokenizer").string();
    for (const char* name : {"vocab.json", "merges.txt", "added_tokens.json"}) {
      fs::copy_file(fs::path(DOCSIFT_FUZZ_TOKENIZERS) / "tiny-qwen-slow" / name,
                    fs::path(pattern) / name);
    }
    return fs::path(pattern);
  }();
  return folder;
}

const docsift::text::Tokenizer& qwen() {
  static const auto t = docsift::text::Tokenizer::load(fs::path(DOCSIFT_FUZZ_TOKENIZERS) /
                                                       "tiny-qwen/tokenizer.json");
  return t;
}
const docsift::text::Tokenizer&
qwen_vl() {  // the tiny Qwen2.5-VL fixture's (Qwen3-VL's is the same): the vision tokens added
  static const auto t = docsift::text::Tokenizer::load(fs::path(DOCSIFT_FUZZ_TOKENIZERS) /
                                                       "../qwen25vl/hub/tokenizer.json");
  return t;
}
const docsift::text::Tokenizer& llama() {
  static const auto t = docsift::text::Tokenizer::load(fs::path(DOCSIFT_FUZZ_TOKENIZERS) /
                                                       "tiny-llama/tokenizer.json");
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 0) {
    std::ofstream(slow_folder() / "tokenizer_config.json", std::ios::binary | std::ios::trunc)
        << rest;
    try {
      const auto tokenizer = docsift::text::Tokenizer::load(slow_folder());
      (void)tokenizer.encode("Tax invoice <IMG_CONTEXT> total $1,234.56 <|im_end|>");
    } catch (const docsift::Error&) {
    }
    return 0;
  }
  const int tiles = 1 + (data[0] >> 1) % 16;
  for (int f = 0; f < 5; ++f) {
    const docsift::text::ChatTemplate chat(f == 0   ? docsift::family::internvl::chat_format(true)
                                           : f == 1 ? docsift::family::internvl::chat_format(false)
                                           : f == 2 ? docsift::family::qwen25vl::chat_format()
                                           : f == 4 ? docsift::family::qwen3vl::chat_format()
                                                    : docsift::family::mllama::chat_format(),
                                           f == 3   ? llama()
                                           : f >= 2 ? qwen_vl()
                                                    : qwen());
    try {
      const auto ids = chat.encode(rest, tiles);
      if (std::find(ids.begin(), ids.end(), chat.image_token_id()) == ids.end())
        std::abort();  // the image was lost
    } catch (const docsift::Error&) {
    }
  }
  return 0;
}
