// eval's report files (report_files.h).
#include "docsift/eval/report_files.h"

#include <nlohmann/json.hpp>

#include "docsift/eval/plots.h"
#include "docsift/io/output_file.h"

namespace docsift::eval {

namespace fs = std::filesystem;

fs::path reliability_path(const std::string& report) {
  return fs::path(report).replace_extension(".reliability.png");
}
fs::path risk_coverage_path(const std::string& report) {
  return fs::path(report).replace_extension(".risk-coverage.png");
}

void write_reports(const std::vector<std::string>& reports, const Evaluation& evaluation,
                   const Gate& gate, const std::optional<RowEvaluation>& rows,
                   const std::optional<ConfidenceEvaluation>& confidence) {
  for (const std::string& report : reports) {
    if (fs::path(report).extension() == ".md") {
      std::string text = to_markdown(evaluation, gate.baseline);
      if (rows) text += rows_markdown(*rows);
      if (confidence) {
        // The figures beside the report, linked by their file names.
        io::write_file_atomic(reliability_path(report), reliability_png(*confidence));
        io::write_file_atomic(risk_coverage_path(report), risk_coverage_png(*confidence));
        text += confidence_markdown(*confidence, reliability_path(report).filename().string(),
                                    risk_coverage_path(report).filename().string());
      }
      io::write_file_atomic(report, text);
    } else {
      nlohmann::json json = to_json(evaluation);
      if (rows) json["rows"] = rows_json(*rows);
      if (confidence) json["confidence"] = confidence_json(*confidence);
      io::write_file_atomic(report, json.dump(2) + "\n");
    }
  }
}

}  // namespace docsift::eval
