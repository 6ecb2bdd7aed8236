// The CUDA plugin's entry point: the CudaBackend the program calls through.
#include <c10/cuda/CUDAStream.h>

#include <cstring>

#include "docsift/device/cuda_backend.h"
#include "docsift/device/cuda_plugin/plugin.h"

#ifndef DOCSIFT_WITH_CUDA_KERNELS
#define DOCSIFT_WITH_CUDA_KERNELS \
  0  // lib/CMakeLists.txt sets 1 when nvcc built lib/docsift/device/cuda_plugin/
#endif

namespace docsift::device::cuda_plugin {
namespace {

class Backend final : public CudaBackend {
 public:
  CudaStatus status() const override { return cuda_plugin::status(); }
  DeviceMemory read_memory(c10::Device device) const override {
    return cuda_plugin::read_memory(device);
  }
  void empty_cache() const override { cuda_plugin::empty_cache(); }
  void reset_peak(c10::Device device) const override { cuda_plugin::reset_peak(device); }
  void synchronize(c10::Device device) const override { cuda_plugin::synchronize(device); }
  void set_memory_fraction(c10::Device device, double fraction) const override {
    cuda_plugin::set_memory_fraction(device, fraction);
  }
  std::unique_ptr<CudaGraph> capture_graph(c10::Device device,
                                           const std::function<void()>& body) const override {
    return cuda_plugin::capture_graph(device, body);
  }
  bool has_kernels() const override { return DOCSIFT_WITH_CUDA_KERNELS != 0; }
  bool w8a16_gemv(device::cuda_plugin::ActType type, const void* x, const int8_t* w,
                  const float* scale, const void* bias, void* y, int64_t rows, int64_t n, int64_t k,
                  c10::Device device) const override {
#if DOCSIFT_WITH_CUDA_KERNELS
    return device::cuda_plugin::w8a16_gemv(
        type, x, w, scale, bias, y, rows, n, k,
        c10::cuda::getCurrentCUDAStream(device.index()).stream());
#else
    (void)type, (void)x, (void)w, (void)scale, (void)bias, (void)y, (void)rows, (void)n, (void)k,
        (void)device;
    return false;
#endif
  }
  bool add_rms_norm(const device::cuda_plugin::AddRmsNormTypes& types, const void* x,
                    const void* update, const void* weight, void* sum, void* normed, int64_t rows,
                    int64_t n, float eps, float clamp, c10::Device device) const override {
#if DOCSIFT_WITH_CUDA_KERNELS
    return device::cuda_plugin::add_rms_norm(
        types, x, update, weight, sum, normed, rows, n, eps, clamp,
        c10::cuda::getCurrentCUDAStream(device.index()).stream());
#else
    (void)types, (void)x, (void)update, (void)weight, (void)sum, (void)normed, (void)rows, (void)n,
        (void)eps, (void)clamp, (void)device;
    return false;
#endif
  }
  bool gemv16(ActType type, GemvEpilogue epilogue, const void* x, const void* w, const void* bias,
              void* y, int64_t rows, int64_t n, int64_t k, c10::Device device) const override {
#if DOCSIFT_WITH_CUDA_KERNELS
    return cuda_plugin::gemv16(type, epilogue, x, w, bias, y, rows, n, k, stream_of(device));
#else
    (void)type, (void)epilogue, (void)x, (void)w, (void)bias, (void)y, (void)rows, (void)n, (void)k,
        (void)device;
    return false;
#endif
  }
  bool decode_attention(const DecodeAttentionArgs& args, c10::Device device) const override {
#if DOCSIFT_WITH_CUDA_KERNELS
    return cuda_plugin::decode_attention(args, stream_of(device));
#else
    (void)args, (void)device;
    return false;
#endif
  }

 private:
  static void* stream_of(c10::Device device) {
    return c10::cuda::getCurrentCUDAStream(device.index()).stream();
  }
};

}  // namespace
}  // namespace docsift::device::cuda_plugin

extern "C" __attribute__((visibility("default"))) const docsift::device::CudaBackend*
docsift_cuda_backend(int abi, const char* version) {
  static const docsift::device::cuda_plugin::Backend backend;
  if (abi != docsift::device::kCudaBackendAbi || version == nullptr ||
      std::strcmp(version, DOCSIFT_VERSION) != 0) {
    return nullptr;
  }
  return &backend;
}
