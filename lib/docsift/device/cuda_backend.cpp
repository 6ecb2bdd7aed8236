#include "docsift/device/cuda_backend.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "docsift/version.h"

#ifndef DOCSIFT_CUDA_PLUGIN
#define DOCSIFT_CUDA_PLUGIN 0  // lib/CMakeLists.txt sets 1 when it builds libdocsift_cuda.so
#endif

namespace docsift::device {
namespace {

namespace fs = std::filesystem;
constexpr const char* kPluginName = "libdocsift_cuda.so";

struct Loaded {
  const CudaBackend* backend = nullptr;
  std::string why;
  std::string path;
  bool asked_too_early = false;
};

// Where the plugin sits relative to the running program: beside it (the build folder's docsift
// and benchmarks), one folder up (the build folder's tests/), or in ../lib/docsift (installed).
std::vector<fs::path> candidates() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  return {dir / kPluginName, dir.parent_path() / kPluginName,
          dir.parent_path() / "lib" / "docsift" / kPluginName};
}

Loaded load() {
  Loaded out;
  if (!DOCSIFT_CUDA_PLUGIN) {
    out.why = "this build's LibTorch has no CUDA support";
    return out;
  }
  std::string tried;
  for (const fs::path& path : candidates()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    // RTLD_GLOBAL: LibTorch's CUDA libraries see each other's symbols as they would if linked.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* error = ::dlerror();
      out.why = "cannot load " + path.string() + ": " + (error ? error : "unknown error") +
                " (a CUDA library LibTorch needs is missing; reinstall LibTorch or run on the CPU)";
      return out;
    }
    using Entry = const CudaBackend* (*)(int, const char*);
    const auto entry = reinterpret_cast<Entry>(::dlsym(handle, "docsift_cuda_backend"));
    const std::string v = version();
    out.backend = entry ? entry(kCudaBackendAbi, v.c_str()) : nullptr;
    if (out.backend == nullptr) {
      out.why = path.string() + " is not the CUDA plugin of this docsift " + v +
                "; rebuild and reinstall docsift";
      return out;
    }
    // LibTorch answers "is there CUDA?" once per process. If it was asked before the plugin
    // registered its CUDA backend, it keeps saying no: a docsift bug, not a user's problem.
    if (!at::detail::getCUDAHooks().hasCUDART()) {
      out.backend = nullptr;
      out.asked_too_early = true;
      out.why = "docsift bug: LibTorch was asked about CUDA before " + path.string() +
                " was loaded, so this process cannot use a GPU; please report it";
      return out;
    }
    out.path = path.string();
    return out;
  }
  out.why = "the CUDA plugin " + std::string(kPluginName) + " is not installed (looked for " +
            tried + "); reinstall docsift";
  return out;
}

std::once_flag g_once;
Loaded g_loaded;                                     // written once, under g_once
std::atomic<const CudaBackend*> g_backend{nullptr};  // read on every int8 CUDA matmul

}  // namespace

const CudaBackend* load_cuda_backend(std::string* why) {
  std::call_once(g_once, [] {
    g_loaded = load();
    g_backend.store(g_loaded.backend, std::memory_order_release);
  });
  if (g_loaded.asked_too_early) throw std::logic_error(g_loaded.why);
  if (why != nullptr) *why = g_loaded.why;
  return g_loaded.backend;
}

const CudaBackend* loaded_cuda_backend() { return g_backend.load(std::memory_order_acquire); }

const CudaBackend* loaded_kernels() {
  const CudaBackend* cuda = loaded_cuda_backend();
  return cuda && cuda->has_kernels() ? cuda : nullptr;
}

std::optional<cuda_plugin::ActType> kernel_type(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat:
      return cuda_plugin::ActType::kFloat32;
    case c10::kHalf:
      return cuda_plugin::ActType::kFloat16;
    case c10::kBFloat16:
      return cuda_plugin::ActType::kBFloat16;
    default:
      return std::nullopt;
  }
}

std::string cuda_backend_path() { return loaded_cuda_backend() ? g_loaded.path : std::string(); }

}  // namespace docsift::device
