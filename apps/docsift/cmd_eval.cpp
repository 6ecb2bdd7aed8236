// `docsift eval PRED GT`: accuracy against ground truth, reports, and a CI gate (exit 4).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "config_options.h"
#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/gate.h"
#include "docsift/eval/junit.h"
#include "docsift/io/output_file.h"
#include "docsift/strict_json.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

namespace fs = std::filesystem;

// A file argument that names a folder, or nothing: one clear line (exit 2), not a stream error.
void check_input_file(const std::string& path, const std::string& role) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return;  // a missing file is the reader's FileError (exit 3)
  std::string hint;
  if (fs::is_regular_file(fs::path(path) / "results.jsonl", ec)) hint = " (did you mean " + (fs::path(path) / "results.jsonl").string() + "?)";
  throw ConfigError(role + " " + path + " is a folder; eval reads a file" + hint);
}

// Reports by extension; anything else (and "-") is refused before any work.
void check_report_path(const std::string& path) {
  if (path == "-") throw ConfigError("--report -: reports go to files (FILE.json or FILE.md); the table already goes to standard output");
  const std::string ext = fs::path(path).extension().string();
  if (ext != ".json" && ext != ".md") {
    throw ConfigError("--report " + path + ": unknown report type '" + ext + "' (FILE.json or FILE.md)");
  }
}

}  // namespace

Command add_eval_command(CLI::App& root) {
  struct Options {
    std::string predictions, truth, fields, baseline, junit, rules, gate = "accuracy";
    std::vector<std::string> reports, min_fields;
    ConfigOptions config;
    std::optional<double> min_accuracy;
    double tolerance = 0.02;
  };
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
  app->add_option("--report", o->reports, "Write a report: FILE.json or FILE.md (repeatable)");
  app->add_option("--junit", o->junit,
                  "Write JUnit XML: one test case per field and one for overall, failed by the same rule as the exit "
                  "code");
  app->add_option("--min-accuracy", o->min_accuracy, "Exit 4 when overall accuracy is below this (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--min-field", o->min_fields,
                  "FIELD=X: exit 4 when FIELD's --gate metric is below X (repeatable), e.g. --min-field TOTAL=0.9");
  app->add_option("--baseline", o->baseline,
                  "A previous --report JSON; exit 4 if overall or any field drops (in the --gate metric)");
  app->add_option("--tolerance", o->tolerance, "Largest drop against --baseline that still passes (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--gate", o->gate, "What --baseline and --min-field compare: accuracy (default) or f1")
      ->check(CLI::IsMember({"accuracy", "f1"}));
  o->config.add_to(app);
  app->footer("Exit codes: 0 passed; 2 usage; 3 unreadable or malformed input; 4 below a gate or regressed.");
  return {app, [o] {
            // Every argument is checked before anything is printed or written.
            for (const std::string& report : o->reports) check_report_path(report);
            check_input_file(o->predictions, "PRED");
            check_input_file(o->truth, "GT");
            eval::Gate gate;
            gate.min_accuracy = o->min_accuracy;
            gate.tolerance = o->tolerance;
            gate.metric = o->gate == "f1" ? eval::GateMetric::kF1 : eval::GateMetric::kAccuracy;
            for (const std::string& text : o->min_fields) gate.min_field.insert(eval::parse_min_field(text));

            std::vector<std::string> shortcuts;
            if (!o->rules.empty()) shortcuts.push_back("eval.rules=" + o->rules);
            const config::Config cfg = o->config.load(shortcuts);
            // The config's gate: block under the command line's (which wins field by field).
            if (!gate.min_accuracy) gate.min_accuracy = cfg.gate.min_accuracy;
            gate.min_field.insert(cfg.gate.min_field.begin(), cfg.gate.min_field.end());
            const fs::path fields_path = o->fields.empty() ? cfg.extraction.fields : o->fields;
            const auto schema = extract::load_field_schema(fields_path);
            nlohmann::json baseline;
            if (!o->baseline.empty()) {
              check_input_file(o->baseline, "--baseline");
              baseline = read_json_file(o->baseline, 16);
              gate.baseline = &baseline;
            }
            const auto truth = fs::path(o->truth).extension() == ".jsonl"
                                   ? eval::read_truth_jsonl(o->truth, schema.names())
                                   : eval::read_records_csv(o->truth);
            const auto predictions = eval::read_predictions(o->predictions);
            const auto evaluation = eval::evaluate(schema, truth, predictions, o->truth, cfg.eval);
            eval::check_gate(evaluation, gate, o->baseline);

            std::cout << eval::to_table(evaluation);
            for (const std::string& report : o->reports) {
              io::write_file_atomic(report, fs::path(report).extension() == ".md"
                                                ? eval::to_markdown(evaluation, gate.baseline)
                                                : eval::to_json(evaluation).dump(2) + "\n");
            }
            if (!evaluation.fields_left_out.empty()) {
              std::string names;
              for (const auto& f : evaluation.fields_left_out) names += (names.empty() ? "" : ", ") + f;
              std::cerr << "docsift: warning: " << o->truth << " has no column for " << names << " (not scored)\n";
            }
            for (const auto& image : evaluation.missing_predictions) {
              std::cerr << "docsift: warning: " << image << ": in the ground truth but not in the predictions (scored 0)\n";
            }
            for (const auto& image : evaluation.unexpected_predictions) {
              std::cerr << "docsift: warning: " << image << ": predicted but not in the ground truth (not scored)\n";
            }
            // One verdict for the exit code and the JUnit file.
            const auto cases = eval::judge(evaluation, gate);
            if (!o->junit.empty()) io::write_file_atomic(o->junit, eval::to_junit(evaluation, cases));
            int code = kExitOk;
            for (const auto& c : cases) {
              for (const auto& failure : c.failures) {
                std::cerr << "docsift: " << failure << '\n';
                code = kExitBelowGate;
              }
            }
            return code;
          }};
}

}  // namespace docsift::cli
