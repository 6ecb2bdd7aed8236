// libFuzzer target: an OCR calibration file (ocr.calibration, ocr/calibration.h) and a threshold
// file (a config whose review.fields name fields, as `eval --write-thresholds` writes it), one
// input split at its first NUL byte, each written to a file and loaded as a run loads it; the first
// part is loaded as the field finder's weights (ocr.finder, ocr/finder.h) too. Every problem must
// be a docsift::ConfigError; what is accepted must hold only finite weights and field offsets,
// known features and kinds with parameters (a kind's read_again model too), and thresholds in
// [0, 1] for fields of the schema.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/config/config.h"
#include "docsift/error.h"
#include "docsift/extract/schema.h"
#include "docsift/ocr/calibration.h"
#include "docsift/ocr/finder.h"
#include "scratch_folder.h"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir =
      docsift::fuzz::make_scratch_folder("docsift-fuzz-calibration");
  return dir;
}

std::string written(const std::string& name, std::string_view text) {
  const std::filesystem::path path = scratch() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  return path.string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find('\0');
  static const std::vector<std::string> fields =
      docsift::extract::load_field_schema(docsift::extract::kBuiltinSchema).names();
  try {
    const docsift::ocr::Calibration c =
        docsift::ocr::load_calibration(written("c.yaml", input.substr(0, cut)));
    c.check_fields(fields);
    if (!c.kinds.count("text")) __builtin_trap();
    const auto& features = docsift::ocr::feature_names();
    const auto check = [&](const docsift::ocr::Calibrator& model) {
      if (!std::isfinite(model.intercept)) __builtin_trap();
      for (const auto& [name, weight] : model.weights) {
        if (!std::isfinite(weight) ||
            std::find(features.begin(), features.end(), name) == features.end())
          __builtin_trap();
      }
    };
    for (const auto& [kind, model] : c.kinds) check(model);
    // A model of the values read again: only beside its kind's own.
    for (const auto& [kind, model] : c.read_again) {
      if (!c.kinds.count(kind)) __builtin_trap();
      check(model);
    }
    for (const auto& [field, kind] : c.field_kinds) {
      if (!c.kinds.count(kind) || std::find(fields.begin(), fields.end(), field) == fields.end())
        __builtin_trap();
    }
    // A field's own offset: finite, and only on a field the file lists with its kind.
    for (const auto& [field, offset] : c.field_offsets) {
      if (!std::isfinite(offset) || !c.field_kinds.count(field)) __builtin_trap();
    }
  } catch (const docsift::ConfigError&) {
  }
  try {
    const docsift::ocr::FinderModel f =
        docsift::ocr::load_finder(written("f.yaml", input.substr(0, cut)));
    const auto& known = docsift::ocr::finder_features();
    for (const auto& [field, names] : known) {
      if (!f.weights.count(field)) __builtin_trap();
    }
    for (const auto& [field, weights] : f.weights) {
      const auto names = known.find(field);
      if (names == known.end()) __builtin_trap();
      for (const auto& [name, weight] : weights) {
        if (!std::isfinite(weight) ||
            std::find(names->second.begin(), names->second.end(), name) == names->second.end())
          __builtin_trap();
      }
    }
  } catch (const docsift::ConfigError&) {
  }
  if (cut != std::string_view::npos) {
    try {
      const docsift::config::Config config =
          docsift::config::load(written("t.yaml", input.substr(cut + 1)), {});
      for (const auto& [field, threshold] : config.review.fields) {
        if (!(threshold >= 0 && threshold <= 1)) __builtin_trap();
        if (config.keys_given.count("review.fields") != 0 &&
            std::find(fields.begin(), fields.end(), field) == fields.end()) {
          __builtin_trap();
        }
      }
    } catch (const docsift::ConfigError&) {
    }
  }
  return 0;
}
