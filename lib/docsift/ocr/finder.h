// The trained field finder (docs/ocr.md, "The field finder"): for a field, the rules propose
// candidates from the page (finder candidates: a labelled amount, what was paid, an amount printed
// anywhere, …) and a model trained on labelled pages picks among them. The model is a conditional
// logit: each candidate's score is a weighted sum of its features (each about [0, 1]); the page's
// candidates compete under a softmax and the highest takes the field (a field with no candidate is
// N/A; a doubtful winner has a low probability, which the calibration and the review queue weigh:
// docs/confidence.md). There is no "none" to beat, because a softmax leaves the scores' level
// unfitted and the training pages all have the field (bench/ocr/train_finder.py says so). The
// weights are fitted by bench/ocr/train_finder.py and shipped in configs/fields/ocr-finder.yaml
// (compiled in as builtin:ocr-finder); this side only evaluates them. The candidates' features are
// the field's step's (find_totals.cpp for TOTAL); their names are finder_features' and nothing
// else.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docsift::ocr {

// A candidate's features: name (one of finder_features(field)) → value.
using Features = std::vector<std::pair<std::string_view, double>>;

// A candidate as the finder saw it, for the record (ocr.write_evidence) and for training.
struct Ranked {
  std::string value;
  Features features;
  double probability = 0;  // its share of the softmax over the page's candidates
};

struct FinderModel {
  std::string source;
  std::map<std::string, std::map<std::string, double, std::less<>>>
      weights;  // field → feature → weight
  // Σ weight·feature; a feature the file does not weigh counts 0.
  double score(const std::string& field, const Features& x) const;
  // Each candidate's softmax probability, in the candidates' order.
  std::vector<double> probabilities(const std::string& field,
                                    const std::vector<Features>& candidates) const;
};

// The fields the finder ranks, and each one's feature names in a fixed order (docs/ocr.md lists
// what each means).
const std::map<std::string, std::vector<std::string>>& finder_features();

// `source`: "builtin:ocr-finder" or a YAML file in configs/fields/ocr-finder.yaml's layout
// (fields: {FIELD: {weights: {FEATURE: X}}}). Throws docsift::ConfigError at the place of the
// problem: an unknown field or feature, a number that is not finite, a key given twice. A field the
// file does not list scores every candidate 0 (none is taken): the file must list every field of
// finder_features.
FinderModel load_finder(const std::string& source);

}  // namespace docsift::ocr
