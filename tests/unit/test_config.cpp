#include <doctest/doctest.h>

#include "docsift/config/config.h"
#include "docsift/error.h"
#include "support/temp_dir.h"

using namespace docsift::config;
using docsift::ConfigError;
using docsift::memory::Tier;
using docsift::model::Precision;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

Config from_yaml(const TempDir& dir, const std::string& yaml) {
  write_text(dir / "c.yaml", yaml);
  Config c;
  apply_file(c, dir / "c.yaml");
  return c;
}

// Loading must fail with a message that starts at the file:line and contains `expected`.
void check_file_error(const std::string& yaml, const std::string& where,
                      const std::string& expected) {
  TempDir dir;
  CAPTURE(yaml);
  try {
    from_yaml(dir, yaml);
    FAIL("config was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.starts_with((dir / "c.yaml").string() + ":" + where));
    CHECK(what.find(expected) != std::string::npos);
  }
}

void check_override_error(const std::string& assignment, const std::string& expected) {
  Config c;
  CAPTURE(assignment);
  try {
    apply_override(c, assignment);
    FAIL("override was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.starts_with("--set " + assignment + ": "));
    CHECK(what.find(expected) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("defaults are the documented schema") {
  const Config c;
  CHECK(c.model.dtype == Precision::Float16);
  CHECK(c.model.device == "cuda:0");
  CHECK(c.model.max_tiles == 12);
  CHECK_FALSE(c.generation.max_new_tokens.has_value());
  CHECK(c.generation.temperature == 0.0);
  CHECK(c.memory.allocator == "max_split_size_mb:64");
  CHECK(c.memory.fragmentation_threshold_mb == 1024);
  CHECK(c.memory.tiers.size() == 5);
  CHECK(c.memory.tiers.back() == Tier::Cpu);
  CHECK_FALSE(c.memory.budget_gb.has_value());
  CHECK(c.memory.worker.timeout_s == 600);
  CHECK(c.output.formats == std::vector<OutputFormat>{OutputFormat::Jsonl, OutputFormat::Csv});
  CHECK(c.ocr.batch_spelling);  // pages that agree: a misread takes their spelling
}

TEST_CASE("a valid file sets every kind of value") {
  TempDir dir;
  const Config c = from_yaml(dir, R"(
model: {path: /models/InternVL3-8B, dtype: bfloat16, device: cuda:1, max_tiles: 6}
generation:
  max_new_tokens: 800
  temperature: 0.7
  top_p: 0.9
  seed: 42
memory:
  allocator: "max_split_size_mb:128,expandable_segments:False"
  budget_gb: 16
  tiers: [standard, cpu]
  cpu_dtype: bfloat16
  isolate: worker
  worker: {recycle_after_images: 50, timeout_s: 120}
extraction: {fields: my/fields.yaml}
output: {dir: out, formats: [jsonl]}
)");
  CHECK(c.model.path == "/models/InternVL3-8B");
  CHECK(c.model.dtype == Precision::BFloat16);
  CHECK(c.model.device == "cuda:1");
  CHECK(c.model.max_tiles == 6);
  CHECK(c.generation.max_new_tokens == 800);
  CHECK(c.generation.temperature == doctest::Approx(0.7));
  CHECK(c.generation.seed == 42);
  CHECK(c.memory.budget_gb == doctest::Approx(16.0));
  CHECK(c.memory.tiers == std::vector<Tier>{Tier::Standard, Tier::Cpu});
  CHECK(c.memory.isolate == Isolation::Worker);
  CHECK(c.memory.worker.recycle_after_images == 50);
  CHECK(c.memory.worker.recycle_above_mb == 0);  // untouched keys keep defaults
  CHECK(c.memory.worker.timeout_s == 120);
  CHECK(c.extraction.fields == (dir / "my/fields.yaml").string());  // relative to the file's folder
  CHECK(c.output.formats == std::vector<OutputFormat>{OutputFormat::Jsonl});
}

TEST_CASE("null and auto values") {
  TempDir dir;
  const Config c = from_yaml(
      dir, "generation: {max_new_tokens: auto}\nmemory: {budget_gb: null, allocator: ''}\n");
  CHECK_FALSE(c.generation.max_new_tokens.has_value());
  CHECK_FALSE(c.memory.budget_gb.has_value());
  CHECK(c.memory.allocator.empty());
  const Config empty = from_yaml(dir, "");
  CHECK(empty.model.max_tiles == 12);
  const Config empty_section = from_yaml(dir, "memory:\n");
  CHECK(empty_section.memory.tiers.size() == 5);
}

TEST_CASE("unknown keys name file, line and the nearest key") {
  check_file_error("model:\n  dtype: float16\n  max_tile: 4\n", "3:3",
                   "model.max_tile: unknown key (did you mean model.max_tiles?)");
  check_file_error("memroy: {}\n", "1:1", "memroy: unknown key (did you mean memory?)");
  check_file_error("memory:\n  worker:\n    timeout: 5\n", "3:5",
                   "memory.worker.timeout: unknown key (did you mean memory.worker.timeout_s?)");
  check_file_error("zzzzzz: 1\n", "1:1", "zzzzzz: unknown key; `docsift config` lists every key");
}

TEST_CASE("wrong types name file, line and key") {
  check_file_error("model:\n  max_tiles: many\n", "2:14",
                   "model.max_tiles: expected an integer from 1 to 40, got 'many'");
  check_file_error("model:\n  max_tiles: [1]\n", "2:14", "got a list");
  check_file_error("model: 5\n", "1:1", "model: expected a mapping of keys");
  check_file_error("generation: {temperature: warm}\n", "1:27",
                   "generation.temperature: expected a number");
  check_file_error("model: {dtype: fp16}\n", "1:16",
                   "expected one of float32, float16, bfloat16, got 'fp16'");
  check_file_error("output: {formats: csv}\n", "1:19", "output.formats: expected a list");
  check_file_error("model: {path: {a: 1}}\n", "1:15",
                   "model.path: expected a string, got a mapping");
}

TEST_CASE("out-of-range values") {
  check_file_error("model: {max_tiles: 0}\n", "1:20", "expected an integer from 1 to 40, got '0'");
  check_file_error("generation: {top_p: 0}\n", "1:21", "generation.top_p: expected a number > 0");
  check_file_error("generation: {temperature: -1}\n", "1:27", "expected a number >= 0");
  check_file_error("generation: {max_new_tokens: 0}\n", "1:30",
                   "expected an integer from 1 to 32768");
  check_file_error("generation: {seed: -3}\n", "1:20", "generation.seed");
  check_file_error("memory: {budget_gb: 0}\n", "1:21", "memory.budget_gb: expected a number > 0");
  check_file_error("memory: {tiers: []}\n", "1:17", "expected a non-empty list of tiers");
  check_file_error(
      "memory: {tiers: [standard, turbo]}\n", "1:17",
      "expected one of standard, offloaded_cache, reload, reload_retry, cpu, got 'turbo'");
  check_file_error("memory: {tiers: [cpu, cpu]}\n", "1:17", "tier 'cpu' is listed twice");
  check_file_error("memory: {cpu_dtype: float16}\n", "1:21", "use float32 or bfloat16");
  check_file_error("memory: {allocator: 'max_split_size_mb:10'}\n", "1:21",
                   "expected an integer number of MB > 20");
  check_file_error("memory: {allocator: 'garbage:1'}\n", "1:21",
                   "unknown allocator option 'garbage'");
  check_file_error("model: {device: gpu}\n", "1:17", "expected cpu, cuda or cuda:N, got 'gpu'");
  check_file_error("model: {device: 'cuda:x'}\n", "1:17", "expected cpu, cuda or cuda:N");
  check_file_error("output: {formats: [csv]}\n", "1:19", "jsonl is the run journal");
  check_file_error("output: {formats: [jsonl, pdf]}\n", "1:19",
                   "unknown format 'pdf' (expected jsonl, csv)");
  check_file_error("output: {formats: [jsonl, csv, csv]}\n", "1:19",
                   "format 'csv' is listed twice");
  check_file_error("output: {dir: ''}\n", "1:15", "output.dir: must not be empty");
}

TEST_CASE("structural problems") {
  check_file_error("model:\n  dtype: float16\n  dtype: float32\n", "3:3",
                   "model.dtype: key appears twice");
  check_file_error("model: {dtype: [float16\n", "", "not valid YAML");
  check_file_error("- a\n- b\n", "", "expected a mapping of sections");
  CHECK_THROWS_WITH_AS(load(std::filesystem::path("/no/such/config.yaml"), {}),
                       doctest::Contains("/no/such/config.yaml: config file not found"),
                       ConfigError);
}

TEST_CASE("testing.faults is checked against the fault grammar when the config is read") {
  Config c =
      docsift::config::load(std::nullopt, {"testing.faults=oom@prefill:image=2:tier=reload"});
  CHECK(c.testing.faults == "oom@prefill:image=2:tier=reload");
  CHECK_THROWS_WITH_AS(docsift::config::load(std::nullopt, {"testing.faults=oom@prefill:tier=gpu"}),
                       doctest::Contains("testing.faults"), docsift::ConfigError);
}

TEST_CASE("--set overrides any key after the file") {
  TempDir dir;
  write_text(dir / "c.yaml", "memory: {budget_gb: 8}\nmodel: {dtype: float32}\n");
  const Config c =
      load(dir / "c.yaml", {"memory.budget_gb=16", "memory.tiers=[standard, offloaded_cache]",
                            "generation.max_new_tokens=auto", "model.path=/m",
                            "memory.worker.timeout_s=30", "memory.budget_gb=null"});
  CHECK(c.model.dtype == Precision::Float32);   // from the file
  CHECK_FALSE(c.memory.budget_gb.has_value());  // the last --set wins
  CHECK(c.memory.tiers == std::vector<Tier>{Tier::Standard, Tier::OffloadedCache});
  CHECK(c.model.path == "/m");
  CHECK(c.memory.worker.timeout_s == 30);
  CHECK_FALSE(load(std::nullopt, {"ocr.batch_spelling=false"}).ocr.batch_spelling);

  check_override_error("memory.budget=16", "unknown key (did you mean memory.budget_gb?)");
  check_override_error("memory=1", "is a section");
  check_override_error("memory.worker=1", "is a section");
  check_override_error("nonsense", "expected key.path=value");
  check_override_error("=5", "expected key.path=value");
  check_override_error("model.max_tiles=lots", "expected an integer from 1 to 40, got 'lots'");
  check_override_error("memory.tiers=[standard", "value is not valid YAML");
}

TEST_CASE("to_yaml round-trips the effective config") {
  Config c;
  apply_override(c, "model.path=/models/x");
  apply_override(c, "memory.budget_gb=15.5");
  apply_override(c, "memory.tiers=[reload, cpu]");
  apply_override(c, "generation.max_new_tokens=321");
  apply_override(c, "output.formats=[jsonl]");
  apply_override(
      c, "output.dir=/srv/results");  // absolute: a relative one would move next to the file
  const std::string yaml = to_yaml(c);
  TempDir dir;
  const Config back = from_yaml(dir, yaml);
  CHECK(to_yaml(back) == yaml);
  CHECK(back.memory.budget_gb == doctest::Approx(15.5));
  CHECK(back.memory.tiers == std::vector<Tier>{Tier::Reload, Tier::Cpu});
  CHECK(back.generation.max_new_tokens == 321);
  // Defaults round-trip too, including null path and budget and "auto" (output.dir absolute, as
  // above).
  Config defaults;
  defaults.output.dir = "/srv/results";
  CHECK(to_yaml(from_yaml(dir, to_yaml(defaults))) == to_yaml(defaults));
}

TEST_CASE("every key is documented and every shipped config loads") {
  for (const auto& k : keys()) {
    CAPTURE(k.key);
    CHECK_FALSE(k.help.empty());
  }
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DOCSIFT_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    CAPTURE(entry.path().string());
    CHECK_NOTHROW(load(entry.path(), {}));
    ++loaded;
  }
  CHECK(loaded == 7);  // configs/internvl3-8b.yaml, internvl35-8b.yaml, llama32-vision-11b.yaml,
                       // ocr-recognizer-both.yaml, qwen25vl-7b.yaml, qwen3vl-8b.yaml,
                       // qwen3vl-4b-v100.yaml
}

TEST_CASE(
    "relative paths in a config file are next to the file, on the command line, the working "
    "directory's") {
  TempDir dir;
  std::filesystem::create_directories(dir / "conf");
  write_text(dir / "conf/docsift.yaml",
             "model: {path: models/m}\nextraction: {fields: fields.yaml}\nocr: {rules: "
             "builtin:ocr-rules}\n"
             "output: {dir: ../results}\n");
  const std::filesystem::path file = dir / "conf/docsift.yaml";
  const Config c = load(file, {});
  CHECK(c.model.path == (dir / "conf/models/m").string());
  CHECK(c.extraction.fields == (dir / "conf/fields.yaml").string());
  CHECK(c.ocr.rules == "builtin:ocr-rules");  // built-ins are not paths
  CHECK(c.output.dir == (dir / "results").string());
  // --set (and --model, --out, which become --set) are relative to where docsift was started.
  const Config o = load(file, {"model.path=here/m", "output.dir=out"});
  CHECK(o.model.path == "here/m");
  CHECK(o.output.dir == "out");
  // Absolute paths and keys the file does not set are left alone.
  write_text(dir / "conf/abs.yaml", "model: {path: /models/m}\n");
  const Config a = load(dir / "conf/abs.yaml", {});
  CHECK(a.model.path == "/models/m");
  CHECK(a.output.dir == "results");
  CHECK(a.extraction.fields == "builtin:business-documents");
}

TEST_CASE(
    "engine: auto is ocr without a model and vlm with one, the shipped model configs ask for vlm") {
  // Resolved once, as the config loads; whether it was chosen stays in keys_given.
  Config c = load(std::nullopt, {});
  CHECK(c.extraction.engine == Engine::Ocr);
  CHECK(c.keys_given.count("extraction.engine") == 0);
  CHECK(load(std::nullopt, {"model.path=/models/m"}).extraction.engine == Engine::Vlm);
  c = load(std::nullopt, {"model.path=/models/m", "extraction.engine=ocr"});
  CHECK(c.extraction.engine == Engine::Ocr);
  CHECK(c.keys_given.count("extraction.engine") == 1);
  CHECK(load(std::nullopt, {"extraction.engine=auto"}).extraction.engine == Engine::Ocr);
  // As written (docsift config --as-written), nothing resolved.
  CHECK(load_as_written(std::nullopt, {}).extraction.engine == Engine::Auto);
  for (const char* name : {"internvl3-8b.yaml", "internvl35-8b.yaml", "llama32-vision-11b.yaml"}) {
    CAPTURE(std::string(name));
    const Config shipped = load(std::filesystem::path(DOCSIFT_SOURCE_DIR) / "configs" / name, {});
    CHECK(shipped.extraction.engine == Engine::Vlm);
    CHECK(shipped.model.path.empty());
  }
}

TEST_CASE(
    "review thresholds mean what they say: one given alone is every field's, the recognizer brings "
    "its own") {
  const ReviewConfig shipped;
  // The defaults: Tesseract's per-field thresholds over review.threshold.
  Config c = load(std::nullopt, {});
  CHECK(c.review.fields == shipped.fields);
  CHECK(c.review.thresholds().of("TOTAL").value() == doctest::Approx(0.945));
  CHECK(c.review.thresholds().of("INVOICE_DATE").value() == doctest::Approx(0.915));
  CHECK(c.review.thresholds().of("BUSINESS_ADDRESS").value() == doctest::Approx(0.895));
  // A threshold given alone applies to every field, the fitted three included.
  c = load(std::nullopt, {"review.threshold=0"});
  CHECK(c.review.fields.empty());
  for (const char* field : {"TOTAL", "INVOICE_DATE", "SUPPLIER", "ABN"})
    CHECK(c.review.thresholds().of(field).value() == 0.0);
  // Choosing the second recognizer chooses its thresholds, with no second setting.
  c = load(std::nullopt, {"ocr.recognizer=both"});
  CHECK(c.review.fields == ReviewConfig::second_recognizer_fields());
  CHECK(c.review.thresholds().of("INVOICE_DATE").value() == 0.0);
  CHECK(c.review.thresholds().of("BUSINESS_ADDRESS").value() == doctest::Approx(0.82));
  // A receipt's descriptions are held to their own (docs/confidence.md); with Tesseract alone
  // they keep review.threshold.
  CHECK(c.review.thresholds().of("DESCRIPTIONS").value() == doctest::Approx(0.765));
  CHECK(load(std::nullopt, {"ocr.recognizer=tesseract"}).review.thresholds().of("DESCRIPTIONS") ==
        c.review.threshold);
  // review.fields given wins over both, from a file or --set, and a threshold then keeps them.
  TempDir dir;
  write_text(dir.path() / "r.yaml",
             "ocr:\n  recognizer: both\nreview:\n  threshold: 0.5\n  fields: {TOTAL: 0.99}\n");
  c = load(dir.path() / "r.yaml", {});
  CHECK(c.review.fields == std::map<std::string, double>{{"TOTAL", 0.99}});
  CHECK(c.review.thresholds().of("SUPPLIER").value() == doctest::Approx(0.5));
  c = load(std::nullopt, {"ocr.recognizer=both", "review.fields=null"});
  CHECK(c.review.fields.empty());
  // The same through the worker's hand-over: the derived thresholds travel in the YAML.
  CHECK(from_yaml(to_yaml(load(std::nullopt, {"ocr.recognizer=both"})), "worker").review.fields ==
        ReviewConfig::second_recognizer_fields());
  // The bar a TOTAL passes its sums at reaches the queue's thresholds, and the worker.
  CHECK(load(std::nullopt, {}).review.thresholds().sums_total == doctest::Approx(0.98));
  c = load(std::nullopt, {"review.sums_total=1"});
  CHECK(c.review.thresholds().sums_total == 1.0);
  CHECK(from_yaml(to_yaml(c), "worker").review.thresholds().sums_total == 1.0);
  CHECK_THROWS_AS(load(std::nullopt, {"review.sums_total=1.5"}), ConfigError);
}

TEST_CASE(
    "ocr.recognizer: auto is both where the build can open the second recognizer and the OCR "
    "engine reads, with its thresholds") {
  const Abilities installed{[](const std::string& model) { return model == "auto"; }};
  const Abilities absent{[](const std::string&) { return false; }};
  Config c = load(std::nullopt, {}, installed);
  CHECK(c.ocr.recognizer == "both");
  CHECK(c.review.fields == ReviewConfig::second_recognizer_fields());
  CHECK(to_yaml(c).find("recognizer: both") !=
        std::string::npos);  // what the worker and the hash see
  c = load(std::nullopt, {}, absent);
  CHECK(c.ocr.recognizer == "tesseract");
  CHECK(c.review.fields == ReviewConfig().fields);
  CHECK(load(std::nullopt, {}).ocr.recognizer ==
        "auto");  // not asked: as written, read as Tesseract alone
  // The ability is asked about the folder ocr.recognizer_model names.
  CHECK(load(std::nullopt, {"ocr.recognizer_model=/elsewhere"}, installed).ocr.recognizer ==
        "tesseract");
  // Chosen, it stays as chosen; with a model, the OCR engine does not read and auto is tesseract.
  CHECK(load(std::nullopt, {"ocr.recognizer=tesseract"}, installed).ocr.recognizer == "tesseract");
  CHECK(load(std::nullopt, {"ocr.recognizer=both"}, absent).ocr.recognizer == "both");
  CHECK(load(std::nullopt, {"model.path=/models/x"}, installed).ocr.recognizer == "tesseract");
  CHECK(docsift::config::hash(load(std::nullopt, {}, installed)) !=
        docsift::config::hash(load(std::nullopt, {}, absent)));
}

TEST_CASE("ocr.threads: auto by default or 1-16, and no part of the config's hash") {
  TempDir dir;
  CHECK_FALSE(Config().ocr.threads.has_value());
  CHECK(from_yaml(dir, "ocr: {threads: auto}\n").ocr.threads == std::nullopt);
  CHECK(from_yaml(dir, "ocr: {threads: 16}\n").ocr.threads == 16);
  check_file_error("ocr: {threads: 0}\n", "1:", "ocr.threads");
  check_file_error("ocr: {threads: 17}\n", "1:", "ocr.threads");
  // How many pages are read at once changes no record, so a run may be resumed with another.
  const std::string hash = docsift::config::hash(Config());
  CHECK(docsift::config::hash(from_yaml(dir, "ocr: {threads: 1}\n")) == hash);
  CHECK(docsift::config::hash(from_yaml(dir, "ocr: {threads: 3}\n")) == hash);
  CHECK(docsift::config::hash(from_yaml(dir, "ocr: {deskew: false}\n")) != hash);
}
