// The OCR engine's calibrated confidences: per field kind (amount, date, text, id, list), a
// logistic regression over a handful of the rules' evidence (rules.h: Evidence) gives the
// probability that a value is right. The parameters are fitted by bench/confidence/refit.py on
// labelled development pages and shipped in configs/fields/ocr-calibration.yaml (compiled in as
// builtin:ocr-calibration); this side only evaluates them (docs/confidence.md says why logistic
// regression and how to refit).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/rules.h"

namespace docsift::ocr {

// The evidence as the model's inputs, by name, each scaled to about [0, 1]: word_min, word_mean
// (Tesseract's 0-100 / 100), labelled, label_fuzzy, sums_agree, repaired, contested (more than one
// candidate), margin (log-scaled), second_agreed, second_taken, second_disagreed, exact, repeated,
// legal, word_min_top (word_min's top: 0 under 85, 1 at 100), known, listed, reader_agreed,
// reader_disagreed, reader_taken (the second recognizer's reading: cross_read.h), vouched and
// contradicted (the page's own checks: page_checks.h); label_seen, shape_seen, abroad and home
// (what the page shows of a field left N/A: page_checks.h, absence_of); cut and late (an address
// that stops short, one that starts after lines passed over: rules.h); reader_score and reader_gap
// (how sure the second reading was, and how far the value still is from it: cross_read.h,
// reading_gap); ended (an address read to where it ends: rule_text.h, address_ended); agreed
// (another page of the run read the same value: 0 on every page as read, batch/agreement.h).
std::map<std::string, double> feature_values(const Evidence& evidence);
// The names feature_values gives, in a fixed order.
const std::vector<std::string>& feature_names();

// One kind's model: p = 1 / (1 + exp(-(intercept + Σ weight·feature))).
struct Calibrator {
  double intercept = 0;
  std::vector<std::pair<std::string, double>> weights;  // feature name → weight
  // `offset`: a field's own shift of the intercept (Calibration::field_offsets).
  double probability(const Evidence& evidence, double offset = 0) const;
};

struct Calibration {
  std::string source;
  std::map<std::string, Calibrator> kinds;  // amount, date, text, id, list
  // kind → its model of the values the second recognizer read (`kinds: {K: {..., read_again:
  // {intercept, weights}}}`), every weight fitted on those values, with no field's shift: a
  // seller's legal form, say, weighs more once both readers have read the name
  // (docs/confidence.md). A kind without one scores them by its own model, as the other values.
  std::map<std::string, Calibrator> read_again;
  std::map<std::string, std::string> field_kinds;  // field → kind; a field not listed is text
  // field → its own intercept shift over its kind's model (`fields: {F: {kind: K, offset: X}}`):
  // fields of one kind differ in how often they are right on the same evidence (a payer's address
  // against a seller's name), which a shift per field learns from few values.
  std::map<std::string, double> field_offsets;
  // field → the model of the probability that the field, left N/A, is absent from the page (the
  // top-level `absent:` entries, fitted by bench/confidence/fit_absent.py on the evidence of
  // page_checks.h's absence_of): a required value the page does not print is then not queued as
  // missing (extract/review_queue.h). A field not listed gets no confidence when N/A.
  std::map<std::string, Calibrator> absent;
  std::optional<double> absent_probability(const std::string& field,
                                           const Evidence& evidence) const;
  // The calibrated probability that `field`'s value is right, in [0, 1].
  double probability(const std::string& field, const Evidence& evidence) const;
  // The weight of `agreed` in the model that gives `field`'s probability on this evidence (0 where
  // it weighs none): what another page reading the same value adds to the value's logit, which
  // the run adds once it has counted the pages (batch/agreement.h).
  double agreement_weight(const std::string& field, const Evidence& evidence) const;
  // `field`'s kind: amount, date, text, id or list (text when not listed).
  std::string kind_of(const std::string& field) const;
  // Throws docsift::ConfigError at the field's line when the file lists a field that is not one of
  // `field_names` (the schema's).
  void check_fields(const std::vector<std::string>& field_names) const;
  std::map<std::string, std::string> field_places;   // field → "source:line:column" of its entry
  std::map<std::string, std::string> absent_places;  // ... of its `absent` entry

 private:
  // The model that scores `field` on this evidence (the kind's, or its read_again model for a
  // value the second recognizer read), and the field's shift of it. Throws ConfigError for a kind
  // the file has no parameters for.
  const Calibrator& model_of(const std::string& field, const Evidence& evidence,
                             double& offset) const;
};

// `source`: "builtin:ocr-calibration" or a YAML file in configs/fields/ocr-calibration.yaml's
// layout. Throws docsift::ConfigError naming the source and the problem (an unknown feature, a
// kind without parameters, a field of an unknown kind, a key given twice, a key missing, a number
// that is not finite), each at its line and column.
Calibration load_calibration(const std::string& source);

}  // namespace docsift::ocr
