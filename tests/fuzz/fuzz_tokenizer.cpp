// libFuzzer target for the tokenizer. The first input byte picks what is fuzzed:
//  - even: the bytes are a tokenizer.json; loading must either succeed or throw docsift::Error.
//  - odd: the bytes are text for the tiny Qwen-style tokenizer; encode must reject invalid
//    UTF-8 with docsift::Error, and for valid text the ids must decode, in one piece or
//    streamed token by token, to the same valid UTF-8.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "docsift/error.h"
#include "docsift/text/tokenizer.h"
#include "docsift/text/utf8.h"

namespace {

const docsift::text::Tokenizer& tiny() {
  static const auto tokenizer = docsift::text::Tokenizer::load(DOCSIFT_FUZZ_TOKENIZER);
  return tokenizer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 0) {
    try {
      const auto tokenizer = docsift::text::Tokenizer::from_tokenizer_json_text(input, "fuzz");
      (void)tokenizer.encode("Tax invoice 12/03/2024 total $1,234.56 <|im_end|>");
    } catch (const docsift::Error&) {
    }
    return 0;
  }
  std::vector<int32_t> ids;
  try {
    ids = tiny().encode(input);
  } catch (const docsift::Error&) {
    if (docsift::text::find_invalid_utf8(input) == docsift::text::kNoError)
      std::abort();  // valid text refused
    return 0;
  }
  const std::string whole = tiny().decode(ids);
  if (docsift::text::find_invalid_utf8(whole) != docsift::text::kNoError) std::abort();
  docsift::text::StreamDecoder stream(tiny(), /*skip_special_tokens=*/false);
  std::string streamed;
  for (const int32_t id : ids) streamed += stream.push(id);
  streamed += stream.finish();
  if (streamed != whole) std::abort();
  return 0;
}
