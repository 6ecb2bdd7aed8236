// Memory-mapped safetensors files. Tensors come out as zero-copy CPU views over the mapping
// that keep it alive; `load` converts to the dtype and device a model wants.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "docsift/model/safetensors_header.h"

namespace docsift::model {

// A read-only view of a whole file, mapped copy-on-write so a stray in-place op on a weight
// view changes a private page instead of crashing or touching the file.
class MappedFile {
 public:
  static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  // Tells the kernel the pages inside [offset, offset + length) are not needed now. They are
  // clean file pages, so nothing is lost: a later read faults them back in from the file. Called
  // after a tensor was converted to a copy, so the source bytes stop counting towards RSS.
  void release(std::size_t offset, std::size_t length) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedFile(std::filesystem::path path, std::byte* data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::filesystem::path path_;
  std::byte* data_;
  std::size_t size_;
};

at::ScalarType to_scalar_type(DType dtype);

class SafetensorsFile {
 public:
  // Maps the file and validates its header; throws docsift::FileError.
  explicit SafetensorsFile(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return mapping_->path(); }
  const SafetensorsHeader& header() const { return header_; }
  const TensorEntry* find(std::string_view name) const;

  // Zero-copy CPU tensor with the stored dtype and shape. Throws if `name` is absent.
  at::Tensor view(std::string_view name) const;
  // The tensor in `dtype` on `device`; the view itself when nothing needs converting.
  at::Tensor load(std::string_view name, at::ScalarType dtype, at::Device device) const;
  // Drops the mapped pages of `name` (after a caller converted its view), see MappedFile::release.
  void release(std::string_view name) const;

 private:
  const TensorEntry& entry(std::string_view name) const;

  std::shared_ptr<const MappedFile> mapping_;
  SafetensorsHeader header_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace docsift::model
