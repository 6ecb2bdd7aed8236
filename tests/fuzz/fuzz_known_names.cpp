// libFuzzer target: a list of known sellers (ocr.known_sellers, ocr/known_names.h) and a seller's
// value or page line as OCR may give it, one input split at its first NUL byte. The list must be
// refused with a docsift::ConfigError or read; the match must be a listed name, within the edits
// the rule allows; the listed address found for it (the text as both the value and the page) within
// the edits its own rule allows.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "docsift/error.h"
#include "docsift/ocr/known_names.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find('\0');
  const std::string_view list = input.substr(0, cut);
  const std::string_view text = cut == std::string_view::npos
                                    ? std::string_view("SANYO STATIONERY SHOP")
                                    : input.substr(cut + 1);
  try {
    const docsift::ocr::KnownNames names = docsift::ocr::KnownNames::from_text(list, "fuzz.txt");
    if (const auto m = names.find_in(text)) {
      const std::string key = docsift::ocr::name_key(m->name);
      if (key.empty() || m->distance < 0 || m->distance > static_cast<int>(key.size() / 8))
        __builtin_trap();
      if (const auto a = names.find_address(m->name, text, text)) {
        const std::string address = docsift::ocr::name_key(a->name);
        if (address.empty() || a->distance < 0 ||
            a->distance > static_cast<int>(address.size() / 8))
          __builtin_trap();
      }
    }
  } catch (const docsift::Error&) {
  }
  return 0;
}
