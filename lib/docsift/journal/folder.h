// A run's output folder as every command that reads or writes one names it (docs/run.md,
// "Outputs"): its files' names, and the journal to read from a folder `run` or `merge` wrote.
// Below batch/ (which writes the folder) so that the report and eval read it without the run.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace docsift::journal {

// The files docsift writes in an output folder. Each but the lock is replaced through a temporary
// beside it, its name plus ".tmp" (io/output_file.h).
namespace out_files {
inline constexpr std::string_view kLock = ".docsift.lock";
inline constexpr std::string_view kJournal = "results.jsonl";
inline constexpr std::string_view kPredictions = "predictions.csv";
inline constexpr std::string_view kConfidence = "confidence.csv";
inline constexpr std::string_view kReview = "review.csv";
inline constexpr std::string_view kDocuments = "documents.csv";
inline constexpr std::string_view kLineItems = "line_items.csv";
inline constexpr std::string_view kSummary = "summary.json";
inline constexpr std::string_view kWritten[] = {kJournal,   kPredictions, kConfidence, kReview,
                                                kDocuments, kLineItems,   kSummary};
}  // namespace out_files

// The journal of a folder `run` or `merge` wrote, to be read (`merge`, `report`): throws
// InputMissingError when `dir` is not there or holds no journal, ConfigError when it is not a
// folder, InputUnreadableError when it cannot be looked into; each message starts with `named`
// (the folder as the command line gave it).
std::filesystem::path journal_to_read(const std::filesystem::path& dir, const std::string& named);

}  // namespace docsift::journal
