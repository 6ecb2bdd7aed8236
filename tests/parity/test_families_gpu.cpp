// Every family's fixtures on cuda:0 against the same transformers references the CPU cases use
// (float32): Llama 3.2 Vision, Qwen2.5-VL and Qwen3-VL through the family interface that run and
// generate use, with generate's defaults (CUDA graphs where the family has them). InternVL3 and
// InternVL3.5 have their own GPU cases in test_internvl.cpp. The prompt is the reference's own
// input_ids: the CPU cases check that the chat format writes exactly those, and the prompt does
// not depend on the device.
#include <ATen/core/Tensor.h>

#include <filesystem>
#include <string>
#include <vector>

#include "docsift/device/devices.h"
#include "docsift/family/loaded_model.h"
#include "docsift/generate/generate.h"
#include "docsift/image/pages.h"
#include "docsift/model/safetensors.h"
#include "support/skip.h"
#include "support/tensor_compare.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::family::ImageInputs;
using docsift::family::LoadedModel;
using docsift::testing::max_diff;
using docsift::testing::token_ids;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures";

// On the GPU float32 matmuls sum in other orders than on the CPU (and cuDNN's convolutions may use
// TF32), so the logits get a looser bound than the CPU cases' 1e-4; the greedy tokens must agree.
constexpr double kGpuLogitBound = 2e-3;

struct Case {
  std::string family;  // the name the registry gives the checkpoint
  fs::path checkpoint;
  fs::path image;
  fs::path reference;  // input_ids, logits (the prompt's last position), greedy
  int max_tiles;
  docsift::family::FamilyOptions options;
};

// Loads the case's checkpoint on `device`, reads its image with the reference's prompt, and checks
// the first logits and the greedy tokens.
void check_case(const Case& c, const at::Device& device) {
  CAPTURE(c.checkpoint.string());
  CAPTURE(c.image.filename().string());
  LoadedModel engine(c.checkpoint, /*require_weights=*/true, c.options);
  REQUIRE(engine.family().name() == c.family);
  engine.load(device, docsift::model::Numerics{at::kFloat});
  REQUIRE(engine.model().device() == device);
  const docsift::model::SafetensorsFile ref(c.reference);
  const ImageInputs inputs =
      engine.family().preprocess(docsift::image::read_rgb_image(c.image), c.max_tiles);
  const std::vector<int32_t> prompt = token_ids(ref.view("input_ids"));
  const std::vector<int32_t> want = token_ids(ref.view("greedy"));
  docsift::generate::GenerationOptions options;
  options.max_new_tokens = static_cast<int>(want.size());  // no stop ids: the reference's count
  const auto result = docsift::generate::generate(engine.model(), inputs, prompt, options);
  const double d = max_diff(result.first_logits, ref.view("logits"));
  MESSAGE(c.family << " " << c.checkpoint.filename().string() << " " << c.image.stem().string()
                   << " on " << device << ": first logits max abs diff " << d << ", " << want.size()
                   << " greedy tokens " << (result.tokens == want ? "identical" : "DIFFERENT"));
  CHECK(d <= kGpuLogitBound);
  CHECK(result.tokens == want);
}

std::vector<Case> qwen_cases(const std::string& family, const std::string& folder,
                             const std::vector<std::string>& layouts) {
  // The references ran transformers 5.23's default processor: torchvision's resize.
  docsift::family::FamilyOptions torchvision;
  torchvision.resample = docsift::image::Resample::Torch;
  std::vector<Case> out;
  for (const auto& layout : layouts) {
    for (const char* name : {"small", "mid"}) {
      const fs::path ref =
          kFixtures / folder / "reference" / (layout + "_" + name + ".safetensors");
      REQUIRE_MESSAGE(fs::exists(ref), "run scripts/make_fixtures.py " << folder);
      out.push_back({family, kFixtures / folder / layout,
                     kFixtures / folder / "images" / (std::string(name) + ".png"), ref, 12,
                     torchvision});
    }
  }
  return out;
}

// Skips the case (reported as skipped) where no CUDA device is usable.
#define REQUIRE_CUDA_OR_SKIP()                                              \
  const auto status = docsift::device::cuda_status();                       \
  if (!status.available) DOCSIFT_SKIP("no CUDA device: " << status.reason); \
  MESSAGE("on " << status.devices.front().name)

}  // namespace

TEST_CASE("on a GPU, Llama 3.2 Vision's fixtures give transformers' logits and greedy tokens") {
  REQUIRE_CUDA_OR_SKIP();
  for (const char* layout : {"hub", "tree"}) {
    for (const char* name : {"one_tile", "grid_2x2"}) {
      const fs::path dir = kFixtures / "mllama";
      check_case({"llama32-vision",
                  dir / layout,
                  dir / "images" / (std::string(name) + ".png"),
                  dir / "reference" / (std::string(name) + ".safetensors"),
                  4,
                  {}},
                 at::Device(at::kCUDA, 0));
    }
  }
}

TEST_CASE("on a GPU, Qwen2.5-VL's fixtures give transformers' logits and greedy tokens") {
  REQUIRE_CUDA_OR_SKIP();
  for (const Case& c : qwen_cases("qwen2.5-vl", "qwen25vl", {"hub", "tf5"}))
    check_case(c, at::Device(at::kCUDA, 0));
}

TEST_CASE("on a GPU, Qwen3-VL's fixtures give transformers' logits and greedy tokens") {
  REQUIRE_CUDA_OR_SKIP();
  for (const Case& c : qwen_cases("qwen3-vl", "qwen3vl", {"hub", "tf5", "tf5-deep3"}))
    check_case(c, at::Device(at::kCUDA, 0));
}

TEST_CASE("the GPU cases' runner gives the references on the CPU too (what the GPU run leans on)") {
  // The same runner on the CPU, one case per family: if it broke, a GPU failure would say nothing
  // about the GPU. The CPU cases in each family's file check far more.
  check_case({"llama32-vision",
              kFixtures / "mllama/hub",
              kFixtures / "mllama/images/one_tile.png",
              kFixtures / "mllama/reference/one_tile.safetensors",
              4,
              {}},
             at::Device(at::kCPU));
  check_case(qwen_cases("qwen2.5-vl", "qwen25vl", {"hub"}).front(), at::Device(at::kCPU));
  check_case(qwen_cases("qwen3-vl", "qwen3vl", {"tf5"}).front(), at::Device(at::kCPU));
}
