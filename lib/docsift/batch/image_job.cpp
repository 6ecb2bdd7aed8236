#include "docsift/batch/image_job.h"

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <opencv2/core/mat.hpp>

#include "docsift/config/derive.h"
#include "docsift/error.h"
#include "docsift/extract/response_parser.h"
#include "docsift/family/family.h"
#include "docsift/generate/engine.h"
#include "docsift/generate/generate.h"
#include "docsift/io/pages.h"
#include "docsift/io/pdf.h"
#include "docsift/memory/cleanup.h"
#include "docsift/device/devices.h"
#include "docsift/memory/host.h"
#include "docsift/memory/plan.h"
#include "docsift/ocr/engine.h"
#include "docsift/resilience/ladder.h"

namespace docsift::batch {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// An exception's first line: a record's error is one line.
std::string first_line(const std::string& what) { return what.substr(0, what.find('\n')); }

}  // namespace

io::PageOptions page_options(const config::Config& c) {
  io::PageOptions o;
  o.pdf_dpi = c.input.pdf_dpi.value_or(config::resolved_engine(c) == config::Engine::Ocr ? 300 : 160);
  o.max_pages = c.input.max_pages;
  return o;
}

struct ImageJob::State {
  config::Config cfg;
  extract::FieldSchema schema;
  c10::Device device;
  generate::Engine engine;
  resilience::Ladder ladder;
  std::string prompt_text;
  std::vector<std::string> field_names;
  generate::GenerationOptions gen;
  std::uint64_t threshold;
  std::optional<std::uint64_t> budget;
  io::PageOptions pages;

  explicit State(const config::Config& c)
      : cfg(c),
        schema(extract::load_field_schema(c.extraction.fields)),
        device(device::resolve_device(c.model.device)),
        engine(c.model.path, /*require_weights=*/true, config::family_options(c)),
        ladder(engine, config::ladder_settings(c, device)),
        prompt_text(extract::build_prompt(schema)),
        field_names(schema.names()),
        threshold(static_cast<std::uint64_t>(c.memory.fragmentation_threshold_mb) << 20),
        pages(page_options(c)) {
    gen = config::generation_options(c, engine.family().auto_max_new_tokens(schema), engine.chat().stop_ids());
    if (device.is_cuda()) {
      if (c.memory.budget_gb) {
        budget = static_cast<std::uint64_t>(*c.memory.budget_gb * 1073741824.0);
      } else if (const auto d = memory::read_device_memory(device); d.valid) {
        budget = d.driver_free + d.reserved;  // what this process can have
      }
    }
  }
};

// The OCR engine's share: no device, no ladder; the page is read on the CPU.
struct ImageJob::OcrState {
  extract::FieldSchema schema;
  std::vector<std::string> field_names;
  ocr::Engine engine;
  io::PageOptions pages;
  bool pdf_text;
  resilience::FaultPlan no_faults;

  explicit OcrState(const config::Config& c)
      : schema(extract::load_field_schema(c.extraction.fields)),
        field_names(schema.names()),
        engine(c.ocr),
        pages(page_options(c)),
        pdf_text(c.ocr.pdf_text) {}
};

ImageJob::ImageJob(const config::Config& config, bool in_worker) {
  if (config::resolved_engine(config) == config::Engine::Ocr) {
    ocr_ = std::make_unique<OcrState>(config);
    return;
  }
  s_ = std::make_unique<State>(config);
  if (!in_worker && s_->ladder.settings().faults.needs_isolation()) {
    throw ConfigError("fault plan (testing.faults / DOCSIFT_FAULTS): crash and hang faults need worker isolation "
                      "(--isolate worker, or memory.isolate: worker)");
  }
}

const resilience::FaultPlan& ImageJob::faults() const { return ocr_ ? ocr_->no_faults : s_->ladder.settings().faults; }
ImageJob::~ImageJob() = default;

void ImageJob::warm_up() {
  if (s_) s_->ladder.warm_up();
}
void ImageJob::set_process_attempt(int attempt) {
  if (s_) s_->ladder.set_process_attempt(attempt);
}
std::string ImageJob::device() const { return s_ ? s_->device.str() : "cpu"; }

std::uint64_t ImageJob::memory_in_use() const {
  if (s_ && s_->device.is_cuda()) {
    if (const auto d = memory::read_device_memory(s_->device); d.valid) return d.reserved;
  }
  return memory::read_host_memory().rss_bytes;
}

