#include "docsift/config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "docsift/config/allocator_conf.h"
#include "docsift/error.h"
#include "docsift/resilience/faults.h"

namespace docsift::config {

using family::mllama::CrossAttentionRows;
using image::Resample;
using memory::Cleanup;
using memory::Tier;
using memory::tier_names;
using model::Float16Residual;
using model::Precision;
using model::Quantization;

namespace {

// Where a value came from, for error messages: "configs/a.yaml:12:5" or "--set a.b=c".
struct Where {
  std::string source;
  const YAML::Node* node = nullptr;  // gives line:column when the source is a file
  bool is_file = false;

  std::string text() const {
    if (is_file && node != nullptr && node->Mark().line >= 0) {
      return source + ":" + std::to_string(node->Mark().line + 1) + ":" +
             std::to_string(node->Mark().column + 1);
    }
    return source;
  }
};

[[noreturn]] void fail(const Where& where, std::string_view key, const std::string& problem) {
  throw ConfigError(where.text() + ": " + std::string(key) + ": " + problem);
}

std::string shown(const YAML::Node& node) {
  if (node.IsNull()) return "null";
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  if (node.IsSequence()) return "a list";
  return "a mapping";
}

template <class E, std::size_t N>
std::string choices(const Names<E, N>& names) {
  std::string out;
  for (const auto& [v, n] : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// ---- scalar decoders: each checks the YAML node and the range, naming key and source ----

std::string scalar(const YAML::Node& node, const Where& where, std::string_view key,
                   std::string_view want) {
  if (!node.IsScalar()) fail(where, key, "expected " + std::string(want) + ", got " + shown(node));
  return node.Scalar();
}

long long integer(const YAML::Node& node, const Where& where, std::string_view key, long long lo,
                  long long hi) {
  const std::string want = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const std::string s = scalar(node, where, key, want);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value < lo || value > hi) {
    fail(where, key, "expected " + want + ", got '" + s + "'");
  }
  return value;
}

double real(const YAML::Node& node, const Where& where, std::string_view key, double lo, double hi,
            bool lo_open) {
  std::ostringstream want;
  want << "a number " << (lo_open ? "> " : ">= ") << lo << " and <= " << hi;
  const std::string s = scalar(node, where, key, want.str());
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(value) ||
      (lo_open ? value <= lo : value < lo) || value > hi) {
    fail(where, key, "expected " + want.str() + ", got '" + s + "'");
  }
  return value;
}

std::string text(const YAML::Node& node, const Where& where, std::string_view key) {
  return scalar(node, where, key, "a string");
}

template <class E, std::size_t N>
E choice(const YAML::Node& node, const Where& where, std::string_view key,
         const Names<E, N>& names) {
  const std::string s = scalar(node, where, key, "one of " + choices(names));
  for (const auto& [v, n] : names) {
    if (n == s) return v;
  }
  fail(where, key, "expected one of " + choices(names) + ", got '" + s + "'");
}

void check_device(const std::string& device, const Where& where, std::string_view key) {
  if (device == "cpu" || device == "cuda") return;
  if (device.starts_with("cuda:")) {
    int index = -1;
    const char* first = device.data() + 5;
    const char* last = device.data() + device.size();
    const auto [ptr, ec] = std::from_chars(first, last, index);
    if (ec == std::errc() && ptr == last && first != last && index >= 0 && index < 64) return;
  }
  fail(where, key, "expected cpu, cuda or cuda:N, got '" + device + "'");
}

// ---- the schema: one entry per leaf key, in the order to_yaml writes them ----

struct Field {
  std::string_view key;
  std::string_view help;
  std::function<void(Config&, const YAML::Node&, const Where&)> set;
  std::function<YAML::Node(const Config&)> get;
};

YAML::Node node_of(const std::string& s) { return YAML::Node(s); }
YAML::Node node_of(std::string_view s) { return YAML::Node(std::string(s)); }

// A list written on one line, as in the documented schema: [standard, cpu].
YAML::Node flow_list(const std::vector<std::string>& items) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const auto& item : items) list.push_back(item);
  list.SetStyle(YAML::EmitterStyle::Flow);
  return list;
}

