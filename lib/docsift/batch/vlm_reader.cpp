#include "docsift/batch/vlm_reader.h"
#include "docsift/batch/vlm_tables.h"

#include <ATen/core/Tensor.h>

#include <chrono>
#include <optional>
#include <sstream>

#include "docsift/config/derive.h"
#include "docsift/device/devices.h"
#include "docsift/error.h"
#include "docsift/extract/response_parser.h"
#include "docsift/family/family.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/confidence.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/io/pages.h"
#include "docsift/memory/cleanup.h"
#include "docsift/memory/host.h"
#include "docsift/memory/plan.h"
#include "docsift/resilience/ladder.h"
#include "docsift/stopwatch.h"

namespace docsift::batch {
struct VlmReader::State {
  config::Config cfg;
  extract::FieldSchema schema;
  c10::Device device;
  family::LoadedModel engine;
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
        prompt_text(extract::build_prompt(schema, c.extraction.tables)),
        field_names(schema.names()),
        threshold(static_cast<std::uint64_t>(c.memory.fragmentation_threshold_mb) << 20),
        pages(page_options(c)) {
    // max_new_tokens auto: the family's budget for the fields, and each table's line at its cap.
    int auto_tokens = engine.family().auto_max_new_tokens(schema);
    if (c.extraction.tables) {
      for (const extract::TableSpec& t : schema.tables) auto_tokens += t.max_tokens;
    }
    gen = config::generation_options(c, auto_tokens, engine.chat().stop_ids());
    if (c.extraction.decoding == config::Decoding::Keys) {
      if (!gen.greedy) {
        std::ostringstream temperature;
        temperature << c.generation.temperature;
        throw ConfigError("extraction.decoding: keys is greedy, but generation.temperature is " +
                          temperature.str() +
                          "; set it to 0, or extraction.decoding: free to sample");
      }
      gen.keys = std::make_shared<const generate::KeyPlan>(
          generate::make_key_plan(schema, engine.tokenizer(), c.extraction.tables));
    }
    if (device.is_cuda()) {
      if (c.memory.budget_gb) {
        budget = static_cast<std::uint64_t>(*c.memory.budget_gb * 1073741824.0);
      } else if (const auto d = memory::read_device_memory(device); d.valid) {
        budget = d.driver_free + d.reserved;  // what this process can have
      }
    }
  }

