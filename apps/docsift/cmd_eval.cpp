// `docsift eval PRED GT`: accuracy against ground truth, reports, and a CI gate (exit 4).
#include <cerrno>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "config_options.h"
#include "docsift/batch/output_folder.h"
#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/eval/confidence.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/gate.h"
#include "docsift/eval/junit.h"
#include "docsift/eval/plots.h"
#include "docsift/io/input_file.h"
#include "docsift/io/output_file.h"
#include "docsift/io/same_file.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

namespace fs = std::filesystem;

// A file argument that names a folder (exit 2, with the journal suggested for a run's folder), or
// nothing (InputMissingError, exit 2). One that is there but cannot be read is the reader's
// InputUnreadableError (exit 3).
void check_input_file(const std::string& path, const std::string& role) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) io::throw_input_error(path, role, ENOENT);
  if (!fs::is_directory(status)) return;
  std::string hint;
  if (const fs::path journal = fs::path(path) / batch::out_files::kJournal; fs::is_regular_file(journal, ec)) {
    hint = " (did you mean " + journal.string() + "?)";
  }
  throw ConfigError(role + " " + path + " is a folder; eval reads a file" + hint);
}

bool is_report_name(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return path != "-" && (ext == ".json" || ext == ".md");
}

// Reports by extension; anything else (and "-") is refused before any work.
void check_report_path(const std::string& path) {
  if (path == "-") throw ConfigError("--report -: reports go to files (FILE.json or FILE.md); the table already goes to standard output");
  if (!is_report_name(path)) {
    throw ConfigError("--report " + path + ": unknown report type '" + fs::path(path).extension().string() +
                      "' (FILE.json or FILE.md)");
  }
}

// The PNG files drawn beside a Markdown report: r.md → r.reliability.png, r.risk-coverage.png.
fs::path reliability_path(const std::string& report) { return fs::path(report).replace_extension(".reliability.png"); }
fs::path risk_coverage_path(const std::string& report) { return fs::path(report).replace_extension(".risk-coverage.png"); }

struct Options {
  std::string predictions, truth, fields, baseline, junit, rules, gate = "accuracy";
  std::string confidence, write_thresholds;
  std::vector<std::string> reports, min_fields, thresholds;
  std::optional<double> target_accuracy;
  double correct_at = 1.0;
  ConfigOptions config;
  std::optional<double> min_accuracy, min_coverage;
  double tolerance = 0.02;
  bool allow_missing_fields = false;
  bool before_corrections = false;
};

// Every file eval would write: the reports (and a Markdown report's figures), --junit and
// --write-thresholds.
std::vector<std::string> output_paths(const Options& o) {
  std::vector<std::string> paths;
  for (const std::string& report : o.reports) {
    if (!is_report_name(report)) continue;
    paths.push_back(report);
    if (fs::path(report).extension() == ".md") {
      paths.push_back(reliability_path(report).string());
      paths.push_back(risk_coverage_path(report).string());
    }
  }
  if (!o.junit.empty()) paths.push_back(o.junit);
  if (!o.write_thresholds.empty()) paths.push_back(o.write_thresholds);
  return paths;
}

// The files eval reads, from the command line as parsed: the outputs' group is handled before the
// command's other options are stored (CLI11 runs a priority group first), so they are read from
// the raw results, which are there from the start.
io::ReadFiles files_read(const CLI::App& app) {
  io::ReadFiles reads;
  std::string predictions;
  for (const char* name : {"PRED", "GT", "--confidence", "--baseline", "--config", "--fields"}) {
    const CLI::Option* option = app.get_option_no_throw(name);
    if (option == nullptr) continue;
    for (const std::string& path : option->results()) {
      reads.add(path, name);
      if (std::string_view(name) == "PRED") predictions = path;
    }
  }
  if (!predictions.empty()) {
    reads.add(fs::path(predictions).parent_path() / batch::out_files::kConfidence, "confidence.csv beside PRED");
  }
  return reads;
}

// Throws ConfigError (exit 2) when an output is a file eval reads (files_read) or a run folder's
// own file, or when two outputs are one file. Nothing is written or removed then.
void check_outputs(const Options& o, const io::ReadFiles& reads) {
  std::set<fs::path> seen;
  for (const std::string& path : output_paths(o)) {
    const std::string option = path == o.junit ? "--junit" : path == o.write_thresholds ? "--write-thresholds" : "--report";
    batch::refuse_to_overwrite(path, option, reads);
    std::error_code ec;
    if (!seen.insert(fs::weakly_canonical(fs::absolute(path, ec), ec)).second) {
      throw ConfigError(option + " " + path + ": named for two outputs; give each its own file");
    }
  }
}