const std::vector<Field>& schema() {
  static const std::vector<Field> fields = [] {
    std::vector<Field> f;
    f.push_back({"model.path", "model folder (Hugging Face layout: config.json + *.safetensors)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.model.path = n.IsNull() ? "" : text(n, w, "model.path");
                 },
                 [](const Config& c) { return c.model.path.empty() ? YAML::Node() : node_of(c.model.path); }});
    f.push_back({"model.dtype", "weights and activations on the device: float32, float16 or bfloat16",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.model.dtype = choice(n, w, "model.dtype", model::kPrecisionNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.model.dtype)); }});
    f.push_back({"model.device", "cpu, cuda or cuda:N",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   auto d = text(n, w, "model.device");
                   check_device(d, w, "model.device");
                   c.model.device = d;
                 },
                 [](const Config& c) { return node_of(c.model.device); }});
    f.push_back({"model.max_tiles", "most image tiles per document (1-40)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.model.max_tiles = static_cast<int>(integer(n, w, "model.max_tiles", 1, 40));
                 },
                 [](const Config& c) { return YAML::Node(c.model.max_tiles); }});
    f.push_back({"model.quantization",
                 "none, or int8: language-model linear layers as int8 with one scale per output channel "
                 "(vision tower and projector stay in model.dtype)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.model.quantization = choice(n, w, "model.quantization", model::kQuantizationNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.model.quantization)); }});
    f.push_back({"model.float16_residual",
                 "with dtype float16, the residual stream between decoder layers: float32 (safe), "
                 "float16 (overflows on Qwen2's massive activations) or clamp",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.model.float16_residual = choice(n, w, "model.float16_residual", model::kFloat16ResidualNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.model.float16_residual)); }});
    f.push_back({"model.cross_attention_rows",
                 "Llama 3.2 Vision, prompt rows before <|image|>: transformers (keep their gated cross-attention "
                 "output, as published Hub results) or meta (zero it, as Meta's reference)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.model.cross_attention_rows = choice(n, w, "model.cross_attention_rows", family::mllama::kCrossAttentionRowsNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.model.cross_attention_rows)); }});
    f.push_back({"vision.resample",
                 "auto (as the checkpoint's reference code: pil for InternVL3's original layout, torch for -hf), "
                 "pil (Pillow's bicubic, exactly) or torch (torchvision's tensor path)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.vision.resample = choice(n, w, "vision.resample", image::kResampleNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.vision.resample)); }});
    f.push_back({"generation.max_new_tokens", "auto (from the field count) or 1-32768",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   if (n.IsScalar() && n.Scalar() == "auto") {
                     c.generation.max_new_tokens.reset();
                   } else {
                     c.generation.max_new_tokens =
                         static_cast<int>(integer(n, w, "generation.max_new_tokens", 1, 32768));
                   }
                 },
                 [](const Config& c) {
                   return c.generation.max_new_tokens ? YAML::Node(*c.generation.max_new_tokens)
                                                      : YAML::Node("auto");
                 }});
    f.push_back({"generation.temperature", "0 = greedy; otherwise sampling temperature (<= 10)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.generation.temperature = real(n, w, "generation.temperature", 0.0, 10.0, false);
                 },
                 [](const Config& c) { return YAML::Node(c.generation.temperature); }});
    f.push_back({"generation.top_p", "nucleus sampling mass, > 0 and <= 1",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.generation.top_p = real(n, w, "generation.top_p", 0.0, 1.0, true);
                 },
                 [](const Config& c) { return YAML::Node(c.generation.top_p); }});
    f.push_back({"generation.seed", "sampling seed (a non-negative integer)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.generation.seed = static_cast<std::uint64_t>(
                       integer(n, w, "generation.seed", 0, std::numeric_limits<long long>::max()));
                 },
                 [](const Config& c) { return YAML::Node(c.generation.seed); }});
    f.push_back({"memory.allocator", "CUDA caching allocator settings (PYTORCH_CUDA_ALLOC_CONF syntax)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const std::string s = n.IsNull() ? "" : text(n, w, "memory.allocator");
                   try {
                     parse_allocator_conf(s);
                   } catch (const ConfigError& e) {
                     fail(w, "memory.allocator", e.what());
                   }
                   c.memory.allocator = s;
                 },
                 [](const Config& c) { return node_of(c.memory.allocator); }});
    f.push_back({"memory.fragmentation_threshold_mb",
                 "empty the allocator cache when reserved-allocated or inactive split exceeds this",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.fragmentation_threshold_mb = static_cast<int>(
                       integer(n, w, "memory.fragmentation_threshold_mb", 0, 1 << 20));
                 },
                 [](const Config& c) { return YAML::Node(c.memory.fragmentation_threshold_mb); }});
    f.push_back({"memory.cleanup", "after_image or never",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.cleanup = choice(n, w, "memory.cleanup", memory::kCleanupNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.memory.cleanup)); }});
    f.push_back({"memory.budget_gb", "null (whole device) or the GB to emulate, e.g. 16 for a V100",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   if (n.IsNull()) {
                     c.memory.budget_gb.reset();
                   } else {
                     c.memory.budget_gb = real(n, w, "memory.budget_gb", 0.0, 4096.0, true);
                   }
                 },
                 [](const Config& c) {
                   return c.memory.budget_gb ? YAML::Node(*c.memory.budget_gb) : YAML::Node();
                 }});
    f.push_back({"memory.tiers", "out-of-memory ladder, tried in order (any of standard, offloaded_cache, reload, reload_retry, cpu)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   if (!n.IsSequence() || n.size() == 0) {
                     fail(w, "memory.tiers", "expected a non-empty list of tiers (" +
                                                 choices(memory::kTierNames) + "), got " + shown(n));
                   }
                   std::vector<Tier> tiers;
                   for (const auto& item : n) {
                     const Tier t = choice(item, w, "memory.tiers", memory::kTierNames);
                     if (std::find(tiers.begin(), tiers.end(), t) != tiers.end()) {
                       fail(w, "memory.tiers", "tier '" + item.Scalar() + "' is listed twice");
                     }
                     tiers.push_back(t);
                   }
                   c.memory.tiers = tiers;
                 },
                 [](const Config& c) {
                   std::vector<std::string> names;
                   for (const Tier t : c.memory.tiers) names.emplace_back(to_string(t));
                   return flow_list(names);
                 }});
    f.push_back({"memory.cpu_dtype", "precision of the cpu tier: float32 or bfloat16",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const Precision p = choice(n, w, "memory.cpu_dtype", model::kPrecisionNames);
                   if (p == Precision::Float16) {
                     fail(w, "memory.cpu_dtype", "float16 matmuls on the CPU are slow and lossy; "
                                                 "use float32 or bfloat16");
                   }
                   c.memory.cpu_dtype = p;
                 },
                 [](const Config& c) { return node_of(to_string(c.memory.cpu_dtype)); }});
    f.push_back({"memory.cpu_quantization",
                 "none (as the reference), or int8 for hosts without room for the full-precision model",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.cpu_quantization = choice(n, w, "memory.cpu_quantization", model::kQuantizationNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.memory.cpu_quantization)); }});
    f.push_back({"memory.isolate", "none, or worker (model in a child process)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.isolate = choice(n, w, "memory.isolate", kIsolationNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.memory.isolate)); }});
    f.push_back({"memory.worker.recycle_after_images", "restart the worker after N images (0 = never)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.worker.recycle_after_images = static_cast<int>(
                       integer(n, w, "memory.worker.recycle_after_images", 0, 1'000'000));
                 },
                 [](const Config& c) { return YAML::Node(c.memory.worker.recycle_after_images); }});
    f.push_back({"memory.worker.recycle_above_mb",
                 "restart the worker when its device memory passes N MB (0 = never)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.worker.recycle_above_mb = static_cast<int>(
                       integer(n, w, "memory.worker.recycle_above_mb", 0, 1 << 24));
                 },
                 [](const Config& c) { return YAML::Node(c.memory.worker.recycle_above_mb); }});
    f.push_back({"memory.worker.timeout_s", "kill a worker that takes longer than this per image",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.memory.worker.timeout_s =
                       static_cast<int>(integer(n, w, "memory.worker.timeout_s", 1, 86'400));
                 },
                 [](const Config& c) { return YAML::Node(c.memory.worker.timeout_s); }});
    f.push_back({"extraction.fields", "field schema file",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.extraction.fields = text(n, w, "extraction.fields");
                   if (c.extraction.fields.empty()) fail(w, "extraction.fields", "must not be empty");
                 },
                 [](const Config& c) { return node_of(c.extraction.fields); }});
    f.push_back({"input.pdf_dpi",
                 "auto (300 for ocr, 160 for a vision-language model) or 50-600: the resolution PDF pages are "
                 "rendered at",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   if (n.IsScalar() && n.Scalar() == "auto") {
                     c.input.pdf_dpi.reset();
                   } else {
                     c.input.pdf_dpi = static_cast<int>(integer(n, w, "input.pdf_dpi", 50, 600));
                   }
                 },
                 [](const Config& c) { return c.input.pdf_dpi ? YAML::Node(*c.input.pdf_dpi) : YAML::Node("auto"); }});
    f.push_back({"input.max_pages", "most pages per PDF or TIFF file (1-10000); a longer file fails",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.input.max_pages = static_cast<int>(integer(n, w, "input.max_pages", 1, 10000));
                 },
                 [](const Config& c) { return YAML::Node(c.input.max_pages); }});
    f.push_back({"extraction.engine",
                 "auto (the model when model.path is set, else ocr), vlm (the vision-language model) or ocr "
                 "(Tesseract and field rules, no weights)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.extraction.engine = choice(n, w, "extraction.engine", kEngineNames);
                 },
                 [](const Config& c) { return node_of(to_string(c.extraction.engine)); }});
    f.push_back({"ocr.language", "Tesseract language data, e.g. eng or eng+deu (Debian: tesseract-ocr-LANG)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.ocr.language = text(n, w, "ocr.language");
                   if (c.ocr.language.empty()) fail(w, "ocr.language", "must not be empty");
                 },
                 [](const Config& c) { return node_of(c.ocr.language); }});
    f.push_back({"ocr.rules", "the OCR engine's labels and rules: builtin:ocr-rules or a file in its layout",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.ocr.rules = text(n, w, "ocr.rules");
                   if (c.ocr.rules.empty()) fail(w, "ocr.rules", "must not be empty");
                 },
                 [](const Config& c) { return node_of(c.ocr.rules); }});
    f.push_back({"ocr.deskew", "true: straighten a skewed scan before reading it",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const auto v = scalar(n, w, "ocr.deskew", "true or false");
                   if (v != "true" && v != "false") fail(w, "ocr.deskew", "expected true or false, got " + shown(n));
                   c.ocr.deskew = v == "true";
                 },
                 [](const Config& c) { return YAML::Node(c.ocr.deskew); }});
    f.push_back({"ocr.page_segmentation",
                 "block (the page as one block of text, best on receipts), auto (Tesseract's layout analysis) "
                 "or sparse (text in any order)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const auto v = scalar(n, w, "ocr.page_segmentation", "block, auto or sparse");
                   if (v != "block" && v != "auto" && v != "sparse") {
                     fail(w, "ocr.page_segmentation", "expected block, auto or sparse, got " + shown(n));
                   }
                   c.ocr.page_segmentation = v;
                 },
                 [](const Config& c) { return node_of(c.ocr.page_segmentation); }});
    f.push_back({"ocr.threads",
                 "1 or 2: with 2, a tall page (a receipt) is read as two halves at once on two cores "
                 "(bench/ocr/README.md: 1.2x the pages per second; some digits read differently)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.ocr.threads = static_cast<int>(integer(n, w, "ocr.threads", 1, 2));
                 },
                 [](const Config& c) { return YAML::Node(c.ocr.threads); }});
    f.push_back({"ocr.date_order",
                 "auto (day first, unless more of the page's dates can only be read month first than day "
                 "first), dmy or mdy: how numeric dates such as 03/04/2025 are read",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const auto v = scalar(n, w, "ocr.date_order", "auto, dmy or mdy");
                   if (v != "auto" && v != "dmy" && v != "mdy") fail(w, "ocr.date_order", "expected auto, dmy or mdy, got " + shown(n));
                   c.ocr.date_order = v;
                 },
                 [](const Config& c) { return node_of(c.ocr.date_order); }});
    f.push_back({"ocr.pdf_text",
                 "true: a PDF page with a usable text layer is read from it, not rendered and OCR'd; false: "
                 "OCR every page",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const auto v = scalar(n, w, "ocr.pdf_text", "true or false");
                   if (v != "true" && v != "false") fail(w, "ocr.pdf_text", "expected true or false, got " + shown(n));
                   c.ocr.pdf_text = v == "true";
                 },
                 [](const Config& c) { return YAML::Node(c.ocr.pdf_text); }});
    f.push_back({"output.dir", "where results.jsonl, predictions.csv and summary.json go",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   c.output.dir = text(n, w, "output.dir");
                   if (c.output.dir.empty()) fail(w, "output.dir", "must not be empty");
                 },
                 [](const Config& c) { return node_of(c.output.dir); }});
    f.push_back({"output.formats", "list of jsonl (the journal, always on) and csv",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   if (!n.IsSequence()) fail(w, "output.formats", "expected a list, got " + shown(n));
                   std::vector<std::string> formats;
                   for (const auto& item : n) {
                     const auto s = scalar(item, w, "output.formats", "jsonl or csv");
                     if (s != "jsonl" && s != "csv") {
                       fail(w, "output.formats", "unknown format '" + s + "' (expected jsonl, csv)");
                     }
                     if (std::find(formats.begin(), formats.end(), s) != formats.end()) {
                       fail(w, "output.formats", "format '" + s + "' is listed twice");
                     }
                     formats.push_back(s);
                   }
                   if (std::find(formats.begin(), formats.end(), "jsonl") == formats.end()) {
                     fail(w, "output.formats",
                          "jsonl is the run journal that --resume reads; it cannot be turned off");
                   }
                   c.output.formats = formats;
                 },
                 [](const Config& c) { return flow_list(c.output.formats); }});
    f.push_back({"testing.faults",
                 "fault injection plan, e.g. oom@prefill:image=2 (same grammar as DOCSIFT_FAULTS, which is added to it)",
                 [](Config& c, const YAML::Node& n, const Where& w) {
                   const std::string plan = n.IsNull() ? std::string() : text(n, w, "testing.faults");
                   try {
                     (void)resilience::FaultPlan::parse(plan, tier_names());
                   } catch (const ConfigError& e) {
                     fail(w, "testing.faults", e.what());
                   }
                   c.testing.faults = plan;
                 },
                 [](const Config& c) { return node_of(c.testing.faults); }});
    return f;
  }();
  return fields;
}

