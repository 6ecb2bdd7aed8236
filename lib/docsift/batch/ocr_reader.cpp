#include "docsift/batch/ocr_reader.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <string>
#include <system_error>

#include "docsift/batch/model_support.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/io/pages.h"
#include "docsift/io/pdf.h"
#include "docsift/io/pinned_file.h"
#include "docsift/memory/host.h"
#include "docsift/ocr/engine.h"
#include "docsift/stopwatch.h"

namespace docsift::batch {
namespace {

// ocr.recognizer_model → the converted model's folder; "" when auto finds none.
std::string recognizer_folder(const ocr::Settings& s) {
  return s.recognizer_model == "auto" ? installed_recognizer_folder() : s.recognizer_model;
}

std::unique_ptr<ocr::LineRecognizer> second_recognizer(const ocr::Settings& s) {
  if (s.recognizer != "both") return nullptr;
  const std::string folder = recognizer_folder(s);
  if (folder.empty()) return nullptr;  // run() said so once (missing_recognizer)
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(folder) / "recognizer.json", ec)) {
    throw FileError("ocr.recognizer_model " + folder +
                    ": no recognizer.json there; name the folder scripts/setup.sh " +
                    "converts PP-OCRv4's recognizer into (.deps/ppocr), or auto");
  }
  return open_line_recognizer(folder, s.recognizer_precision);
}

}  // namespace

bool second_recognizer_available(const std::string& recognizer_model) {
  if (!without_model_stack().empty()) return false;
  const std::string folder =
      recognizer_model == "auto" ? installed_recognizer_folder() : recognizer_model;
  std::error_code ec;
  return !folder.empty() &&
         std::filesystem::is_regular_file(std::filesystem::path(folder) / "recognizer.json", ec);
}

std::string ocr_readers(const config::Config& c) {
  if (c.ocr.recognizer == "both" && !recognizer_folder(c.ocr).empty() &&
      without_model_stack().empty())
    return "Tesseract, and PP-OCRv4's recognizer (" +
           recognizer_precision_label(c.ocr.recognizer_precision) +
           ") for the chosen values and the words the rules doubted";
  if (c.ocr.recognizer == "tesseract" && c.keys_given.count("ocr.recognizer") != 0)
    return "Tesseract alone, as ocr.recognizer says";
  if (!without_model_stack().empty())
    return "Tesseract alone: this build has no LibTorch, which the second recognizer needs";
  return "Tesseract alone: no second recognizer converted (scripts/setup.sh makes one)";
}

std::string missing_recognizer(const config::Config& c) {
  if (c.extraction.engine != config::Engine::Ocr || c.ocr.recognizer != "both" ||
      !recognizer_folder(c.ocr).empty()) {
    return "";
  }
  if (const std::string why = without_model_stack(); !why.empty()) {
    return "ocr.recognizer both: " + why + " and Tesseract; reading with Tesseract alone";
  }
  return "ocr.recognizer both: no second recognizer found (scripts/setup.sh converts PP-OCRv4's "
         "into .deps/ppocr; or set ocr.recognizer_model to its folder); reading with Tesseract "
         "alone";
}

struct OcrReader::State {
  extract::FieldSchema schema;
  std::vector<std::string> field_names;
  ocr::Engine engine;

  explicit State(const config::Config& c)
      : schema(extract::load_field_schema(c.extraction.fields)),
        field_names(schema.names()),
        engine(c.ocr, second_recognizer(c.ocr),
               [this](const std::string& field, const std::string& type) {
                 const extract::Field* f = schema.find(field);
                 return f == nullptr || f->applies(type);
               }) {
    engine.calibration().check_fields(
        field_names);  // a misspelt field in ocr.calibration is refused
  }
  State(const State&) = delete;  // the engine's applies_to reads this schema
  State& operator=(const State&) = delete;
};

