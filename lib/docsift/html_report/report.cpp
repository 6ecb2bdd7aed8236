// write_report (report.h): read what the report needs (the journal's latest records, the truth,
// the baseline, the evaluation), then write every document's page and image on a few threads, one
// document at a time each (so no more than `jobs` pages are ever decoded at once), then the index.
#include "docsift/html_report/report.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "docsift/error.h"
#include "docsift/html_report/document.h"
#include "docsift/html_report/html.h"
#include "docsift/html_report/pages.h"
#include "docsift/html_report/report_folder.h"
#include "docsift/io/input_file.h"
#include "docsift/io/journal.h"
#include "docsift/io/page_name.h"
#include "docsift/journal/folder.h"
#include "docsift/journal/lock.h"
#include "docsift/journal/record.h"
#include "docsift/journal/totals.h"
#include "docsift/strict_json.h"
#include "docsift/timestamp.h"

namespace docsift::html_report {
namespace fs = std::filesystem;
namespace {

using journal::Record;

// summary.json, typed (batch/record.h), when the run wrote one.
std::optional<journal::Summary> read_summary(const fs::path& run) {
  const fs::path path = run / journal::out_files::kSummary;
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  if (!std::ifstream(path))
    io::throw_input_error(path, std::string(journal::out_files::kSummary), errno);  // unreadable: 3
  nlohmann::json j;
  journal::Summary s;
  try {
    j = read_json_file(path.string(), 16);
    s = journal::Summary::from_json(j, path.string());
  } catch (const FileError& e) {
    throw MalformedInputError(std::string(e.what()) +
                              "; `docsift run --resume` on that folder writes it again");
  }
  return s;
}

// The offsets of each page's latest record (the run's own reading of its journal, checked line by
// line: a damaged one is exit 7), each with whether it is a gone marker, which supersedes a failed
// record (docs/run.md, "Gone pages") and keeps the page out of the documents.
std::map<std::uint64_t, bool> latest_records(const fs::path& journal) {
  std::map<std::string, std::pair<std::uint64_t, bool>> latest;
  io::read_journal(journal, [&](const nlohmann::json& json, std::uint64_t offset) {
    const Record record = Record::from_journal(json);
    latest[record.key()] = {offset, record.gone()};
  });
  std::map<std::uint64_t, bool> offsets;
  for (const auto& [key, at] : latest) offsets[at.first] = at.second;
  return offsets;
}

// One journal line read back by its offset (the journal was checked whole when it was first read).
class JournalAt {
 public:
  explicit JournalAt(const fs::path& path)
      : path_(path), in_(io::open_input(path, "the journal")) {}
  Record read(std::uint64_t offset) {
    std::string line;
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    if (!std::getline(in_, line))
      throw FileError(path_.string() + ": changed while the report read it; make it again");
    try {
      return Record::from_journal(nlohmann::json::parse(line));
    } catch (const std::exception& e) {
      throw FileError(path_.string() + ": changed while the report read it (" + e.what() +
                      "); make it again");
    }
  }

