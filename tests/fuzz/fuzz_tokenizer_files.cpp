// libFuzzer target: the contents of a slow tokenizer's files, vocab.json, merges.txt and
// added_tokens.json (text/tokenizer_files.cpp, Tokenizer::load of a folder without
// tokenizer.json). The input is split at its first two NUL bytes into the three files' contents;
// with fewer than two, added_tokens.json is absent (and with none, merges.txt is empty). Loading
// must succeed or throw docsift::Error; a tokenizer that loads must encode and decode a line.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "docsift/error.h"
#include "docsift/text/tokenizer.h"
#include "scratch_folder.h"

namespace fs = std::filesystem;

namespace {

const fs::path& folder() {
  static const fs::path path = docsift::fuzz::make_scratch_folder("docsift-fuzz-tokenizer-files");
  return path;
}

void write(const fs::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t first = input.find('\0');
  const std::size_t second = first == std::string_view::npos ? first : input.find('\0', first + 1);
  write(folder() / "vocab.json", input.substr(0, first));
  write(folder() / "merges.txt",
        first == std::string_view::npos ? "" : input.substr(first + 1, second - first - 1));
  std::error_code ec;
  if (second == std::string_view::npos) {
    fs::remove(folder() / "added_tokens.json", ec);
  } else {
    write(folder() / "added_tokens.json", input.substr(second + 1));
  }
  try {
    const auto tokenizer = docsift::text::Tokenizer::load(folder());
    const auto ids = tokenizer.encode("Tax invoice 12/03/2024 total $1,234.56 <|im_end|>");
    (void)tokenizer.decode(ids);
  } catch (const docsift::Error&) {
  }
  return 0;
}
