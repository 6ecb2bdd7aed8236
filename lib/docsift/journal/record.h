// The journal record (one line of results.jsonl) and summary.json, typed. Every key of either is
// written here once (to_json) and read back here once (from_json); run, the worker, merge, the
// outputs and eval go through these. The shapes are documented in docs/run.md. A layer of its own
// below batch/, with no LibTorch, so that eval/ reads journals without the run
// (docs/architecture.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docsift/extract/field.h"
#include "docsift/io/source.h"

namespace docsift::journal {

// The entry `key` of one of a record's optional maps (fields, confidence, boxes, agreement…), or
// null where the map or the key is absent.
template <class V>
const V* entry(const std::optional<std::map<std::string, V>>& map, const std::string& key) {
  if (!map) return nullptr;
  const auto it = map->find(key);
  return it == map->end() ? nullptr : &it->second;
}

struct Record {
  // Gone: not a reading but a marker, written by a --resume run for a page whose latest record
  // failed and whose file is no longer in the inputs (docs/run.md, "Gone pages"). It supersedes
  // the failed record, so the page leaves the failed set; if the file comes back, the page is new.
  enum class Status { Ok, Failed, Gone };
  struct Tokens {
    std::int64_t prompt = 0, generated = 0;
    std::int64_t forced = 0;  // keys decoding: the keys docsift fed (docs/decoding.md); 0 free
  };

