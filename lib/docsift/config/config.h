// Typed run configuration. Every key has a default; a YAML file and `--set key=value`
// overrides change them; unknown keys, wrong types and out-of-range values are ConfigErrors
// that name the source (file:line:column or the --set text) and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docsift::config {

enum class Precision { Float32, Float16, BFloat16 };
enum class Tier { Standard, OffloadedCache, Reload, ReloadRetry, Cpu };
enum class Cleanup { AfterImage, Never };
enum class Isolation { None, Worker };
// Language-model linear layers: as stored, or int8 weights with one scale per output channel.
enum class Quantization { None, Int8 };
// The residual stream between decoder layers when model.dtype is float16 (Qwen2's massive
// activations pass 65,504): kept in float32, left in float16, or clamped to float16's range.
enum class Float16Residual { Float32, Float16, Clamp };
// Llama 3.2 Vision: what text rows before <|image|> get from cross-attention layers. transformers
// (default; what published results on the Hub checkpoint used) keeps their gated attention output;
// Meta's reference zeroes it. Both zero their MLP branch.
enum class CrossAttentionRows { Transformers, Meta };
// How images are resized for the model: as the checkpoint's reference code does (auto), with
// Pillow's bicubic (what InternVL3's original-layout chat() uses on PIL images), or with
// torchvision's tensor path (what the -hf processor uses).
enum class Resample { Auto, Pil, Torch };
// What reads the pages: a vision-language model from model.path, or Tesseract OCR with field rules
// (no weights). auto: the model when model.path is set, else OCR.
enum class Engine { Auto, Vlm, Ocr };

std::string_view to_string(Precision value);
std::string_view to_string(Tier value);
// Every tier name, in ladder order (what memory.tiers and fault specs' tier= accept).
std::vector<std::string> tier_names();
std::string_view to_string(Cleanup value);
std::string_view to_string(Isolation value);
std::string_view to_string(Quantization value);
std::string_view to_string(Float16Residual value);
std::string_view to_string(CrossAttentionRows value);
std::string_view to_string(Engine value);
std::string_view to_string(Resample value);

struct ModelConfig {
  std::string path;                 // model folder; empty until --model or the config names one
  Precision dtype = Precision::Float16;
  std::string device = "cuda:0";    // "cpu", "cuda" or "cuda:N"
  int max_tiles = 12;
  Quantization quantization = Quantization::None;
  Float16Residual float16_residual = Float16Residual::Float32;
  CrossAttentionRows cross_attention_rows = CrossAttentionRows::Transformers;
};

struct VisionConfig {
  Resample resample = Resample::Auto;
};

struct GenerationConfig {
  std::optional<int> max_new_tokens;  // nullopt = "auto": derived from the field count
  double temperature = 0.0;           // 0 = greedy
  double top_p = 1.0;
  std::uint64_t seed = 0;
};

struct WorkerConfig {
  int recycle_after_images = 0;  // 0 = never
  int recycle_above_mb = 0;      // 0 = never
  int timeout_s = 600;
};

struct MemoryConfig {
  std::string allocator = "max_split_size_mb:64";  // becomes PYTORCH_CUDA_ALLOC_CONF
  int fragmentation_threshold_mb = 1024;
  Cleanup cleanup = Cleanup::AfterImage;
  std::optional<double> budget_gb;  // emulate a smaller card; nullopt = whole device
  std::vector<Tier> tiers{Tier::Standard, Tier::OffloadedCache, Tier::Reload, Tier::ReloadRetry,
                          Tier::Cpu};
  Precision cpu_dtype = Precision::Float32;
  Quantization cpu_quantization = Quantization::None;
  Isolation isolate = Isolation::None;
  WorkerConfig worker;
};

struct ExtractionConfig {
  // A schema file, or the built-in copy of configs/fields/business-documents.yaml.
  std::string fields = "builtin:business-documents";
  Engine engine = Engine::Auto;
};

// The OCR engine (extraction.engine: ocr): Tesseract's language data and the field rules.
struct OcrConfig {
  std::string language = "eng";             // Tesseract language(s), e.g. eng or eng+deu
  std::string rules = "builtin:ocr-rules";  // or a file in configs/fields/ocr-rules.yaml's layout
  bool deskew = true;                        // straighten a skewed scan before reading it
  std::string page_segmentation = "block";  // block, auto or sparse (Tesseract's PSM 6, 3, 11)
  int threads = 2;                           // 2: a tall page is read as two halves at once
  std::string date_order = "auto";           // auto, dmy or mdy (ocr/rules.h: DateOrderRule)
  bool pdf_text = true;                      // read a PDF's text layer where it is usable
};

// Documents with pages (PDF, multi-page TIFF): each page is a record.
struct InputConfig {
  // PDF pages are rendered at this resolution. nullopt = auto: 300 dpi for the OCR engine (what
  // Tesseract's models were trained on), 160 for a vision-language model: a US Letter page then
  // comes to 1,360 × 1,760 px, about the 3×4-tile canvas (1,344 × 1,792) InternVL3 picks for it at
  // 12 tiles, so nothing is enlarged; an A4 page (1,323 × 1,870) picks 2×3 tiles (896 × 1,344) and
  // is resized down.
  std::optional<int> pdf_dpi;
  int max_pages = 100;  // per file; a longer file fails with its reason
};

struct OutputConfig {
  std::string dir = "results";
  std::vector<std::string> formats{"jsonl", "csv"};
};

struct TestingConfig {
  std::string faults;  // fault injection plan (resilience/faults.h grammar); empty = none
};

struct Config {
  ModelConfig model;
  VisionConfig vision;
  GenerationConfig generation;
  MemoryConfig memory;
  InputConfig input;
  ExtractionConfig extraction;
  OcrConfig ocr;
  OutputConfig output;
  TestingConfig testing;
};

// Applies the YAML file on top of `config`. Throws ConfigError.
void apply_file(Config& config, const std::filesystem::path& file);
// Applies one "key.path=value" assignment (the value is parsed as YAML, so lists work:
// memory.tiers=[standard,cpu]). Throws ConfigError.
void apply_override(Config& config, std::string_view assignment);

// The engine a run uses: extraction.engine, with auto resolved by whether model.path is set.
Engine resolved_engine(const Config& config);

// Defaults, then the file (if any), then the overrides in order.
Config load(const std::optional<std::filesystem::path>& file,
            const std::vector<std::string>& overrides);

// The effective configuration as YAML that apply_file accepts back unchanged.
std::string to_yaml(const Config& config);
// Defaults, then `yaml` (to_yaml's output: how a run hands its config to its worker process);
// `source` names it in errors. Throws ConfigError.
Config from_yaml(const std::string& yaml, const std::string& source);

// Every settable key with its help text, in schema order (for --help and the README).
struct KeyHelp {
  std::string_view key;
  std::string_view help;
};
std::vector<KeyHelp> keys();

}  // namespace docsift::config
