// The seller's names in the page's web and email addresses. (field_finder.h)
#include "docsift/ocr/field_finder.h"
#include "docsift/ocr/known_names.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <set>

namespace docsift::ocr::detail {

// The names in the page's email addresses and websites outside the payer's column, the label
// before the top-level domain ("max.muster@musterlieferant.de" → "musterlieferant",
// "www.guardian.com.my" → "guardian"): a seller names itself so. Webmail providers name no one.
std::vector<std::string> FieldFinder::domain_names() const {
  static const std::set<std::string> kWebmail = {
      "gmail",      "googlemail", "yahoo", "ymail", "hotmail", "outlook", "live",
      "msn",        "icloud",     "me",    "aol",   "gmx",     "web",     "mail",
      "protonmail", "proton",     "qq",    "163",   "126",     "yandex",  "zoho"};
  static const std::set<std::string> kSecondLevel = {"com", "co", "net", "org", "gov", "edu", "ac"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (in_payer_column(i)) continue;
    // A host alone on its segment with no "www." in front (".vivopac.com": the "www" lost to the
    // printer); one among other words ("SHOPPING WITH myNEWS.com") is a slogan's, not the seller's.
    static const std::regex kBareHost(
        R"(^\W*([A-Za-z0-9\-]{3,}\.(?:com|net|org)(?:\.[A-Za-z]{2})?)\W*$)");
    std::smatch bare;
    std::optional<std::string> host_alone;
    if (std::regex_search(r[i].text, bare, kBareHost)) host_alone = bare[1].str();
    for (const auto& address : {parse_email(r[i].text), parse_website(r[i].text), host_alone}) {
      if (!address) continue;
      const std::size_t at_sign = address->find('@');
      std::string host = lowercase(address->substr(at_sign == std::string::npos ? 0 : at_sign + 1));
      if (const auto scheme = host.find("://"); scheme != std::string::npos)
        host = host.substr(scheme + 3);
      host = host.substr(0, host.find('/'));
      std::vector<std::string> labels;
      for (std::size_t at = 0; at <= host.size();) {
        const std::size_t dot = std::min(host.find('.', at), host.size());
        labels.push_back(host.substr(at, dot - at));
        at = dot + 1;
      }
      if (labels.size() < 2) continue;
      std::size_t name = labels.size() - 2;  // the label before the top-level domain
      if (name > 0 && labels.back().size() == 2 && kSecondLevel.count(labels[name]))
        --name;  // "guardian.com.my"
      if (labels[name].size() >= 4 && !kWebmail.count(labels[name]))
        out.push_back(name_key(labels[name]));
    }
  }
  return out;
}

// Whether segment `i`'s name, compared as known sellers are (name_key: letters and digits, case
// aside), holds one of the page's domain names ("MUSTERLIEFERANT GMBH" and musterlieferant.de).
bool FieldFinder::names_a_domain(std::size_t i) const {
  const std::string key = name_key(name_of(r[i].text));
  return std::any_of(domains.begin(), domains.end(),
                     [&](const std::string& d) { return key.find(d) != std::string::npos; });
}

// A name whose first word lost its first letters to a logo or the paper's edge ("OPAC MARKETING SDN
// BHD" over ".vivopac.com"): the page's domain name that ends in that word, at most kLostLetters
// longer, gives them back, in the word's case. A word of fewer than 4 letters is too common a tail.
std::string FieldFinder::name_from_domain(const std::string& name) const {
  constexpr std::size_t kLostLetters = 3;
  const std::string first = name.substr(0, name.find(' '));
  if (first.size() < 4 || letters_in(first) != first.size()) return name;
  const std::string key = name_key(first);  // as domains holds them
  for (const std::string& domain : domains) {
    if (domain.size() <= key.size() || domain.size() > key.size() + kLostLetters ||
        domain.compare(domain.size() - key.size(), key.size(), key) != 0 ||
        letters_in(domain) != domain.size())
      continue;
    return in_case_of(first, lowercase(domain)) + name.substr(first.size());  // "Opac" → "Vivopac"
  }
  return name;
}

}  // namespace docsift::ocr::detail
