#define PCRE2_CODE_UNIT_WIDTH 8
#include "docsift/text/pre_tokenizer.h"

#include <pcre2.h>

#include "docsift/error.h"

namespace docsift::text {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  bool jit = false;
};

Regex::Regex(const std::string& pattern, bool literal, const std::string& label)
    : impl_(std::make_unique<Impl>()) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  // UCP: \s, \w, \d and POSIX classes use Unicode properties, as Oniguruma does for the
  // reference tokenizer; without it \s would miss U+3000 and friends.
  // PCRE2 refuses UCP together with LITERAL; a literal has no classes for it to affect anyway.
  const uint32_t options = literal ? (PCRE2_UTF | PCRE2_LITERAL) : (PCRE2_UTF | PCRE2_UCP);
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options,
                              &error_code, &error_offset, nullptr);
  if (impl_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof message);
    throw FileError(label + ": regex does not compile at offset " + std::to_string(error_offset) +
                    ": " + reinterpret_cast<const char*>(message) + " (pattern: " + pattern + ")");
  }
  // The JIT is several times faster; where the platform lacks it the interpreter gives the
  // same matches.
  impl_->jit = pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() { pcre2_code_free(impl_->code); }

void Regex::for_each_match(std::string_view text,
                           const std::function<void(std::size_t, std::size_t)>& on_match) const {
  // Match data sized for the pattern; thread-local so concurrent encoders do not share it and
  // a hot loop does not allocate. One per pattern would be tidier but costs a map lookup.
  struct MatchData {
    pcre2_match_data* data = pcre2_match_data_create(16, nullptr);
    ~MatchData() { pcre2_match_data_free(data); }
  };
  thread_local MatchData match;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t offset = 0;
  while (offset <= text.size()) {
    // The caller validated the UTF-8 once for the whole input; skip PCRE2's per-call check.
    const int rc = impl_->jit ? pcre2_jit_match(impl_->code, subject, text.size(), offset,
                                                PCRE2_NO_UTF_CHECK, match.data, nullptr)
                              : pcre2_match(impl_->code, subject, text.size(), offset,
                                            PCRE2_NO_UTF_CHECK, match.data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      throw Error(std::string("regex match failed: ") + reinterpret_cast<const char*>(message));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.data);
    const std::size_t begin = ovector[0], end = ovector[1];
    if (end > begin) {
      on_match(begin, end);
      offset = end;
    } else {
      // Empty match: step over one whole character.
      offset = end + 1;
      while (offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80)
        ++offset;
    }
  }
}

PreTokenizer::PreTokenizer(std::vector<SplitStep> splits, ByteLevelStep byte_level)
    : splits_(std::move(splits)), byte_level_(std::move(byte_level)) {}

void PreTokenizer::run(std::string_view text, const PieceSink& sink) const {
  if (!text.empty()) run_from(0, text, sink);
}

void PreTokenizer::run_from(std::size_t step, std::string_view text, const PieceSink& sink) const {
  if (step < splits_.size()) {
    const SplitStep& split = splits_[step];
    std::size_t last = 0;
    split.regex->for_each_match(text, [&](std::size_t begin, std::size_t end) {
      if (begin > last) run_from(step + 1, text.substr(last, begin - last), sink);
      if (split.behavior == SplitBehavior::kIsolated)
        run_from(step + 1, text.substr(begin, end - begin), sink);
      last = end;
    });
    if (last < text.size()) run_from(step + 1, text.substr(last), sink);
    return;
  }
  // ByteLevel: the prefix space goes on every piece that does not start with one, before the
  // optional GPT-2 split.
  std::string prefixed;
  if (byte_level_.add_prefix_space && text.front() != ' ') {
    prefixed.reserve(text.size() + 1);
    prefixed.push_back(' ');
    prefixed.append(text);
    text = prefixed;
  }
  if (!byte_level_.gpt2_regex) {
    sink(text);
    return;
  }
  std::size_t last = 0;
  byte_level_.gpt2_regex->for_each_match(text, [&](std::size_t begin, std::size_t end) {
    if (begin > last) sink(text.substr(last, begin - last));
    sink(text.substr(begin, end - begin));
    last = end;
  });
  if (last < text.size()) sink(text.substr(last));
}

const std::string& gpt2_pattern() {
  static const std::string pattern =
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  return pattern;
}

}  // namespace docsift::text