// Removes the files at --junit and --report (a file or a link, never a folder; never a name that
// is no report's, which eval refuses and must not touch): a CI job reads whatever is there, so an
// eval that ends in an error leaves none, rather than a green file from an earlier run. Nothing at
// all when an output is one eval reads or may not write (check_outputs).
void remove_outputs(const Options& o, const io::ReadFiles& reads) {
  try {
    check_outputs(o, reads);
  } catch (const ConfigError&) {
    return;
  }
  for (const std::string& path : output_paths(o)) {
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(path, ec);
    if (fs::is_regular_file(status) || fs::is_symlink(status)) fs::remove(path, ec);
  }
}

int run_eval(const Options& o, const io::ReadFiles& reads) {
  // Every argument is checked before anything is printed or written.
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
    throw ConfigError("--write-thresholds " + o.write_thresholds + " writes the thresholds --target-accuracy fits; give "
                      "--target-accuracy too");
  }
  if (!o.confidence.empty()) check_input_file(o.confidence, "--confidence");
  eval::Thresholds given;
  for (const std::string& text : o.thresholds) eval::parse_threshold(text, given);

  std::vector<std::string> shortcuts;
  if (!o.rules.empty()) shortcuts.push_back("eval.rules=" + o.rules);
  if (!o.fields.empty()) shortcuts.push_back("extraction.fields=" + o.fields);  // the settings' names checked against it
  // --threshold X is the command line's review.threshold: every field's, unless the config gives
  // review.fields (config::load); FIELD=X goes over them below.
  for (const std::string& text : o.thresholds) {
    if (text.find('=') == std::string::npos) shortcuts.push_back("review.threshold=" + text);
  }
  const config::Config cfg = o.config.load(shortcuts);
  // The config's gate: block under the command line's (which wins field by field).
  if (!gate.min_accuracy) gate.min_accuracy = cfg.gate.min_accuracy;
  gate.min_field.insert(cfg.gate.min_field.begin(), cfg.gate.min_field.end());
  const auto schema = extract::load_field_schema(cfg.extraction.fields);
  for (const std::string& text : o.min_fields) schema.require(eval::parse_min_field(text).first, "--min-field");
  nlohmann::json baseline;
  if (!o.baseline.empty()) {
    check_input_file(o.baseline, "--baseline");
    baseline = eval::read_baseline(o.baseline);
    gate.baseline = &baseline;
  }
  // A gate on scores of part of the truth would pass what the whole fails: any gate asks for
  // every page unless --min-coverage says otherwise.
  const bool any_gate = gate.min_accuracy || !gate.min_field.empty() || gate.baseline != nullptr;
  gate.min_coverage = o.min_coverage ? o.min_coverage : any_gate ? std::optional<double>(1.0) : std::nullopt;

  const auto truth = fs::path(o.truth).extension() == ".jsonl" ? eval::read_truth_jsonl(o.truth, schema.names())
                                                               : eval::read_records_csv(o.truth, "GT");
  auto predictions = eval::read_prediction_file(o.predictions);
  // --before-corrections: the values as the run read them, before `docsift review apply`.
  std::optional<eval::Originals> originals;
  if (o.before_corrections) {
    const fs::path journal = fs::path(o.predictions).extension() == ".jsonl"
                                 ? fs::path(o.predictions)
                                 : fs::path(o.predictions).parent_path() / batch::out_files::kJournal;
    if (!fs::exists(journal)) {
      throw ConfigError("--before-corrections: " + journal.string() + " is not there; it reads the corrections from "
                        "the journal of PRED's run (results.jsonl beside predictions.csv)");
    }
    originals = eval::read_originals(journal, "--before-corrections " + journal.string());
    originals->restore(predictions.records);
    if (predictions.confidences) originals->restore(*predictions.confidences);
  }
  const auto not_predicted = eval::check_prediction_columns(schema, truth, predictions.columns, "PRED " + o.predictions,
                                                            o.allow_missing_fields);
  const auto evaluation = eval::evaluate(schema, truth, predictions.records, o.truth, cfg.eval, not_predicted);
  eval::check_gate(evaluation, gate, o.baseline);

  // Confidences: --confidence, else the journal's own, else confidence.csv beside a run's
  // predictions.csv (docs/eval.md, "Confidences").
  std::optional<eval::Confidences> confidences = predictions.confidences;
  const fs::path beside = fs::path(o.predictions).parent_path() / batch::out_files::kConfidence;
  if (!o.confidence.empty()) {
    confidences = eval::read_confidences_csv(o.confidence, "--confidence");
  } else if (!confidences && fs::path(o.predictions).filename() == batch::out_files::kPredictions && fs::exists(beside)) {
    confidences = eval::read_confidences_csv(beside, "confidence.csv");
    if (originals) originals->restore(*confidences);
  }
  if (!confidences && o.target_accuracy) {
    throw ConfigError("--target-accuracy fits thresholds to confidences, and PRED " + o.predictions +
                      " has none (a journal's \"confidence\" key, or confidence.csv beside predictions.csv; --confidence FILE)");
  }
  // A CSV's confidences may be rounded where the journal's are not, and the run compares the
  // journal's: thresholds fitted on rounded numbers can split values elsewhere in the run.
  const bool confidences_from_csv = confidences && (!o.confidence.empty() || !predictions.confidences);
  std::optional<eval::ConfidenceEvaluation> confidence;
  if (confidences) {
    eval::ConfidenceOptions options;
    options.correct_at = o.correct_at;
    options.target_accuracy = o.target_accuracy;
    // The thresholds in force: the config's review.threshold and review.fields, under --threshold.
    options.thresholds.default_value = cfg.review.threshold;
    options.thresholds.fields = cfg.review.fields;
    for (const auto& [field, value] : given.fields) options.thresholds.fields[field] = value;
    for (const auto& [field, value] : given.fields) schema.require(field, "--threshold");
    confidence = eval::evaluate_confidence(schema, evaluation, predictions.records, *confidences, options);
  }

  std::cout << eval::to_table(evaluation);
  if (confidence) std::cout << eval::confidence_table(*confidence);
  // One verdict for the exit code and the JUnit file.
  const auto cases = eval::judge(evaluation, gate);
  for (const std::string& report : o.reports) {
    if (fs::path(report).extension() == ".md") {
      std::string text = eval::to_markdown(evaluation, gate.baseline);
      if (confidence) {
        // The figures beside the report, linked by their file names.
        io::write_file_atomic(reliability_path(report), eval::reliability_png(*confidence));
        io::write_file_atomic(risk_coverage_path(report), eval::risk_coverage_png(*confidence));
        text += eval::confidence_markdown(*confidence, reliability_path(report).filename().string(),
                                          risk_coverage_path(report).filename().string());
      }
      io::write_file_atomic(report, text);
    } else {
      nlohmann::json json = eval::to_json(evaluation);
      if (confidence) json["confidence"] = eval::confidence_json(*confidence);
      io::write_file_atomic(report, json.dump(2) + "\n");
    }
  }
  if (!o.write_thresholds.empty()) {
    // A CSV's confidences are confidence.csv's four decimals: each threshold goes half a last digit
    // lower, so that the run splits its unrounded confidences where eval split the rounded ones.
    const double lowered_by = confidences_from_csv ? 5e-5 : 0.0;
    io::write_file_atomic(o.write_thresholds,
                          eval::thresholds_yaml(confidence->thresholds,
                                                "docsift eval --target-accuracy " + eval::fixed(*o.target_accuracy, 4) +
                                                    ": per field, the lowest confidence threshold whose accepted values\n"
                                                    "reached the target on " + o.truth + " (the default: over every field).\n"
                                                    "Use with docsift run --config (docs/eval.md, \"Confidences\")." +
                                                    (confidences_from_csv ? "\nFitted on a CSV's four-decimal confidences: each threshold is 0.00005 "
                                                                            "under the one fitted, so the run\nqueues what eval counted."
                                                                          : ""),
                                                lowered_by));
  }
  if (!o.junit.empty()) io::write_file_atomic(o.junit, eval::to_junit(evaluation, cases));
  const auto names = [](const std::vector<std::string>& fields) {
    std::string out;
    for (const auto& f : fields) out += (out.empty() ? "" : ", ") + f;
    return out;
  };
  // Through the run's log, so that every stderr line has its time (and is JSON with --log-format json).
  const batch::Log log(std::cerr, g_log_format, /*quiet=*/false);
  if (!evaluation.fields_left_out.empty()) {
    log.warning("columns", o.truth + " has no column for " + names(evaluation.fields_left_out) + " (not scored)");
  }
  if (!evaluation.fields_not_predicted.empty()) {
    log.warning("columns", o.predictions + " has no column for " + names(evaluation.fields_not_predicted) +
                               " (not scored: --allow-missing-fields)");
  }
  const std::set<std::string> failed(predictions.failed.begin(), predictions.failed.end());
  for (const auto& image : evaluation.missing_predictions) {
    log.warning("missing", image +
                               (failed.count(image) != 0 ? ": failed in the run, no prediction"
                                                         : ": in the ground truth but not in the predictions") +
                               " (0 in each of its fields)");
  }
  for (const auto& image : evaluation.unexpected_predictions) {
    log.warning("unexpected", image + ": predicted but not in the ground truth (not scored)");
  }
  if (const auto hint = evaluation.name_mismatch()) log.warning("names", *hint);
  int code = kExitOk;
  for (const auto& c : cases) {
    for (const auto& failure : c.failures) {
      log.error("gate", failure, {{"exit_code", kExitBelowGate}});
      code = kExitBelowGate;
    }
  }
  return code;
}

}  // namespace

