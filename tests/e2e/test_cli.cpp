// The built binary, run as a user runs it: exit codes, stdout/stderr split, one-line errors.
#include <ATen/ops/arange.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/log_lines.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;

namespace {

bool one_line_error(const std::string& err) { return docsift::testing::one_log_line(err); }

}  // namespace

TEST_CASE("--version prints docsift, LibTorch and CUDA status") {
  const auto r = run_docsift("--version");
  CHECK(r.exit_code == 0);
  CHECK(r.out.starts_with("docsift 0.1.0\nLibTorch 2."));
  CHECK(r.out.find("CUDA: ") != std::string::npos);
}

TEST_CASE("usage errors exit 2") {
  CHECK(run_docsift("").exit_code == 2);
  CHECK(run_docsift("frobnicate").exit_code == 2);
  CHECK(run_docsift("--no-such-flag").exit_code == 2);
  CHECK(run_docsift("inspect").exit_code == 2);  // MODEL_DIR is required
  CHECK(run_docsift("--help").exit_code == 0);
  CHECK(run_docsift("inspect --help").out.find("MODEL_DIR") != std::string::npos);
}

TEST_CASE("inspect a checkpoint: table and JSON") {
  TempDir dir;
  docsift::testing::write_tiny_internvl_checkpoint(dir.path());
  const auto table = run_docsift("inspect " + shell_quote(dir.path().string()));
  CHECK(table.exit_code == 0);
  CHECK(table.err.empty());
  CHECK(table.out.find("InternVLChatModel") != std::string::npos);
  CHECK(table.out.find("vision") != std::string::npos);

  const auto js = run_docsift("inspect --json " + shell_quote(dir.path().string()));
  REQUIRE(js.exit_code == 0);
  const auto j = nlohmann::json::parse(js.out);
  CHECK(j["architecture"] == "InternVLChatModel");
  CHECK(j["total"]["parameters"] == 244);
  CHECK(j["parts"]["language"]["tensors"] == 2);
}

TEST_CASE("inspect a malformed model: exit 3, a missing one: exit 2, each with a one-line reason") {
  TempDir dir;
  docsift::testing::write_tiny_internvl_checkpoint(dir.path());
  docsift::testing::write_bytes(
      dir / "model.safetensors",
      docsift::testing::raw_safetensors(
          R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", "short"));
  const auto bad = run_docsift("inspect " + shell_quote(dir.path().string()));
  CHECK(bad.exit_code == 3);
  CHECK(bad.out.empty());
  CHECK(one_line_error(bad.err));
  CHECK(bad.err.find("model.safetensors: invalid safetensors header: tensor 'x'") !=
        std::string::npos);

  const auto missing = run_docsift("inspect " + shell_quote((dir / "nope").string()));
  CHECK(missing.exit_code == 2);  // an input that is not there (README "Exit codes")
  CHECK(missing.err.find("nope: no such folder") != std::string::npos);
  CHECK(one_line_error(missing.err));
}

TEST_CASE("config prints the effective YAML, bad values exit 2") {
  TempDir dir;
  docsift::testing::write_text(dir / "c.yaml", "memory:\n  budget_gb: 16\n");
  const auto ok = run_docsift("config --config " + shell_quote((dir / "c.yaml").string()) +
                              " --set model.dtype=bfloat16");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("budget_gb: 16") != std::string::npos);
  CHECK(ok.out.find("dtype: bfloat16") != std::string::npos);

  const auto keys = run_docsift("config --keys");
  CHECK(keys.exit_code == 0);
  CHECK(keys.out.find("memory.worker.timeout_s") != std::string::npos);

  const auto bad_set = run_docsift("config --set model.max_tiles=0");
  CHECK(bad_set.exit_code == 2);
  CHECK(one_line_error(bad_set.err));

  docsift::testing::write_text(dir / "bad.yaml", "memory:\n  tiers: [warp]\n");
  const auto bad_file = run_docsift("config --config " + shell_quote((dir / "bad.yaml").string()));
  CHECK(bad_file.exit_code == 2);
  CHECK(bad_file.err.find("bad.yaml:2:10: memory.tiers:") != std::string::npos);
}

TEST_CASE(
    "config and OCR inputs that are not what they should be: one line that says what they are") {
  TempDir dir;
  // A folder or a device given as --config.
  auto r = run_docsift("config --config " + shell_quote(dir.path().string()));
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r.err));
  CHECK(r.err.find("is a folder, not a config file") != std::string::npos);
  r = run_docsift("config --config /dev/zero");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/dev/zero: is not a regular file") != std::string::npos);
  r = run_docsift("config --config " + shell_quote((dir.path() / "absent.yaml").string()));
  CHECK(r.err.find("config file not found") != std::string::npos);
  // A rules file that is not a mapping (any text file is valid YAML: a scalar).
  const std::string samples =
      shell_quote((std::filesystem::path(DOCSIFT_SOURCE_DIR) / "samples").string());
  const std::string out = shell_quote((dir.path() / "out").string());
  docsift::testing::write_text(dir.path() / "notes.txt", "root:x:0:0:root:/root:/bin/bash\n");
  r = run_docsift("run " + samples + " --engine ocr --quiet --set ocr.rules=" +
                  shell_quote((dir.path() / "notes.txt").string()) + " --out " + out);
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r.err));
  CHECK(r.err.find("expected a mapping at the top") != std::string::npos);
  CHECK(r.err.find("operator[]") == std::string::npos);
  // A Tesseract language that is not installed, beside one that is: named before any page.
  r = run_docsift("run " + samples + " --engine ocr --quiet --set ocr.language=eng+xyz --out " +
                  out);
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r.err));
  CHECK(r.err.find("no language data for 'xyz'") != std::string::npos);
  CHECK(r.err.find("tesseract-ocr-xyz") != std::string::npos);
  // A list of known sellers that is missing, or has a line that is no name: named with its line,
  // before any page.
  r = run_docsift("run " + samples + " --engine ocr --quiet --set ocr.known_sellers=" +
                  shell_quote((dir.path() / "vendors.txt").string()) + " --out " + out);
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r.err));
  CHECK(r.err.find("vendors.txt: cannot open for reading") != std::string::npos);
  docsift::testing::write_text(dir.path() / "vendors.txt", "ACME PTY LTD\n***\n");
  r = run_docsift("run " + samples + " --engine ocr --quiet --set ocr.known_sellers=" +
                  shell_quote((dir.path() / "vendors.txt").string()) + " --out " + out);
  CHECK(r.exit_code == 2);
  CHECK(one_line_error(r.err));
  CHECK(r.err.find("vendors.txt:2: '***' has no letter or digit") != std::string::npos);
  const auto journal = dir.path() / "out" / "results.jsonl";  // no page was read
  CHECK((!std::filesystem::exists(journal) || std::filesystem::file_size(journal) == 0));
}

