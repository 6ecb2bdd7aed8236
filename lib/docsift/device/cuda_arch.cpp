#include "docsift/device/cuda_arch.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace docsift::device {
namespace {

// "sm_90a" or "compute_120" → the target; false for anything else.
bool parse_target(std::string_view item, CudaArch& out) {
  CudaArch a;
  if (item.starts_with("sm_")) {
    item.remove_prefix(3);
  } else if (item.starts_with("compute_")) {
    item.remove_prefix(8);
    a.ptx = true;
  } else {
    return false;
  }
  if (!item.empty() && (item.back() == 'a' || item.back() == 'f')) {
    a.variant = item.back();
    item.remove_suffix(1);
  }
  int number = 0;
  const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), number);
  if (error != std::errc() || end != item.data() + item.size() || number < 10) return false;
  a.major = number / 10;  // sm_75 → 7.5, sm_100 → 10.0, sm_120 → 12.0
  a.minor = number % 10;
  out = a;
  return true;
}

bool same(const CudaArch& a, const CudaArch& b) {
  return a.major == b.major && a.minor == b.minor && a.variant == b.variant && a.ptx == b.ptx;
}

}  // namespace

std::vector<CudaArch> parse_nvcc_arch_flags(std::string_view flags) {
  std::vector<CudaArch> out;
  for (std::size_t at = flags.find("code="); at != std::string_view::npos;
       at = flags.find("code=", at + 5)) {
    std::size_t end = at + 5;
    while (end < flags.size() && flags[end] != ';' && flags[end] != ' ' && flags[end] != '\n')
      ++end;
    std::string_view value = flags.substr(at + 5, end - at - 5);
    // code=[sm_80,compute_80] or code="sm_80,compute_80"
    while (!value.empty() && (value.front() == '[' || value.front() == '"')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ']' || value.back() == '"')) value.remove_suffix(1);
    while (!value.empty()) {
      const std::size_t comma = value.find(',');
      CudaArch a;
      if (parse_target(value.substr(0, comma), a) &&
          std::none_of(out.begin(), out.end(), [&](const CudaArch& b) { return same(a, b); })) {
        out.push_back(a);
      }
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
  return out;
}

bool arch_runs_on(const std::vector<CudaArch>& archs, int major, int minor) {
  return std::any_of(archs.begin(), archs.end(), [&](const CudaArch& a) {
    if (a.variant == 'a') return a.major == major && a.minor == minor;
    if (a.ptx) return a.major < major || (a.major == major && a.minor <= minor);
    return a.major == major && a.minor <= minor;
  });
}

std::string describe(const std::vector<CudaArch>& archs) {
  std::string machine, ptx;
  for (const CudaArch& a : archs) {
    std::string& list = a.ptx ? ptx : machine;
    if (!list.empty()) list.push_back(' ');
    list.append(a.ptx ? "compute_" : "sm_").append(std::to_string(a.major * 10 + a.minor));
    if (a.variant) list.push_back(a.variant);
  }
  if (ptx.empty()) return machine;
  return machine.empty() ? "PTX " + ptx : machine + ", PTX " + ptx;
}

}  // namespace docsift::device
