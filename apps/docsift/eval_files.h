// `docsift eval`'s options, and the files it reads and writes: checked before any work, and an
// eval that ends in an error leaves no report behind (cmd_eval.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config_options.h"
#include "docsift/io/same_file.h"

namespace docsift::cli {

struct EvalArgs {
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

// A file argument that names a folder (exit 2, with the journal suggested for a run's folder), or
// nothing (InputMissingError, exit 2). One that is there but cannot be read is the reader's
// InputUnreadableError (exit 3).
void check_input_file(const std::string& path, const std::string& role);
// Reports by extension; anything else (and "-") is refused before any work.
void check_report_path(const std::string& path);
// The files eval reads, from the command line as parsed (eval_files.cpp says why from the raw
// results).
io::ReadFiles files_read(const CLI::App& app);
// Throws ConfigError (exit 2) when an output is a file eval reads (files_read) or a run folder's
// own file, or when two outputs are one file. Nothing is written or removed then.
void check_outputs(const EvalArgs& o, const io::ReadFiles& reads);
// Removes the files at --junit and --report, unless check_outputs refuses them (eval_files.cpp).
void remove_outputs(const EvalArgs& o, const io::ReadFiles& reads);

}  // namespace docsift::cli
