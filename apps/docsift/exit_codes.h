// The exit codes every docsift command uses, as one table (printed by `docsift --exit-codes`,
// from which scripts/gen_docs.sh writes the README's table and docs/cli.md's), and the one mapping
// from a library exception to its code and line.
#pragma once

#include <array>
#include <exception>
#include <string>
#include <string_view>

namespace docsift::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitSomeFailed = 1;  // a batch finished, some images failed
inline constexpr int kExitUsage = 2;  // bad command line or config, or an input that is not there
inline constexpr int kExitCannotStart =
    3;  // model, device or lock problem, or an unreadable input: nothing ran
inline constexpr int kExitBelowGate = 4;  // eval below a gate or regressed
inline constexpr int kExitStopped =
    5;  // run stopped mid-batch, or finished with an output unwritten: --resume
inline constexpr int kExitNoInput = 6;    // run found no pages in its inputs (unless --allow-empty)
inline constexpr int kExitMalformed = 7;  // an input file that was read is malformed

// One row of the table: the code, the commands that can return it, and what it means.
struct ExitCodeRow {
  int code;
  std::string_view commands;  // comma-separated; a test runs one case for each command named
  std::string_view brief;     // for --help's footer
  std::string_view meaning;
};

inline constexpr std::array<ExitCodeRow, 8> kExitCodes{{
    {kExitOk, "run, eval, merge, report, review, inspect, generate, config, tokenize", "success",
     "success (for `run`: every page succeeded; for `eval`: every gate passed)"},
    {kExitSomeFailed, "run, merge", "some pages failed, or the merge is incomplete",
     "`run` finished, but some pages failed (each failure has its own record) or a folder or file "
     "of its inputs could not be read (a `skipped_files` entry marked `unreadable`). `merge`: a "
     "page failed, or the merge is incomplete (a duplicate, an unfinished or absent shard, a page "
     "`--expect` found unrecorded)"},
    {kExitUsage, "run, eval, merge, report, review, inspect, generate, config, tokenize",
     "usage or config error, or an input that is not there",
     "usage or config error: a bad option, an unknown key, a value out of range, a misspelt column "
     "or field name, an input (file, folder, model folder, list) that is not there, an output path "
     "that is one of the command's inputs or a run folder's own file (nothing is written), or a "
     "`--device` this machine cannot use"},
    {kExitCannotStart, "run, eval, merge, report, review, inspect, generate",
     "could not start (an unreadable input, the model, device or lock)",
     "could not start: an input that is there but cannot be read (permission denied, an I/O "
     "error), a missing or corrupt model file, or the lock is taken (a lock file whose text "
     "docsift cannot parse is named, stale or held; for `review apply`, a run is writing the "
     "folder), or an output docsift refuses to write (a link where it would write; for `report`, "
     "an `--out` inside the run's folder); nothing was processed"},
    {kExitBelowGate, "eval", "eval below a gate",
     "`eval` fell below `--min-accuracy` or a `--min-field`, covered less of the truth than "
     "`--min-coverage`, or regressed against `--baseline`"},
    {kExitStopped, "run, eval, merge, report, review",
     "run stopped or left an output unwritten (continue with --resume), or an output could not be "
     "written",
     "`run` stopped mid-batch (SIGINT, SIGTERM or SIGHUP; a journal or CSV write failed; with "
     "`--isolate worker`, no worker would start), or finished its pages but could not write "
     "`summary.json`. The journal holds every finished page and each CSV a prefix of its rows "
     "(never a row the journal lacks); the same command plus `--resume` continues. `eval`, "
     "`merge`, `report`: a write failed once the work had begun (a full disk, a file-size limit); "
     "no file is left half-written and no temporary behind, and the same command again writes its "
     "outputs whole. `review apply`: a journal, table or summary write failed; the pages journaled "
     "before it are applied, and the same apply again finishes the rest"},
    {kExitNoInput, "run", "run found no pages (unless --allow-empty)",
     "`run` found no pages in its inputs (an empty inbox, an unmounted share); `--allow-empty` "
     "makes that 0. An inbox that cannot be read is 3, never 6"},
    {kExitMalformed, "run, eval, merge, report, review", "a malformed input file",
     "an input file was read but is malformed: a predictions or truth CSV or JSONL, a `--baseline` "
     "report (`eval`), a journal continued by `run --resume`, merged by `merge` or read by "
     "`report` or `review sellers`; for `review apply`, a corrections CSV that is malformed or "
     "does not match the journal (a page not there or not ok, a field not the run's, a value "
     "that is not the page's current one), refused whole with nothing written; the line names "
     "the file and where"},
}};

// The table as Markdown (`docsift --exit-codes`), and as one line for a `--help` footer: the codes
// `command` can return (every code when it is empty).
std::string exit_code_table_markdown();
bool returns(const ExitCodeRow& row, std::string_view command);
std::string exit_code_footer(std::string_view command = {});

struct Failure {
  int code = kExitCannotStart;
  std::string message;  // one line
};

// What `error` (thrown by a command) means for the user: docsift::ConfigError (and
// InputMissingError) is usage (2); MalformedInputError is 7; StopRequested is stopped (5); a
// OutputWriteError is 5; a FileError (InputUnreadableError included), LibTorch's errors and
// anything else could not start (3).
Failure failure_of(const std::exception_ptr& error);

}  // namespace docsift::cli
