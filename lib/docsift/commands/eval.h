// `docsift eval` behind the command line (docs/eval.md): apps/ parses the options into an
// EvalRequest and calls `evaluate`, which checks every argument before anything is printed or
// written, scores PRED against GT, prints the tables, writes the reports and says the gate's
// verdict. The files it reads are the command line's (io::ReadFiles), so that no output may name
// one of them.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/config/config.h"
#include "docsift/io/same_file.h"

namespace docsift::commands {

// What eval was asked, as the command line gives it (docs/cli.md lists the options).
struct EvalRequest {
  std::string predictions, truth;  // PRED, GT
  std::string fields, rules;       // --fields, --rules: config shortcuts (config_shortcuts)
  std::string baseline, junit, gate = "accuracy";
  std::string confidence, write_thresholds;
  std::vector<std::string> reports, min_fields, thresholds;
  std::optional<double> target_accuracy;
  double correct_at = 1.0;
  std::optional<double> min_accuracy, min_coverage;
  double tolerance = 0.02;
  bool allow_missing_fields = false;
  bool before_corrections = false;
};

// The config keys eval's own options set, as --set's key=value (they win over --config and
// --set): eval.rules, extraction.fields, and a bare --threshold X as review.threshold.
std::vector<std::string> config_shortcuts(const EvalRequest& request);

// The gate's failures, one line each, in the order found; none when it passed (or none was set).
struct Verdict {
  std::vector<std::string> gate_failures;
};

// Scores the request: the tables to `out`, warnings (columns not scored, pages missing, names
// that do not match) through `log`, then the reports, --write-thresholds and --junit. `load`
// loads the config with the shortcuts given (the command's --config and --set, resolved by what
// the build has), called once every argument is checked. Throws (docsift/error.h) on a bad
// argument or file, before writing anything.
Verdict evaluate(const EvalRequest& request, const io::ReadFiles& reads,
                 const std::function<config::Config(const std::vector<std::string>&)>& load,
                 std::ostream& out, const batch::Log& log);

// The confidence.csv beside a run's predictions.csv, which eval reads when PRED is one.
std::filesystem::path confidence_beside(const std::string& predictions);

// A file argument that names a folder (ConfigError, with the journal suggested for a run's
// folder), or nothing (InputMissingError). One that is there but cannot be read is the reader's
// InputUnreadableError.
void check_input_file(const std::string& path, const std::string& role);
// Reports by extension; anything else (and "-") is refused before any work.
void check_report_path(const std::string& path);
// Throws ConfigError when an output is a file eval reads (`reads`) or a run folder's own file, or
// when two outputs are one file. Nothing is written or removed then.
void check_outputs(const EvalRequest& request, const io::ReadFiles& reads);
// Removes the files at --junit and --report, unless check_outputs refuses them (eval_files.cpp).
void remove_outputs(const EvalRequest& request, const io::ReadFiles& reads);

}  // namespace docsift::commands
