#include "docsift/batch/run_ending.h"

#include <filesystem>
#include <system_error>

#include "docsift/batch/output_folder.h"
#include "docsift/io/scan.h"

namespace docsift::batch {
namespace {

// Pages under the folder inputs' subfolders, for the hint when the top levels had none.
std::size_t pages_in_subfolders(const std::vector<io::Input>& inputs) {
  std::vector<io::Input> folders;
  for (const io::Input& input : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input.path, ec)) folders.push_back(input);
  }
  return folders.empty() ? 0 : io::scan_inputs(folders, /*recursive=*/true).size();
}

nlohmann::json counts_of(const RunSummary& s, const std::string& journal) {
  return {{"processed", s.processed},
          {"ok", s.ok},
          {"failed", s.failed},
          {"already_done", s.skipped},
          {"retried", s.retried},
          {"changed", s.changed},
          {"gone", s.gone},
          {"unreadable", s.unreadable},
          {"links_outside", s.links_outside},
          {"journal_ok", s.total_ok},
          {"journal_failed", s.total_failed},
          {"journal", journal},
          {"pages_accepted", s.totals.pages_accepted},
          {"fields_accepted", s.totals.fields_accepted},
          {"fields_to_review", s.totals.fields_to_review}};
}

// The last line of a run: what was done, what was skipped, what is left to review.
std::string closing_line(const RunSummary& s, const std::string& journal) {
  std::string closing = std::to_string(s.processed) + " processed (" + std::to_string(s.ok) +
                        " ok, " + std::to_string(s.failed) + " failed), " +
                        std::to_string(s.skipped) + " already done";
  if (s.gone > 0) closing += ", " + std::to_string(s.gone) + " failed gone";
  if (s.unreadable > 0) {
    closing += ", " + std::to_string(s.unreadable) +
               (s.unreadable == 1 ? " folder or file" : " folders or files") +
               " unreadable (see above)";
  }
  if (s.links_outside > 0) {
    closing += ", " + std::to_string(s.links_outside) +
               (s.links_outside == 1 ? " link" : " links") +
               " out of the inputs skipped (--follow-links reads them)";
  }
  // The review queue over the journal (docs/confidence.md): what a person has left to check.
  const Totals& t = s.totals;
  if (t.pages_with_confidence > 0) {
    closing += "; review: " + std::to_string(t.pages_accepted) + " of " +
               std::to_string(t.pages_with_confidence) + " pages fully accepted, " +
               std::to_string(t.fields_accepted) + " fields accepted, " +
               std::to_string(t.fields_to_review) + " to review (review.csv)";
  }
  // Pages that agree (batch/agreement.h): what the run wrote that a page did not read itself.
  if (t.values_respelled > 0) {
    closing += "; " + std::to_string(t.values_respelled) + " of " +
               std::to_string(t.values_compared) +
               " values compared across pages respelled as other pages read them "
               "(agreement.read_value keeps each page's own)";
  }
  return closing + "; " + journal;
}

// No pages at all: an unmounted share or a scanner that stopped writing looks like a quiet night.
void no_pages(RunEnding& end, const RunOptions& options, bool allow_empty,
              const std::function<int(RunOutcome)>& exit_code) {
  std::string where;
  for (const std::string& n : options.named) where += (where.empty() ? "" : ", ") + n;
  std::string message = "no pages found in " + where;
  const std::size_t deeper = options.recursive ? 0 : pages_in_subfolders(options.inputs);
  if (deeper > 0) {
    message +=
        "; " + std::to_string(deeper) + " in subfolders, which are read only with -r (--recursive)";
  }
  if (allow_empty) {
    end.lines.push_back(
        {Log::Level::kInfo, "empty", message + " (--allow-empty)", {{"subfolder_pages", deeper}}});
  } else {
    end.outcome = RunOutcome::kNoPages;
    const int code = exit_code(end.outcome);
    end.lines.push_back(
        {Log::Level::kError,
         "empty",
         message + "; exit " + std::to_string(code) + ", or pass --allow-empty if that is normal",
         {{"subfolder_pages", deeper}, {"exit_code", code}}});
  }
}

}  // namespace

RunEnding end_of_run(const RunSummary& s, const RunOptions& options, bool allow_empty,
                     const std::function<int(RunOutcome)>& exit_code) {
  const std::string journal = (options.out_dir / out_files::kJournal).string();
  nlohmann::json counts = counts_of(s, journal);
  RunEnding end;
  // A folder that could not be read lost its pages as surely as a page that failed.
  if (s.total_failed > 0 || s.unreadable > 0) end.outcome = RunOutcome::kSomeFailed;
  if (!s.stopped.empty()) {  // said even with --quiet: the run is not complete
    end.outcome = RunOutcome::kStopped;
    end.exit_code = exit_code(end.outcome);
    counts["exit_code"] = end.exit_code;
    end.lines.push_back({Log::Level::kError, "stopped",
                         s.stopped + "; " + std::to_string(s.processed) + " processed (" +
                             std::to_string(s.ok) + " ok, " + std::to_string(s.failed) +
                             " failed) and journaled in " + journal +
                             "; continue with the same command plus --resume",
                         counts});
    return end;
  }
  if (!s.summary_error.empty()) {
    // Every page went through and is journaled; only the summary is missing. Not "could not
    // start": --resume, with nothing left to read, writes it.
    end.outcome = RunOutcome::kSummaryUnwritten;
    end.lines.push_back(
        {Log::Level::kError,
         "summary_write",
         s.summary_error + "; every page is journaled in " + journal +
             ", but summary.json is not written; run the same command plus --resume to write it",
         {{"exit_code", exit_code(end.outcome)}}});
  } else if (s.scanned_all == 0 && s.unreadable == 0) {
    no_pages(end, options, allow_empty, exit_code);
  }
  end.exit_code = exit_code(end.outcome);
  counts["exit_code"] = end.exit_code;
  end.lines.push_back({Log::Level::kInfo, "summary", closing_line(s, journal), counts});
  return end;
}

}  // namespace docsift::batch