  // Set by the run once the page is read.
  std::string file;                       // the page's name ("a.pdf#page=2"); outputs.h: RecordName
  std::optional<std::string> file_bytes;  // the exact name, percent-escaped, when it is not UTF-8
  // A page of a file of several (docs/run.md, "Documents of several pages"): the file's page
  // count, and the schema's rules for the fields its document does not take from the first page
  // that has them (extract/field.h, PageRule), so that documents.csv is made from the journal
  // alone (batch/outputs.h, DocumentRows). Absent for a file of one page.
  struct Document {
    int pages = 1;
    std::map<std::string, extract::PageRule> rules;
    bool operator==(const Document&) const = default;
  };
  std::optional<Document> document;
  std::string config_hash;
  std::optional<io::SourceStamp> source;  // the file as it was when read (io/source.h)
  std::string started_at, finished_at;    // RFC 3339 UTC (timestamp.h); "" in older journals
  // Set by the page reader.
  Status status = Status::Failed;
  std::string error;                       // failed: why, one line; gone: why it is gone
  std::string tier;                        // ok: the ladder's tier, or "ocr"
  std::optional<std::string> text_source;  // the OCR engine: "pdf" (the text layer) or "ocr"
  // What an image decoder said about a page that decoded, and why a model's table line gave no
  // rows.
  std::optional<std::string> warning;
  std::optional<std::map<std::string, std::string>> fields;  // ok: field → value
  std::optional<std::string> raw_response;  // ok: the model's answer, or the page's text
  std::optional<Tokens> tokens;             // ok
  std::optional<std::string> decoding;      // the vlm engine: "keys" or "free" (docs/decoding.md)
  // ok: field → the probability that its value is right, in [0, 1], for the fields with a value,
  // and for a required field left N/A that the OCR engine judged, the probability that the page
  // prints none (docs/confidence.md, "A required value left N/A").
  std::optional<std::map<std::string, double>> confidence;
  std::optional<double> document_type_confidence;
  // ok: the fields whose confidence is below review.threshold (or the field's own), for a person
  // to check; the rest of the fields with a value are accepted.
  std::optional<std::vector<std::string>> review;
  // ok: why each field of `review` is queued (extract/review_queue.h: "missing", "low confidence",
  // "sums disagree", ...) and the threshold it was judged by; absent in older journals.
  std::optional<std::map<std::string, std::string>> review_reasons;
  std::optional<std::map<std::string, double>> review_thresholds;
  // ok: the values a person corrected (`docsift review apply`, docs/confidence.md, "Corrections"):
  // field → the value as the run read it (the very first, when corrected twice) and when. The
  // corrected value itself is in `fields`, with confidence 1.0; absent when none was corrected.
  struct Correction {
    std::string original, at;  // at: RFC 3339 UTC
    bool operator==(const Correction&) const = default;
  };
  std::optional<std::map<std::string, Correction>> corrections;
  // The OCR engine: the seller's name and address, and the payer's, as the run compares pages on
  // them (batch/agreement.h, docs/confidence.md "Pages that agree"): the value's key, the weight
  // the calibration gives another page reading the same, the confidence as the page alone gave it,
  // and whether another page of the run read the same (then `confidence` is `read` with `weight`
  // added to its logit). `read_value`: the value as the page read it, where the run wrote in its
  // place the spelling two or more other pages read alike (a misread of the same name: "Pages that
  // agree"); `key` is always the page's own reading's. `disputed`: the spelling two or more other
  // pages read alike, where this page alone read a value near it with other digits (a misread digit
  // or another branch: the review queue's "pages disagree"). The payer's are compared at weight 0:
  // no fit has measured what agreement says of a payer, so they never agree and are not
  // respelled, only disputed. Absent on a model's page.
  struct Agreement {
    std::string key;
    double weight = 0;
    double read = 0;  // in [0, 1]
    bool agreed = false;
    std::optional<std::string> read_value, disputed;
    // The seller's: its company registration number as the page printed it, digits alone
    // (ocr/page_facts.h: PageFacts::registration); absent where none was read.
    std::optional<std::string> registration;
    bool operator==(const Agreement&) const = default;
  };
  std::optional<std::map<std::string, Agreement>> agreement;
  // The OCR engine: field → [x, y, width, height] of the value's words, in the page's pixels.
  std::optional<std::map<std::string, std::array<int, 4>>> boxes;
  // The OCR engine: the page's table, a row per line item or transaction (docs/run.md,
  // "line_items.csv"): each cell as its list field writes it, absent where the row printed none,
  // and the row's [x, y, width, height] in the page's pixels; its confidence, the calibrated
  // probability that every cell of the row is right (docs/confidence.md, "Rows"), absent where
  // the reader gives none (a model's rows, a calibration without a row model).
  struct LineItem {
    std::string description;
    std::optional<std::string> quantity, unit_price, amount, date, debit, credit, balance;
    std::array<int, 4> box{};
    std::optional<double> confidence;
    bool operator==(const LineItem&) const = default;
  };
  std::optional<std::vector<LineItem>> line_items;
  std::map<std::string, double> timings_s;  // stage → seconds; "total" is the run's
  // Diagnostics, kept as measured (docs/run.md has their shapes); null when absent.
  nlohmann::json image, plan, attempts, model, engine, memory, worker;

  bool ok() const { return status == Status::Ok; }
  bool failed() const { return status == Status::Failed; }
  bool gone() const { return status == Status::Gone; }
  // A page that failed before any reader saw it (a bad page, a worker that died): the error, empty
  // memory and timings.
  static Record failure(std::string error);
  // The marker for a failed page that is gone: the page's names, `why`, and when.
  static Record gone_marker(std::string file, std::optional<std::string> file_bytes,
                            std::string why);

  nlohmann::json to_json() const;
  // Lenient where a journal written by an older docsift may lack a key (the key's default); throws
  // docsift::MalformedInputError (exit 7), naming `where`, when "file" is missing or a key has the
  // wrong type or range (a confidence outside [0, 1], a box that is not four integers). The same
  // rules as from_journal, which every command's journal reading goes through.
  static Record from_json(const nlohmann::json& json, const std::string& where);
  // A journal line read back, checked as --resume, the CSV and the summary need it: throws
  // io::BadRecord naming the key that is missing or of the wrong type or range (io::read_journal
  // adds the file and line: exit 7).
  static Record from_journal(const nlohmann::json& json);
  // The record's identity in the journal: its exact name (file_bytes), else its file.
  const std::string& key() const { return file_bytes ? *file_bytes : file; }
};

// io::JournalVisitor that only checks each record's shape.
void check_journal_record(const nlohmann::json& json, std::uint64_t offset);

// summary.json of a run (`docsift run`) or of a merge (`docsift merge`), which share the totals.
struct Summary {
  struct Isolation {
    std::string mode = "none";  // or "worker", with the counts below
    int workers_started = 0, recycles = 0, crashes = 0, timeouts = 0;
    bool supervisor_mapped_libcuda = false, supervisor_mapped_gpu_devices = false;
  };
  struct ShardInfo {
    int index = 0, count = 0;
    int scanned_all_shards = 0;  // run only
  };
  struct SkippedFile {
    std::string file, reason;
    bool unreadable = false;  // a folder or file that could not be read (io/scan.h)
  };
  struct MergedFolder {
    std::string folder;
    int records = 0;
    std::optional<ShardInfo> shard;
    std::vector<std::string> config_hashes;
    std::string model;
  };

