// libFuzzer target: a model folder's config.json as each family reads it (family/internvl/config.h,
// family/mllama/config.h, family/qwen25vl/config.h, family/qwen3vl/config.h, the Qwen image
// processor's file (family/patch_processor.h),
// model/decoder_config.h for the language model alone): every malformed,
// missing or out-of-range key must be a docsift error naming it, never a crash, a library exception
// or an overflow; what is accepted has positive sizes and parameter counts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "docsift/error.h"
#include "docsift/family/internvl/config.h"
#include "docsift/family/mllama/config.h"
#include "docsift/family/qwen25vl/config.h"
#include "docsift/family/qwen3vl/config.h"
#include "docsift/json_fields.h"
#include "docsift/model/decoder_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json json =
      nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  try {
    const auto c = docsift::family::internvl::parse_internvl_config(json, "fuzz");
    if (c.text.hidden <= 0 || c.tokens_per_tile() < 0) std::abort();
    (void)docsift::family::internvl::parameter_count(c);
  } catch (const docsift::Error&) {
  }
  try {
    const auto c = docsift::family::mllama::parse_mllama_config(json, "fuzz");
    if (c.text.self_layers() < 1 || c.vision.aspect_ratios.empty()) std::abort();
    (void)docsift::family::mllama::parameter_count(c);
  } catch (const docsift::Error&) {
  }
  try {
    const auto c = docsift::family::qwen25vl::parse_qwen25vl_config(json, "fuzz");
    if (c.text.rope.mrope_section.size() != 3 || c.vision.head_dim() % 4 != 0) std::abort();
    (void)docsift::family::qwen25vl::parameter_count(c);
  } catch (const docsift::Error&) {
  }
  try {
    const auto c = docsift::family::qwen3vl::parse_qwen3vl_config(json, "fuzz");
    if (c.text.rope.mrope_section.size() != 3 || c.vision.head_dim() % 4 != 0 ||
        c.vision.position_side < 1 ||
        static_cast<int64_t>(c.vision.deepstack_blocks.size()) > c.text.layers)
      std::abort();
    (void)docsift::family::qwen3vl::parameter_count(c);
  } catch (const docsift::Error&) {
  }
  try {
    const auto image =
        docsift::family::parse_image_config(json, "fuzz", docsift::family::PatchGrid{});
    if (image.min_pixels < 1 || image.max_pixels < image.min_pixels) std::abort();
  } catch (const docsift::Error&) {
  }
  try {
    const auto c =
        docsift::model::parse_decoder_config(docsift::JsonFields(json, "fuzz"), true, false);
    if (c.head_dim <= 0 || c.head_dim % 2 != 0) std::abort();
    (void)docsift::model::decoder_parameters(c);
    (void)docsift::model::decoder_int8_terms(c);
  } catch (const docsift::Error&) {
  }
  return 0;
}