 private:
  fs::path path_;
  std::ifstream in_;
};

// Everything the report reads before it writes; the context points into it, so it stays put.
struct Sources {
  fs::path journal;
  std::map<std::uint64_t, bool> latest;  // latest_records
  std::optional<journal::Summary> summary;
  eval::PredictionFile predictions, baseline;
  eval::Records truth;
  std::optional<eval::Evaluation> evaluation, baseline_evaluation;
  std::optional<eval::ConfidenceEvaluation> confidence;
  Context context;
  PageSearch search;
};

eval::Records read_truth(const ReportOptions& o) {
  const fs::path& path = *o.truth;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw ConfigError("--truth " + path.string() +
                      " is a folder; give the ground-truth CSV or JSONL");
  return path.extension() == ".jsonl" ? eval::read_truth_jsonl(path, o.schema.names(), "--truth")
                                      : eval::read_records_csv(path, "--truth");
}

// The evaluation of `predictions` against the truth, eval's (docs/eval.md), with any field the run
// has no column for left out rather than refused: the report shows what there is.
eval::Evaluation evaluate(const ReportOptions& o, const eval::Records& truth,
                          const eval::PredictionFile& predictions, const std::string& label) {
  const auto not_predicted =
      eval::check_prediction_columns(o.schema, truth, predictions.columns, label, true);
  return eval::evaluate(o.schema, truth, predictions.records, o.truth->string(), o.rules,
                        not_predicted);
}

// `journal` and `baseline_journal` (empty without --baseline): the folders' journals, found.
void read_sources(const ReportOptions& o, const fs::path& journal, const fs::path& baseline_journal,
                  Sources& s) {
  s.journal = journal;
  s.latest = latest_records(s.journal);
  if (o.truth && !fs::exists(*o.truth)) io::throw_input_error(*o.truth, "--truth", ENOENT);
  s.summary = read_summary(o.run);
  s.predictions = eval::read_prediction_file(s.journal, "OUT");
  s.context.schema = o.schema;
  if (o.truth) {
    s.truth = read_truth(o);
    s.evaluation = evaluate(o, s.truth, s.predictions, "OUT " + s.journal.string());
    s.context.truth = &s.truth;
    for (const eval::ImageScore& image : s.evaluation->images)
      s.context.scores[image.image] = &image;
    if (s.predictions.confidences) {
      eval::ConfidenceOptions options;
      options.thresholds = o.thresholds;
      s.confidence = eval::evaluate_confidence(o.schema, *s.evaluation, s.predictions.records,
                                               *s.predictions.confidences, options);
    }
  }
  if (o.baseline) {
    s.baseline = eval::read_prediction_file(baseline_journal, "--baseline");
    s.context.baseline = &s.baseline.records;
    s.context.baseline_failed.insert(s.baseline.failed.begin(), s.baseline.failed.end());
    if (o.truth)
      s.baseline_evaluation =
          evaluate(o, s.truth, s.baseline, "--baseline " + baseline_journal.string());
  }
  s.search.folders = o.pages;
  if (s.summary) s.search.inputs = s.summary->inputs;
}

// The documents (every page's latest record but gone markers), worst first and numbered, and the
// journal's totals over the same records.
std::vector<Entry> list_documents(const Sources& s, journal::Totals& totals) {
  std::vector<Entry> entries;
  io::read_journal(s.journal, [&](const nlohmann::json& json, std::uint64_t offset) {
    const auto it = s.latest.find(offset);
    if (it == s.latest.end()) return;
    const Record record = Record::from_journal(json);
    totals.add(record);
    if (!it->second) entries.push_back(entry_of(record, field_views(record, s.context), offset));
  });
  std::sort(entries.begin(), entries.end(), worse_first);
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i].number = static_cast<int>(i + 1);
  return entries;
}

// What the threads count as they go, under its mutex.
struct Progress {
  explicit Progress(ReportResult& r) : result(r) {}
  std::mutex mutex;
  ReportResult& result;
};

// One document's image and page. A page whose file is not found, or does not decode, is shown
// without its image, and said.
void write_document(const ReportOptions& o, const Sources& s, const std::vector<Entry>& entries,
                    std::size_t i, JournalAt& journal, ReportFolder& folder,
                    const std::string& nonce, Progress& progress) {
  const Entry& e = entries[i];
  const Record record = journal.read(e.offset);
  const std::vector<FieldView> fields = field_views(record, s.context);
  DocumentPage p;
  p.entry = &e;
  p.documents = static_cast<int>(entries.size());
  p.previous = i > 0 ? &entries[i - 1] : nullptr;
  p.next = i + 1 < entries.size() ? &entries[i + 1] : nullptr;
  p.truth = o.truth.has_value();
  p.baseline = o.baseline.has_value();
  p.nonce = nonce;
  const std::string stem = document_stem(e.number);
  std::string not_found;
  if (const auto file = find_page_file(record, s.search, &not_found)) {
    try {
      const PageImage image =
          render_page_image(*file, std::max(0, io::page_of(journal::record_relative(record)) - 1),
                            o.images, record.source);
      folder.write(fs::path(kImagesDir) / (stem + ".jpg"), image.jpeg);
      if (!image.full_jpeg.empty())
        folder.write(fs::path(kImagesDir) / (stem + ".full.jpg"), image.full_jpeg);
      p.image = true;
      p.full_image = !image.full_jpeg.empty();
      p.image_width = image.width;
      p.image_height = image.height;
    } catch (const OutputWriteError&) {
      throw;  // the disk, not the page: the report stops (exit 5)
    } catch (const FileError& error) {
      p.image_problem = error.what();
    }
  } else if (!not_found.empty()) {
    p.image_problem = not_found;
  } else {
    p.image_problem =
        "the file is not where the run read it (its inputs, from summary.json, or the working "
        "folder); give --pages FOLDER";
  }
  folder.write(fs::path(kPagesDir) / (stem + ".html"), document_page(record, fields, p));
  const std::lock_guard<std::mutex> lock(progress.mutex);
  if (!p.image) {
    ++progress.result.images_missing;
    if (progress.result.missing_examples.size() < 5)
      progress.result.missing_examples.push_back(e.name + ": " + p.image_problem);
  } else {
    ++progress.result.images;
  }
}

void write_documents(const ReportOptions& o, const Sources& s, const std::vector<Entry>& entries,
                     ReportFolder& folder, const std::string& nonce, ReportResult& result) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t wanted = o.jobs > 0 ? static_cast<std::size_t>(o.jobs) : std::min(cores, 4u);
  const std::size_t jobs = std::min(wanted, std::max<std::size_t>(1, entries.size()));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  Progress progress(result);
  const auto work = [&] {
    try {
      JournalAt journal(s.journal);
      while (!stop) {
        const std::size_t i = next++;
        if (i >= entries.size()) break;
        write_document(o, s, entries, i, journal, folder, nonce, progress);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(progress.mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

ReportResult write_report(const ReportOptions& o) {
  // No run writes to the folders read while the report reads them (a run in progress is refused,
  // exit 3, as merge refuses it); taken after the folders are found, so a missing one is exit 2.
  const fs::path journal = journal::journal_to_read(o.run, "OUT " + o.run.string());
  const fs::path baseline_journal =
      o.baseline ? journal::journal_to_read(*o.baseline, "--baseline " + o.baseline->string())
                 : fs::path();
  const journal::FolderReadLock run_lock(o.run, "report");
  std::optional<journal::FolderReadLock> baseline_lock;
  if (o.baseline) baseline_lock.emplace(*o.baseline, "report");
  Sources s;
  read_sources(o, journal, baseline_journal, s);
  std::vector<fs::path> inputs{o.run};
  if (o.baseline) inputs.push_back(*o.baseline);
  journal::Totals totals;
  const std::vector<Entry> entries = list_documents(s, totals);
  ReportFolder folder(o.out, inputs);
  const std::string nonce = make_nonce();
  ReportResult result;
  write_documents(o, s, entries, folder, nonce, result);

  Index x;
  x.run = o.run.string();
  x.generated_at = rfc3339_now();
  x.summary = s.summary;
  totals.describe(x.totals);
  for (const Entry& e : entries) x.documents.push_back(&e);
  x.fields = o.schema.names();
  if (o.truth) x.truth_label = o.truth->string();
  if (o.baseline) x.baseline_label = o.baseline->string();
  x.evaluation = s.evaluation ? &*s.evaluation : nullptr;
  x.baseline_evaluation = s.baseline_evaluation ? &*s.baseline_evaluation : nullptr;
  x.confidence = s.confidence ? &*s.confidence : nullptr;
  x.thresholds = o.thresholds;
  x.images_missing = result.images_missing;
  x.nonce = nonce;
  folder.write(std::string(kIndex), index_page(x));
  folder.write(std::string(kQueue), queue_page(x.documents, x.run, nonce));
  folder.remove_stale();

  result.documents = static_cast<int>(entries.size());
  result.failed = static_cast<int>(
      std::count_if(entries.begin(), entries.end(), [](const Entry& e) { return e.failed(); }));
  result.bytes = folder.bytes();
  result.index = folder.dir() / kIndex;
  return result;
}

}  // namespace docsift::html_report
