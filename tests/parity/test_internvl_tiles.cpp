// InternVL3 preprocessing against the transformers -hf image processor (GotOcr2ImageProcessor,
// torchvision bicubic + antialias): reference tiles from scripts/make_fixtures.py.

#include <ATen/ops/from_blob.h>
#include <ATen/ops/tensor.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "docsift/family/internvl/tiles.h"
#include "docsift/image/pages.h"
#include "docsift/image/pil_resize.h"
#include "docsift/image/torch_resize.h"
#include "docsift/io/pages.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::family::internvl::choose_grid;
using docsift::image::read_rgb_image;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/internvl";

// [H, W, 3] uint8 RGB tensor owning a copy of the PNG's pixels.

}  // namespace

TEST_CASE("InternVL tile grid: closest aspect ratio, tie rule, max_tiles") {
  // Worked examples from docs/models.md, "Preprocessing" (max 12 tiles).
  CHECK(choose_grid(640, 480, 1, 12).columns == 4);
  CHECK(choose_grid(640, 480, 1, 12).rows == 3);
  CHECK(choose_grid(1920, 1080, 1, 12).tiles() == 8);
  CHECK(choose_grid(1920, 1080, 1, 12).columns == 4);
  CHECK(choose_grid(800, 1280, 1, 12).columns == 2);
  CHECK(choose_grid(800, 1280, 1, 12).rows == 3);
  CHECK(choose_grid(448, 448, 1, 12).tiles() == 1);
  // Square and large: (1,1), (2,2) and (3,3) tie exactly; more tiles win while the image area
  // exceeds half of the grid's: 800² > 0.5·448²·4 but not > 0.5·448²·9.
  CHECK(choose_grid(800, 800, 1, 12).columns == 2);
  CHECK(choose_grid(2000, 2000, 1, 12).columns == 3);
  CHECK(choose_grid(900, 300, 1, 6).columns == 3);
  CHECK(choose_grid(900, 300, 1, 1).tiles() == 1);  // max_tiles 1: never tiles
  CHECK(choose_grid(10000, 10, 1, 12).columns == 12);
}

TEST_CASE("InternVL tiles match the transformers -hf processor byte for byte") {
  std::ifstream in(kFixtures / "reference/summary.json");
  REQUIRE_MESSAGE(in.good(), "run scripts/make_fixtures.py");
  const auto summary = nlohmann::json::parse(in);
  const int max_tiles = summary["max_tiles"];
  REQUIRE(summary["images"].size() == 2);  // one_tile, many_tiles
  for (const auto& [name, info] : summary["images"].items()) {
    CAPTURE(name);
    const auto image = docsift::family::internvl::preprocess_internvl(
        read_rgb_image(kFixtures / "images" / (name + ".png")), max_tiles);
    const int tiles = info["tiles"];
    REQUIRE(image.tiles_u8.size(0) == tiles);
    CHECK(image.pixel_values.sizes() == at::IntArrayRef({tiles, 3, 448, 448}));
    int64_t max_level_diff = 0;
    double max_pixel_diff = 0;
    for (int k = 0; k < tiles; ++k) {
      const at::Tensor want =
          read_rgb_image(kFixtures / "reference" / (name + ".tile" + std::to_string(k) + ".png"))
              .permute({2, 0, 1});
      const at::Tensor diff = image.tiles_u8[k].to(at::kInt).sub(want.to(at::kInt)).abs();
      max_level_diff = std::max<int64_t>(max_level_diff, diff.max().item<int>());
      const at::Tensor mean = at::tensor({0.485f, 0.456f, 0.406f}).view({3, 1, 1});
      const at::Tensor std = at::tensor({0.229f, 0.224f, 0.225f}).view({3, 1, 1});
      const at::Tensor want_pixels = want.to(at::kFloat).div(255.0f).sub(mean).div(std);
      max_pixel_diff = std::max(max_pixel_diff,
                                image.pixel_values[k].sub(want_pixels).abs().max().item<double>());
    }
    MESSAGE(name << ": " << tiles << " tiles, max uint8 difference " << max_level_diff
                 << ", max pixel_values difference " << max_pixel_diff);
    CHECK(max_level_diff == 0);
    CHECK(max_pixel_diff <= 1e-4);
  }
}

TEST_CASE(
    "Pillow's bicubic, exactly: enlarged, shrunk, and one axis up while the other goes down") {
  const fs::path dir = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/resample";
  const at::Tensor input = read_rgb_image(dir / "input.png");
  REQUIRE(input.size(0) == 47);
  REQUIRE(input.size(1) == 61);
  for (const auto& [w, h] :
       std::vector<std::pair<int, int>>{{150, 113}, {23, 17}, {97, 20}, {30, 80}, {7, 5}}) {
    CAPTURE(w);
    CAPTURE(h);
    const at::Tensor pillow =
        read_rgb_image(dir / ("out_" + std::to_string(w) + "x" + std::to_string(h) + ".png"));
    const at::Tensor ours = docsift::image::pil_resize_bicubic(input, h, w);
    REQUIRE(ours.sizes() == pillow.sizes());
    CHECK(ours.equal(pillow));  // identical bytes
    // The pinned Pillow wheel's one-call output, where it differs from its source's two passes.
    if (const fs::path direct =
            dir / ("direct_" + std::to_string(w) + "x" + std::to_string(h) + ".png");
        fs::exists(direct)) {
      const at::Tensor d = read_rgb_image(direct);
      MESSAGE(w << "x" << h
                << ": the pillow 13.0.0 wheel's one-call resize differs from its source's two "
                   "passes by up to "
                << d.to(at::kInt).sub(pillow.to(at::kInt)).abs().max().item().toInt() << " levels");
    }
    // torchvision's tensor path (the -hf processor's) is not Pillow's: how far it is, for the
    // record.
    const at::Tensor torch_path =
        docsift::image::torch_resize_bicubic(input.permute({2, 0, 1}), h, w)
            .permute({1, 2, 0})
            .contiguous();
    MESSAGE(w << "x" << h << ": torchvision's path differs from Pillow by up to "
              << torch_path.to(at::kInt).sub(pillow.to(at::kInt)).abs().max().item().toInt()
              << " levels");
  }
  // A stride-odd view (a crop) resizes as its contiguous copy does.
  const at::Tensor crop = input.slice(1, 5, 50);
  CHECK(docsift::image::pil_resize_bicubic(crop, 30, 20)
            .equal(docsift::image::pil_resize_bicubic(crop.contiguous(), 30, 20)));
}
