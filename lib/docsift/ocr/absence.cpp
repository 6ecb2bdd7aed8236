// What a page shows of a field the rules left N/A (page_checks.h: absence_of; docs/confidence.md,
// "A required value left N/A"): the evidence that the page prints no such value at all, rather than
// one OCR or the rules missed.
#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/rule_text.h"

namespace docsift::ocr {
namespace {

// A run shaped like the kind's values, its check aside. An ABN: 11 digits in any grouping
// (parse_abn's, which also wants the check digits: a run that passed them was taken as the ABN), or
// the start of its printed grouping, "51 824 753", as a page cut at its edge or a smudge leaves it.
// Another kind: a value the kind's parser reads.
bool shaped_like(const std::string& kind, const std::string& text, const Lexicon& lexicon) {
  if (kind == "abn") {
    static const std::regex kShape(
        R"((^|[^\d])(\d(?:[ .:\-]?\d){10}|\d{2}[ .]\d{3}[ .]\d{3})([^\d]|$))");
    return std::regex_search(text, kShape);
  }
  return detail::parse_kind(kind, text, lexicon, DateOrder::Dmy).has_value();
}

// The last two words of a label of three or more ("business number" of "australian business
// number"): what is left of it when the page's edge or a smudge took its first word.
std::vector<std::string> label_tails(const LabelRule& rule) {
  std::vector<std::string> out;
  for (const std::string& label : rule.labels) {
    const auto last = label.rfind(' ');
    if (last == std::string::npos) continue;
    const auto before = label.rfind(' ', last - 1);
    if (before != std::string::npos) out.push_back(label.substr(before + 1));
  }
  return out;
}

// The page shows itself Australian on this line: `home`'s state and postcode, domain or company
// form, or the country named.
bool shows_home(const std::string& lowered, const Rules& rules) {
  const Rules::Home& home = rules.home;
  const auto has = [&](const std::string& phrase) {
    return detail::find_phrase(lowered, phrase) != std::string::npos;
  };
  return (rules.lexicon.home_postcode &&
          std::regex_search(lowered, *rules.lexicon.home_postcode)) ||
         std::any_of(home.domains.begin(), home.domains.end(),
                     [&](const std::string& d) { return lowered.find(d) != std::string::npos; }) ||
         std::any_of(home.company_forms.begin(), home.company_forms.end(), has) ||
         (!home.country.empty() && has(home.country));
}

}  // namespace

Evidence absence_of(const Page& page, const Rules& rules, const std::string& field) {
  Evidence e;
  const auto rule = std::find_if(rules.fields.begin(), rules.fields.end(),
                                 [&](const LabelRule& r) { return r.field == field; });
  if (rule == rules.fields.end()) return e;
  const auto index = static_cast<std::size_t>(rule - rules.fields.begin());
  const std::vector<std::string> tails = label_tails(*rule);
  std::map<std::string, int> marks;  // currency mark → amounts printed with it
  for (const detail::Segment& seg : detail::segments_of(page, rules)) {
    const auto has = [&](const std::string& phrase) {
      return detail::find_phrase(seg.lowered, phrase) != std::string::npos;
    };
    e.label_seen = e.label_seen ||
                   std::any_of(seg.hits.begin(), seg.hits.end(),
                               [&](const detail::Hit& h) { return h.rule == index; }) ||
                   std::any_of(tails.begin(), tails.end(), has);
    e.shape_seen = e.shape_seen || shaped_like(rule->kind, seg.text, rules.lexicon);
    // A country or region the rules know other than home's country (an address abroad).
    e.abroad = e.abroad ||
               std::any_of(rules.regions.begin(), rules.regions.end(),
                           [&](const std::string& r) { return r != rules.home.country && has(r); });
    e.home = e.home || shows_home(seg.lowered, rules);
    for (const Amount& a : find_amounts(seg.text, rules.lexicon))
      if (!a.currency.empty()) ++marks[a.currency];
  }
  // ... or amounts printed mostly in another currency than dollars.
  const auto most = std::max_element(
      marks.begin(), marks.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  e.abroad = e.abroad || (most != marks.end() && most->first != "$");
  return e;
}

}  // namespace docsift::ocr
