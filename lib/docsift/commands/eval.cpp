#include "docsift/commands/eval.h"

#include <filesystem>
#include <ostream>
#include <set>

#include "docsift/batch/output_folder.h"
#include "docsift/error.h"
#include "docsift/eval/confidence.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/gate.h"
#include "docsift/eval/junit.h"
#include "docsift/eval/report_files.h"
#include "docsift/eval/rows.h"
#include "docsift/io/output_file.h"

namespace docsift::commands {
namespace {

namespace fs = std::filesystem;

// The gate from the command line (the config's goes under it once loaded), after the checks of
// the arguments that need no file read.
eval::Gate command_gate(const EvalRequest& o, const io::ReadFiles& reads) {
  check_outputs(o, reads);
  for (const std::string& report : o.reports) check_report_path(report);
  check_input_file(o.predictions, "PRED");
  check_input_file(o.truth, "GT");
  eval::Gate gate;
  gate.min_accuracy = o.min_accuracy;
  gate.tolerance = o.tolerance;
  gate.metric = o.gate == "f1" ? eval::GateMetric::kF1 : eval::GateMetric::kAccuracy;
  for (const std::string& text : o.min_fields) gate.min_field.insert(eval::parse_min_field(text));
  if (!o.write_thresholds.empty() && !o.target_accuracy) {
    throw ConfigError("--write-thresholds " + o.write_thresholds +
                      " writes the thresholds --target-accuracy fits; give --target-accuracy too");
  }
  if (!o.confidence.empty()) check_input_file(o.confidence, "--confidence");
  return gate;
}

// The config's gate: block under the command line's (which wins field by field), the baseline, and
// the coverage a gate asks for.
void complete_gate(eval::Gate& gate, const EvalRequest& o, const config::Config& cfg,
                   const extract::FieldSchema& schema, nlohmann::json& baseline) {
  if (!gate.min_accuracy) gate.min_accuracy = cfg.gate.min_accuracy;
  gate.min_field.insert(cfg.gate.min_field.begin(), cfg.gate.min_field.end());
  for (const std::string& text : o.min_fields)
    schema.require(eval::parse_min_field(text).first, "--min-field");
  if (!o.baseline.empty()) {
    check_input_file(o.baseline, "--baseline");
    baseline = eval::read_baseline(o.baseline);
    gate.baseline = &baseline;
  }
  // A gate on scores of part of the truth would pass what the whole fails: any gate asks for
  // every page unless --min-coverage says otherwise.
  const bool any_gate = gate.min_accuracy || !gate.min_field.empty() || gate.baseline != nullptr;
  gate.min_coverage = o.min_coverage ? o.min_coverage
                      : any_gate     ? std::optional<double>(1.0)
                                     : std::nullopt;
}

// What eval takes from PRED's run journal, read once: with --before-corrections the values as the
// run read them, before `docsift review apply`, put back into `predictions` (and returned); for a
// run's predictions.csv, the pages whose records speak against their fields (`doubts`: their
// tables, other pages; which the run's queue queues), from results.jsonl beside it. A journal given
// as PRED was read with its originals already (evaluate).
std::optional<eval::Originals> read_run_journal(const EvalRequest& o,
                                                eval::PredictionFile& predictions) {
  const fs::path pred(o.predictions);
  std::optional<eval::Originals> originals;
  if (pred.extension() == ".jsonl") {
    if (o.before_corrections) originals = std::move(predictions.originals);
  } else {
    const fs::path journal = pred.parent_path() / batch::out_files::kJournal;
    const bool beside_run =
        pred.filename() == batch::out_files::kPredictions && fs::exists(journal);
    if (o.before_corrections && !fs::exists(journal)) {
      throw ConfigError("--before-corrections: " + journal.string() +
                        " is not there; it reads the corrections from the journal of PRED's run "
                        "(results.jsonl beside predictions.csv)");
    }
    if (o.before_corrections || beside_run) {
      eval::PredictionFile run = eval::read_prediction_file(
          journal,
          o.before_corrections ? "--before-corrections " + journal.string()
                               : std::string(batch::out_files::kJournal),
          o.before_corrections);
      if (beside_run) predictions.doubts = std::move(run.doubts);
      if (o.before_corrections) originals = std::move(run.originals);
    }
  }
  if (!originals) return std::nullopt;
  originals->restore(predictions.records);
  if (predictions.confidences) originals->restore(*predictions.confidences);
  return originals;
}

struct FoundConfidences {
  std::optional<eval::Confidences> values;
  // The pages whose table's arithmetic speaks against fields: the journal's, or that of the
  // run's journal beside its predictions.csv; the queue a run makes queues them.
  eval::Doubts doubts;
  // A CSV's confidences may be rounded where the journal's are not, and the run compares the
  // journal's: thresholds fitted on rounded numbers can split values elsewhere in the run.
  bool from_csv = false;
};

// Confidences: --confidence, else the journal's own, else confidence.csv beside a run's
// predictions.csv (docs/eval.md, "Confidences").
FoundConfidences find_confidences(const EvalRequest& o, const eval::PredictionFile& predictions,
                                  const std::optional<eval::Originals>& originals) {
  FoundConfidences found;
  found.values = predictions.confidences;
  const fs::path beside = fs::path(o.predictions).parent_path() / batch::out_files::kConfidence;
  if (!o.confidence.empty()) {
    found.values = eval::read_confidences_csv(o.confidence, "--confidence");
  } else if (!found.values &&
             fs::path(o.predictions).filename() == batch::out_files::kPredictions &&
             fs::exists(beside)) {
    found.values = eval::read_confidences_csv(beside, "confidence.csv");
    if (originals) originals->restore(*found.values);
  }
  if (!found.values && o.target_accuracy) {
    throw ConfigError("--target-accuracy fits thresholds to confidences, and PRED " +
                      o.predictions +
                      " has none (a journal's \"confidence\" key, or confidence.csv beside "
                      "predictions.csv; --confidence FILE)");
  }
  found.from_csv = found.values && (!o.confidence.empty() || !predictions.confidences);
  found.doubts = predictions.doubts;  // read_run_journal read the run's journal for them
  return found;
}

std::optional<eval::ConfidenceEvaluation> score_confidences(
    const EvalRequest& o, const config::Config& cfg, const extract::FieldSchema& schema,
    const eval::Evaluation& evaluation, const eval::Records& predictions,
    const FoundConfidences& found, const extract::ReviewThresholds& given) {
  if (!found.values) return std::nullopt;
  eval::ConfidenceOptions options;
  options.correct_at = o.correct_at;
  options.target_accuracy = o.target_accuracy;
  // The thresholds in force: the config's review.threshold and review.fields, under --threshold.
  options.thresholds = cfg.review.thresholds();
  for (const auto& [field, value] : given.fields) options.thresholds.fields[field] = value;
  for (const auto& [field, value] : given.fields) schema.require(field, "--threshold");
  options.doubts = found.doubts;
  return eval::evaluate_confidence(schema, evaluation, predictions, *found.values, options);
}

void write_thresholds(const EvalRequest& o, const eval::ConfidenceEvaluation& confidence,
                      bool from_csv) {
  // A CSV's confidences are confidence.csv's four decimals: each threshold goes half a last digit
  // lower, so that the run splits its unrounded confidences where eval split the rounded ones.
  const double lowered_by = from_csv ? 5e-5 : 0.0;
  io::write_file_atomic(
      o.write_thresholds,
      eval::thresholds_yaml(
          confidence.thresholds,
          "docsift eval --target-accuracy " + eval::fixed(*o.target_accuracy, 4) +
              ": per field, the lowest confidence threshold whose accepted values\n"
              "reached the target on " +
              o.truth +
              " (the default: over every field).\n"
              "Use with docsift run --config (docs/eval.md, \"Confidences\")." +
              (from_csv ? "\nFitted on a CSV's four-decimal confidences: each threshold is 0.00005 "
                          "under the one fitted, so the run\nqueues what eval counted."
                        : ""),
          lowered_by));
}

// The warnings about what was not scored; returns the gate's failures.
Verdict say_verdict(const EvalRequest& o, const eval::Evaluation& evaluation,
                    const eval::PredictionFile& predictions,
                    const std::vector<eval::GateCase>& cases, const batch::Log& log) {
  const auto names = [](const std::vector<std::string>& fields) {
    std::string out;
    for (const auto& f : fields) out += (out.empty() ? "" : ", ") + f;
    return out;
  };
  if (!evaluation.fields_left_out.empty()) {
    log.warning("columns", o.truth + " has no column for " + names(evaluation.fields_left_out) +
                               " (not scored)");
  }
  if (!evaluation.fields_not_predicted.empty()) {
    log.warning("columns", o.predictions + " has no column for " +
                               names(evaluation.fields_not_predicted) +
                               " (not scored: --allow-missing-fields)");
  }
  const std::set<std::string> failed(predictions.failed.begin(), predictions.failed.end());
  for (const auto& image : evaluation.missing_predictions) {
    log.warning("missing", image +
                               (failed.count(image) != 0
                                    ? ": failed in the run, no prediction"
                                    : ": in the ground truth but not in the predictions") +
                               " (0 in each of its fields)");
  }
  for (const auto& image : evaluation.unexpected_predictions)
    log.warning("unexpected", image + ": predicted but not in the ground truth (not scored)");
  if (const auto hint = evaluation.name_mismatch()) log.warning("names", *hint);
  Verdict verdict;
  for (const auto& c : cases) {
    verdict.gate_failures.insert(verdict.gate_failures.end(), c.failures.begin(), c.failures.end());
  }
  return verdict;
}

}  // namespace

std::vector<std::string> config_shortcuts(const EvalRequest& o) {
  std::vector<std::string> shortcuts;
  if (!o.rules.empty()) shortcuts.push_back("eval.rules=" + o.rules);
  if (!o.fields.empty())
    shortcuts.push_back("extraction.fields=" + o.fields);  // the settings' names checked against it
  // --threshold X is the command line's review.threshold: every field's, unless the config gives
  // review.fields (config::load); FIELD=X goes over them in score_confidences.
  for (const std::string& text : o.thresholds) {
    if (text.find('=') == std::string::npos) shortcuts.push_back("review.threshold=" + text);
  }
  return shortcuts;
}

Verdict evaluate(const EvalRequest& o, const io::ReadFiles& reads,
                 const std::function<config::Config(const std::vector<std::string>&)>& load,
                 std::ostream& out, const batch::Log& log) {
  // Every argument is checked before anything is printed or written.
  eval::Gate gate = command_gate(o, reads);
  extract::ReviewThresholds given;
  for (const std::string& text : o.thresholds) eval::parse_threshold(text, given);
  const config::Config cfg = load(config_shortcuts(o));
  const auto schema = extract::load_field_schema(cfg.extraction.fields);
  nlohmann::json baseline;
  complete_gate(gate, o, cfg, schema, baseline);

  eval::DocumentRows truth_rows;
  const auto truth = fs::path(o.truth).extension() == ".jsonl"
                         ? eval::read_truth_jsonl(o.truth, schema.names(), "GT", &truth_rows)
                         : eval::read_records_csv(o.truth, "GT");
  eval::PredictionFile predictions =
      eval::read_prediction_file(o.predictions, "PRED", o.before_corrections);
  const std::optional<eval::Originals> originals = read_run_journal(o, predictions);
  const auto not_predicted = eval::check_prediction_columns(
      schema, truth, predictions.columns, "PRED " + o.predictions, o.allow_missing_fields);
  const auto evaluation =
      eval::evaluate(schema, truth, predictions.records, o.truth, cfg.eval, not_predicted);
  eval::check_gate(evaluation, gate, o.baseline);
  const FoundConfidences found = find_confidences(o, predictions, originals);
  const std::optional<eval::ConfidenceEvaluation> confidence =
      score_confidences(o, cfg, schema, evaluation, predictions.records, found, given);

  std::string rows_not_scored;  // why, when the truth has rows and PRED none
  const auto rows =
      eval::score_rows(truth_rows, o.predictions, predictions, cfg.eval, rows_not_scored);
  if (!rows_not_scored.empty()) {
    log.warning("rows", o.truth + rows_not_scored);
  }

  out << eval::to_table(evaluation);
  if (rows) out << eval::rows_table(*rows);
  if (confidence) out << eval::confidence_table(*confidence);
  // One verdict for the exit code and the JUnit file.
  const auto cases = eval::judge(evaluation, gate);
  eval::write_reports(o.reports, evaluation, gate, rows, confidence);
  if (!o.write_thresholds.empty()) write_thresholds(o, *confidence, found.from_csv);
  if (!o.junit.empty()) io::write_file_atomic(o.junit, eval::to_junit(evaluation, cases));
  return say_verdict(o, evaluation, predictions, cases, log);
}

}  // namespace docsift::commands
