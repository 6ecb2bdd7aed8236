// The seller's name: each top line's score as the seller's, the name around the best line (a name
// broken over lines or tilted), and the doubtful top lines a second recognizer reads
// again. (field_finder.h; the seller's step itself: find_parties.cpp)
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "docsift/ocr/field_finder.h"
#include "docsift/ocr/known_names.h"

namespace docsift::ocr::detail {

namespace {

// The words of a name printed tilted, whose company form alone (`form`, its line ending at segment
// `last`) was read a line higher at the right: the segment on the next line that ends where the
// form starts, within three of its heights ("LIGHTROOM GALLERY" left of and under "SDN BHD").
std::optional<std::size_t> tilted_words(const std::vector<Segment>& r, std::size_t form,
                                        std::size_t last) {
  const Segment& f = r[form];
  for (std::size_t k = last + 1; k < r.size() && r[k].line <= f.line + 1; ++k) {
    if (r[k].line == f.line + 1 && r[k].right <= f.left + f.height &&
        f.left - r[k].right <= 3 * f.height)
      return k;
  }
  return std::nullopt;
}

}  // namespace

// A line's score as the seller's name: early at the top (the first 12 candidate lines, `rank`
// counting them) or, with a legal form, in the footer; prominent; in capitals; not one word
// without a legal form, nor lower case, nor short fragments. None for a line that cannot be one.
std::optional<double> FieldFinder::seller_score(std::size_t i, double median, int& rank) const {
  const bool top = r[i].top <= page.height * kTopOfPage && rank < 12;
  const bool footer = r[i].top >= page.height * 0.75;
  if (!top && !footer) return std::nullopt;
  const bool legal = has_company_form(name_of(r[i].text), rules);
  if ((!top && !legal) || not_a_name(i)) return std::nullopt;
  if (r[i].confidence < kNameConfidence) return std::nullopt;  // a logo or a smudge read as letters
  int upper = 0, letters = 0;
  for (const char c : r[i].text) {
    if (std::isalpha(static_cast<unsigned char>(c)))
      ++letters, upper += std::isupper(static_cast<unsigned char>(c)) ? 1 : 0;
  }
  double score = top ? 20.0 - 6.0 * rank++ : 4.0;
  score += legal ? 12.0 : 0.0;
  score += 5.0 * std::clamp(r[i].height / median - 1.2, 0.0, 1.5);
  score += upper * 10 >= letters * 7 ? 2.0 : 0.0;
  score += names_a_domain(i) ? 10.0 : 0.0;
  // One word with no legal form is more often a column heading ("Status", "Art") than a name;
  // a line in lower case is a person or a remark; a line of short fragments is OCR's noise.
  if (!legal && r[i].text.find(' ') == std::string::npos) score -= 6.0;
  if (upper == 0) score -= 6.0;
  int words = 0, short_words = 0;
  for (const Piece& p : pieces_of(r[i].text)) ++words, short_words += p.word.size() <= 2 ? 1 : 0;
  if (short_words * 2 > words) score -= 6.0;
  return score;
}

// The seller's name around its best line: its neighbours on the line, and a line above or below
// that continues it. `best` moves to the first segment of the line the name starts on.
std::string FieldFinder::seller_name(std::size_t& best,
                                     std::vector<std::vector<std::size_t>>& pieces) const {
  // OCR may split a name on its line ("POPULAR '   PR BOOK"): neighbours that read as a name
  // join it. The name is taken from the first of them.
  while (best > 0 && r[best - 1].line == r[best].line && !not_a_name(best - 1)) --best;
  std::size_t last = best;
  while (last + 1 < n && r[last + 1].line == r[best].line && !not_a_name(last + 1)) ++last;
  std::string name;
  pieces.assign(1, {});
  for (std::size_t k = best; k <= last; ++k) {
    append_joined(name, " ", name_of(r[k].text));
    pieces.front().push_back(k);
  }
  // A name printed tilted, read as its company form alone a line above its words ("SDN BHD" over
  // and right of "LIGHTROOM GALLERY", receipt 017 of the 427): the words come first.
  const auto words = forms_alone(name, rules) ? tilted_words(r, best, last) : std::nullopt;
  if (words && !not_a_name(*words)) {
    name = name_of(r[*words].text) + " " + name;
    pieces.push_back({*words});
  }
  const std::string lowered = lowercase(name);
  // A name broken over lines: "POPULAR BOOK" above "CO. (M) SDN BHD" or "(SEMENYIH) SDN BHD"
  // (the best line starts with its legal form or a bracket), "AIK HUAT HARDWARE ENTERPRISE
  // (SETIA" above "ALAM) SDN BHD" (a bracket left open), "GOLDEN KEY" above "MAKER SDN BHD".
  const bool starts_legal =
      std::any_of(rules.company_forms.begin(), rules.company_forms.end(),
                  [&](const auto& w) { return find_phrase(lowered, w) == 0; }) ||
      (!name.empty() && (name.front() == '(' || name.front() == '&'));
  // A trading name above the legal one ("BECON STATIONER" over "Becon Enterprise Sdn Bhd",
  // "TOKYO KITCHEN (CITTA MALL)" over "TOKYO KITCHEN SDN BHD") belongs to it as well: directly
  // above, or over a line of no letters (a speck read ".") where the two share a word (a logo
  // read as letters there shares none).
  const auto prev = above(best);
  const bool trading_name =
      prev && r[*prev].block == r[best].block &&
      (r[*prev].line + 1 == r[best].line || shares_a_word(*prev, best)) &&
      has_phrase(lowered, rules.company_forms) && r[*prev].confidence >= kNameConfidence &&
      r[best].text.find(':') == std::string::npos;  // "OWN BY: ..." names the owner alone
  if (prev && (starts_legal || trading_name) && !not_a_name(*prev, starts_legal)) {
    name = name_of(r[*prev].text) + " " + name;
    pieces.insert(pieces.begin(), {*prev});
  }
  if (const auto full = name_in_full(best, name)) {
    name = name_of(r[*full].text);
    pieces.assign(1, {*full});
    best = *full;
    return name;
  }
  // Lines below: one that brings the legal form, and up to two more that close a bracket left
  // open or follow a name that ends in '&' ("AIK HUAT HARDWARE" over "ENTERPRISE (SETIA" over
  // "ALAM) SDN BHD"; "HOME MASTER HARDWARE &" over "ELECTRICAL"). A bracket a misread left open
  // ("(RALAYSIA? SDN BHD") takes no address line that closes none.
  for (int joined = 0; joined < 3; ++joined) {
    auto next = below(pieces.back().front());
    // A speck read as a line between a name and its legal name ("." between "LEMON TREE
    // RESTAURANT" and "JTJ FOODS SDN BHD"): the line under it.
    // A fragment OCR split off the start of the line below ("co." then "CM) SDN BHD", SROIE's
    // 613.jpg): the name goes on in the segment after it, under the name's line.
    const std::size_t from = pieces.back().front();
    while (next && not_a_name(*next) && letters_in(r[*next].text) < 3 && *next + 1 < n &&
           r[*next + 1].line == r[*next].line && r[*next + 1].left < r[from].right)
      ++*next;
    if (!next || not_a_name(*next)) break;
    const bool legal_below = joined == 0 && !has_phrase(lowered, rules.company_forms) &&
                             has_phrase(r[*next].lowered, rules.company_forms);
    const bool closes =
        std::count(name.begin(), name.end(), '(') > std::count(name.begin(), name.end(), ')') &&
        r[*next].text.find(')') != std::string::npos;
    const bool unfinished = closes || (!name.empty() && name.back() == '&');
    // A name's block ends at its registration number: a line between the name and the number
    // continues the name ("RESTAURANT JIAWEI" over "JIAWEI HOUSE" over "002693074-K").
    const auto after = below(*next);
    const bool before_number = joined == 0 && after && registration_number(*after);
    if (!legal_below && !unfinished && !before_number) break;
    append_joined(name, " ", name_of(r[*next].text));
    pieces.push_back({*next});
  }
  return name;
}

std::optional<std::size_t> FieldFinder::name_in_full(std::size_t best,
                                                     const std::string& name) const {
  if (has_phrase(lowercase(name), rules.company_forms)) return std::nullopt;
  const std::string key = name_key(name);
  if (key.size() < 4) return std::nullopt;
  for (std::size_t k = best + 1; k < n && r[k].line <= r[best].line + kFullNameLines; ++k) {
    if (name_key(r[k].text).rfind(key, 0) == 0 && has_phrase(r[k].lowered, rules.company_forms) &&
        !not_a_name(k))
      return k;
  }
  return std::nullopt;
}

// Whether segments a and b share a word of 4 letters or more, case aside ("TOKYO").
bool FieldFinder::shares_a_word(std::size_t a, std::size_t b) const {
  const std::vector<Piece> theirs = pieces_of(lowercase(r[b].text));
  for (const Piece& p : pieces_of(lowercase(r[a].text))) {
    if (p.word.size() >= 4 &&
        std::any_of(theirs.begin(), theirs.end(), [&](const Piece& q) { return q.word == p.word; }))
      return true;
  }
  return false;
}

std::vector<WordRun> FieldFinder::doubtful_names() const {
  std::vector<WordRun> out;
  const auto e = found.find("SUPPLIER");
  if (page.exact || (e != found.end() && e->second.noted.labelled))
    return out;  // a PDF's text, or a seller under its label
  for (std::size_t i = 0; i < n && out.size() < kMaxNameRereads; ++i) {
    if (r[i].top > page.height * kTopOfPage) break;
    if (letters_in(r[i].text) < 4 || r[i].confidence >= kNameDoubt) continue;
    // A contact line, a date's, a heading's, read doubtfully, is still no name.
    if (parse_phone(r[i].text) || !find_dates(r[i].text, rules.lexicon, facts.order).empty() ||
        has_phrase(r[i].lowered, rules.not_supplier))
      continue;
    const std::vector<Word>& words = page.lines[r[i].line].words;
    std::optional<std::size_t> first, last;
    for (std::size_t w = 0; w < words.size(); ++w) {
      if (words[w].box.left < r[i].left || words[w].box.right > r[i].right) continue;
      if (!first) first = w;
      last = w;
    }
    if (!first) continue;
    // A faint name read in pieces with gaps between them ("GAKUENE" and "ibS (KE) SDN BED" for
    // "GARDENIA BAKERIES (KL) SDN BHD"): read again whole, as one run.
    if (!out.empty() && out.back().line == r[i].line) {
      out.back().last = *last;
      continue;
    }
    out.push_back({r[i].line, *first, *last, "SUPPLIER"});
  }
  return out;
}

}  // namespace docsift::ocr::detail
