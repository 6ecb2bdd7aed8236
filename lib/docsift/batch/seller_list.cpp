#include "docsift/batch/seller_list.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "docsift/batch/output_folder.h"
#include "docsift/batch/record.h"
#include "docsift/edit_distance.h"
#include "docsift/error.h"
#include "docsift/extract/field.h"
#include "docsift/io/journal.h"
#include "docsift/io/output_file.h"
#include "docsift/ocr/known_names.h"

namespace docsift::batch {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kSeller = "SUPPLIER", kAddress = "BUSINESS_ADDRESS";
constexpr std::size_t kMaxLineBytes = ocr::KnownNames::kMaxLineBytes;

// `value` on one line: every run of spaces, tabs and line breaks one space (a tab would start the
// address, a line break a new seller), none at either end.
std::string one_line(std::string_view value) {
  std::string out;
  for (const char c : value) {
    const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// What the list needs of a page's latest record, kept small: a journal of many pages is read whole
// before any page is listed (a later record supersedes).
struct PageSeen {
  struct Value {
    std::string text;
    bool accepted = false, corrected = false;
  };
  bool ok = false;
  Value seller, address;
  static PageSeen of(const Record& r) {
    PageSeen p;
    p.ok = r.ok() && r.fields.has_value();
    if (!p.ok) return p;
    const auto value = [&](std::string_view field) {
      const std::string name(field);
      Value v;
      if (const auto it = r.fields->find(name); it != r.fields->end()) v.text = it->second;
      v.corrected = r.corrections && r.corrections->count(name) != 0;
      // A record with no review list (an engine that gives no confidences) accepted nothing.
      v.accepted =
          r.review && std::find(r.review->begin(), r.review->end(), name) == r.review->end();
      return v;
    };
    p.seller = value(kSeller), p.address = value(kAddress);
    return p;
  }
};

// The value a person can stand behind: corrected by one, or accepted by the run (with `checked`,
// queued and left as read too), on one line; "" when there is none.
std::string given(const PageSeen::Value& v, bool checked) {
  if (extract::is_missing(v.text)) return "";
  return v.corrected || v.accepted || checked ? one_line(v.text) : "";
}

// How much a page counts for the spelling it gave when several are one seller's (or one address's):
// each page once, a page a person corrected half as much again, so that a correction wins a tie
// but not the pages a run read alike (a label of the 427 development receipts, "RSTORAN WAN
// SHENG", typed for a receipt whose shop eighteen others print as RESTORAN).
constexpr long kRead = 2, kCorrected = 3;

// Spellings of one thing, written once as the weightiest. With `fuzzy`, spellings within the
// list's tolerance of each other (one edit per 8 letters and digits of the shorter, ocr::name_key,
// as KnownNames matches them) are one: a seller misread on some pages ("SANYO" for SANYU, accepted
// on one receipt of twenty), which a run would otherwise pin (a listed seller holds against the
// second recognizer). Without, only spellings of the same letters and digits are: an address's
// spellings are all kept, and the page chooses the nearest (KnownNames::find_address), since one
// address corrected with a typo ("PARINDUSTRIAN", a label of the 427 development receipts) must
// not replace the spelling its pages print.
struct Groups {
  bool fuzzy = true;
  struct Group {
    std::string key, spelling;
    long best = 0;  // its spelling's weight
    std::map<std::string, long> spellings;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t>
      of_key;  // each key seen → its group, so a repeat costs a lookup
  Group& add(const std::string& spelling, long weight) {
    const std::string key = ocr::name_key(spelling);
    Group* home = nullptr;
    if (const auto seen = of_key.find(key); seen != of_key.end()) home = &groups[seen->second];
    for (std::size_t i = 0; fuzzy && !home && i < groups.size(); ++i) {
      Group& g = groups[i];
      const int limit = ocr::KnownNames::edits_allowed(std::min(g.key.size(), key.size()));
      const std::size_t longer = std::max(g.key.size(), key.size()),
                        shorter = std::min(g.key.size(), key.size());
      if (longer - shorter <= static_cast<std::size_t>(limit) &&
          edit_distance(g.key, key, limit) <= limit) {
        home = &g;
        break;
      }
    }
    if (!home) home = &groups.emplace_back(Group{key, spelling, 0, {}});
    of_key.emplace(key, static_cast<std::size_t>(home - groups.data()));
    const long now = home->spellings[spelling] += weight;
    if (now > home->best || (now == home->best && spelling < home->spelling))
      home->best = now, home->spelling = spelling;
    return *home;
  }
};

// The sellers given, grouped by spelling; per group of sellers, its addresses (a seller given with
// no address adds none).
struct Found {
  Groups sellers;
  std::map<std::string, Groups> addresses;  // by the seller group's first key

  // One page's latest record, counted in `report`.
  void add(const PageSeen& p, bool checked, SellerListReport& report) {
    if (!p.ok) return;
    ++report.pages;
    const std::string seller = given(p.seller, checked);
    if (seller.empty()) {
      report.unconfirmed += !extract::is_missing(p.seller.text);
      return;
    }
    std::string address = given(p.address, checked);
    // A name the list would read as a comment, or one with no letter or digit, it cannot hold;
    // an address that would make the line too long, or has no letter or digit, is left off.
    if (seller.front() == '#' || ocr::name_key(seller).empty() || seller.size() > kMaxLineBytes) {
      ++report.unfit;
      return;
    }
    if (seller.size() + 1 + address.size() > kMaxLineBytes || ocr::name_key(address).empty())
      address.clear();
    ++report.given;
    const auto weight = [](const PageSeen::Value& v) { return v.corrected ? kCorrected : kRead; };
    const std::string& group = sellers.add(seller, weight(p.seller)).key;
    if (!address.empty())
      addresses.try_emplace(group, Groups{false, {}, {}})
          .first->second.add(address, weight(p.address));
  }

  // The list's lines: each seller group's spelling, with each of its addresses after a tab.
  std::set<std::string> lines(SellerListReport& report) const {
    std::set<std::string> out;
    for (const Groups::Group& seller : sellers.groups) {
      const auto at = addresses.find(seller.key);
      if (at == addresses.end()) {
        out.insert(seller.spelling);
        continue;
      }
      for (const Groups::Group& address : at->second.groups) {
        // The seller's spelling may be longer than the page's it came with.
        if (seller.spelling.size() + 1 + address.spelling.size() > kMaxLineBytes) {
          out.insert(seller.spelling);
          continue;
        }
        out.insert(seller.spelling + "\t" + address.spelling);
        ++report.addressed;
      }
    }
    report.sellers = static_cast<int>(sellers.groups.size());
    report.lines = static_cast<int>(out.size());
    return out;
  }
};

}  // namespace

SellerListReport write_seller_list(const SellerListOptions& o) {
  SellerListReport report;
  io::ReadFiles reads;
  std::vector<fs::path> journals;
  for (const fs::path& results : o.results) {
    journals.push_back(journal::journal_to_read(results, results.string()));
    reads.add(journals.back(), "a run's journal");
  }
  refuse_to_overwrite(o.out, "--out", reads);

  Found found;
  for (const fs::path& path : journals) {
    ++report.runs;
    std::map<std::string, PageSeen> latest;
    io::read_journal(path, [&](const nlohmann::json& line, std::uint64_t) {
      const Record record = Record::from_journal(line);
      latest.insert_or_assign(record.key(), PageSeen::of(record));
    });
    for (const auto& [key, page] : latest) found.add(page, o.checked, report);
  }
  const std::set<std::string> lines = found.lines(report);
  if (lines.size() > ocr::KnownNames::kMaxNames) {
    throw ConfigError("--out " + o.out.string() + ": " + std::to_string(lines.size()) +
                      " lines, over the list's " + std::to_string(ocr::KnownNames::kMaxNames) +
                      "; nothing was written: give fewer runs");
  }

  std::string text =
      "# Sellers and their addresses (after a tab) that docsift review sellers took from the\n"
      "# values accepted or corrected" +
      std::string(o.checked ? " (or checked by a person)" : "") + " of " +
      std::to_string(report.runs) + (report.runs == 1 ? " run" : " runs") +
      "; read by ocr.known_sellers (docs/ocr.md).\n";
  for (const std::string& line : lines) text += line + "\n";
  ocr::KnownNames::from_text(text, o.out.string());  // what a run reads back: throws if it cannot
  io::write_file_atomic(o.out, text);
  return report;
}

}  // namespace docsift::batch
