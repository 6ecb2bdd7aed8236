#include <doctest/doctest.h>

#include "docsift/family/internvl/config.h"
#include "docsift/family/mllama/config.h"
#include "docsift/family/qwen25vl/config.h"
#include "docsift/format.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/inspect.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

using namespace docsift::model;

TEST_CASE("tensor names map to parts by each family's own table, first match winning") {
  namespace internvl = docsift::family::internvl;
  namespace mllama = docsift::family::mllama;
  namespace qwen = docsift::family::qwen25vl;
  CHECK(model_part("vision_model.encoder.layers.0.attn.qkv.weight", internvl::kTensorParts) ==
        "vision");
  CHECK(model_part("model.vision_tower.encoder.layer.0.attention.q_proj.weight",
                   internvl::kTensorParts) == "vision");
  CHECK(model_part("mlp1.1.weight", internvl::kTensorParts) == "projector");
  CHECK(model_part("model.multi_modal_projector.linear_1.weight", internvl::kTensorParts) ==
        "projector");
  CHECK(model_part("language_model.model.layers.0.self_attn.q_proj.weight",
                   internvl::kTensorParts) == "language");
  CHECK(model_part("model.language_model.embed_tokens.weight", internvl::kTensorParts) ==
        "language");
  CHECK(model_part("lm_head.weight", internvl::kTensorParts) == "language");
  CHECK(model_part("something_else", internvl::kTensorParts) == "other");
  CHECK(model_part("model.vision_model.transformer.layers.0.mlp.fc1.weight",
                   mllama::kTensorParts) == "vision");
  CHECK(model_part("multi_modal_projector.weight", mllama::kTensorParts) == "projector");
  // Qwen2.5-VL: the merger is the projector, though its prefix extends the vision tower's.
  CHECK(model_part("visual.blocks.0.attn.qkv.weight", qwen::kTensorParts) == "vision");
  CHECK(model_part("visual.merger.mlp.0.weight", qwen::kTensorParts) == "projector");
  CHECK(model_part("model.visual.merger.ln_q.weight", qwen::kTensorParts) == "projector");
  CHECK(model_part("model.layers.0.self_attn.q_proj.bias", qwen::kTensorParts) == "language");
  // Without a family's table every tensor is "other".
  CHECK(model_part("lm_head.weight", {}) == "other");
}

TEST_CASE("summarize counts parameters and bytes per part from headers") {
  docsift::testing::TempDir dir;
  docsift::testing::write_tiny_internvl_checkpoint(dir.path());
  const Checkpoint ckpt(dir.path());
  const ModelSummary s = summarize(ckpt, docsift::family::internvl::kTensorParts);
  CHECK(s.architecture == "InternVLChatModel");
  CHECK(s.model_type == "internvl_chat");
  REQUIRE(s.parts.size() == 3);
  CHECK(s.parts[0].part == "vision");
  CHECK(s.parts[0].parameters == 4 + 48);
  CHECK(s.parts[0].bytes == (4 + 48) * 4);
  CHECK(s.parts[1].part == "projector");
  CHECK(s.parts[1].parameters == 32);
  CHECK(s.parts[1].bytes == 64);
  CHECK(s.parts[2].part == "language");
  CHECK(s.parts[2].parameters == 160);
  CHECK(s.total.parameters == 4 + 48 + 32 + 160);
  CHECK(s.total.tensors == 5);
  CHECK(s.total.parameters_by_dtype.at("F32") == 52);
  CHECK(s.total.parameters_by_dtype.at("BF16") == 192);
  CHECK(s.file_bytes == std::filesystem::file_size(dir / "model.safetensors"));

  const auto j = to_json(s);
  CHECK(j["parts"]["projector"]["parameters"] == 32);
  CHECK(j["total"]["bytes"] == 52 * 4 + 192 * 2);
  const auto text = to_text(s);
  CHECK(text.find("InternVLChatModel (model_type internvl_chat)") != std::string::npos);
  CHECK(text.find("projector") != std::string::npos);
}

TEST_CASE("human-readable units") {
  using docsift::human_bytes;
  using docsift::human_count;
  CHECK(human_bytes(512) == "512 B");
  CHECK(human_bytes(1536) == "1.50 KiB");
  CHECK(human_bytes(16ULL << 30) == "16.00 GiB");
  CHECK(human_count(999) == "999");
  CHECK(human_count(938'200'000) == "938.20 M");
  CHECK(human_count(8'100'000'000ULL) == "8.10 B");
}
