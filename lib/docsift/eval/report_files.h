// eval's report files (docs/eval.md, "Reports"): each --report by its extension, and the
// confidence figures drawn beside a Markdown one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "docsift/eval/confidence.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/gate.h"
#include "docsift/eval/rows.h"

namespace docsift::eval {

// The PNG files drawn beside a Markdown report: r.md → r.reliability.png, r.risk-coverage.png.
std::filesystem::path reliability_path(const std::string& report);
std::filesystem::path risk_coverage_path(const std::string& report);

// Each of `reports`, written whole (io/output_file.h): a .md file gets the Markdown tables, the
// rows' and the confidences' sections and the two figures beside it; any other the JSON report.
// The gate's baseline, when it has one, is compared in the Markdown.
void write_reports(const std::vector<std::string>& reports, const Evaluation& evaluation,
                   const Gate& gate, const std::optional<RowEvaluation>& rows,
                   const std::optional<ConfidenceEvaluation>& confidence);

}  // namespace docsift::eval