  // The tier the ladder starts at for an image of `tiles` tiles and `prompt_tokens` tokens: the
  // first the memory plan predicts fits the budget, noted in `record`; none without a budget.
  std::optional<memory::Tier> start_tier(int tiles, std::size_t prompt_tokens,
                                         const generate::GenerationOptions& gen,
                                         Record& record) const;
  // A ladder run that succeeded, into `record`: the answer parsed into fields, their confidences,
  // the tokens, the model and the timings.
  void record_answer(const resilience::ImageRun& run, const generate::GenerationOptions& gen,
                     Record& record) const;
};

std::optional<memory::Tier> VlmReader::State::start_tier(int tiles, std::size_t prompt_tokens,
                                                         const generate::GenerationOptions& gen,
                                                         Record& record) const {
  if (!budget) return std::nullopt;
  const memory::MemoryPlan plan = memory::plan_memory(config::plan_request(
      cfg, engine.memory_shape(), tiles, static_cast<std::int64_t>(prompt_tokens),
      gen.keys ? static_cast<int>(gen.keys->stream_tokens(gen.max_new_tokens)) : gen.max_new_tokens,
      budget));
  const memory::Tier start = plan.first_fitting();
  for (const auto& tp : plan.tiers) {
    if (tp.tier == start) {
      record.plan = {{"start_tier", to_string(tp.tier)},
                     {"predicted_device_bytes", tp.device_bytes}};
    }
  }
  return start;
}

void VlmReader::State::record_answer(const resilience::ImageRun& run,
                                     const generate::GenerationOptions& gen, Record& record) const {
  auto& timings = record.timings_s;
  const text::Tokenizer& tokenizer = engine.tokenizer();
  const std::string text = gen.keys
                               ? generate::keyed_answer(*gen.keys, run.result.values, tokenizer)
                               : tokenizer.decode(run.result.tokens, /*skip_special_tokens=*/true);
  record.status = Record::Status::Ok;
  record.tier = to_string(run.tier);
  record.engine = {{"name", "vlm"}};
  record.fields = extract::parse_response(text, field_names);
  record.raw_response = text;
  record.decoding = std::string(config::to_string(cfg.extraction.decoding));
  // The model's raw confidence per field with a value, from its picks' probabilities
  // (generate/confidence.h; extraction.confidence picks the aggregate).
  std::map<std::string, std::string> scored = *record.fields;
  if (cfg.extraction.tables) scored.merge(table_values(schema, text));
  generate::Confidences confidences = generate::field_confidences(
      run.result, gen.keys.get(), tokenizer, scored, cfg.extraction.confidence);
  // The tables' rows into line_items, and the lists made from them (batch/vlm_tables.h).
  if (cfg.extraction.tables) record_tables(schema, text, record, confidences.fields);
  record.confidence = std::move(confidences.fields);
  record.document_type_confidence = confidences.document_type;
  record.tokens = Record::Tokens{run.result.prompt_tokens, run.result.generated, run.result.forced};
  // The weights that produced this record, as held (bytes summed over the loaded tensors).
  const auto& model = engine.model();
  record.model = {{"dtype", std::string(c10::toString(model.dtype()))},
                  {"quantization", std::string(to_string(model.numerics().quantization))},
                  {"weight_bytes", model.parameter_bytes()},
                  {"scratch_bytes", model.scratch_bytes()}};
  timings["vision"] = run.result.vision_seconds;
  timings["prefill"] = run.result.prefill_seconds;
  timings["decode"] = run.result.decode_seconds;
  if (run.peak.valid && !record.plan.is_null())
    record.plan["measured_peak_allocated"] = run.peak.peak_allocated;
}

VlmReader::VlmReader(const config::Config& config, bool in_worker)
    : s_(std::make_unique<State>(config)) {
  if (!in_worker && s_->ladder.settings().faults.needs_isolation()) {
    throw ConfigError(
        "fault plan (testing.faults / DOCSIFT_FAULTS): crash and hang faults need worker isolation "
        "(--isolate worker, or memory.isolate: worker)");
  }
}

const resilience::FaultPlan& VlmReader::faults() const { return s_->ladder.settings().faults; }
VlmReader::~VlmReader() = default;

void VlmReader::warm_up() { s_->ladder.warm_up(); }
void VlmReader::set_process_attempt(int attempt) { s_->ladder.set_process_attempt(attempt); }
std::string VlmReader::device() const { return s_->device.str(); }

std::uint64_t VlmReader::memory_in_use() const {
  if (s_->device.is_cuda()) {
    if (const auto d = memory::read_device_memory(s_->device); d.valid) return d.reserved;
  }
  return memory::read_host_memory().rss_bytes;
}

PageOutcome VlmReader::read(const PageRequest& request) {
  State& s = *s_;
  PageOutcome out;
  Record& record = out.record;
  auto& timings = record.timings_s;
  generate::GenerationOptions gen = s.gen;
  gen.interrupt = request.interrupt;
  try {
    auto t = Clock::now();
    std::string said;
    const at::Tensor rgb = image::read_page(request.path, request.page, s.pages, &said);
    if (!said.empty()) record.warning = said;
    timings["decode_image"] = seconds_since(t);
    t = Clock::now();
    const family::ImageInputs inputs = s.engine.family().preprocess(rgb, s.cfg.model.max_tiles);
    const int tiles = inputs.tiles;
    const std::vector<int32_t> prompt = s.engine.chat().encode(s.prompt_text, inputs.prompt_units);
    timings["preprocess"] = seconds_since(t);
    record.image = {{"width", rgb.size(1)}, {"height", rgb.size(0)}, {"tiles", tiles}};

    const std::optional<memory::Tier> start_tier = s.start_tier(tiles, prompt.size(), gen, record);
    const resilience::ImageRun run =
        s.ladder.run(request.index, inputs, prompt, gen, start_tier);  // may throw StopRequested
    record.attempts = nlohmann::json::array();
    for (const auto& a : run.attempts) record.attempts.push_back(resilience::to_json(a));
    if (run.ok) {
      s.record_answer(run, gen, record);
    } else {
      record.status = Record::Status::Failed;
      record.error = run.error;
      out.fatal = run.fatal;
      out.fatal_error = run.error;
    }
  } catch (const StopRequested&) {
    throw;                             // the caller abandons the image
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