ImageJob::Outcome ImageJob::process_ocr(const std::filesystem::path& path, int page) {
  Outcome out;
  Record& record = out.record;
  auto& timings = record.timings_s;
  try {
    auto t = Clock::now();
    std::optional<ocr::Engine::Result> read;
    // A born-digital PDF's text layer, where it is usable: exact text, no rendering, no OCR.
    if (ocr_->pdf_text && io::is_pdf(path)) {
      const io::PdfText layer = io::read_pdf_text(path, page);
      constexpr double kScale = 300.0 / 72.0;  // points → pixels at 300 dpi, the OCR's resolution
      std::vector<ocr::Word> words;
      for (const auto& w : layer.words) {
        const auto px = [&](double v) { return static_cast<int>(std::lround(v * kScale)); };
        words.push_back({w.text, {px(w.left), px(w.top), px(w.right), px(w.bottom)}, 100.0f});
      }
      if (ocr::usable_text_layer(words)) {
        const int width = static_cast<int>(std::lround(layer.width * kScale));
        const int height = static_cast<int>(std::lround(layer.height * kScale));
        timings["decode_image"] = since(t);
        record.image = {{"width", width}, {"height", height}};
        t = Clock::now();
        read = ocr_->engine.read_words(std::move(words), width, height, ocr_->field_names);
        timings["text_layer"] = since(t);
      }
    }
    if (!read) {
      const at::Tensor rgb = io::read_page(path, page, ocr_->pages);  // (H, W, 3) uint8, contiguous
      timings["decode_image"] = since(t);
      record.image = {{"width", rgb.size(1)}, {"height", rgb.size(0)}};
      t = Clock::now();
      const cv::Mat view(static_cast<int>(rgb.size(0)), static_cast<int>(rgb.size(1)), CV_8UC3, rgb.data_ptr());
      read = ocr_->engine.read(view, ocr_->field_names);
      timings["ocr"] = since(t);
    }
    record.status = Record::Status::Ok;
    record.tier = "ocr";
    record.text_source = read->text_source;
    record.fields = read->fields;
    record.raw_response = read->text;
    record.tokens = Record::Tokens{0, 0};
    record.engine = read->info;
  } catch (const std::exception& e) {  // an unreadable image fails this image only
    record.status = Record::Status::Failed;
    record.error = first_line(e.what());
  }
  record.memory = {{"after", memory::to_json(memory::read_memory(c10::Device(c10::kCPU)))}};
  return out;
}

ImageJob::Outcome ImageJob::process(const std::filesystem::path& path, int page, int index,
                                    const std::function<bool()>& interrupt) {
  if (ocr_) return process_ocr(path, page);
  State& s = *s_;
  Outcome out;
  Record& record = out.record;
  auto& timings = record.timings_s;
  generate::GenerationOptions gen = s.gen;
  gen.interrupt = interrupt;
  try {
    auto t = Clock::now();
    const at::Tensor rgb = io::read_page(path, page, s.pages);
    timings["decode_image"] = since(t);
    t = Clock::now();
    const family::ImageInputs inputs = s.engine.family().preprocess(rgb, s.cfg.model.max_tiles);
    const int tiles = inputs.tiles;
    const std::vector<int32_t> prompt = s.engine.chat().encode(s.prompt_text, tiles);
    timings["preprocess"] = since(t);
    record.image = {{"width", rgb.size(1)}, {"height", rgb.size(0)}, {"tiles", tiles}};

    std::optional<memory::Tier> start_tier;
    if (s.budget) {
      const memory::MemoryPlan plan = memory::plan_memory(config::plan_request(
          s.cfg, s.engine.memory_shape(), tiles, static_cast<std::int64_t>(prompt.size()), gen.max_new_tokens, s.budget));
      start_tier = plan.first_fitting();
      for (const auto& tp : plan.tiers) {
        if (tp.tier == *start_tier) {
          record.plan = {{"start_tier", to_string(tp.tier)}, {"predicted_device_bytes", tp.device_bytes}};
        }
      }
    }
    const resilience::ImageRun run = s.ladder.run(index, inputs, prompt, gen, start_tier);  // may throw Interrupted
    record.attempts = nlohmann::json::array();
    for (const auto& a : run.attempts) record.attempts.push_back(resilience::to_json(a));
    if (run.ok) {
      const std::string text = s.engine.tokenizer().decode(run.result.tokens, /*skip_special_tokens=*/true);
      record.status = Record::Status::Ok;
      record.tier = to_string(run.tier);
      record.engine = {{"name", "vlm"}};
      record.fields = extract::parse_response(text, s.field_names);
      record.raw_response = text;
      record.tokens = Record::Tokens{run.result.prompt_tokens, static_cast<std::int64_t>(run.result.tokens.size())};
      // The weights that produced this record, as held (bytes summed over the loaded tensors).
      const auto& model = s.engine.model();
      record.model = {{"dtype", std::string(c10::toString(model.dtype()))},
                         {"quantization", std::string(to_string(model.numerics().quantization))},
                         {"weight_bytes", model.parameter_bytes()},
                         {"scratch_bytes", model.scratch_bytes()}};
      timings["vision"] = run.result.vision_seconds;
      timings["prefill"] = run.result.prefill_seconds;
      timings["decode"] = run.result.decode_seconds;
      if (run.peak.valid && !record.plan.is_null()) record.plan["measured_peak_allocated"] = run.peak.peak_allocated;
    } else {
      record.status = Record::Status::Failed;
      record.error = run.error;
      out.fatal = run.fatal;
      out.fatal_error = run.error;
    }
  } catch (const generate::Interrupted&) {
    throw;  // the caller abandons the image
  } catch (const std::exception& e) {  // decode and preprocess errors fail this image only
    record.status = Record::Status::Failed;
    record.error = first_line(e.what());
  }
  if (s.cfg.memory.cleanup == memory::Cleanup::AfterImage) {
    record.memory = memory::to_json(memory::cleanup(s.device, s.threshold));
  } else {
    record.memory = {{"after", memory::to_json(memory::read_memory(s.device))}};
  }
  return out;
}

}  // namespace docsift::batch
