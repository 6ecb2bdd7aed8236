// The user's vendor master (ocr.known_sellers, known_names.h) applied to a page's reading: the
// seller as the list spells it, and the seller's listed address where the page prints it
// (Engine::check_known_sellers; engine.h).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/engine.h"
#include "docsift/ocr/rule_text.h"

namespace docsift::ocr {
namespace {

// A value the list matched: written as the list spells it (the check `check` keeps what was read
// and how many edits away), marked `known` and `listed`.
void take_listed(Engine::Result& result, std::string& value, Evidence& evidence,
                 const KnownNames::Match& match, const char* check) {
  if (match.name != value) {
    result.info["checks"][check] = {{"read", value}, {"edits", match.distance}};
    value = match.name;
    evidence.repaired = true;
  }
  evidence.known = true;
  evidence.listed = true;
}

// BUSINESS_ADDRESS against the addresses the list gives seller `seller` ("" when the seller is
// none of the list's): a listed address that holds the value read and that the page prints (its
// lines' words; KnownNames::find_address) is the value, as the list spells it, with the `known`
// evidence; with no such address the value stays as read, `listed` when the list has addresses at
// all. A value N/A stays N/A: the list says what the address is, not where the page prints it.
void check_known_address(const KnownNames& list, Engine::Result& result, const Page& page,
                         const std::string& seller) {
  const auto field = result.fields.find("BUSINESS_ADDRESS");
  const auto evidence = result.evidence.find("BUSINESS_ADDRESS");
  if (!list.has_addresses() || field == result.fields.end() || field->second == "N/A" ||
      evidence == result.evidence.end())
    return;
  evidence->second.listed = true;
  std::string text;
  for (const Line& line : page.lines) text += line.text() + "\n";
  const std::optional<KnownNames::Match> match = list.find_address(seller, field->second, text);
  if (match) take_listed(result, field->second, evidence->second, *match, "address_from_list");
}

}  // namespace

void Engine::check_known_sellers(Result& result, const Page& page) const {
  const auto field = result.fields.find("SUPPLIER");
  if (known_sellers_.empty() || field == result.fields.end()) return;
  std::optional<KnownNames::Match> match;
  bool tied = false;
  if (field->second != "N/A") match = known_sellers_.find_in(field->second, &tied);
  if (match && detail::forms_alone(match->name, rules_)) match.reset();
  Evidence* evidence = nullptr;
  if (match) {
    evidence = &result.evidence[field->first];
  } else {
    // Not the value the rules chose (or none): the nearest listed name on a line of the page, or
    // on two lines together (a name printed over two), the topmost of equals. Its evidence is the
    // line's words'; what the rules knew of their own choice no longer applies.
    std::optional<KnownNames::Match> best;
    std::vector<const Line*> best_lines;  // the line, or the two lines, it was found on
    const auto consider = [&](const std::string& text, std::vector<const Line*> lines) {
      if (auto m = known_sellers_.find_in(text);
          m && !detail::forms_alone(m->name, rules_) && (!best || m->distance < best->distance)) {
        best = std::move(m), best_lines = std::move(lines);
      }
    };
    // Single lines first: a pair wins only when nearer than any one line. Not when the value is
    // a listed seller spelt two ways the list cannot choose between: it stays as read, and no
    // other listed name on the page replaces it.
    for (std::size_t i = 0; !tied && i < page.lines.size(); ++i)
      consider(page.lines[i].text(), {&page.lines[i]});
    for (std::size_t i = 0; !tied && i + 1 < page.lines.size(); ++i) {
      consider(page.lines[i].text() + " " + page.lines[i + 1].text(),
               {&page.lines[i], &page.lines[i + 1]});
    }
    if (!best) {
      if (result.evidence.count(field->first)) result.evidence[field->first].listed = true;
      check_known_address(known_sellers_, result, page, "");
      return;
    }
    match = std::move(best);
    Evidence found;
    found.word_min = 100, found.word_mean = 100;
    double sum = 0;
    std::size_t count = 0;
    found.box = best_lines.front()->box;
    for (const Line* line : best_lines) {
      for (const Word& w : line->words) {
        found.word_min = std::min<double>(found.word_min, w.confidence);
        sum += w.confidence, ++count;
      }
      found.box = found.box.with(line->box);
    }
    if (count > 0) found.word_mean = sum / static_cast<double>(count);
    found.exact = page.exact;
    found.repaired = true;  // the rules' choice overridden
    evidence = &(result.evidence[field->first] = found);
    result.confidence[field->first] = found.word_mean;
  }
  take_listed(result, field->second, *evidence, *match, "supplier_from_list");
  check_known_address(known_sellers_, result, page, match->name);
}

}  // namespace docsift::ocr
