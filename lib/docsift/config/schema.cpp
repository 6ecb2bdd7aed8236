// Every config key: its name, its help (`docsift config --keys`, docs/config.md), its type and
// range, and where it lives in Config. Declared through fields.h's factories, each key once.
#include <algorithm>

#include "docsift/config/fields.h"
#include "docsift/config/schema_model.h"
#include "docsift/error.h"
#include "docsift/family/settings.h"
#include "docsift/resilience/fault_spec.h"

namespace docsift::config {
namespace {

std::string faults_problem(const std::string& plan) {
  try {
    (void)resilience::FaultPlan::parse(plan);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// output.formats: jsonl (always) and csv, none twice; their names are config.h's
// kOutputFormatNames.
template <class At>
Field formats_key(std::string_view key, std::string_view help, At at) {
  return {key, help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            if (!n.IsSequence()) fail(w, key, "expected a list, got " + shown(n));
            std::vector<OutputFormat> formats;
            for (const auto& item : n) {
              const auto s = scalar(item, w, key, "jsonl or csv");
              const auto named = std::find_if(kOutputFormatNames.begin(), kOutputFormatNames.end(),
                                              [&](const auto& name) { return name.second == s; });
              if (named == kOutputFormatNames.end()) {
                fail(w, key,
                     "unknown format '" + s + "' (expected " + choices(kOutputFormatNames) + ")");
              }
              if (std::find(formats.begin(), formats.end(), named->first) != formats.end()) {
                fail(w, key, "format '" + s + "' is listed twice");
              }
              formats.push_back(named->first);
            }
            if (std::find(formats.begin(), formats.end(), OutputFormat::Jsonl) == formats.end()) {
              fail(w, key, "jsonl is the run journal that --resume reads; it cannot be turned off");
            }
            at(c) = formats;
          },
          [=](const Config& c) {
            std::vector<std::string> names;
            for (const OutputFormat f : at(c)) names.emplace_back(to_string(f));
            return flow_list(names);
          }};
}

// A key a family declares (family/settings.h): one of its choices, kept by key in
// model.family_settings.
Field family_key(const family::FamilySetting& setting) {
  std::string names;
  for (const std::string_view choice : setting.choices)
    names += (names.empty() ? "" : ", ") + std::string(choice);
  return {setting.key, setting.help,
          [=](Config& c, const YAML::Node& n, const Where& w) {
            const std::string value = scalar(n, w, setting.key, "one of " + names);
            if (std::find(setting.choices.begin(), setting.choices.end(), value) ==
                setting.choices.end()) {
              fail(w, setting.key, "expected one of " + names + ", got '" + value + "'");
            }
            c.model.family_settings[std::string(setting.key)] = value;
          },
          [=](const Config& c) {
            return YAML::Node(std::string(family::setting_value(c.model.family_settings, setting)));
          }};
}

// The keys declared here, then the families' own after model.decode_kernels.
std::vector<Field> with_family_keys(std::vector<Field> fields) {
  auto at = std::find_if(fields.begin(), fields.end(),
                         [](const Field& f) { return f.key == "model.decode_kernels"; });
  if (at != fields.end()) ++at;
  for (const family::FamilySetting& setting : family::family_settings())
    at = std::next(fields.insert(at, family_key(setting)));
  return fields;
}

// extraction.fields comes first: the keys' order is `docsift config`'s and docs/config.md's.
std::vector<Field> input_keys() {
  return {
      text_key(
          "extraction.fields", "field schema file",
          [](auto& c) -> auto& { return c.extraction.fields; }, Text::kNonEmpty),
      auto_integer_key(
          "input.pdf_dpi",
          "auto (300 for ocr, 160 for a vision-language model) or 50-600: the resolution PDF pages "
          "are rendered at",
          50, 600, [](auto& c) -> auto& { return c.input.pdf_dpi; }),
      bool_key(
          "input.accept_truncated",
          "true: an image whose decoder reports lost data (a truncated JPEG) is read as far as it "
          "decodes, the message in its record; false: such a page fails with that reason",
          [](auto& c) -> auto& { return c.input.accept_truncated; }),
      bool_key(
          "input.follow_links",
          "true: read a link whose target lies outside the folders given to run (--follow-links); "
          "false: skip it unopened and list it in skipped_files",
          [](auto& c) -> auto& { return c.input.follow_links; }),
      integer_key(
          "input.max_pages", "most pages per PDF or TIFF file (1-10000); a longer file fails", 1,
          10000, [](auto& c) -> auto& { return c.input.max_pages; }),
  };
}

std::vector<Field> extraction_keys() {
  return {
      choice_key(
          "extraction.engine",
          "auto (the model when model.path is set, else ocr), vlm (the vision-language model) or "
          "ocr (Tesseract and field rules, no weights)",
          kEngineNames, [](auto& c) -> auto& { return c.extraction.engine; }),
      choice_key(
          "extraction.decoding",
          "keys (docsift writes the keys and routes by DOCUMENT_TYPE; the model writes each value "
          "of its document type's fields, up to the field's max_tokens, greedy) or free (the model "
          "writes the whole answer, as the reference)",
          kDecodingNames, [](auto& c) -> auto& { return c.extraction.decoding; }),
      choice_key(
          "extraction.confidence",
          "vlm engine: how a value's token probabilities make its confidence: min (the least "
          "likely token's; one doubtful digit makes a doubtful amount), mean (exp of the mean "
          "log-probability) or product (the value's probability, lower the longer it is); raw, not "
          "calibrated (docs/decoding.md)",
          generate::kAggregateNames, [](auto& c) -> auto& { return c.extraction.confidence; }),
      bool_key(
          "extraction.tables",
          "vlm engine: true: also ask for the schema's tables (line items, a statement's "
          "transactions) as one line of JSON rows each, into the records' line_items and "
          "line_items.csv; false: the fields alone, as the reference (the OCR engine reads tables "
          "either way)",
          [](auto& c) -> auto& { return c.extraction.tables; }),
  };
}

// ocr, first: how a page's words are read (Tesseract, the second reading, the second
// recognizer).
std::vector<Field> ocr_reading_keys() {
  return {
      text_key(
          "ocr.language",
          "Tesseract language data, e.g. eng or eng+deu (Debian: tesseract-ocr-LANG)",
          [](auto& c) -> auto& { return c.ocr.language; }, Text::kNonEmpty),
      text_key(
          "ocr.rules",
          "the OCR engine's labels and rules: builtin:ocr-rules or a file in its layout",
          [](auto& c) -> auto& { return c.ocr.rules; }, Text::kNonEmpty),
      bool_key(
          "ocr.deskew", "true: straighten a skewed scan before reading it",
          [](auto& c) -> auto& { return c.ocr.deskew; }),
      word_key(
          "ocr.page_segmentation",
          "block (the page as one block of text, best on receipts), auto (Tesseract's layout "
          "analysis) or sparse (text in any order)",
          {"block", "auto", "sparse"}, [](auto& c) -> auto& { return c.ocr.page_segmentation; }),
      auto_integer_key(
          "ocr.threads",
          "auto (the cores this process may use, at most 8) or 1-16: pages read at once, each on "
          "one core (the outputs are the same whatever it is; a run sharded one core per shard "
          "sets 1)",
          1, 16, [](auto& c) -> auto& { return c.ocr.threads; }),
      word_key(
          "ocr.date_order",
          "auto (day first, unless more of the page's dates can only be read month first than day "
          "first), dmy or mdy: how numeric dates such as 03/04/2025 are read",
          {"auto", "dmy", "mdy"}, [](auto& c) -> auto& { return c.ocr.date_order; }),
      bool_key(
          "ocr.second_reading",
          "true: a page whose first reading leaves TOTAL, INVOICE_DATE or SUPPLIER unread or "
          "doubtful is read once more with its background evened out (faint thermal print); each "
          "field is taken from the reading that read it, or read it more confidently",
          [](auto& c) -> auto& { return c.ocr.second_reading; }),
      text_key(
          "ocr.evened_model",
          "the second reading's Tesseract language data: auto (tessdata's larger model where "
          "scripts/setup.sh installed it, else ocr.language's own), none (ocr.language's own) or a "
          "folder of .traineddata files",
          [](auto& c) -> auto& { return c.ocr.evened_model; }, Text::kNonEmpty),
      word_key(
          "ocr.recognizer",
          "auto (the default: both where the build has LibTorch and scripts/setup.sh converted the "
          "second recognizer, else tesseract), tesseract (Tesseract reads the page) or both: the "
          "boxes of TOTAL, the invoice date, the seller and its address, and the words the rules "
          "doubted, are read again by PP-OCRv4's trained recognizer (scripts/setup.sh fetches "
          "it), the two readings' agreement feeds the confidence, and a value Tesseract misread "
          "is taken from the second where the rules can tell (docs/ocr.md)",
          {"auto", "tesseract", "both"}, [](auto& c) -> auto& { return c.ocr.recognizer; }),
      text_key(
          "ocr.recognizer_model",
          "where ocr.recognizer's second recognizer is: auto (where scripts/setup.sh converted it, "
          ".deps/ppocr, or share/docsift/ppocr once installed) or a folder holding recognizer.json "
          "and recognizer.safetensors",
          [](auto& c) -> auto& { return c.ocr.recognizer_model; }, Text::kNonEmpty),
      word_key(
          "ocr.recognizer_precision",
          "how the second recognizer's dense convolutions multiply: float32 (the default) or "
          "bfloat16, which reads a crop in three quarters of the time where the CPU multiplies "
          "bfloat16 in hardware (Intel AMX or AVX512-BF16; elsewhere likely slower, not measured) "
          "and reads a few "
          "values differently, letting a few more wrong ones through (docs/ocr.md)",
          {"float32", "bfloat16"}, [](auto& c) -> auto& { return c.ocr.recognizer_precision; }),
  };
}

// ocr, then: what the rules make of the words read (calibration, field finder, known sellers,
// evidence), and PDF pages read from their text layer instead.
std::vector<Field> ocr_field_keys() {
  return {
      text_key(
          "ocr.calibration",
          "the OCR confidences' calibration (per field kind, a logistic regression over the rules' "
          "evidence): builtin:ocr-calibration or a file in configs/fields/ocr-calibration.yaml's "
          "layout (bench/confidence/refit.py writes one)",
          [](auto& c) -> auto& { return c.ocr.calibration; }, Text::kNonEmpty),
      text_key(
          "ocr.finder",
          "the trained field finder's weights (per field, a conditional logit over each "
          "candidate's features): builtin:ocr-finder or a file in configs/fields/ocr-finder.yaml's "
          "layout (bench/ocr/train_finder.py writes one)",
          [](auto& c) -> auto& { return c.ocr.finder; }, Text::kNonEmpty),
      text_key(
          "ocr.known_sellers",
          "a text file of the sellers' names the pages come from, one per line (a vendor master), "
          "each name's address after a tab optional: a seller read within one misread per 8 "
          "letters of a listed name is written as the list spells it, one the rules missed is "
          "looked for on the page, a listed address the page prints is the seller's address as "
          "the list spells it, and a listed value's confidence is higher (docs/confidence.md); "
          "empty for none",
          [](auto& c) -> auto& { return c.ocr.known_sellers; }, Text::kNullIsEmpty),
      bool_key(
          "ocr.write_evidence",
          "true: each record's engine.evidence carries every field's raw evidence (word "
          "confidences, label, sums, second reading, box), which bench/confidence/refit.py fits "
          "the calibration on",
          [](auto& c) -> auto& { return c.ocr.write_evidence; }),
      bool_key(
          "ocr.batch_spelling",
          "true: once every page of a run is read, a seller's name or address that one page alone "
          "read, with the same digits and within one misread per 8 letters of what two or more "
          "other pages read alike, is written as they spell it, the page's own reading kept in "
          "its record (docs/confidence.md, \"The spelling the pages agree on\")",
          [](auto& c) -> auto& { return c.ocr.batch_spelling; }),
      bool_key(
          "ocr.pdf_text",
          "true: a PDF page with a usable text layer is read from it, not rendered and OCR'd; "
          "false: OCR every page",
          [](auto& c) -> auto& { return c.ocr.pdf_text; }),
  };
}

std::vector<Field> output_keys() {
  return {
      text_key(
          "output.dir", "where results.jsonl, predictions.csv and summary.json go",
          [](auto& c) -> auto& { return c.output.dir; }, Text::kNonEmpty),
      formats_key(
          "output.formats", "list of jsonl (the journal, always on) and csv",
          [](auto& c) -> auto& { return c.output.formats; }),
  };
}

std::vector<Field> eval_keys() {
  return {
      choice_key(
          "eval.rules",
          "docsift (dates as dates, lists split on | only with items compared by type, text by "
          "ANLS) or reference-2025 (the reference's first rules, quirks kept, to compare with its "
          "published scores)",
          extract::kRuleSetNames, [](auto& c) -> auto& { return c.eval.rules; }),
      choice_key(
          "eval.date_order",
          "docsift rules: how numeric dates such as 03/04/2025 are read in the truth and the "
          "predictions: dmy, mdy or ymd (a 4-digit first group is always year first)",
          extract::kDateOrderNames, [](auto& c) -> auto& { return c.eval.date_order; }),
      choice_key(
          "eval.list_match",
          "docsift rules: list items pair by position (ordered) or with any unused truth item "
          "(any) before F1",
          extract::kListMatchNames, [](auto& c) -> auto& { return c.eval.list_match; }),
      real_key(
          "eval.money_tolerance",
          "docsift rules: how far an amount may be from the truth's, relative to it, and still "
          "score (0 to 1; 0, the default, asks for the same amount to the cent; 0.01 is the "
          "reference's 1 %)",
          0.0, 1.0, Bound::kClosed, [](auto& c) -> auto& { return c.eval.money_tolerance; }),
  };
}

std::vector<Field> gate_keys() {
  return {
      optional_real_key(
          "gate.min_accuracy",
          "docsift eval: null, or exit 4 when overall accuracy is below this (0 to 1; "
          "--min-accuracy wins)",
          0.0, 1.0, Bound::kClosed, [](auto& c) -> auto& { return c.gate.min_accuracy; }),
      number_map_key(
          "gate.min_field",
          "docsift eval: per-field gates, e.g. {TOTAL: 0.95, ABN: 1}: exit 4 when a field's score "
          "(of --gate's metric) is below its own (--min-field adds to or replaces them)",
          0.0, 1.0, [](auto& c) -> auto& { return c.gate.min_field; }),
  };
}

std::vector<Field> review_keys() {
  return {
      real_key(
          "review.threshold",
          "a field whose confidence is below this (0 to 1) is listed in its record's review and in "
          "review.csv; at or above it, accepted. Given without review.fields, it is every field's: "
          "the shipped per-field thresholds are dropped (docs/confidence.md)",
          0.0, 1.0, Bound::kClosed, [](auto& c) -> auto& { return c.review.threshold; }),
      number_map_key(
          "review.fields",
          "per-field thresholds that replace review.threshold, e.g. {TOTAL: 0.95, SUPPLIER: 0.8}; "
          "when not given, the engine's own: Tesseract's, or the second recognizer's with "
          "ocr.recognizer: both",
          0.0, 1.0, [](auto& c) -> auto& { return c.review.fields; }),
      real_key(
          "review.sums_total",
          "a TOTAL at or above this confidence is accepted though SUBTOTAL + GST do not tie to it "
          "(SUBTOTAL and GST are still queued as sums disagree); 1 queues every such TOTAL",
          0.0, 1.0, Bound::kClosed, [](auto& c) -> auto& { return c.review.sums_total; }),
  };
}

std::vector<Field> testing_keys() {
  return {
      text_key(
          "testing.faults",
          "fault injection plan, e.g. oom@prefill:image=2 (same grammar as DOCSIFT_FAULTS, which "
          "is added to it)",
          [](auto& c) -> auto& { return c.testing.faults; }, Text::kNullIsEmpty, faults_problem),
  };
}

// The keys declared here, section by section, in the order `docsift config` and docs/config.md list
// them.
std::vector<Field> declared_keys() {
  std::vector<Field> fields;
  for (const auto section : {model_keys, vision_keys, generation_keys, memory_keys, input_keys,
                             extraction_keys, ocr_reading_keys, ocr_field_keys, output_keys,
                             eval_keys, gate_keys, review_keys, testing_keys}) {
    for (Field& field : section()) fields.push_back(std::move(field));
  }
  return fields;
}

}  // namespace

const std::vector<Field>& schema() {
  static const std::vector<Field> fields = with_family_keys(declared_keys());
  return fields;
}

}  // namespace docsift::config
