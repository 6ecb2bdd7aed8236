// A list of names the user knows the pages come from (ocr.known_sellers: an accounts-payable
// team's vendor master), one per line. A seller read close to one of them is written as the list
// spells it ("SANYO STATIONERY SHOP" → "SANYU STATIONERY SHOP", a shop whose logo type the OCR
// misreads the same way on every receipt), and a seller the rules missed is looked for on the
// page's lines. Whether the value is a listed name is evidence for its confidence (calibration.h:
// `known`, and `listed` for a run that had a list; docs/confidence.md). A line may give the
// seller's address after a tab ("SANYU STATIONERY SHOP<TAB>NO. 31G&33G, JALAN SETIA INDAH X U13/X,
// ..."): a listed seller's address found on the page is then written as the list spells it, with
// the same evidence for BUSINESS_ADDRESS. A seller with several branches takes one line per branch.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::ocr {

class KnownNames {
 public:
  KnownNames() = default;
  // One name per line, its address after a tab optional (UTF-8; blank lines and lines starting
  // with # skipped). "" is no list.
  // Throws docsift::ConfigError naming the file and the line: missing or unreadable, over 4 MiB,
  // over kMaxNames names, a line over 300 bytes, a name or an address with no letter or digit, or
  // a NUL byte.
  static KnownNames load(const std::string& path);
  static KnownNames from_text(std::string_view text, const std::string& source);

  static constexpr std::size_t kMaxNames = 20'000;
  static constexpr std::size_t kMaxLineBytes = 300;  // a line, its address included
  // The edits a name or address of `letters` letters and digits is matched within: one per 8.
  static constexpr int edits_allowed(std::size_t letters) { return static_cast<int>(letters / 8); }

  bool empty() const { return names_.empty(); }
  std::size_t size() const { return names_.size(); }

  struct Match {
    std::string name;  // as the list writes it
    int distance =
        0;  // edits between the name and the text it was found in (letters and digits only)
  };
  // The listed name found in `text` (a seller's value or a page line), allowing for OCR misreads:
  // letters and digits compared without case, spaces or punctuation ("SYARIKATPERNIAGAAN" is
  // "SYARIKAT PERNIAGAAN"), the name anywhere in the text with at most one edit per 8 of its
  // characters (none under 5 characters, where the text must be the name), and a name no shorter
  // than half the text. A name inside another that the text also holds is that one's part ("SDN
  // BHD" of "EDEN IMPRESSION SDN BHD") and yields to it, unless the longer is as far from the text
  // as its extra letters (an edit counted as 8 letters). The nearest wins; two names equally near
  // are no match (the list cannot say which).
  // `tied`, when given, says whether no match was for a tie: the text holds a listed name, but
  // which one the list cannot say.
  std::optional<Match> find_in(std::string_view text, bool* tied = nullptr) const;

  // The address listed for seller `name` (a name as find_in gives it) that the page prints: the
  // value read (`value`) lies inside it, and it lies inside the page's text (`page`), each within
  // one edit per 8 letters and digits of the inner one. The nearest to the page of the seller's
  // addresses wins; two different ones equally near are no match, nor is a seller listed with no
  // address, nor an address the page prints more of than the list (a branch after a head office).
  // Of a head office's address and a branch's after it, equally near, the branch is the one; a
  // head office nearest is no match (the page may print a branch the list lacks).
  std::optional<Match> find_address(const std::string& name, std::string_view value,
                                    std::string_view page) const;
  bool has_addresses() const { return addressed_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::string> keys_;                      // the names' letters and digits, upper-cased
  std::vector<std::string> addresses_, address_keys_;  // per name, "" where none is listed
  std::vector<bool> extended_;  // per name: another line of its seller's address goes on from it
  bool addressed_ = false;
};

// The letters and digits of `text`, ASCII upper-cased; other UTF-8 letters and digits kept as their
// bytes, other punctuation and symbols dropped; bytes that are not UTF-8 kept. Known sellers are
// matched by it, and the OCR engine's two readings of a name compared (cross_read.h).
std::string name_key(std::string_view text);

// name_key of each word of `text` (a run between ASCII spaces and punctuation), one space between
// them: two readings with the same words_key have the same words, as the truth's words are compared
// ("Ironbark Hardware" and "IronbarkHardware" do not). Pages are compared on it
// (batch/agreement.h).
std::string words_key(std::string_view text);

}  // namespace docsift::ocr
