// The CUDA half of docsift, loaded only by a process that asks for a CUDA device.
//
// Why a plugin: LibTorch's CUDA library (libtorch_cuda.so) links cuBLASLt, whose static
// initializer dlopens the NVIDIA driver (libcuda.so.1) in every process that maps it, before
// main(). A program linked against it therefore maps the driver whether or not it ever uses a
// GPU, and the supervisor of `run --isolate worker` must not. So the docsift program links only
// LibTorch's CPU libraries, and everything that needs CUDA (the runtime and allocator calls, the
// hand-written kernels, and through its own dependencies libtorch_cuda.so with LibTorch's CUDA
// operators) is in libdocsift_cuda.so, built beside the program when the LibTorch has CUDA.
// Loading it registers LibTorch's CUDA backend exactly as linking it would have.
//
// The one rule: load it before anything asks LibTorch about CUDA (at::hasCUDA, at::manual_seed,
// torch::cuda::*), because LibTorch caches the answer of its first question for the life of the
// process. device::cuda_status() loads it, and every path to a CUDA device goes through that
// (resolve_device); load_cuda_backend() checks the rule held and says so when it did not.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "docsift/device/cuda_plugin/add_rms_norm.h"
#include "docsift/device/cuda_plugin/decode_attention.h"
#include "docsift/device/cuda_plugin/gemv16.h"
#include "docsift/device/cuda_plugin/w8a16.h"
#include "docsift/device/devices.h"
#include "docsift/device/readings.h"

namespace docsift::device {

// A captured CUDA graph (CudaBackend::capture_graph). Destroying it frees its private memory pool
// once no tensor made during the capture is alive.
class CudaGraph {
 public:
  virtual ~CudaGraph() = default;
  // Queues the captured work on the device's current stream.
  virtual void replay() = 0;
};

// What the plugin provides; see devices.h and device_memory.h for the meaning of each call.
class CudaBackend {
 public:
  virtual ~CudaBackend() = default;
  virtual CudaStatus status() const = 0;
  virtual DeviceMemory read_memory(c10::Device device) const = 0;
  virtual void empty_cache() const = 0;
  virtual void reset_peak(c10::Device device) const = 0;
  virtual void synchronize(c10::Device device) const = 0;
  virtual void set_memory_fraction(c10::Device device, double fraction) const = 0;
  // Runs `body` once on a side stream (warm-up), then captures a second run of it as a CUDA graph
  // whose allocations come from a private pool: every tensor the captured run made, including
  // what `body` kept, lives at a fixed address that each replay writes again. `body` must queue
  // work only (no host reads, no synchronisation). An exception from the body ends the capture
  // and is rethrown; the capture's own failure throws c10::Error.
  virtual std::unique_ptr<CudaGraph> capture_graph(c10::Device device,
                                                   const std::function<void()>& body) const = 0;
  // docsift's own kernels (lib/docsift/device/cuda_plugin/): false when the plugin was built
  // without nvcc.
  virtual bool has_kernels() const = 0;
  // device::cuda_plugin::w8a16_gemv (same contract) on `device`'s current LibTorch stream.
  virtual bool w8a16_gemv(device::cuda_plugin::ActType type, const void* x, const int8_t* w,
                          const float* scale, const void* bias, void* y, int64_t rows, int64_t n,
                          int64_t k, c10::Device device) const = 0;
  // device::cuda_plugin::add_rms_norm (same contract) on `device`'s current LibTorch stream.
  virtual bool add_rms_norm(const device::cuda_plugin::AddRmsNormTypes& types, const void* x,
                            const void* update, const void* weight, void* sum, void* normed,
                            int64_t rows, int64_t n, float eps, float clamp,
                            c10::Device device) const = 0;
  // device::cuda_plugin::gemv16 (same contract) on `device`'s current LibTorch stream.
  virtual bool gemv16(device::cuda_plugin::ActType type, device::cuda_plugin::GemvEpilogue epilogue,
                      const void* x, const void* w, const void* bias, void* y, int64_t rows,
                      int64_t n, int64_t k, c10::Device device) const = 0;
  // device::cuda_plugin::decode_attention (same contract) on `device`'s current LibTorch stream.
  virtual bool decode_attention(const device::cuda_plugin::DecodeAttentionArgs& args,
                                c10::Device device) const = 0;
};

// Bumped whenever CudaBackend changes, so that a plugin from another build is refused, not called.
constexpr int kCudaBackendAbi = 4;

// Loads the plugin once per process and returns it, or nullptr with the reason in `*why`: this
// build's LibTorch has no CUDA, or the plugin (or a CUDA library it needs) could not be loaded.
// A machine without a GPU or driver still loads it; its status() then says why CUDA is unusable.
// Throws std::logic_error when LibTorch had been asked about CUDA before the plugin was loaded.
const CudaBackend* load_cuda_backend(std::string* why = nullptr);

// The plugin if this process has loaded it, else nullptr. Never loads: without the plugin no CUDA
// tensor can exist, so a caller holding one already has it loaded.
const CudaBackend* loaded_cuda_backend();

// The loaded plugin when it has docsift's own kernels (CudaBackend::has_kernels), else nullptr;
// never loads (as loaded_cuda_backend), so it is what a caller holding CUDA tensors asks.
const CudaBackend* loaded_kernels();

// The kernels' element type for a LibTorch dtype: float32, float16, bfloat16; nullopt for others.
std::optional<cuda_plugin::ActType> kernel_type(c10::ScalarType t);

// Where the plugin was found (empty when not loaded), for `docsift --version`.
std::string cuda_backend_path();

}  // namespace docsift::device

// The plugin's one exported symbol: its backend, or nullptr when `abi` or `version` (the loading
// program's docsift version) differ from the plugin's own.
extern "C" const docsift::device::CudaBackend* docsift_cuda_backend(int abi, const char* version);
