#include "docsift/family/patch_processor.h"

#include <algorithm>

#include "docsift/error.h"
#include "docsift/json_fields.h"
#include "docsift/strict_json.h"

namespace docsift::family {

ImageConfig parse_image_config(const nlohmann::json& processor, const std::string& label,
                               const PatchGrid& grid) {
  const JsonFields file(processor, label);
  // transformers 5's processor_config.json holds the image processor's keys under
  // "image_processor".
  const nlohmann::json* inner = file.find("image_processor");
  const JsonFields p = inner != nullptr ? JsonFields(*inner, label + ": image_processor") : file;
  ImageConfig c;
  // min_pixels / max_pixels where the file has them (Qwen2.5-VL's release), else size
  // {shortest_edge, longest_edge}.
  int64_t shortest = c.min_pixels, longest = c.max_pixels;
  if (const nlohmann::json* size = p.find("size")) {
    const JsonFields s(*size, label + ": size");
    shortest = s.integer("shortest_edge", shortest);
    longest = s.integer("longest_edge", longest);
  }
  c.min_pixels = p.integer("min_pixels", shortest);
  c.max_pixels = p.integer("max_pixels", longest);
  const int64_t factor = grid.factor();
  if (c.min_pixels < 1 || c.max_pixels < factor * factor || c.min_pixels > c.max_pixels ||
      c.max_pixels > (1LL << 40)) {
    p.fail("min_pixels and max_pixels must satisfy 1 <= min_pixels <= max_pixels, max_pixels >= " +
           std::to_string(factor * factor));
  }
  const auto same = [&](const char* key, int64_t model_value) {
    if (const int64_t v = p.integer(key, model_value); v != model_value) {
      p.fail(std::string("\"") + key + "\" " + std::to_string(v) +
             " differs from the vision tower's " + std::to_string(model_value));
    }
  };
  same("patch_size", grid.patch_size);
  same("temporal_patch_size", grid.temporal_patch_size);
  same("merge_size", grid.merge_size);
  const auto triple = [&](const char* key, std::array<double, 3>& out) {
    const nlohmann::json* v = p.find(key);
    if (v == nullptr) return;
    if (!v->is_array() || v->size() != 3)
      p.fail(std::string("\"") + key + "\" must be a list of 3 numbers");
    for (std::size_t i = 0; i < 3; ++i) {
      if (!(*v)[i].is_number()) p.fail(std::string("\"") + key + "\" must be a list of 3 numbers");
      out[i] = (*v)[i].get<double>();
    }
  };
  triple("image_mean", c.mean);
  triple("image_std", c.std);
  for (const double s : c.std) {
    if (!(s > 0)) p.fail("\"image_std\" must be positive");
  }
  c.rescale = p.number("rescale_factor", c.rescale);
  if (!p.boolean("do_rescale", true) || !p.boolean("do_normalize", true) ||
      !p.boolean("do_resize", true)) {
    p.fail("do_resize, do_rescale and do_normalize must be true (the model was trained so)");
  }
  const std::string type = p.string("image_processor_type", "");
  c.torchvision = type.ends_with("Fast");
  c.pil = type.ends_with("Pil");
  return c;
}

ImageConfig read_image_config(const std::filesystem::path& dir, const PatchGrid& grid,
                              const std::string& model) {
  for (const char* name : {"preprocessor_config.json", "processor_config.json"}) {
    const std::filesystem::path file = dir / name;
    if (std::filesystem::is_regular_file(file)) {
      return parse_image_config(read_json_file(file.string(), /*max_depth=*/8, 1u << 20),
                                file.string(), grid);
    }
  }
  throw FileError(dir.string() +
                  ": has neither preprocessor_config.json nor processor_config.json; " + model +
                  "'s pixel budget (min_pixels, max_pixels) comes from there: download it with "
                  "the weights");
}

void lower_max_pixels(ImageConfig& image, std::optional<int64_t> max_pixels,
                      const PatchGrid& grid) {
  if (!max_pixels) return;
  const int64_t factor = grid.factor();
  const int64_t floor = std::max(image.min_pixels, factor * factor);
  if (*max_pixels < floor) {
    throw ConfigError("vision.max_pixels " + std::to_string(*max_pixels) +
                      " is below this model's smallest image (" + std::to_string(floor) +
                      " pixels: min_pixels or one " + std::to_string(factor) + " × " +
                      std::to_string(factor) + " block)");
  }
  image.max_pixels = std::min(image.max_pixels, *max_pixels);
}

int64_t max_merged_patches(const ImageConfig& image, const PatchGrid& grid) {
  return image.max_pixels / (grid.factor() * grid.factor());
}

}  // namespace docsift::family