// The engines, one for each page read at once: the first made with the reader (a bad rules file
// or calibration is refused before the first page), the others when pages first overlap.
struct OcrReader::Pool {
  const config::Config config;
  const io::PageOptions pages = page_options(config);
  std::mutex mutex;
  std::vector<std::unique_ptr<State>> all;
  std::vector<State*> idle;

  explicit Pool(const config::Config& c) : config(c) {
    all.push_back(std::make_unique<State>(config));
    idle.push_back(all.back().get());
  }

  // An engine no other page is reading with, for as long as the lease lives.
  class Lease {
   public:
    explicit Lease(Pool& pool) : pool_(pool) {
      {
        const std::lock_guard<std::mutex> lock(pool_.mutex);
        if (!pool_.idle.empty()) {
          state_ = pool_.idle.back();
          pool_.idle.pop_back();
          return;
        }
      }
      auto made = std::make_unique<State>(pool_.config);  // outside the lock: it loads models
      const std::lock_guard<std::mutex> lock(pool_.mutex);
      state_ = made.get();
      pool_.all.push_back(std::move(made));
    }
    ~Lease() {
      const std::lock_guard<std::mutex> lock(pool_.mutex);
      pool_.idle.push_back(state_);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    State& operator*() const { return *state_; }
    State* operator->() const { return state_; }

   private:
    Pool& pool_;
    State* state_ = nullptr;
  };
};

OcrReader::OcrReader(const config::Config& config) : pool_(std::make_unique<Pool>(config)) {}
OcrReader::~OcrReader() = default;

int OcrReader::pages_at_once() const {
  if (pool_->config.ocr.threads) return *pool_->config.ocr.threads;
  // auto: the cores this process may run on (its CPU affinity, which taskset and a container's
  // cpuset set; a CPU quota does not), at most 8: each page in flight holds its own working
  // memory (docs/ocr.md).
  cpu_set_t usable;
  CPU_ZERO(&usable);
  const int cores = sched_getaffinity(0, sizeof usable, &usable) == 0 ? CPU_COUNT(&usable) : 1;
  return std::clamp(cores, 1, 8);
}

namespace {

// A born-digital PDF page's text layer as the OCR's words (points → pixels at 300 dpi, the OCR's
// resolution), where it is usable: exact text, no rendering, no OCR. nullopt when the page has
// none worth reading (the caller renders it).
struct LayerWords {
  std::vector<ocr::Word> words;
  int width = 0, height = 0;
};
std::optional<LayerWords> layer_words(const io::PdfText& layer) {
  constexpr double kScale = 300.0 / 72.0;
  LayerWords out;
  for (const auto& w : layer.words) {
    const auto px = [&](double v) { return static_cast<int>(std::lround(v * kScale)); };
    out.words.push_back({w.text, {px(w.left), px(w.top), px(w.right), px(w.bottom)}, 100.0f});
  }
  if (!ocr::usable_text_layer(out.words)) return std::nullopt;
  out.width = static_cast<int>(std::lround(layer.width * kScale));
  out.height = static_cast<int>(std::lround(layer.height * kScale));
  return out;
}

// What the engine read, into the record: the fields, their calibrated confidences
// (docs/confidence.md), where each value was read on the page, and the table's rows.
// Whether `field`, left N/A, is one the page's type requires (the schema's `required` and
// `applies_to`): only those keep the engine's probability that the page prints none.
bool required_here(const extract::FieldSchema& schema, const std::string& field,
                   const std::map<std::string, std::string>& fields) {
  const extract::Field* f = schema.find(field);
  const auto type = fields.find(std::string(extract::kDocumentTypeField));
  return f != nullptr && type != fields.end() && !extract::is_missing(type->second) &&
         f->required_on(type->second);
}

void fill_record(Record& record, const ocr::Engine::Result& read,
                 const extract::FieldSchema& schema) {
  record.status = Record::Status::Ok;
  record.tier = "ocr";
  record.text_source = read.text_source;
  record.fields = read.fields;
  record.raw_response = read.text;
  record.tokens = Record::Tokens{0, 0};
  record.engine = read.info;
  record.confidence.emplace();
  record.boxes.emplace();
  // A field left N/A has a probability only where the calibration has an `absent` model for it:
  // that the page prints none (ocr/calibration.h); kept where the page's type requires the field,
  // and it has no box.
  for (const auto& [field, p] : read.probability) {
    const auto value = read.fields.find(field);
    if (value == read.fields.end() ||
        (value->second == "N/A" && !required_here(schema, field, read.fields)))
      continue;
    (*record.confidence)[field] = p;
    if (const auto e = read.evidence.find(field);
        value->second != "N/A" && e != read.evidence.end()) {
      const ocr::Box& b = e->second.box;
      (*record.boxes)[field] = {b.left, b.top, b.right - b.left, b.bottom - b.top};
    }
  }
  for (const auto& [field, a] : read.agreeable) {
    const auto p = read.probability.find(field);
    if (p == read.probability.end()) continue;
    if (!record.agreement) record.agreement.emplace();
    // Not agreed, and the page's own reading: the run counts the pages once all are read.
    Record::Agreement& marked = (*record.agreement)[field];
    marked = {a.key, a.weight, p->second, false, std::nullopt, std::nullopt, std::nullopt};
    if (!a.registration.empty()) marked.registration = a.registration;
  }
  if (!read.items.empty()) {
    record.line_items.emplace();
    for (const ocr::LineItem& item : read.items) {
      const ocr::Box& b = item.box;
      record.line_items->push_back({item.description,
                                    item.quantity,
                                    item.unit_price,
                                    item.amount,
                                    item.date,
                                    item.debit,
                                    item.credit,
                                    item.balance,
                                    {b.left, b.top, b.right - b.left, b.bottom - b.top},
                                    item.probability});
    }
  }
  if (const auto type = record.confidence->find("DOCUMENT_TYPE");
      type != record.confidence->end()) {
    record.document_type_confidence = type->second;
  }
}

}  // namespace

PageOutcome OcrReader::read(const PageRequest& request) {
  PageOutcome out;
  Record& record = out.record;
  // The page's file opened once and checked to be the file the scan found (io/pinned_file.h); the
  // text layer and the pixels are read through this one opening, never through the name again.
  std::optional<io::PinnedFile> pin;
  try {
    const auto t = Clock::now();
    pin.emplace(request.path, request.real);
    const std::filesystem::path& through = pin->open_path();
    std::optional<LayerWords> layer;
    if (pool_->config.ocr.pdf_text && io::is_pdf(through))
      layer = layer_words(io::read_pdf_text(through, request.page));
    cv::Mat rgb;
    if (!layer) {
      std::string said;
      // The OCR engine reads the decoder's matrix itself: no tensor on the way (LibTorch is the
      // models').
      rgb = io::read_page_pixels(through, request.page, pool_->pages, &said);
      if (!said.empty()) record.warning = pin->named(said);
    }
    record.timings_s["decode_image"] = seconds_since(t);
    record.image = {{"width", layer ? layer->width : rgb.cols},
                    {"height", layer ? layer->height : rgb.rows}};
    const Pool::Lease s(*pool_);
    const auto read_start = Clock::now();
    const ocr::Engine::Result read =
        layer ? s->engine.read_words(std::move(layer->words), layer->width, layer->height,
                                     s->field_names)
              : s->engine.read(rgb, s->field_names);
    record.timings_s[layer ? "text_layer" : "ocr"] = seconds_since(read_start);
    fill_record(record, read, s->schema);
  } catch (const std::exception& e) {  // an unreadable image fails this image only
    record.status = Record::Status::Failed;
    record.error = first_line(pin ? pin->named(e.what()) : e.what());
  }
  record.memory = {{"after", memory::to_json(memory::read_host_memory())}};
  return out;
}

}  // namespace docsift::batch
