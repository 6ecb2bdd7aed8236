// The parties: ABN by checksum, the seller (its name's lines: find_seller.cpp), the payer's
// contacts, the bank (the seller's address: find_address.cpp).
// (field_finder.h)
#include "docsift/ocr/field_finder.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <utility>

namespace docsift::ocr::detail {

std::optional<Finding> FieldFinder::abn_by_checksum() const {
  if (found.count("ABN") || statement()) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i) {
    if (auto v = parse_abn(r[i].text)) return Finding{"ABN", *v, i, {}, "abn_by_checksum"};
  }
  return std::nullopt;
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

Payer FieldFinder::payer_of() const {
  Payer out;
  for (const char* field : {"PAYER_NAME", "ACCOUNT_HOLDER"}) {
    if (const auto at = segment_of(field); at && !out.block) {
      out.at = at;
      out.block = r[*out.at].block;
    }
  }
  return out;
}

Seller FieldFinder::supplier() const {
  Seller out;
  std::string sender, sender_address;
  if (found.count("SUPPLIER")) {  // under a label ("Lieferant", "Dodavatel")
    out.at = segment_of("SUPPLIER");
    if (out.at) out.block = r[*out.at].block;
  } else if (const auto at = statement() ? std::nullopt : sender_line(sender, sender_address)) {
    // Its block is the recipient's address window: no `at`, whose block and lines below give the
    // seller's address and phone.
    out.found.push_back({"SUPPLIER", sender, *at, {}, nullptr});
    if (!sender_address.empty())
      out.found.push_back({"BUSINESS_ADDRESS", sender_address, *at, {}, nullptr});
  } else if (!statement() && n > 0) {
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
      Finding finding{"SUPPLIER", repair_name(name_from_domain(name), rules), at, {}, nullptr};
      if (pieces.size() > 1) {
        for (const auto& piece : pieces) finding.noted.parts.push_back(words_box(piece));
      }
      finding.noted.repaired = finding.value != name;
      note_contest(finding.noted, r[at].text, best_score, scored);
      out.found.push_back(std::move(finding));
      out.block = r[at].block;
      out.at = at;
    }
  }
  return out;
}

std::vector<Finding> FieldFinder::contacts() const {
  std::vector<Finding> out;
  const auto add = [&](const char* field, std::string value, std::size_t at) {
    out.push_back({field, std::move(value), at, {}, nullptr});
  };
  const std::optional<int>& payer_block = payer.block;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& t = r[i].text;
    const bool sellers_column = left_of_payer(i);
    const std::string address = before_number_label(r[i], rules);
    if ((in_block(seller.block, i) && !in_block(payer_block, i)) || sellers_column) {
      if (looks_like_address(address, rules.lexicon))
        add("BUSINESS_ADDRESS", repair_address(clean_address(address), rules), i);
      if (auto v = parse_phone(t)) add("BUSINESS_PHONE", *v, i);
    }
    // The payer's lines are its name's and those under it: a line above, in a block of both
    // parties' labelled lines ("Address: 12 George Street" under "Supplier:", then "Sold to:"),
    // is the seller's.
    if (in_block(payer_block, i) && !sellers_column &&
        (!payer.at || r[i].line >= r[*payer.at].line)) {
      if (looks_like_address(address, rules.lexicon))
        add("PAYER_ADDRESS",
            repair_address(clean_address(without_address_label(address, rules.address_labels)),
                           rules),
            i);
      if (auto v = parse_email(t)) add("PAYER_EMAIL", *v, i);
      if (!statement()) {
        if (auto v = parse_phone(t)) add("PAYER_PHONE", *v, i);
      }
    }
    if (!statement()) {
      if (auto v = parse_website(t)) add("SUPPLIER_WEBSITE", *v, i);
    }
  }
  return out;
}

std::vector<Finding> FieldFinder::home_regions() const {
  std::vector<Finding> out;
  for (const char* field : {"PAYER_ADDRESS", "BUSINESS_ADDRESS"}) {
    const auto it = found.find(field);
    if (it == found.end() || !it->second.at) continue;
    if (auto repaired = home_region_repaired(it->second.value, rules.home.regions)) {
      out.push_back({field, *repaired, *it->second.at, {}, nullptr});
      out.back().noted.repaired = true;
    }
  }
  return out;
}

