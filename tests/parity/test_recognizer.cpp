// The second text recognizer (lib/docsift/recognize) against onnxruntime running the ONNX file it
// was converted from (scripts/make_recognizer_reference.py wrote tests/fixtures/recognizer/): the
// same likeliest class at every CTC step, the same probabilities, the same text. Then what a
// damaged conversion does: a clear error naming the file, at load, never a crash midway.
#include <ATen/ops/equal.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/tensor.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "docsift/error.h"
#include "docsift/ocr/cross_read.h"
#include "docsift/ocr/rules.h"
#include "docsift/recognize/line_reader.h"
#include "support/skip.h"

#include <doctest/doctest.h>

namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/recognizer";

// How far bfloat16's convolutions may move a step's probability on the fixture crops (measured on
// Intel AMX: 0.004 to 0.039, the MESSAGE below; twice that, for CPUs that sum in another order).
constexpr double kBfloat16Step = 0.08;

cv::Mat rgb_crop(const std::string& name) {
  const cv::Mat bgr = cv::imread((kFixtures / name).string(), cv::IMREAD_COLOR);
  REQUIRE_MESSAGE(!bgr.empty(), "cannot read " << name);
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  return rgb;
}

// A copy of the converted model in a scratch folder, for the cases that damage it.
fs::path scratch_copy(const std::string& model, const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("docsift-recognizer-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* f : {"recognizer.json", "recognizer.safetensors"})
    fs::copy_file(fs::path(model) / f, dir / f);
  return dir;
}

std::string error_of(const fs::path& folder) {
  try {
    docsift::recognize::LineReader reader(folder);
  } catch (const docsift::FileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("recognizer: PP-OCRv4 on LibTorch reads the crops as onnxruntime does") {
  const std::string model = docsift::recognize::LineReader::installed_folder();
  if (model.empty())
    DOCSIFT_SKIP(
        "no converted recognizer in .deps/ppocr (scripts/setup.sh fetches and converts it)");
  const docsift::recognize::LineReader reader(model);
  std::ifstream in(kFixtures / "reference.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_recognizer_reference.py");
  const auto reference = nlohmann::json::parse(in);
  REQUIRE(reference["crops"].size() ==
          6);  // the script's crops: plain, blurred, faded, squeezed, narrow
  for (const auto& c : reference["crops"]) {
    const std::string name = c["crop"];
    CAPTURE(name);
    const cv::Mat rgb = rgb_crop(name);
    const at::Tensor probs = reader.probabilities(rgb);
    const auto classes = c["classes"].get<std::vector<std::int64_t>>();
    const auto expected = c["probabilities"].get<std::vector<float>>();
    REQUIRE(probs.size(0) == static_cast<std::int64_t>(classes.size()));
    const auto [best, index] = probs.max(1);
    CHECK(at::equal(index, at::tensor(classes, at::kLong)));
    const double diff =
        at::sub(best, at::tensor(expected, at::kFloat)).abs().max().template item<double>();
    CHECK(diff < 2e-4);
    const auto reading = reader.read(rgb);
    CHECK(reading.text == c["text"].get<std::string>());
    CHECK(reading.mean == doctest::Approx(c["score"].get<double>()).epsilon(1e-4));
    CHECK(reading.lowest <= reading.mean);
  }
}

TEST_CASE(
    "recognizer: bfloat16 convolutions read the crops as onnxruntime does, to bfloat16's grain") {
  const std::string model = docsift::recognize::LineReader::installed_folder();
  if (model.empty())
    DOCSIFT_SKIP(
        "no converted recognizer in .deps/ppocr (scripts/setup.sh fetches and converts it)");
  using docsift::recognize::Precision;
  if (!docsift::recognize::cpu_runs_bfloat16()) {
    // Refused at load, naming what the CPU lacks (the e2e test checks the run's own line).
    CHECK_THROWS_WITH_AS(docsift::recognize::LineReader(model, true, Precision::BFloat16),
                         doctest::Contains("AVX-512"), docsift::Error);
    DOCSIFT_SKIP("this CPU has no AVX-512 (BW, VL, DQ): LibTorch has no bfloat16 convolution here");
  }
  const docsift::recognize::LineReader half(model, true, Precision::BFloat16),
      full(model, true, Precision::Float32);
  // Every dense convolution (the 1x1 ones, those of the squeeze-and-excite blocks, the stem, the
  // neck's 1x3) and none of the depthwise ones, which bfloat16 does not make faster.
  MESSAGE("convolutions in bfloat16: " << half.graph().bfloat16_nodes());
  CHECK(half.graph().bfloat16_nodes() == 24);
  CHECK(full.graph().bfloat16_nodes() == 0);
  std::ifstream in(kFixtures / "reference.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_recognizer_reference.py");
  const auto reference = nlohmann::json::parse(in);
  for (const auto& c : reference["crops"]) {
    const std::string name = c["crop"];
    CAPTURE(name);
    const cv::Mat rgb = rgb_crop(name);
    const at::Tensor probs = half.probabilities(rgb);
    const auto expected = c["probabilities"].get<std::vector<float>>();
    REQUIRE(probs.size(0) == static_cast<std::int64_t>(expected.size()));
    // Each step's likeliest class's probability, against onnxruntime's float32 one: bfloat16 keeps
    // 8 bits of each input and weight, so a step moves by up to a few hundredths, never by float32
    // rounding alone (the path ran) and not enough to change a letter of these crops.
    const at::Tensor best = std::get<0>(probs.max(1));
    const double diff =
        at::sub(best, at::tensor(expected, at::kFloat)).abs().max().template item<double>();
    MESSAGE("largest step difference: " << diff);
    CHECK(diff > 1e-6);
    CHECK(diff < kBfloat16Step);
    CHECK(half.read(rgb).text == c["text"].get<std::string>());
    CHECK(half.read(rgb).text == full.read(rgb).text);
  }
}

TEST_CASE("recognizer: the fused elementwise steps give the unfused graph's output bit for bit") {
  const std::string model = docsift::recognize::LineReader::installed_folder();
  if (model.empty())
    DOCSIFT_SKIP(
        "no converted recognizer in .deps/ppocr (scripts/setup.sh fetches and converts it)");
  const docsift::recognize::LineReader fused(model), alone(model, false);
  // PP-LCNetV3's 38 convolutions, nearly each followed by an affine, a hard-swish and an affine.
  MESSAGE("nodes fused: " << fused.graph().fused_nodes());
  CHECK(fused.graph().fused_nodes() >= 200);
  CHECK(alone.graph().fused_nodes() == 0);
  for (const char* name : {"crop_0_plain.png", "crop_1_plain.png", "crop_2_blur.png",
                           "crop_3_faded.png", "crop_4_squeezed.png", "crop_5_plain.png"}) {
    CAPTURE(name);
    const cv::Mat rgb = rgb_crop(name);
    // The crop as given and squeezed to a third of its width: two of the padded input widths.
    cv::Mat narrow;
    cv::resize(rgb, narrow, cv::Size(std::max(2, rgb.cols / 3), rgb.rows));
    for (const cv::Mat& crop : {rgb, narrow}) {
      CHECK(at::equal(fused.probabilities(crop), alone.probabilities(crop)));
      CHECK(fused.read(crop).text == alone.read(crop).text);
    }
  }
}

TEST_CASE("recognizer: a damaged conversion fails at load, naming the file and what is wrong") {
  const std::string model = docsift::recognize::LineReader::installed_folder();
  if (model.empty())
    DOCSIFT_SKIP(
        "no converted recognizer in .deps/ppocr (scripts/setup.sh fetches and converts it)");
  {  // weights cut short
    const fs::path dir = scratch_copy(model, "short");
    fs::resize_file(dir / "recognizer.safetensors",
                    fs::file_size(dir / "recognizer.safetensors") / 2);
    const std::string e = error_of(dir);
    CHECK(e.find("recognizer.safetensors") != std::string::npos);
    fs::remove_all(dir);
  }
  {  // an op the recognizer does not know, a node reading a value never made, no file at all
    const fs::path dir = scratch_copy(model, "ops");
    std::ifstream in(dir / "recognizer.json");
    nlohmann::json spec = nlohmann::json::parse(in);
    in.close();
    const auto write = [&](const nlohmann::json& j) {
      std::ofstream(dir / "recognizer.json") << j.dump();
    };
    nlohmann::json bad = spec;
    bad["nodes"][3]["op"] = "Einsum";
    write(bad);
    std::string e = error_of(dir);
    CHECK(e.find("recognizer.json: node 3 (Einsum): the op is not supported") != std::string::npos);
    bad = spec;
    bad["nodes"][2]["inputs"][0] = "nowhere";
    write(bad);
    e = error_of(dir);
    CHECK(e.find("node 2") != std::string::npos);
    CHECK(e.find("input nowhere is used before it is made") != std::string::npos);
    bad = spec;
    bad["characters"].erase(bad["characters"].size() -
                            1);  // one character short of the model's classes
    write(bad);
    docsift::recognize::LineReader short_dictionary(dir);
    CHECK_THROWS_WITH_AS(short_dictionary.read(rgb_crop("crop_5_plain.png")),
                         doctest::Contains("the model and its characters do not match"),
                         docsift::Error);
    fs::remove(dir / "recognizer.json");
    CHECK(error_of(dir).find("recognizer.json") != std::string::npos);
    fs::remove_all(dir);
  }
}

TEST_CASE(
    "recognizer: its reading of a fixture crop repairs a misread digit, unless the printed sums "
    "vouch for it") {
  const std::string model = docsift::recognize::LineReader::installed_folder();
  if (model.empty())
    DOCSIFT_SKIP(
        "no converted recognizer in .deps/ppocr (scripts/setup.sh fetches and converts it)");
  const docsift::recognize::LineReader reader(model);
  const auto r = reader.read(rgb_crop("crop_5_plain.png"));  // "$190.72", as printed
  const docsift::ocr::LineText second{r.text, r.mean, r.lowest, r.probabilities};
  static const docsift::ocr::Rules rules = docsift::ocr::load_rules("builtin:ocr-rules");
  // Tesseract's "$190.12" from words it was unsure of (40 of 100): the second reading is taken.
  docsift::ocr::Evidence doubtful;
  doubtful.word_min = doubtful.word_mean = 40;
  CHECK_FALSE(docsift::ocr::readings_agree("amount", "$190.12", second.text, rules.lexicon));
  CHECK(docsift::ocr::settle("amount", "$190.12", doubtful, {}, second, rules.lexicon,
                             docsift::ocr::DateOrder::Dmy) == "$190.72");
  // The same, but the page's printed sums agree with $190.12: the first reading stands.
  docsift::ocr::Evidence summed = doubtful;
  summed.sums_agree = true;
  CHECK_FALSE(docsift::ocr::settle("amount", "$190.12", summed, {}, second, rules.lexicon,
                                   docsift::ocr::DateOrder::Dmy));
  // And where Tesseract read it right, the two agree.
  CHECK(docsift::ocr::readings_agree("amount", "$190.72", second.text, rules.lexicon));
}