const Field* find_field(std::string_view key) {
  for (const auto& f : schema()) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

// A section is any proper prefix of a key: "model", "memory", "memory.worker".
bool is_section(std::string_view path) {
  for (const auto& f : schema()) {
    if (f.key.size() > path.size() && f.key.starts_with(path) && f.key[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string unknown_key_message(std::string_view path) {
  std::string best;
  std::size_t best_distance = 4;  // suggest only near misses
  std::set<std::string> candidates;
  for (const auto& f : schema()) {
    candidates.insert(std::string(f.key));
    for (auto dot = f.key.find('.'); dot != std::string_view::npos; dot = f.key.find('.', dot + 1)) {
      candidates.insert(std::string(f.key.substr(0, dot)));
    }
  }
  for (const auto& c : candidates) {
    const auto d = edit_distance(path, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  std::string msg = "unknown key";
  if (!best.empty()) msg += " (did you mean " + best + "?)";
  msg += "; `docsift config` lists every key";
  return msg;
}

void apply_map(Config& config, const YAML::Node& map, const std::string& prefix,
               const std::string& source) {
  std::set<std::string> seen;
  for (const auto& item : map) {
    const YAML::Node key_node = item.first;
    const YAML::Node value = item.second;
    Where where{source, &key_node, true};
    if (!key_node.IsScalar()) fail(where, prefix.empty() ? "(top level)" : prefix, "keys must be plain names");
    const std::string path = prefix.empty() ? key_node.Scalar() : prefix + "." + key_node.Scalar();
    if (!seen.insert(key_node.Scalar()).second) fail(where, path, "key appears twice");
    if (const Field* field = find_field(path)) {
      Where value_where{source, &value, true};
      field->set(config, value, value_where);
    } else if (is_section(path)) {
      if (value.IsNull()) continue;  // "memory:" with nothing under it keeps the defaults
      if (!value.IsMap()) fail(where, path, "expected a mapping of keys, got " + shown(value));
      apply_map(config, value, path, source);
    } else {
      fail(where, path, unknown_key_message(path));
    }
  }
}

}  // namespace

Engine resolved_engine(const Config& config) {
  if (config.extraction.engine != Engine::Auto) return config.extraction.engine;
  return config.model.path.empty() ? Engine::Ocr : Engine::Vlm;
}

void apply_file(Config& config, const std::filesystem::path& file) {
  const std::string source = file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw ConfigError(source + ": config file not found (check the --config path)");
  }
  // Every real config is a few KB; parsing a huge one costs seconds and gigabytes before the first
  // unknown key could be reported.
  constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
  if (const auto size = std::filesystem::file_size(file, ec); !ec && size > kMaxConfigBytes) {
    throw ConfigError(source + ": " + std::to_string(size) + " bytes; a config file may be at most 1 MiB (is this "
                               "the right file?)");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(source);
  } catch (const YAML::BadFile&) {
    throw ConfigError(source + ": cannot read the config file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return;  // an empty file means all defaults
  if (!root.IsMap()) {
    throw ConfigError(source + ": expected a mapping of sections (model, generation, memory, "
                               "input, extraction, ocr, output) at the top level");
  }
  apply_map(config, root, "", source);
  // A relative path in a config file means a place next to the file, wherever docsift is started
  // (a cron job runs from the home folder); on the command line it means the working directory.
  const std::filesystem::path base = std::filesystem::absolute(file).parent_path();
  const auto resolve = [&](const char* section, const char* key, std::string& value) {
    const YAML::Node s = root[section];
    if (!s.IsMap() || !s[key] || value.empty() || value.rfind("builtin:", 0) == 0) return;
    if (std::filesystem::path(value).is_relative()) value = (base / value).lexically_normal().string();
  };
  resolve("model", "path", config.model.path);
  resolve("extraction", "fields", config.extraction.fields);
  resolve("ocr", "rules", config.ocr.rules);
  resolve("output", "dir", config.output.dir);
}

void apply_override(Config& config, std::string_view assignment) {
  const std::string source = "--set " + std::string(assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw ConfigError(source + ": expected key.path=value, e.g. --set memory.budget_gb=16");
  }
  const std::string key(assignment.substr(0, eq));
  const std::string value_text(assignment.substr(eq + 1));
  const Where where{source, nullptr, false};
  const Field* field = find_field(key);
  if (field == nullptr) {
    if (is_section(key)) {
      fail(where, key, "is a section; set one of its keys, e.g. " + key + ".<key>=value");
    }
    fail(where, key, unknown_key_message(key));
  }
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::ParserException& e) {
    fail(where, key, "value is not valid YAML: " + e.msg);
  }
  field->set(config, value, where);
}

Config load(const std::optional<std::filesystem::path>& file,
            const std::vector<std::string>& overrides) {
  Config config;
  if (file) apply_file(config, *file);
  for (const auto& assignment : overrides) apply_override(config, assignment);
  return config;
}

Config from_yaml(const std::string& yaml, const std::string& source) {
  Config config;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source + ": not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return config;
  if (!root.IsMap()) throw ConfigError(source + ": expected a mapping of sections at the top level");
  apply_map(config, root, "", source);
  return config;
}

std::string to_yaml(const Config& config) {
  YAML::Node root(YAML::NodeType::Map);
  for (const auto& field : schema()) {
    // Walk/create the nested maps for "a.b.c".
    std::vector<std::string> parts;
    std::string_view rest = field.key;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      parts.emplace_back(rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
    }
    std::vector<YAML::Node> chain{root};
    for (const auto& part : parts) {
      YAML::Node child = chain.back()[part];
      if (!child.IsMap()) child = YAML::Node(YAML::NodeType::Map);
      chain.back()[part] = child;
      chain.push_back(chain.back()[part]);
    }
    chain.back()[std::string(rest)] = field.get(config);
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::vector<KeyHelp> keys() {
  std::vector<KeyHelp> out;
  for (const auto& f : schema()) out.push_back({f.key, f.help});
  return out;
}

}  // namespace docsift::config
