// `docsift eval PRED GT`: accuracy against ground truth, reports, and a CI gate (exit 4).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "config_options.h"
#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/junit.h"
#include "docsift/io/output_file.h"
#include "docsift/strict_json.h"
#include "exit_codes.h"

namespace docsift::cli {

Command add_eval_command(CLI::App& root) {
  struct Options {
    std::string predictions, truth, fields, baseline, junit;
    std::vector<std::string> reports;
    ConfigOptions config;
    std::optional<double> min_accuracy;
    double tolerance = 0.02;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("eval", "Score predictions against ground truth; fail below a gate");
  app->add_option("PRED", o->predictions, "predictions.csv or results.jsonl from docsift run")->required();
  app->add_option("GT", o->truth, "Ground-truth CSV (image_file + one column per field)")->required();
  app->add_option("--fields", o->fields, "Field schema (default: extraction.fields from the config)");
  app->add_option("--report", o->reports, "Write a report: FILE.json or FILE.md (repeatable)");
  app->add_option("--junit", o->junit,
                  "Write JUnit XML: one test case per field and one for overall, failed below --min-accuracy or "
                  "regressed against --baseline");
  app->add_option("--min-accuracy", o->min_accuracy, "Exit 4 when overall accuracy is below this (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--baseline", o->baseline, "A previous --report JSON; exit 4 if overall or any field drops");
  app->add_option("--tolerance", o->tolerance, "Largest drop against --baseline that still passes (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  o->config.add_to(app);
  app->footer("Exit codes: 0 passed; 2 usage; 3 unreadable or malformed input; 4 below --min-accuracy or regressed.");
  return {app, [o] {
            const config::Config cfg = o->config.load();
            const std::filesystem::path fields_path = o->fields.empty() ? cfg.extraction.fields : o->fields;
            const auto schema = extract::load_field_schema(fields_path);
            const auto truth = eval::read_records_csv(o->truth);
            const auto predictions = eval::read_predictions(o->predictions);
            const auto evaluation = eval::evaluate(schema, truth, predictions, o->truth);
            std::cout << eval::to_table(evaluation);
            for (const std::string& report : o->reports) {
              std::ofstream out(report);
              if (!out) throw FileError(report + ": cannot write the report");
              out << (std::filesystem::path(report).extension() == ".md" ? eval::to_markdown(evaluation)
                                                                          : eval::to_json(evaluation).dump(2) + "\n");
            }
            for (const auto& image : evaluation.missing_predictions) {
              std::cerr << "docsift: warning: " << image << ": in the ground truth but not in the predictions (scored 0)\n";
            }
            for (const auto& image : evaluation.unexpected_predictions) {
              std::cerr << "docsift: warning: " << image << ": predicted but not in the ground truth (not scored)\n";
            }
            nlohmann::json baseline;
            if (!o->baseline.empty()) baseline = read_json_file(o->baseline, 8);
            if (!o->junit.empty()) {
              eval::Gate gate{o->min_accuracy, o->baseline.empty() ? nullptr : &baseline, o->tolerance};
              io::write_file_atomic(o->junit, eval::to_junit(evaluation, gate));
            }
            int code = kExitOk;
            if (o->min_accuracy && evaluation.overall < *o->min_accuracy) {
              std::cerr << "docsift: gate: overall accuracy " << evaluation.overall << " is below --min-accuracy "
                        << *o->min_accuracy << '\n';
              code = kExitBelowGate;
            }
            if (!o->baseline.empty()) {
              for (const auto& regression : eval::regressions(evaluation, baseline, o->tolerance)) {
                std::cerr << "docsift: regression: " << regression << '\n';
                code = kExitBelowGate;
              }
            }
            return code;
          }};
}

}  // namespace docsift::cli