TEST_CASE("tokenize: ids as JSON, decode back, and clear errors") {
  const std::string tokenizer = shell_quote(
      (std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/tokenizers/tiny-qwen").string());
  const auto encoded = run_docsift("tokenize --tokenizer " + tokenizer +
                                   " --text 'Total: $1,234.56<|im_end|>' --json");
  REQUIRE(encoded.exit_code == 0);
  const auto ids = nlohmann::json::parse(encoded.out);
  REQUIRE(ids.is_array());
  CHECK(ids.size() > 5);
  const auto plain =
      run_docsift("tokenize --tokenizer " + tokenizer + " --text 'Total: $1,234.56<|im_end|>'");
  CHECK(plain.out.find(',') == std::string::npos);  // space-separated ids on one line
  const auto decoded =
      run_docsift("tokenize --tokenizer " + tokenizer + " --decode " + shell_quote(ids.dump()));
  CHECK(decoded.exit_code == 0);
  CHECK(decoded.out == "Total: $1,234.56<|im_end|>\n");
  const auto skipped = run_docsift("tokenize --tokenizer " + tokenizer +
                                   " --skip-special-tokens --decode " + shell_quote(ids.dump()));
  CHECK(skipped.out == "Total: $1,234.56\n");

  TempDir dir;
  docsift::testing::write_bytes(dir / "latin1.txt", std::string("caf\xE9\n"));
  const auto bad_text = run_docsift("tokenize --tokenizer " + tokenizer + " --file " +
                                    shell_quote((dir / "latin1.txt").string()));
  CHECK(bad_text.exit_code == 2);
  CHECK(one_line_error(bad_text.err));
  CHECK(bad_text.err.find("latin1.txt: input text is not valid UTF-8: byte 0xE9 at offset 3") !=
        std::string::npos);

  const auto missing =
      run_docsift("tokenize --tokenizer " + shell_quote((dir / "nope").string()) + " --text x");
  CHECK(missing.exit_code == 2);  // an input that is not there
  CHECK(one_line_error(missing.err));
  CHECK(run_docsift("tokenize --tokenizer " + tokenizer).exit_code == 2);  // no input
  CHECK(run_docsift("tokenize --tokenizer " + tokenizer + " --text a --decode 1").exit_code ==
        2);  // two inputs
  const auto bad_ids = run_docsift("tokenize --tokenizer " + tokenizer + " --decode 1,x");
  CHECK(bad_ids.exit_code == 2);
  CHECK(bad_ids.err.find("\"x\" is not a token id") != std::string::npos);
}

TEST_CASE("generate: the fixture model's greedy tokens, as JSON, on the CPU") {
  const std::filesystem::path fixtures =
      std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/internvl";
  std::ifstream in(fixtures / "reference/summary.json");
  const auto summary = nlohmann::json::parse(in);
  const auto r =
      run_docsift("generate --model " + shell_quote((fixtures / "original").string()) +
                  " --image " + shell_quote((fixtures / "images/many_tiles.png").string()) +
                  " --prompt " + shell_quote(summary["question"].get<std::string>()) +
                  " --device cpu --dtype float32 --max-tiles 6 --max-new-tokens 16 --json");
  REQUIRE(r.exit_code == 0);
  const auto out = nlohmann::json::parse(r.out);
  CHECK(out["tiles"] == 4);
  CHECK(out["grid"] == nlohmann::json::array({3, 1}));
  CHECK(out["device"] == "cpu");
  CHECK(out["timings_s"]["prefill"].get<double>() > 0);
  // The original layout prompts with the InternVL system message, so only the length is fixed;
  // the ids themselves are pinned by the parity test, which uses the reference prompt.
  CHECK(out["generated_tokens"].get<int>() + (out["stopped_by"] == "max_new_tokens" ? 0 : 1) <= 16);

  // The -hf layout prompts exactly as the reference did: with stop tokens ignored, the 16 greedy
  // ids are the reference's, end to end through the binary.
  const auto hf = run_docsift(
      "generate --model " + shell_quote((fixtures / "hf").string()) + " --image " +
      shell_quote((fixtures / "images/many_tiles.png").string()) + " --prompt " +
      shell_quote(summary["question"].get<std::string>()) +
      " --device cpu --dtype float32 --max-tiles 6 --max-new-tokens 16 --no-stop --json");
  REQUIRE(hf.exit_code == 0);
  CHECK(nlohmann::json::parse(hf.out)["ids"] == summary["images"]["many_tiles"]["greedy"]);

  // --count-ops: the operators each decode step dispatches, steps 2-15 of 16 tokens; counting
  // changes nothing in the result.
  const auto counted =
      run_docsift("generate --model " + shell_quote((fixtures / "hf").string()) + " --image " +
                  shell_quote((fixtures / "images/many_tiles.png").string()) + " --prompt " +
                  shell_quote(summary["question"].get<std::string>()) +
                  " --device cpu --dtype float32 --max-tiles 6 --max-new-tokens 16 --no-stop "
                  "--json --count-ops");
  REQUIRE(counted.exit_code == 0);
  const auto ops = nlohmann::json::parse(counted.out);
  CHECK(ops["ids"] == summary["images"]["many_tiles"]["greedy"]);
  CHECK(ops["decode_ops"]["decode_steps_counted"] == 14);
  CHECK(ops["decode_ops"]["ops_per_step"].get<double>() > 10);
  // One read of a device value per step, the next token's id: no other host sync in decode.
  CHECK(ops["decode_ops"]["host_reads_per_step"] == 1.0);
  CHECK(ops["decode_ops"]["top"][0]["name"].get<std::string>().rfind("aten::", 0) == 0);
  CHECK(nlohmann::json::parse(hf.out)["decode_ops"].is_null());

  // The same generation with OOM injected at prefill of the standard tier (DOCSIFT_FAULTS) and at
  // decode step 3 of the offloaded tier (testing.faults): it finishes at reload, same 16 ids.
  const auto faulted =
      run_docsift("generate --model " + shell_quote((fixtures / "hf").string()) + " --image " +
                      shell_quote((fixtures / "images/many_tiles.png").string()) + " --prompt " +
                      shell_quote(summary["question"].get<std::string>()) +
                      " --device cpu --dtype float32 --max-tiles 6 --max-new-tokens 16 --no-stop "
                      "--json --set testing.faults=oom@decode:step=3:tier=offloaded_cache",
                  "DOCSIFT_FAULTS=oom@prefill:tier=standard");
  REQUIRE(faulted.exit_code == 0);
  const auto faulted_out = nlohmann::json::parse(faulted.out);
  CHECK(faulted_out["ids"] == summary["images"]["many_tiles"]["greedy"]);
  CHECK(faulted_out["tier"] == "reload");
  REQUIRE(faulted_out["attempts"].size() == 3);
  CHECK(faulted_out["attempts"][0]["error_class"] == "allocator_oom");
  const auto bad_faults = run_docsift(
      "generate --model " + shell_quote((fixtures / "hf").string()) + " --image " +
          shell_quote((fixtures / "images/one_tile.png").string()) + " --prompt hi --device cpu",
      "DOCSIFT_FAULTS=oom@nowhere");
  CHECK(bad_faults.exit_code == 2);
  CHECK(bad_faults.err.find("DOCSIFT_FAULTS") != std::string::npos);

  // inspect --budget-gb prints the plan per tier.
  const auto plan = run_docsift(
      "inspect " + shell_quote((fixtures / "hf").string()) +
      " --budget-gb 16 --tiles 7 --max-new-tokens 100 --json --set extraction.fields=" +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/fields/business-documents.yaml"));
  REQUIRE(plan.exit_code == 0);
  const auto plan_json = nlohmann::json::parse(plan.out)["memory_plan"];
  CHECK(plan_json["tiles"] == 7);
  CHECK(plan_json["max_new_tokens"] == 100);
  CHECK(plan_json["tiers"].size() == 5);
  CHECK(plan_json["first_fitting_tier"] == "standard");

  const auto no_gpu = run_docsift(
      "generate --model " + shell_quote((fixtures / "hf").string()) + " --image " +
      shell_quote((fixtures / "images/one_tile.png").string()) + " --prompt hi --device cuda:7");
  if (no_gpu.exit_code == 2) {  // no usable GPU (CI), or fewer than 8
    CHECK(one_line_error(no_gpu.err));
    CHECK(no_gpu.err.find("--device cpu") != std::string::npos);
  }
  const auto no_image = run_docsift("generate --model " + shell_quote((fixtures / "hf").string()) +
                                    " --image /nonexistent.png --prompt hi --device cpu");
  CHECK(no_image.exit_code == 2);  // an input that is not there, found before the model loads
  CHECK(no_image.err.find("--image /nonexistent.png: no such file") != std::string::npos);
}

namespace {

// An InternVL3-8B-shaped folder with config.json and the tokenizer but no weights (the real 8B
// sizes, docs/models.md, "Model sizes"), as a user has it before downloading 16 GB.
// A config-only folder of a real model's shapes: the tiny fixture `fixture`'s config.json with
// InternViT-300M's sizes and `text`'s language-model sizes, and its tokenizer.
void write_config_folder(const std::filesystem::path& dir, const std::string& fixture,
                         const nlohmann::json& text) {
  const std::filesystem::path hf =
      std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures" / fixture / "hf";
  std::filesystem::copy(hf / "tokenizer.json", dir / "tokenizer.json");
  std::ifstream in(hf / "config.json");
  nlohmann::json c = nlohmann::json::parse(in);
  c["vision_config"].merge_patch({{"hidden_size", 1024},
                                  {"num_hidden_layers", 24},
                                  {"num_attention_heads", 16},
                                  {"intermediate_size", 4096}});
  c["text_config"].merge_patch(text);
  std::ofstream(dir / "config.json") << c.dump(2);
}

// InternVL3-8B: Qwen2.5-7B's sizes.
void write_8b_config_folder(const std::filesystem::path& dir) {
  write_config_folder(dir, "internvl",
                      {{"hidden_size", 3584},
                       {"num_hidden_layers", 28},
                       {"num_attention_heads", 28},
                       {"num_key_value_heads", 4},
                       {"head_dim", 128},
                       {"intermediate_size", 18944},
                       {"vocab_size", 151674},
                       {"max_position_embeddings", 32768}});
}

// InternVL3.5-8B: Qwen3-8B (36 layers of 4096, 32 query and 8 key-value heads of 128, a 12288 MLP,
// 151936 tokens, q/k head norms and no biases, from the InternVL3.5 fixture's config).
void write_35_8b_config_folder(const std::filesystem::path& dir) {
  write_config_folder(dir, "internvl35",
                      {{"hidden_size", 4096},
                       {"num_hidden_layers", 36},
                       {"num_attention_heads", 32},
                       {"num_key_value_heads", 8},
                       {"head_dim", 128},
                       {"intermediate_size", 12288},
                       {"vocab_size", 151936},
                       {"max_position_embeddings", 40960}});
}

}  // namespace

TEST_CASE(
    "inspect plans an InternVL3.5-8B-shaped folder: float16 does not fit 16 GB, int8 starts at "
    "standard") {
  docsift::testing::TempDir dir;
  write_35_8b_config_folder(dir.path());
  const std::string model = shell_quote(dir.path().string());
  const std::string fields =
      " --set extraction.fields=" +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/fields/business-documents.yaml");
  const auto plan = [&](const std::string& args) {
    const auto r = run_docsift("inspect " + model + " --json" + args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const auto int8 =
      plan(" --config " +
           shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/internvl35-8b.yaml") + fields);
  MESSAGE(int8["memory_plan"].dump());
  const auto& p = int8["memory_plan"];
  CHECK(p["quantization"] == "int8");
  CHECK(p["first_fitting_tier"] == "standard");
  CHECK(p["tiers"][0]["spare"].get<double>() >= 2 * gib);
  // 8.5 B parameters: about 7.6 B in int8, the embeddings and vision tower in float16.
  CHECK(p["tiers"][0]["weights"].get<double>() > 8.5 * gib);
  CHECK(p["tiers"][0]["weights"].get<double>() < 10.0 * gib);
  const auto fp16 = plan(" --budget-gb 16 --set model.dtype=float16" + fields)["memory_plan"];
  CHECK(fp16["first_fitting_tier"] != "standard");
  CHECK(fp16["tiers"][0]["weights"].get<double>() > 15.5 * gib);
  const auto table = run_docsift(
      "inspect " + model + " --config " +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/internvl35-8b.yaml") + fields);
  REQUIRE_MESSAGE(table.exit_code == 0, table.err);
  MESSAGE(table.out);
  CHECK(table.out.find("start at: standard") != std::string::npos);
}

TEST_CASE(
    "inspect plans an InternVL3-8B-shaped folder without weights: int8 starts at standard on a 16 "
    "GB card") {
  docsift::testing::TempDir dir;
  write_8b_config_folder(dir.path());
  const std::string model = shell_quote(dir.path().string());
  const std::string fields =
      " --set extraction.fields=" +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/fields/business-documents.yaml");
  const auto table = run_docsift(
      "inspect " + model +
      " --budget-gb 16 --set model.quantization=int8 --set model.dtype=float16" + fields);
  REQUIRE_MESSAGE(table.exit_code == 0, table.err);
  CHECK(table.out.find("no weight files") != std::string::npos);
  CHECK(table.out.find("start at: standard") != std::string::npos);
  MESSAGE(table.out);
  const auto plan = [&](const std::string& args) {
    const auto r = run_docsift("inspect " + model + " --json" + args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out)["memory_plan"];
  };
  const double gib = 1024.0 * 1024.0 * 1024.0;
  for (const std::string& args :
       {std::string(" --budget-gb 16 --set model.quantization=int8 --set model.dtype=float16") +
            fields,
        " --config " + shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/internvl3-8b.yaml") +
            fields}) {
    CAPTURE(args);
    const auto p = plan(args);
    CHECK(p["tiles"] == 13);
    CHECK(p["quantization"] == "int8");
    CHECK(p["first_fitting_tier"] == "standard");
    const auto& standard = p["tiers"][0];
    CHECK(standard["tier"] == "standard");
    CHECK(standard["spare"].get<double>() >= 2 * gib);  // the margin wanted for a 13-tile page
    CHECK(standard["overhead"].get<double>() > 0);      // the CUDA context is counted
    // 7.94 B parameters: about 7 B in int8 and the rest (vision tower, embeddings) in float16.
    CHECK(standard["weights"].get<double>() > 8.0 * gib);
    CHECK(standard["weights"].get<double>() < 9.0 * gib);
  }
  // Unquantized float16 does not fit the card: the plan falls to the CPU, as before int8.
  const auto fp16 = plan(" --budget-gb 16 --set model.dtype=float16" + fields);
  CHECK(fp16["quantization"] == "none");
  CHECK(fp16["first_fitting_tier"] == "cpu");
  CHECK(fp16["tiers"][0]["weights"].get<double>() > 14.7 * gib);

  // generate refuses the same folder with a reason: it needs the weights.
  const auto run = run_docsift("generate --model " + model + " --image " +
                               shell_quote(std::string(DOCSIFT_SOURCE_DIR) +
                                           "/tests/fixtures/internvl/images/one_tile.png") +
                               " --prompt hi --device cpu");
  CHECK(run.exit_code == 3);
  CHECK(run.err.find("weights missing?") != std::string::npos);
}

TEST_CASE("config: model.quantization, model.float16_residual and memory.cpu_quantization") {
  const auto keys = run_docsift("config --keys");
  REQUIRE(keys.exit_code == 0);
  for (const char* key :
       {"model.quantization", "model.float16_residual", "memory.cpu_quantization"}) {
    CHECK(keys.out.find(key) != std::string::npos);
  }
  const auto bad = run_docsift("config --set model.quantization=int4");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("model.quantization") != std::string::npos);
  CHECK(bad.err.find("int8") != std::string::npos);
  const auto shown =
      run_docsift("config --set model.quantization=int8 --set memory.cpu_quantization=int8");
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("quantization: int8") != std::string::npos);
}

namespace {

// A Llama-3.2-Vision-shaped folder (config.json from the fixture with the real sizes, §2.1, and a
// tokenizer whose <|image|> is 128256 as the Hub's) without weights.
void write_mllama_config_folder(const std::filesystem::path& dir, bool ninety_b) {
  const std::filesystem::path hub =
      std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/mllama/hub";
  nlohmann::json tokenizer = nlohmann::json::parse(std::ifstream(hub / "tokenizer.json"));
  int image_tokens = 0;
  for (auto& added : tokenizer["added_tokens"]) {
    if (added["content"] == "<|image|>") {
      added["id"] = 128256;
      ++image_tokens;
    }
  }
  REQUIRE(image_tokens == 1);
  std::ofstream(dir / "tokenizer.json") << tokenizer.dump();
  nlohmann::json c = nlohmann::json::parse(std::ifstream(hub / "config.json"));
  c["image_token_index"] = 128256;
  c["vision_config"].merge_patch({{"hidden_size", 1280},
                                  {"attention_heads", 16},
                                  {"num_hidden_layers", 32},
                                  {"num_global_layers", 8},
                                  {"intermediate_size", 5120},
                                  {"image_size", 560},
                                  {"vision_output_dim", 7680},
                                  {"intermediate_layers_indices", {3, 7, 15, 23, 30}}});
  nlohmann::json cross = nlohmann::json::array();
  for (int i = 3; i < (ninety_b ? 100 : 40); i += 5) cross.push_back(i);
  c["text_config"].merge_patch({{"hidden_size", ninety_b ? 8192 : 4096},
                                {"num_hidden_layers", ninety_b ? 100 : 40},
                                {"num_attention_heads", ninety_b ? 64 : 32},
                                {"num_key_value_heads", 8},
                                {"intermediate_size", ninety_b ? 28672 : 14336},
                                {"vocab_size", 128256},
                                {"max_position_embeddings", 131072},
                                {"cross_attention_layers", cross}});
  c["text_config"]["rope_scaling"]["original_max_position_embeddings"] = 8192;
  std::ofstream(dir / "config.json") << c.dump(2);
}

}  // namespace

TEST_CASE(
    "inspect plans Qwen2.5-VL-7B without weights: float16 does not fit 16 GB, int8 starts at "
    "standard") {
  // The release's config.json and preprocessor_config.json, the tiny tokenizer beside them with
  // config.json's token ids pointed at it (the real 11 MB tokenizer is not committed).
  const std::filesystem::path fixtures =
      std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/qwen25vl";
  docsift::testing::TempDir dir;
  nlohmann::json c = nlohmann::json::parse(std::ifstream(fixtures / "config-7b/config.json"));
  const nlohmann::json tiny = nlohmann::json::parse(std::ifstream(fixtures / "hub/config.json"));
  for (const char* key :
       {"image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id",
        "vision_token_id", "bos_token_id", "eos_token_id"}) {
    c[key] = tiny[key];
  }
  std::ofstream(dir.path() / "config.json") << c.dump(2);
  std::filesystem::copy_file(fixtures / "config-7b/preprocessor_config.json",
                             dir.path() / "preprocessor_config.json");
  std::filesystem::copy_file(fixtures / "hub/tokenizer.json", dir.path() / "tokenizer.json");
  const std::string fields =
      " --set extraction.fields=" +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/fields/business-documents.yaml");
  const auto plan = [&](const std::string& args) {
    const auto r =
        run_docsift("inspect " + shell_quote(dir.path().string()) + " --json" + args + fields);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  const double gib = 1024.0 * 1024.0 * 1024.0;
  // 8.29 B parameters (vision tower 0.68 B, language model 7.62 B): 15.4 GiB in float16.
  const auto fp16 =
      plan(" --budget-gb 16 --set model.dtype=float16 --set vision.max_pixels=1003520");
  const auto& p = fp16["memory_plan"];
  CHECK(p["tiers"][0]["weights"].get<double>() / 2 == doctest::Approx(8.29e9).epsilon(0.01));
  CHECK(p["first_fitting_tier"] != "standard");
  CHECK(p["shortfall"].get<std::string>().find("model.quantization: int8") != std::string::npos);
  // The shipped config: int8 decoder, 1280 image tokens at most: standard, with room to spare.
  const auto int8 = plan(
      " --config " + shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/qwen25vl-7b.yaml"));
  const auto& q = int8["memory_plan"];
  CHECK(q["quantization"] == "int8");
  CHECK(q["first_fitting_tier"] == "standard");
  CHECK(q["shortfall"] == "");
  CHECK(q["prompt_tokens"].get<int>() > 1280);  // 1280 image pads and the field prompt
  const auto& standard = q["tiers"][0];
  MESSAGE("Qwen2.5-VL-7B int8 standard: weights "
          << standard["weights"].get<double>() / gib << " GiB, activations "
          << standard["activations"].get<double>() / gib << " GiB, spare "
          << standard["spare"].get<double>() / gib << " GiB");
  CHECK(standard["spare"].get<double>() >= 1 * gib);
  // The release's own pixel budget (16,384 image tokens) does not fit the card at any GPU tier.
  const auto whole = plan(
      " --config " + shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/qwen25vl-7b.yaml") +
      " --set vision.max_pixels=auto");
  CHECK(whole["memory_plan"]["first_fitting_tier"] != "standard");
}

namespace {

// A Qwen3-VL release's folder with every tensor of the real shapes, stored as holes: the
// safetensors headers are real (tests/fixtures/qwen3vl/config-<shape>/tensors.json, from
// transformers' model of that config), the data a sparse region of zeros, split into the release's
// shard count with an index. The tiny tokenizer stands in for the real one, config.json's token ids
// pointed at it.
void write_sparse_qwen3vl(const std::string& shape, const std::filesystem::path& dir) {
  const std::filesystem::path fixtures =
      std::filesystem::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/qwen3vl";
  const std::filesystem::path real = fixtures / ("config-" + shape);
  nlohmann::json c = nlohmann::json::parse(std::ifstream(real / "config.json"));
  const nlohmann::json tiny = nlohmann::json::parse(std::ifstream(fixtures / "hub/config.json"));
  for (const char* key :
       {"image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id"}) {
    c[key] = tiny[key];
  }
  std::ofstream(dir / "config.json") << c.dump(2);
  std::filesystem::copy_file(real / "preprocessor_config.json", dir / "preprocessor_config.json");
  std::filesystem::copy_file(fixtures / "hub/tokenizer.json", dir / "tokenizer.json");
  const nlohmann::json list = nlohmann::json::parse(std::ifstream(real / "tensors.json"));
  const auto& tensors = list["tensors"];
  const std::size_t shards = list["shards"].get<std::size_t>();
  nlohmann::json index = {{"metadata", nlohmann::json::object()},
                          {"weight_map", nlohmann::json::object()}};
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", s + 1, shards);
    nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
    std::uint64_t offset = 0;
    for (std::size_t i = s * tensors.size() / shards; i < (s + 1) * tensors.size() / shards; ++i) {
      std::uint64_t bytes = 2;  // bfloat16
      for (const auto& d : tensors[i][1]) bytes *= d.get<std::uint64_t>();
      header[tensors[i][0].get<std::string>()] = {
          {"dtype", "BF16"}, {"shape", tensors[i][1]}, {"data_offsets", {offset, offset + bytes}}};
      index["weight_map"][tensors[i][0].get<std::string>()] = name;
      offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string prefix(8, '\0');
    for (int b = 0; b < 8; ++b) prefix[b] = static_cast<char>((text.size() >> (8 * b)) & 0xff);
    std::ofstream(dir / name, std::ios::binary) << prefix << text;
    std::filesystem::resize_file(dir / name, 8 + text.size() + offset);  // a hole: no disk blocks
    total += offset;
  }
  index["metadata"]["total_size"] = total;
  std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
}

}  // namespace

TEST_CASE(
    "inspect plans Qwen3-VL-8B and -4B from sparse checkpoints of the release's shapes: 8B float16 "
    "does not fit 16 GB, the shipped int8 config does, the 4B fits in float16") {
  const std::string fields =
      " --set extraction.fields=" +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/fields/business-documents.yaml");
  const std::string configs = std::string(DOCSIFT_SOURCE_DIR) + "/configs/";
  const double gib = 1024.0 * 1024.0 * 1024.0;
  TempDir eight, four;
  write_sparse_qwen3vl("8b", eight.path());
  write_sparse_qwen3vl("4b", four.path());
  const auto plan = [&](const TempDir& dir, const std::string& args) {
    const auto r =
        run_docsift("inspect " + shell_quote(dir.path().string()) + " --json" + args + fields);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  // The parameters come from the shards' headers: 8.77 B, the vision tower 0.58 B of them
  // (DeepStack and final mergers count as the projector).
  const auto fp16 =
      plan(eight, " --budget-gb 16 --set model.dtype=float16 --set vision.max_pixels=1310720");
  CHECK(fp16["total"]["parameters"] == 8767123696LL);
  CHECK(fp16["files"].size() == 4);
  CHECK(fp16["parts"]["vision"]["parameters"].get<double>() +
            fp16["parts"]["projector"]["parameters"].get<double>() ==
        576388336.0);
  const auto& p = fp16["memory_plan"];
  CHECK(p["tiers"][0]["weights"].get<double>() / 2 == doctest::Approx(8.77e9).epsilon(0.01));
  CHECK(p["first_fitting_tier"] != "standard");
  CHECK(p["shortfall"].get<std::string>().find("model.quantization: int8") != std::string::npos);
  // The shipped 8B config: int8 decoder, 1280 image tokens at most: standard.
  const auto int8 = plan(eight, " --config " + shell_quote(configs + "qwen3vl-8b.yaml"));
  const auto& q = int8["memory_plan"];
  CHECK(q["quantization"] == "int8");
  CHECK(q["first_fitting_tier"] == "standard");
  CHECK(q["shortfall"] == "");
  CHECK(q["prompt_tokens"].get<int>() > 1280);  // 1280 image pads and the field prompt
  const auto& s8 = q["tiers"][0];
  MESSAGE("Qwen3-VL-8B int8 standard: weights "
          << s8["weights"].get<double>() / gib << " GiB, activations "
          << s8["activations"].get<double>() / gib << " GiB, spare "
          << s8["spare"].get<double>() / gib << " GiB");
  CHECK(s8["spare"].get<double>() >= 1 * gib);
  // The 4B in float16, no quantization: standard.
  const auto small = plan(four, " --config " + shell_quote(configs + "qwen3vl-4b-v100.yaml"));
  CHECK(small["total"]["parameters"] == 4437815808LL);
  const auto& r = small["memory_plan"];
  CHECK(r["quantization"] == "none");
  CHECK(r["first_fitting_tier"] == "standard");
  const auto& s4 = r["tiers"][0];
  MESSAGE("Qwen3-VL-4B float16 standard: weights "
          << s4["weights"].get<double>() / gib << " GiB, activations "
          << s4["activations"].get<double>() / gib << " GiB, spare "
          << s4["spare"].get<double>() / gib << " GiB");
  CHECK(s4["weights"].get<double>() / 2 == doctest::Approx(4.44e9).epsilon(0.01));
  CHECK(s4["spare"].get<double>() >= 1 * gib);
}

TEST_CASE(
    "inspect plans Llama-3.2-11B-Vision without weights: bfloat16 does not fit 16 GB, int8 starts "
    "at standard") {
  docsift::testing::TempDir dir;
  write_mllama_config_folder(dir.path(), /*ninety_b=*/false);
  const std::string model = shell_quote(dir.path().string());
  const std::string fields =
      " --set extraction.fields=" +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/fields/business-documents.yaml");
  const auto plan = [&](const std::string& args) {
    const auto r = run_docsift("inspect " + model + " --json" + args + fields);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  const double gib = 1024.0 * 1024.0 * 1024.0;
  // 10.67 B parameters: 19.9 GiB in bfloat16.
  const auto bf16 = plan(" --budget-gb 16 --set model.dtype=bfloat16");
  const auto& p = bf16["memory_plan"];
  CHECK(p["tiers"][0]["weights"].get<double>() / 2 == doctest::Approx(10.67e9).epsilon(0.005));
  CHECK(p["tiles"] == 4);
  CHECK(p["first_fitting_tier"] == "cpu");
  CHECK(p["tiers"][0]["weights"].get<double>() / gib == doctest::Approx(19.87).epsilon(0.005));
  CHECK(p["shortfall"].get<std::string>().find("standard does not fit") != std::string::npos);
  CHECK(p["shortfall"].get<std::string>().find("model.quantization: int8") != std::string::npos);
  // The shipped config: float16, int8, budget 16 GB. Standard, with at least 2 GiB to spare for
  // a 4-tile page, the CUDA context and the cross-attention K/V (210 MB) included.
  const auto int8 = plan(" --config " + shell_quote(std::string(DOCSIFT_SOURCE_DIR) +
                                                    "/configs/llama32-vision-11b.yaml"));
  const auto& q = int8["memory_plan"];
  CHECK(q["quantization"] == "int8");
  CHECK(q["first_fitting_tier"] == "standard");
  CHECK(q["shortfall"] == "");
  const auto& standard = q["tiers"][0];
  CHECK(standard["spare"].get<double>() >= 2 * gib);
  CHECK(standard["overhead"].get<double>() > 0);
  CHECK(standard["kv_cache"].get<double>() > 210e6);  // cross K/V: 8 × 2 × 6404 × 8 × 128 × 2 B
  MESSAGE("11B int8 standard: weights " << standard["weights"].get<double>() / gib << " GiB, spare "
                                        << standard["spare"].get<double>() / gib << " GiB");

  // 90B against the same card: no GPU tier fits, and the plan says what the smallest needs.
  docsift::testing::TempDir big;
  write_mllama_config_folder(big.path(), /*ninety_b=*/true);
  const auto r = run_docsift(
      "inspect " + shell_quote(big.path().string()) + " --config " +
      shell_quote(std::string(DOCSIFT_SOURCE_DIR) + "/configs/llama32-vision-11b.yaml") + fields);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("start at: cpu") != std::string::npos);
  CHECK(r.out.find("no GPU tier fits (the smallest, offloaded_cache, needs") != std::string::npos);
  MESSAGE(r.out);
}
