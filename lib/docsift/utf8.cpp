#include "docsift/utf8.h"

namespace docsift {
namespace {

enum class SeqStatus { kValid, kInvalid, kIncomplete };

struct SeqResult {
  SeqStatus status;
  std::size_t length;  // kValid: sequence length; kInvalid: maximal subpart (>= 1); kIncomplete:
                       // bytes present
};

// Classifies the sequence starting at s[pos]. The accepted ranges for the second byte follow
// Table 3-7 of the Unicode standard; later bytes are always 80..BF.
SeqResult check_sequence(std::string_view s, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return {SeqStatus::kValid, 1};
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;  // excludes surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {SeqStatus::kInvalid, 1};
  }
  for (std::size_t k = 1; k < need; ++k) {
    if (pos + k >= s.size()) return {SeqStatus::kIncomplete, k};
    const unsigned char b = byte(pos + k);
    const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) return {SeqStatus::kInvalid, k};
  }
  return {SeqStatus::kValid, need};
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view s) {
  std::size_t pos = 0;
  while (pos < s.size()) {
    // ASCII fast path: most document text is ASCII.
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const SeqResult r = check_sequence(s, pos);
    if (r.status != SeqStatus::kValid) return pos;
    pos += r.length;
  }
  return kNoError;
}

char32_t next_code_point(std::string_view s, std::size_t& pos) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  const std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : 2;
  char32_t c = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len && pos + k < s.size(); ++k) {
    c = (c << 6) | (static_cast<unsigned char>(s[pos + k]) & 0x3F);
  }
  pos += len;
  return c;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

void append_utf8_lossy(std::string& out, std::string_view bytes) {
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const SeqResult r = check_sequence(bytes, pos);
    if (r.status == SeqStatus::kValid) {
      out.append(bytes.substr(pos, r.length));
    } else {
      append_utf8(out, kReplacementChar);  // a truncated sequence at the end is one subpart too
    }
    pos += r.length;
  }
}

std::size_t incomplete_utf8_tail(std::string_view bytes) {
  // An incomplete sequence is at most 3 bytes, so only the last 3 lead positions matter.
  const std::size_t n = bytes.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const std::size_t pos = n - back;
    const auto b = static_cast<unsigned char>(bytes[pos]);
    if ((b & 0xC0) == 0x80) continue;  // continuation byte: the lead is further back
    const SeqResult r = check_sequence(bytes, pos);
    return r.status == SeqStatus::kIncomplete ? back : 0;
  }
  return 0;
}

}  // namespace docsift
