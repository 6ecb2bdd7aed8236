// Multimodal rotary positions: a prompt with one image rotated by 3-D position ids (time, row,
// column) instead of one position per token, as transformers' vision-language decoders compute
// them (its get_rope_index for an image; docs/models.md, "The language model and multimodal
// RoPE"). Two parts, both shared by the families that use it:
//   - the position ids of a prompt whose image is one run of image tokens over a merged grid;
//   - the RoPE tables for those ids, each of the hd/2 frequencies rotated by one axis's id, the
//     axes laid over the frequencies by RopeConfig::mrope_section in one of the layouts below.
// And the vision towers' 2-D rotary tables over their patch grid, which the same families share.
// Shapes: T prompt tokens, N patches, hd head dim.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "docsift/model/blocks.h"
#include "docsift/model/decoder_config.h"

namespace docsift::model {

// How mrope_section's (time, row, column) sizes lay the axes over the hd/2 frequencies.
enum class MropeLayout {
  // Contiguous sections: the first mrope_section[0] frequencies by the time id, the next
  // mrope_section[1] by the row id, the rest by the column id.
  kContiguous,
  // Interleaved: frequency i by the row id when i % 3 == 1 and i < 3 · mrope_section[1], by the
  // column id when i % 3 == 2 and i < 3 · mrope_section[2], by the time id otherwise (transformers'
  // apply_interleaved_mrope).
  kInterleaved,
};

// The axis (0 time, 1 row, 2 column) that rotates each of the hd/2 frequencies, for `section`
// (sizes summing to hd/2, as parse_decoder_config checks).
std::vector<int64_t> mrope_axes(const std::vector<int64_t>& section, MropeLayout layout);

// 3-D position ids [3, T] int64 for `ids`, whose run of `image_token` tokens (if any) is one image
// of `rows` × `columns` merged patches (row-major): text positions count on by one on every axis;
// image tokens get (start, start + row, start + column), and the text after resumes at start +
// max(rows, columns). `delta` is the highest position + 1 − T: a token fed later at cache position
// p has position p + delta on every axis, which plain RoPE tables give (Decoder::rope). Throws
// docsift::Error when the run's length is not rows × columns or there are two runs.
struct MropePositions {
  at::Tensor ids;  // [3, T]
  int64_t delta = 0;
};
MropePositions mrope_positions(const std::vector<int32_t>& ids, int32_t image_token, int64_t rows,
                               int64_t columns);

// RoPE tables [T, 1, hd] in `dtype` for position ids [3, T] (Decoder::forward's caller tables):
// each frequency of RopeConfig's default rule rotated by the id of its axis (mrope_axes), float32
// arithmetic, as the reference.
RopeTables mrope_tables(const RopeConfig& rope, const at::Tensor& positions, MropeLayout layout,
                        at::ScalarType dtype, at::Device device);

// The vision tower's 2-D rotary tables, cos and sin [N, hd] float32, for a grid_h × grid_w patch
// grid with patches in merge-block order (blocks of merge × merge row-major, row-major inside
// one, as the processors flatten them): the hd/4 frequencies 1 / theta^(2i / (hd/2)) times the
// patch's row, then times its column, that half repeated (transformers' VisionRotaryEmbedding of
// Qwen2.5-VL and Qwen3-VL). grid_h and grid_w are multiples of merge; hd a multiple of 4.
RopeTables patch_rope(int64_t head_dim, int64_t merge, double theta, int64_t grid_h, int64_t grid_w,
                      at::Device device);

}  // namespace docsift::model
