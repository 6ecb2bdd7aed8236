// The parties: ABN by checksum, the seller, the payer's contacts, the bank (the seller's address:
// find_address.cpp).
// (field_finder.h)
#include "docsift/ocr/field_finder.h"
#include "docsift/ocr/known_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <utility>

namespace docsift::ocr::detail {

void FieldFinder::abn_by_checksum(nlohmann::json& checks) {
  if (!found.count("ABN") && !statement) {
    for (std::size_t i = 0; i < n; ++i) {
      if (auto v = parse_abn(r[i].text)) {
        set("ABN", *v, i);
        checks["abn_by_checksum"] = true;
        break;
      }
    }
  }
}

// A line's score as the seller's name: early at the top (the first 12 candidate lines, `rank`
// counting them) or, with a legal form, in the footer; prominent; in capitals; not one word
// without a legal form, nor lower case, nor short fragments. None for a line that cannot be one.
std::optional<double> FieldFinder::seller_score(std::size_t i, double median, int& rank) const {
  const bool top = r[i].top <= page.height * kTopOfPage && rank < 12;
  const bool footer = r[i].top >= page.height * 0.75;
  if (!top && !footer) return std::nullopt;
  const bool legal = has_any(lowercase(name_of(r[i].text)), rules.company_forms);
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
      has_any(lowered, rules.company_forms) && r[*prev].confidence >= kNameConfidence &&
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
    // A fragment OCR split off the start of the line below ("co." then "CM) SDN BHD", SROIE's
    // 613.jpg): the name goes on in the segment after it, under the name's line.
    const std::size_t from = pieces.back().front();
    while (next && not_a_name(*next) && letters_in(r[*next].text) < 3 && *next + 1 < n &&
           r[*next + 1].line == r[*next].line && r[*next + 1].left < r[from].right)
      ++*next;
    if (!next || not_a_name(*next)) break;
    const bool legal_below = joined == 0 && !has_any(lowered, rules.company_forms) &&
                             has_any(r[*next].lowered, rules.company_forms);
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
  if (has_any(lowercase(name), rules.company_forms)) return std::nullopt;
  const std::string key = name_key(name);
  if (key.size() < 4) return std::nullopt;
  for (std::size_t k = best + 1; k < n && r[k].line <= r[best].line + kFullNameLines; ++k) {
    if (name_key(r[k].text).rfind(key, 0) == 0 && has_any(r[k].lowered, rules.company_forms) &&
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

// A company's registration number alone on its segment: the number with its check letter
// ("002693074-K", "(945402-P)", "(No. 193673-M)"), or after its label, the letter then optional
// ("Company No: 734055-M", "CO.NO. (468592-T)", "Co-REG: 86067 1-D", "Company Reg. No. :
// 001055194").
bool FieldFinder::registration_number(std::size_t k) const {
  static const std::regex kNumber(
      R"(^\W*(?:(?:reg(?:istration)?|no)\.?\s*[:#]?\s*)?\d[\d ]{4,}\s*-\s*[A-Z]\W*$)",
      std::regex::icase);
  static const std::regex kLabelled(
      R"(^\W*(?:company|co)\b[\s.\-]*(?:reg(?:istration)?\b[\s.]*)?(?:no\b)?[\s.]*[:#]?\s*\(?\s*)"
      R"(\d[\d ]{4,}(?:\s*-\s*[A-Z])?\W*$)",
      std::regex::icase);
  return std::regex_search(r[k].text, kNumber) || std::regex_search(r[k].text, kLabelled);
}

// A letter's sender line, printed small above the address window ("weclapp.com | Somestreet 42 |
// 08155 Some city"; DIN 5008's Rücksendeangabe): parts between bars or middle dots, an address
// among those after the first. The first part is the sender, whatever it looks like (a domain, a
// name with no legal form); the others are its address. Where the line is, the segment it starts
// in.
std::optional<std::size_t> FieldFinder::sender_line(std::string& name, std::string& address) const {
  for (std::size_t i = 0; i < n && r[i].top <= page.height * 0.4; ++i) {
    std::string text =
        r[i].text;  // the segment: what the line has beside it is the letter's header
    for (const char* dot : {"\u00b7", "\u2022"}) text = replace_all(text, dot, "|");
    std::vector<std::string> parts;
    for (std::size_t at = 0; at <= text.size();) {
      const std::size_t bar = std::min(text.find('|', at), text.size());
      if (const std::string part = clean_text(text.substr(at, bar - at)); !part.empty())
        parts.push_back(part);
      at = bar + 1;
    }
    if (parts.size() < 3 || !has_letters(parts[0]) || parts[0].size() > 60) continue;
    const bool addressed = std::any_of(parts.begin() + 1, parts.end(),
                                       [&](const std::string& p) { return address_text(p); });
    if (!addressed) continue;
    name = parts[0];
    address.clear();
    for (std::size_t k = 1; k < parts.size(); ++k) append_joined(address, ", ", parts[k]);
    while (!address.empty() && (address.back() == ',' || address.back() == ' ')) address.pop_back();
    return i;
  }
  return std::nullopt;
}

void FieldFinder::supplier() {
  for (const char* field : {"PAYER_NAME", "ACCOUNT_HOLDER"}) {
    if (found_at.count(field) && !payer_block) {
      payer_at = found_at[field];
      payer_block = r[*payer_at].block;
    }
  }
  domains = domain_names();
  std::string sender, sender_address;
  if (found.count("SUPPLIER")) {  // under a label ("Lieferant", "Dodavatel")
    supplier_at = found_at["SUPPLIER"];
    supplier_block = r[*supplier_at].block;
  } else if (const auto at = statement ? std::nullopt : sender_line(sender, sender_address)) {
    // Its block is the recipient's address window: no supplier_at, whose block and lines below
    // give the seller's address and phone.
    set("SUPPLIER", sender, *at);
    if (!sender_address.empty()) set("BUSINESS_ADDRESS", sender_address, *at);
  } else if (!statement && n > 0) {
    std::vector<int> heights;
    for (const auto& seg : r) heights.push_back(seg.height);
    const double median = std::max(1, median_of(std::move(heights)));
    std::optional<std::size_t> best;
    double best_score = 0;
    int rank = 0;
    std::vector<std::pair<std::string, double>>
        scored;  // each line and its score: the winner's margin
    for (std::size_t i = 0; i < n; ++i) {
      const auto score = seller_score(i, median, rank);
      if (!score) continue;
      scored.emplace_back(r[i].text, *score);
      if (!best || *score > best_score) best = i, best_score = *score;
    }
    if (best) {
      std::size_t at = *best;
      std::vector<std::vector<std::size_t>> pieces;
      const std::string name = seller_name(at, pieces);
      best = at;
      set("SUPPLIER", repair_name(name_from_domain(name), rules), *best);
      if (pieces.size() > 1) {
        for (const auto& piece : pieces) evidence["SUPPLIER"].parts.push_back(words_box(piece));
      }
      evidence["SUPPLIER"].repaired = found["SUPPLIER"] != name;
      note_contest("SUPPLIER", r[*best].text, best_score, scored);
      supplier_block = r[*best].block;
      supplier_at = best;
    }
  }
}

void FieldFinder::contacts() {
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& t = r[i].text;
    const bool sellers_column = left_of_payer(i);
    const std::string address = before_number_label(r[i], rules);
    if ((in_block(supplier_block, i) && !in_block(payer_block, i)) || sellers_column) {
      if (looks_like_address(address, rules.lexicon))
        set("BUSINESS_ADDRESS", repair_address(clean_address(address), rules), i);
      if (auto v = parse_phone(t)) set("BUSINESS_PHONE", *v, i);
    }
    // The payer's lines are its name's and those under it: a line above, in a block of both
    // parties' labelled lines ("Address: 12 George Street" under "Supplier:", then "Sold to:"),
    // is the seller's.
    if (in_block(payer_block, i) && !sellers_column &&
        (!payer_at || r[i].line >= r[*payer_at].line)) {
      if (looks_like_address(address, rules.lexicon))
        set("PAYER_ADDRESS",
            repair_address(clean_address(without_address_label(address, rules.address_labels)),
                           rules),
            i);
      if (auto v = parse_email(t)) set("PAYER_EMAIL", *v, i);
      if (!statement) {
        if (auto v = parse_phone(t)) set("PAYER_PHONE", *v, i);
      }
    }
    if (!statement) {
      if (auto v = parse_website(t)) set("SUPPLIER_WEBSITE", *v, i);
    }
  }
  // Either address's home region that OCR misread ("Brisbane OLD 4000"), put back.
  for (const char* field : {"PAYER_ADDRESS", "BUSINESS_ADDRESS"}) {
    const auto it = found.find(field);
    if (it == found.end()) continue;
    if (auto repaired = home_region_repaired(it->second, rules.home.regions)) {
      it->second = *repaired;
      evidence[field].repaired = true;
    }
  }
}

void FieldFinder::bank_name() {
  const auto payer = found_at.find("PAYER_NAME");
  if (statement && !found.count("ACCOUNT_HOLDER") && payer != found_at.end()) {
    set("ACCOUNT_HOLDER", found["PAYER_NAME"], payer->second);
    if (const auto fuzzy = label_fuzzy.find("PAYER_NAME"); fuzzy != label_fuzzy.end())
      label_fuzzy["ACCOUNT_HOLDER"] = fuzzy->second;  // read beside a label, as the payer's was
  }
  if (statement) {
    for (std::size_t i = 0; i < n && i < 6 && !found.count("BANK_NAME"); ++i) {
      for (const auto& bank : rules.banks) {
        const std::size_t at = find_phrase(r[i].lowered, bank);
        if (at == std::string::npos) continue;
        // From the bank's name on: a label before it ("Kreditinstitut: NAB") is no part of it.
        // (`lowered` has the text's bytes where lowercasing kept them.)
        const bool aligned = r[i].lowered.size() == r[i].text.size();
        set("BANK_NAME", clean_text(aligned ? r[i].text.substr(at) : r[i].text), i);
        break;
      }
    }
    if (!found.count("BANK_NAME") && heading && *heading > 0)
      set("BANK_NAME", clean_text(r[0].text), 0);
  }
}

// The payer's part of its block: the lines of the column its name was read in. A header of two
// columns ("Example, LLC" beside "Bill To", "MUSTERLIEFERANT GMBH" under "Lieferant" beside
// "Käufer") is one block, whose left column is the seller's. The column starts at the payer's
// label, at most kPayerLabelAbove lines above its name (the label's own line and two lines of
// numbers passed over): a line above it is the page's header, not the payer's (a one-column
// receipt whose "Bill To" block Tesseract read as one block with the seller's name at its top).
bool FieldFinder::in_payer_column(std::size_t i) const {
  constexpr std::size_t kPayerLabelAbove = 3;
  return payer_at && r[i].block == *payer_block && r[i].left < r[*payer_at].right &&
         r[*payer_at].left < r[i].right && r[i].line + kPayerLabelAbove >= r[*payer_at].line;
}

// A segment of the payer's block wholly left of the payer's name: the left column of a header of
// two columns ("From" beside "Bill To"), the seller's, as in_payer_column says. Its address and
// phone are the seller's, although the block is the payer's.
bool FieldFinder::left_of_payer(std::size_t i) const {
  return payer_at && in_block(payer_block, i) && r[i].right <= r[*payer_at].left;
}

bool FieldFinder::not_a_name(std::size_t i, bool legal_below) const {
  const std::string& t = r[i].text;
  const std::string name = name_of(t), lowered = lowercase(name);
  int letters = 0, digits = 0;
  for (const char c : name) {
    letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    digits += std::isdigit(static_cast<unsigned char>(c)) ? 1 : 0;
  }
  const std::string whole = lowercase(page.lines[r[i].line].text());
  const bool table_header = has_any(whole, rules.table_words(Column::kDescription)) &&
                            (has_any(whole, rules.table_words(Column::kQuantity)) ||
                             has_any(whole, rules.table_words(Column::kUnitPrice)) ||
                             has_any(whole, rules.table_words(Column::kAmount)));
  // A lead-in ("OWN BY:") is dropped only in front of a legal name.
  const bool lead_in = t.find(':') != std::string::npos && !has_any(lowered, rules.company_forms);
  // A web address, unless a legal form follows it: a company named for its domain ("ECOSWAY.COM
  // SDN BHD").
  const bool web =
      (lowered.find("www") != std::string::npos || lowered.find(".com") != std::string::npos) &&
      !has_any(lowered, rules.company_forms);
  // A label in a name ("SUPER SEVEN CASH & CARRY") is a word of it when nothing follows it as a
  // value: a line without figures, and the label one of a payment's or a total's.
  // A segment that is one label and nothing else ("CASH") is that label.
  const bool labelled = std::any_of(r[i].hits.begin(), r[i].hits.end(), [&](const Hit& h) {
    return rules.fields[h.rule].field.front() != '_' || digits > 0 ||
           (h.at == 0 && is_empty(t.substr(h.end)));
  });
  // An address line ends in a comma ("Wangsa Link, Wangsa Maju,"); a name with a legal form may
  // run into its address on a sender line ("Acme GmbH | Europa-Allee 19 | 60486 Frankfurt,").
  const bool continues = !t.empty() && t.back() == ',' && !has_any(lowered, rules.company_forms);
  return table_header || lead_in || web || labelled || continues || (heading && i == *heading) ||
         in_payer_column(i) || letters < 3 || digits > letters || parse_abn(t) || parse_phone(t) ||
         parse_website(t) || parse_email(t) ||
         // A legal name may name its country ("AMANO MALAYSIA SDN BHD"): no address for that.
         address_text(name, !legal_below && !has_any(lowered, rules.company_forms)) ||
         !find_dates(t, rules.lexicon).empty() || has_any(lowered, rules.not_supplier) ||
         std::any_of(rules.document_types.begin(), rules.document_types.end(),
                     [&](const auto& type) { return has_any(lowered, type.second); });
}

std::vector<WordRun> FieldFinder::doubtful_names() const {
  std::vector<WordRun> out;
  if (page.exact || label_fuzzy.count("SUPPLIER"))
    return out;  // a PDF's text, or a seller under its label
  for (std::size_t i = 0; i < n && out.size() < kMaxNameRereads; ++i) {
    if (r[i].top > page.height * kTopOfPage) break;
    if (letters_in(r[i].text) < 4 || r[i].confidence >= kNameDoubt) continue;
    const std::vector<Word>& words = page.lines[r[i].line].words;
    std::optional<std::size_t> first, last;
    for (std::size_t w = 0; w < words.size(); ++w) {
      if (words[w].box.left < r[i].left || words[w].box.right > r[i].right) continue;
      if (!first) first = w;
      last = w;
    }
    if (first) out.push_back({r[i].line, *first, *last, "SUPPLIER"});
  }
  return out;
}

}  // namespace docsift::ocr::detail
