#include "docsift/io/page_name.h"

#include <algorithm>
#include <cctype>

namespace docsift::io {
namespace {

constexpr std::string_view kPageMark = "#page=";

// Where "#page=N" (N all digits) starts in `name`, or npos.
std::size_t page_mark(std::string_view name) {
  const std::size_t at = name.rfind(kPageMark);
  if (at == std::string_view::npos || at + kPageMark.size() == name.size())
    return std::string_view::npos;
  const std::string_view n = name.substr(at + kPageMark.size());
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })
             ? at
             : std::string_view::npos;
}

}  // namespace

std::string page_name(const std::string& relative, int page, int pages) {
  return pages <= 1 ? relative : relative + std::string(kPageMark) + std::to_string(page + 1);
}

std::string_view file_of(std::string_view name) {
  const std::size_t at = page_mark(name);
  return at == std::string_view::npos ? name : name.substr(0, at);
}

int page_of(std::string_view name) {
  const std::size_t at = page_mark(name);
  if (at == std::string_view::npos) return 0;
  const std::string_view digits = name.substr(at + kPageMark.size());
  return digits.size() > 9 ? 0 : std::stoi(std::string(digits));
}

std::string_view document_key(std::string_view name) {
  const std::size_t at = page_mark(name);
  return at != std::string_view::npos && name.substr(at + kPageMark.size()) == "1"
             ? name.substr(0, at)
             : name;
}

}  // namespace docsift::io