Command add_eval_command(CLI::App& root) {
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("eval", "Score predictions against ground truth; fail below a gate");
  app->add_option("PRED", o->predictions, "predictions.csv or results.jsonl from docsift run")->required();
  app->add_option("GT", o->truth,
                  "Ground truth: a CSV (image_file + one column per field) or JSONL (one object per document with "
                  "image_file and the fields it has). PRED comes first: a journal given as GT is refused, but two "
                  "CSVs in the same layout cannot be told apart")
      ->required();
  app->add_option("--fields", o->fields, "Field schema (default: extraction.fields from the config)");
  app->add_option("--rules", o->rules,
                  "Scoring rules: docsift (default) or reference-2025 (the reference's first rules, to compare with its "
                  "published scores); sets eval.rules")
      ->check(CLI::IsMember({"docsift", "reference-2025"}));
  app->add_option("--min-accuracy", o->min_accuracy, "Exit 4 when overall accuracy is below this (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--min-field", o->min_fields,
                  "FIELD=X: exit 4 when FIELD's --gate metric is below X (repeatable), e.g. --min-field TOTAL=0.9");
  app->add_option("--min-coverage", o->min_coverage,
                  "Exit 4 when fewer than this share of the truth's pages have a prediction (0 to 1; default 1 when "
                  "any gate is set, else at least one page)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--baseline", o->baseline,
                  "A previous --report JSON; exit 4 if overall or any field drops (in the --gate metric)");
  app->add_option("--tolerance", o->tolerance, "Largest drop against --baseline that still passes (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--gate", o->gate, "What --baseline and --min-field compare: accuracy (default) or f1")
      ->check(CLI::IsMember({"accuracy", "f1"}));
  app->add_flag("--before-corrections", o->before_corrections,
                "Score the values as the run read them: each value `docsift review apply` corrected is replaced by "
                "its original (and its page's confidences by those it had), from the journal of PRED's run");
  app->add_flag("--allow-missing-fields", o->allow_missing_fields,
                "Score predictions that lack some of the truth's fields on the others, leaving those out (without "
                "it, a missing column is an error)");
  app->add_option("--confidence", o->confidence,
                  "confidence.csv of the run (default: the journal's confidences, or confidence.csv beside a "
                  "predictions.csv given as PRED)");
  app->add_option("--threshold", o->thresholds,
                  "X or FIELD=X (repeatable): the review threshold to report against. X is review.threshold: every "
                  "field's, unless the config gives its own review.fields; FIELD=X goes over those");
  app->add_option("--target-accuracy", o->target_accuracy,
                  "Per field, the lowest confidence threshold whose accepted values reach this accuracy (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--correct-at", o->correct_at,
                  "Confidences: a text or list value counts as correct at this score or above (default 1; ids, money "
                  "and dates must score 1)")
      ->check(CLI::Range(0.0, 1.0));
  // The outputs in a group of their own: CLI11 runs a group's callback before it checks the
  // command's other options, so a file from an earlier run goes even when one of them is refused.
  CLI::Option_group* outputs = app->add_option_group("Outputs", "Written when eval reaches a verdict (exit 0 or 4)");
  outputs->add_option("--report", o->reports, "Write a report: FILE.json or FILE.md (repeatable)");
  outputs->add_option("--write-thresholds", o->write_thresholds,
                      "Write the thresholds --target-accuracy fits as a config file for docsift run --config "
                      "(review.threshold and review.fields)");
  outputs->add_option("--junit", o->junit,
                      "Write JUnit XML: one test case per field and one for overall (which --min-coverage also fails), "
                      "failed by the same rule as the exit code");
  outputs->parse_complete_callback([o, app] { remove_outputs(*o, files_read(*app)); });
  o->config.add_to(app);
  // The exit codes follow, from the one table (main.cpp).
  app->footer("An eval that ends in an error leaves no --junit or --report file behind, not even one from an earlier run.");
  return {app, [o, app] {
            const io::ReadFiles reads = files_read(*app);
            try {
              return run_eval(*o, reads);
            } catch (...) {
              remove_outputs(*o, reads);
              throw;
            }
          }};
}

}  // namespace docsift::cli