  // Over the whole journal (batch/outputs.h: Totals): the pages whose latest record is ok, failed.
  int ok = 0, failed = 0;
  std::map<std::string, int> tiers;
  double seconds_per_image = 0, model_seconds = 0, overhead_seconds = 0;
  std::int64_t generated_tokens = 0;
  std::int64_t device_peak_allocated = 0, host_peak_rss = 0;  // bytes
  // The review queue over the journal's latest ok records that carry confidences
  // (docs/confidence.md); absent when none does.
  struct Review {
    int pages = 0;           // ok pages with confidences
    int pages_accepted = 0;  // ... with no field to review
    std::int64_t fields_accepted = 0, fields_to_review = 0;
  };
  std::optional<Review> review;
  // Values a person corrected (`docsift review apply`), over the same latest ok records; absent
  // when none was.
  struct Corrections {
    int pages = 0;
    std::int64_t fields = 0;
  };
  std::optional<Corrections> corrections;
  // Pages that agree (docs/confidence.md, "Pages that agree"), over the same latest ok records:
  // the values compared, those another page read alike (agreed), and of those the ones the run
  // wrote as the other pages spell them (respelled; the record's agreement keeps the page's own as
  // read_value). Absent when no value was compared (a model's run).
  struct Agreement {
    std::int64_t values = 0, agreed = 0, respelled = 0;
  };
  std::optional<Agreement> agreement;

  // A run's.
  struct FailedFile {
    std::string file, error;
  };
  // The page counts add up: pages = ok + failed + gone + pending (docs/run.md, "Outputs"). pages:
  // every page the folder accounts for this run; found: those of the files in the inputs now;
  // gone: failed pages this run found gone (said once: on later runs they are history); pending:
  // pages found that have no record yet (--limit, a stop).
  int scanned = 0, pages = 0, found = 0, gone = 0, pending = 0;
  int this_run = 0, resumed_from_journal = 0, retried = 0, changed = 0;
  std::string docsift_version, started_at, finished_at;
  std::vector<std::string> inputs;  // as given: folders and files, "-" for --files-from stdin
  // The journal's failed pages (the latest record of each), the first kMaxFailedListed of them.
  std::vector<FailedFile> failed_files;
  static constexpr std::size_t kMaxFailedListed = 100;
  std::optional<ShardInfo> shard;
  std::string engine, model, device, config_hash;
  Isolation isolation;
  std::vector<std::string> earlier_config_hashes;
  std::vector<SkippedFile> skipped_files;
  std::optional<std::string> interrupted;
  double wall_seconds_this_run = 0;

  // A merge's ("merged_from" set: the summary is a merge's).
  std::optional<std::vector<MergedFolder>> merged_from;
  int recorded = 0;
  std::vector<std::string> config_hashes;
  std::vector<std::string> duplicates, unfinished;
  std::optional<std::vector<std::string>> missing;  // with --expect
  bool complete = false;

  nlohmann::json to_json() const;
  // A run's summary.json as `merge` reads it; throws docsift::FileError naming `where`.
  static Summary from_json(const nlohmann::json& json, const std::string& where);
};

}  // namespace docsift::journal
