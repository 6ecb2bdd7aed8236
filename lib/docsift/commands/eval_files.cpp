#include "docsift/commands/eval.h"

#include <cerrno>
#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>

#include "docsift/batch/output_folder.h"
#include "docsift/error.h"
#include "docsift/eval/report_files.h"
#include "docsift/io/input_file.h"

namespace docsift::commands {

namespace fs = std::filesystem;

namespace {

bool is_report_name(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return path != "-" && (ext == ".json" || ext == ".md");
}

// Every file eval would write: the reports (and a Markdown report's figures), --junit and
// --write-thresholds.
std::vector<std::string> output_paths(const EvalRequest& o) {
  std::vector<std::string> paths;
  for (const std::string& report : o.reports) {
    if (!is_report_name(report)) continue;
    paths.push_back(report);
    if (fs::path(report).extension() == ".md") {
      paths.push_back(eval::reliability_path(report).string());
      paths.push_back(eval::risk_coverage_path(report).string());
    }
  }
  if (!o.junit.empty()) paths.push_back(o.junit);
  if (!o.write_thresholds.empty()) paths.push_back(o.write_thresholds);
  return paths;
}

}  // namespace

void check_input_file(const std::string& path, const std::string& role) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) io::throw_input_error(path, role, ENOENT);
  if (!fs::is_directory(status)) return;
  std::string hint;
  if (const fs::path journal = fs::path(path) / batch::out_files::kJournal;
      fs::is_regular_file(journal, ec)) {
    hint = " (did you mean " + journal.string() + "?)";
  }
  throw ConfigError(role + " " + path + " is a folder; eval reads a file" + hint);
}

void check_report_path(const std::string& path) {
  if (path == "-")
    throw ConfigError(
        "--report -: reports go to files (FILE.json or FILE.md); the table already goes to "
        "standard output");
  if (!is_report_name(path)) {
    throw ConfigError("--report " + path + ": unknown report type '" +
                      fs::path(path).extension().string() + "' (FILE.json or FILE.md)");
  }
}

std::filesystem::path confidence_beside(const std::string& predictions) {
  return fs::path(predictions).parent_path() / batch::out_files::kConfidence;
}

void check_outputs(const EvalRequest& o, const io::ReadFiles& reads) {
  std::set<fs::path> seen;
  for (const std::string& path : output_paths(o)) {
    const std::string option = path == o.junit              ? "--junit"
                               : path == o.write_thresholds ? "--write-thresholds"
                                                            : "--report";
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
void remove_outputs(const EvalRequest& o, const io::ReadFiles& reads) {
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

}  // namespace docsift::commands
