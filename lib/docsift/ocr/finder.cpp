#include "docsift/ocr/finder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "docsift/error.h"
#include "docsift/ocr/yaml_source.h"

namespace docsift::ocr {

std::string_view builtin_finder_text();  // generated from configs/fields/ocr-finder.yaml

const std::map<std::string, std::vector<std::string>>& finder_features() {
  // TOTAL (find_totals.cpp: total_features). Where the candidate came from: a total's label by its
  // strength (weak, plain, strong; label_fuzzy: matched with an edit), what was paid, a card's
  // charge, subtotal + tax printed below the subtotal, the subtotal, a misread digit repaired, or
  // any amount printed on the page (unlabelled). What the page says of its amount: in a tax
  // summary, paid (two payment figures agree), the tendered figure itself, below the rounding
  // line, printed sums that make it (sub_plus_tax: subtotal + tax or a tax row; sums_make: any),
  // the largest labelled or printed, its rank among the printed amounts, cents printed, how often
  // it is printed, above the payment lines. Where and how it is printed: down the page, taller
  // than the page's lines, Tesseract's confidence in its words.
  static const std::map<std::string, std::vector<std::string>> kFeatures{
      {"TOTAL", {"label_weak",       "label_plain",     "label_strong", "label_fuzzy",
                 "paid_source",      "card_source",     "sum_source",   "subtotal_source",
                 "repaired",         "unlabelled",      "tax_summary",  "paid",
                 "tendered",         "after_rounding",  "sub_plus_tax", "sums_make",
                 "largest_labelled", "largest_printed", "amount_rank",  "cents",
                 "repeated",         "above_payment",   "down",         "tall",
                 "word_conf"}},
  };
  return kFeatures;
}

double FinderModel::score(const std::string& field, const Features& x) const {
  const auto w = weights.find(field);
  if (w == weights.end()) return 0;
  double z = 0;
  for (const auto& [name, value] : x) {
    if (const auto it = w->second.find(name); it != w->second.end()) z += it->second * value;
  }
  return z;
}

std::vector<double> FinderModel::probabilities(const std::string& field,
                                               const std::vector<Features>& candidates) const {
  std::vector<double> z;
  double top = -std::numeric_limits<double>::infinity();
  for (const Features& x : candidates) top = std::max(top, z.emplace_back(score(field, x)));
  double sum = 0;
  for (double& v : z) sum += (v = std::exp(v - top));
  for (double& v : z) v /= sum;
  return z;
}

FinderModel load_finder(const std::string& source) {
  constexpr std::string_view kLayout = "configs/fields/ocr-finder.yaml";
  const YAML::Node root = load_yaml_source(
      source, {"builtin:ocr-finder", builtin_finder_text(), "ocr.finder", kLayout});
  const YamlReader read(source, kLayout);
  if (!root.IsMap()) read.fail(root, "expected fields: {FIELD: {weights: {FEATURE: X}}}");
  FinderModel out;
  out.source = source;
  const auto& known = finder_features();
  try {
    read.only(root, "the file", {"fields"});
    for (const auto& [field, node] :
         read.entries(read.required(root, "fields", "the file"), "fields")) {
      const auto names = known.find(field);
      if (names == known.end())
        read.fail(node, "fields." + field + ": not a field the finder ranks (TOTAL is)");
      const std::string path = "fields." + field;
      read.only(node, path, {"weights"});
      auto& w = out.weights[field];
      for (const auto& [name, weight] :
           read.entries(read.required(node, "weights", path), path + ".weights")) {
        if (std::find(names->second.begin(), names->second.end(), name) == names->second.end())
          read.fail(weight,
                    path + ".weights: unknown feature '" + name + "' (docs/ocr.md lists them)");
        w[name] = read.number(weight, path + ".weights." + name);
      }
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": " + e.msg + " (" + std::string(kLayout) + " shows the layout)");
  }
  for (const auto& [field, names] : known) {
    if (!out.weights.count(field))
      read.fail(root, "fields: has no " + field + " (every field the finder ranks needs weights)");
  }
  return out;
}

}  // namespace docsift::ocr
