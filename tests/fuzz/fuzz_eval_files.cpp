// libFuzzer target: what `docsift eval` reads besides predictions (eval/evaluate.h, gate.h). The
// first input byte picks, and the rest is written to a file as eval reads it from a path:
//  - even: a ground truth as JSONL (read_truth_jsonl with the built-in schema's fields), then
//    scored against itself, its rows too (every row must be right);
//  - odd: an earlier --report JSON given as --baseline (read_baseline), then checked and judged by
//    the gate against a small evaluation, as eval does with it.
// Each must succeed or throw docsift::Error.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "docsift/error.h"
#include "docsift/eval/evaluate.h"
#include "docsift/eval/gate.h"
#include "docsift/eval/rows.h"
#include "docsift/extract/schema.h"
#include "scratch_folder.h"

namespace fs = std::filesystem;

namespace {

const fs::path& folder() {
  static const fs::path path = docsift::fuzz::make_scratch_folder("docsift-fuzz-eval");
  return path;
}

const docsift::extract::FieldSchema& schema() {
  static const auto s = docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema);
  return s;
}

// Two invoices and a receipt, one field missed: an evaluation a baseline is compared with.
const docsift::eval::Evaluation& small_evaluation() {
  static const auto evaluation = [] {
    const docsift::eval::Records truth = {
        {"a.png",
         {{"DOCUMENT_TYPE", "TAX INVOICE"}, {"ABN", "12 345 678 901"}, {"TOTAL", "$110.00"}}},
        {"b.png", {{"DOCUMENT_TYPE", "RECEIPT"}, {"ABN", "98 765 432 109"}, {"TOTAL", "$5.50"}}},
    };
    docsift::eval::Records predictions = truth;
    predictions["b.png"]["TOTAL"] = "$5.60";
    return docsift::eval::evaluate(schema(), truth, predictions, "truth.csv",
                                   docsift::extract::ScoringRules{});
  }();
  return evaluation;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool baseline = data[0] % 2 == 1;
  const fs::path file = folder() / (baseline ? "baseline.json" : "truth.jsonl");
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  try {
    if (baseline) {
      const nlohmann::json report = docsift::eval::read_baseline(file);
      docsift::eval::Gate gate;
      gate.baseline = &report;
      gate.metric =
          data[0] & 2 ? docsift::eval::GateMetric::kF1 : docsift::eval::GateMetric::kAccuracy;
      docsift::eval::check_gate(small_evaluation(), gate, file.string());
      (void)docsift::eval::judge(small_evaluation(), gate);
      (void)docsift::eval::to_markdown(small_evaluation(), &report);
    } else {
      docsift::eval::DocumentRows rows;
      const auto truth = docsift::eval::read_truth_jsonl(file, schema().names(), "GT", &rows);
      const auto evaluation = docsift::eval::evaluate(schema(), truth, truth, file.string(),
                                                      docsift::extract::ScoringRules{});
      (void)docsift::eval::to_json(evaluation);
      // Its rows (line_items) matched against themselves: every row right.
      const auto row_scores =
          docsift::eval::evaluate_rows(rows, rows, docsift::extract::ScoringRules{});
      if (row_scores.rows.right != row_scores.rows.truth) __builtin_trap();
      (void)docsift::eval::rows_json(row_scores);
    }
  } catch (const docsift::Error&) {
  }
  return 0;
}
