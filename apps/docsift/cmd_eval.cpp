// `docsift eval`: its options, parsed into a commands::EvalRequest for commands::evaluate
// (docsift/commands/eval.h), which does the work; the gate's failures logged with the exit code
// they give.
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "config_options.h"
#include "docsift/commands/eval.h"
#include "exit_codes.h"

namespace docsift::cli {
namespace {

struct EvalArgs : commands::EvalRequest {
  ConfigOptions config;
};

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
    reads.add(commands::confidence_beside(predictions), "confidence.csv beside PRED");
  }
  return reads;
}

// Each gate failure through the log (so that every stderr line has its time, and is JSON with
// --log-format json) with the exit code it gives.
int say_verdict(const commands::Verdict& verdict) {
  const batch::Log log(std::cerr, g_log_format, /*quiet=*/false);
  for (const std::string& failure : verdict.gate_failures)
    log.error("gate", failure, {{"exit_code", kExitBelowGate}});
  return verdict.gate_failures.empty() ? kExitOk : kExitBelowGate;
}

// What to score, and by which rules.
void add_input_options(CLI::App* app, EvalArgs& o) {
  app->add_option("PRED", o.predictions, "predictions.csv or results.jsonl from docsift run")
      ->required();
  app->add_option(
         "GT", o.truth,
         "Ground truth: a CSV (image_file + one column per field) or JSONL (one object per "
         "document with image_file, the fields it has and, to score tables, its rows as "
         "line_items). PRED comes first: a journal given as GT is refused, but two CSVs in the "
         "same layout cannot be told apart")
      ->required();
  app->add_option("--fields", o.fields,
                  "Field schema (default: extraction.fields from the config)");
  app->add_option("--rules", o.rules,
                  "Scoring rules: docsift (default) or reference-2025 (the reference's first "
                  "rules, to compare with its published scores); sets eval.rules")
      ->check(CLI::IsMember({"docsift", "reference-2025"}));
}

// The gates: what exits 4.
void add_gate_options(CLI::App* app, EvalArgs& o) {
  app->add_option("--min-accuracy", o.min_accuracy,
                  "Exit 4 when overall accuracy is below this (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--min-field", o.min_fields,
                  "FIELD=X: exit 4 when FIELD's --gate metric is below X (repeatable), e.g. "
                  "--min-field TOTAL=0.9");
  app->add_option("--min-coverage", o.min_coverage,
                  "Exit 4 when fewer than this share of the truth's pages have a prediction (0 to "
                  "1; default 1 when any gate is set, else at least one page)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option(
      "--baseline", o.baseline,
      "A previous --report JSON; exit 4 if overall or any field drops (in the --gate metric)");
  app->add_option("--tolerance", o.tolerance,
                  "Largest drop against --baseline that still passes (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--gate", o.gate,
                  "What --baseline and --min-field compare: accuracy (default) or f1")
      ->check(CLI::IsMember({"accuracy", "f1"}));
}

// How the values are read: corrections, missing columns, confidences and thresholds.
void add_reading_options(CLI::App* app, EvalArgs& o) {
  app->add_flag("--before-corrections", o.before_corrections,
                "Score the values as the run read them: each value `docsift review apply` "
                "corrected is replaced by its original (and its page's confidences by those it "
                "had), from the journal of PRED's run");
  app->add_flag("--allow-missing-fields", o.allow_missing_fields,
                "Score predictions that lack some of the truth's fields on the others, leaving "
                "those out (without it, a missing column is an error)");
  app->add_option("--confidence", o.confidence,
                  "confidence.csv of the run (default: the journal's confidences, or "
                  "confidence.csv beside a predictions.csv given as PRED)");
  app->add_option(
      "--threshold", o.thresholds,
      "X or FIELD=X (repeatable): the review threshold to report against. X is review.threshold: "
      "every field's, unless the config gives its own review.fields; FIELD=X goes over those");
  app->add_option("--target-accuracy", o.target_accuracy,
                  "Per field, the lowest confidence threshold whose accepted values reach this "
                  "accuracy (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--correct-at", o.correct_at,
                  "Confidences: a text or list value counts as correct at this score or above "
                  "(default 1; ids, money and dates must score 1)")
      ->check(CLI::Range(0.0, 1.0));
}

}  // namespace

Command add_eval_command(CLI::App& root) {
  auto o = std::make_shared<EvalArgs>();
  CLI::App* app =
      root.add_subcommand("eval", "Score predictions against ground truth; fail below a gate");
  add_input_options(app, *o);
  add_gate_options(app, *o);
  add_reading_options(app, *o);
  // The outputs in a group of their own: CLI11 runs a group's callback before it checks the
  // command's other options, so a file from an earlier run goes even when one of them is refused.
  CLI::Option_group* outputs =
      app->add_option_group("Outputs", "Written when eval reaches a verdict (exit 0 or 4)");
  outputs->add_option("--report", o->reports, "Write a report: FILE.json or FILE.md (repeatable)");
  outputs->add_option("--write-thresholds", o->write_thresholds,
                      "Write the thresholds --target-accuracy fits as a config file for docsift "
                      "run --config (review.threshold and review.fields)");
  outputs->add_option("--junit", o->junit,
                      "Write JUnit XML: one test case per field and one for overall (which "
                      "--min-coverage also fails), failed by the same rule as the exit code");
  outputs->parse_complete_callback([o, app] { commands::remove_outputs(*o, files_read(*app)); });
  o->config.add_to(app);
  // The exit codes follow, from the one table (main.cpp).
  app->footer(
      "An eval that ends in an error leaves no --junit or --report file behind, not even one from "
      "an earlier run.");
  return {
      app, [o, app] {
        const io::ReadFiles reads = files_read(*app);
        try {
          return say_verdict(commands::evaluate(
              *o, reads,
              [&](const std::vector<std::string>& shortcuts) { return o->config.load(shortcuts); },
              std::cout, batch::Log(std::cerr, g_log_format, /*quiet=*/false)));
        } catch (...) {
          commands::remove_outputs(*o, reads);
          throw;
        }
      }};
}

}  // namespace docsift::cli
