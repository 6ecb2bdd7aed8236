#include "docsift/model/safetensors.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include "docsift/error.h"

namespace docsift::model {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; big-endian hosts would need byte swapping");

namespace {

std::string errno_text() { return std::strerror(errno); }

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(path.string() + ": cannot open: " + errno_text());
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw FileError(path.string() + ": cannot stat: " + errno_text());
  if (!S_ISREG(st.st_mode)) throw FileError(path.string() + ": not a regular file");
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) {
    return std::shared_ptr<const MappedFile>(new MappedFile(path, nullptr, 0));
  }
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) throw FileError(path.string() + ": cannot map: " + errno_text());
  return std::shared_ptr<const MappedFile>(
      new MappedFile(path, static_cast<std::byte*>(data), size));
}

void MappedFile::release(std::size_t offset, std::size_t length) const {
  if (data_ == nullptr || offset >= size_) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t end = std::min(size_, offset + length);
  const std::size_t first = (offset + page - 1) / page * page;  // whole pages inside the range only
  const std::size_t last = end / page * page;
  if (last > first) ::madvise(data_ + first, last - first, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

at::ScalarType to_scalar_type(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return at::kBool;
    case DType::U8:
      return at::kByte;
    case DType::I8:
      return at::kChar;
    case DType::U16:
      return at::kUInt16;
    case DType::I16:
      return at::kShort;
    case DType::U32:
      return at::kUInt32;
    case DType::I32:
      return at::kInt;
    case DType::U64:
      return at::kUInt64;
    case DType::I64:
      return at::kLong;
    case DType::F16:
      return at::kHalf;
    case DType::BF16:
      return at::kBFloat16;
    case DType::F32:
      return at::kFloat;
    case DType::F64:
      return at::kDouble;
    case DType::F8_E4M3:
      return at::kFloat8_e4m3fn;
    case DType::F8_E5M2:
      return at::kFloat8_e5m2;
  }
  throw Error("unreachable dtype");
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : mapping_(MappedFile::open(path)),
      header_(parse_safetensors_header(mapping_->bytes(), path.string())) {
  for (std::size_t i = 0; i < header_.tensors.size(); ++i)
    index_.emplace(header_.tensors[i].name, i);
}

const TensorEntry* SafetensorsFile::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &header_.tensors[it->second];
}

const TensorEntry& SafetensorsFile::entry(std::string_view name) const {
  const TensorEntry* found = find(name);
  if (found == nullptr) {
    throw FileError(path().string() + ": no tensor named '" + std::string(name) + "'");
  }
  return *found;
}

at::Tensor SafetensorsFile::view(std::string_view name) const {
  const TensorEntry& e = entry(name);
  const auto options = at::TensorOptions().dtype(to_scalar_type(e.dtype)).device(at::kCPU);
  std::byte* data =
      const_cast<std::byte*>(mapping_->bytes().data()) + header_.data_offset + e.begin;
  const std::vector<std::int64_t>& sizes = e.shape;
  if (e.nbytes() == 0) return at::empty(sizes, options);
  // The data section starts wherever the header ends, so a tensor may sit at an address that is
  // not a multiple of its element size; kernels assume alignment, so copy those few.
  if (reinterpret_cast<std::uintptr_t>(data) % dtype_size(e.dtype) != 0) {
    at::Tensor copy = at::empty(sizes, options);
    std::memcpy(copy.data_ptr(), data, e.nbytes());
    return copy;
  }
  auto keep_alive = mapping_;
  return at::from_blob(
      data, sizes, [keep_alive](void*) mutable { keep_alive.reset(); }, options);
}

at::Tensor SafetensorsFile::load(std::string_view name, at::ScalarType dtype,
                                 at::Device device) const {
  at::Tensor t = view(name);
  if (t.scalar_type() == dtype && t.device() == device) return t;
  at::Tensor converted = t.to(device, dtype);
  t.reset();
  // The mapping's copy is no longer referenced by this tensor: drop its pages, so converting a
  // bf16 checkpoint to fp32 peaks at the fp32 size, not fp32 + the whole file.
  release(name);
  return converted;
}

void SafetensorsFile::release(std::string_view name) const {
  const TensorEntry& e = entry(name);
  mapping_->release(header_.data_offset + e.begin, e.nbytes());
}

}  // namespace docsift::model