std::vector<Finding> FieldFinder::bank_name() const {
  std::vector<Finding> out;
  if (!statement()) return out;
  const auto payer_name = found.find("PAYER_NAME");
  if (!found.count("ACCOUNT_HOLDER") && payer_name != found.end() && payer_name->second.at) {
    const Found& payer = payer_name->second;
    out.push_back({"ACCOUNT_HOLDER", payer.value, *payer.at, {}, nullptr});
    // Read beside a label, as the payer's was.
    if (payer.noted.labelled)
      out.back().noted.labelled = true, out.back().noted.label_fuzzy = payer.noted.label_fuzzy;
  }
  if (found.count("BANK_NAME")) return out;
  for (std::size_t i = 0; i < n && i < 6; ++i) {
    for (const auto& bank : rules.banks) {
      const std::size_t at = find_phrase(r[i].lowered, bank);
      if (at == std::string::npos) continue;
      // From the bank's name on: a label before it ("Kreditinstitut: NAB") is no part of it.
      // (`lowered` has the text's bytes where lowercasing kept them.)
      const bool aligned = r[i].lowered.size() == r[i].text.size();
      out.push_back(
          {"BANK_NAME", clean_text(aligned ? r[i].text.substr(at) : r[i].text), i, {}, nullptr});
      return out;
    }
  }
  if (facts.heading.at && *facts.heading.at > 0)
    out.push_back({"BANK_NAME", clean_text(r[0].text), 0, {}, nullptr});
  return out;
}

// The payer's part of its block: the lines of the column its name was read in. A header of two
// columns ("Example, LLC" beside "Bill To", "MUSTERLIEFERANT GMBH" under "Lieferant" beside
// "Käufer") is one block, whose left column is the seller's. The column starts at the payer's
// label, at most kPayerLabelAbove lines above its name (the label's own line and two lines of
// numbers passed over): a line above it is the page's header, not the payer's (a one-column
// receipt whose "Bill To" block Tesseract read as one block with the seller's name at its top).
bool FieldFinder::in_payer_column(std::size_t i) const {
  constexpr std::size_t kPayerLabelAbove = 3;
  return payer.at && r[i].block == *payer.block && r[i].left < r[*payer.at].right &&
         r[*payer.at].left < r[i].right && r[i].line + kPayerLabelAbove >= r[*payer.at].line;
}

// A segment of the payer's block wholly left of the payer's name: the left column of a header of
// two columns ("From" beside "Bill To"), the seller's, as in_payer_column says. Its address and
// phone are the seller's, although the block is the payer's.
bool FieldFinder::left_of_payer(std::size_t i) const {
  return payer.at && in_block(payer.block, i) && r[i].right <= r[*payer.at].left;
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
  const bool table_header = has_phrase(whole, rules.table_words(Column::kDescription)) &&
                            (has_phrase(whole, rules.table_words(Column::kQuantity)) ||
                             has_phrase(whole, rules.table_words(Column::kUnitPrice)) ||
                             has_phrase(whole, rules.table_words(Column::kAmount)));
  // A lead-in ("OWN BY:") is dropped only in front of a legal name.
  const bool lead_in =
      t.find(':') != std::string::npos && !has_phrase(lowered, rules.company_forms);
  // A web address, unless a legal form follows it: a company named for its domain ("ECOSWAY.COM
  // SDN BHD").
  const bool web =
      (lowered.find("www") != std::string::npos || lowered.find(".com") != std::string::npos) &&
      !has_phrase(lowered, rules.company_forms);
  // A label in a name ("SUPER SEVEN CASH & CARRY") is a word of it when nothing follows it as a
  // value: a line without figures, and the label one of a payment's or a total's.
  // A segment that is one label and nothing else ("CASH") is that label.
  const bool labelled = std::any_of(r[i].hits.begin(), r[i].hits.end(), [&](const Hit& h) {
    return rules.fields[h.rule].field.front() != '_' || digits > 0 ||
           (h.at == 0 && is_empty(t.substr(h.end)));
  });
  // An address line ends in a comma ("Wangsa Link, Wangsa Maju,"); a name with a legal form may
  // run into its address on a sender line ("Acme GmbH | Europa-Allee 19 | 60486 Frankfurt,").
  const bool continues = !t.empty() && t.back() == ',' && !has_phrase(lowered, rules.company_forms);
  return table_header || lead_in || web || labelled || continues ||
         (facts.heading.at && i == *facts.heading.at) || in_payer_column(i) || letters < 3 ||
         digits > letters || parse_abn(t) || parse_phone(t) || parse_website(t) || parse_email(t) ||
         // A legal name may name its country ("AMANO MALAYSIA SDN BHD"): no address for that.
         address_text(name, !legal_below && !has_phrase(lowered, rules.company_forms)) ||
         !find_dates(t, rules.lexicon).empty() || has_phrase(lowered, rules.not_supplier) ||
         std::any_of(rules.document_types.begin(), rules.document_types.end(),
                     [&](const auto& type) { return has_phrase(lowered, type.second); });
}

}  // namespace docsift::ocr::detail
