// CUDA graphs for the program (cuda_backend.h: CudaBackend::capture_graph): LibTorch's
// at::cuda::CUDAGraph, which routes what the captured work allocates to a private pool of the
// caching allocator, so the addresses a replay writes stay reserved for it.
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <exception>
#include <memory>

#include "docsift/device/cuda_plugin/plugin.h"

namespace docsift::device::cuda_plugin {
namespace {

class Graph final : public CudaGraph {
 public:
  explicit Graph(c10::DeviceIndex device) : device_(device) {}
  void replay() override {
    const c10::cuda::CUDAGuard on(device_);
    graph_.replay();  // on the device's current stream, after the work already queued there
  }
  at::cuda::CUDAGraph& graph() { return graph_; }

 private:
  c10::DeviceIndex device_;
  at::cuda::CUDAGraph graph_;
};

}  // namespace

std::unique_ptr<CudaGraph> capture_graph(c10::Device device, const std::function<void()>& body) {
  const c10::cuda::CUDAGuard on(device.index());
  const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device.index());
  // Capture needs a stream of its own; it starts after the work queued so far (the body reads
  // tensors that work writes), and the current stream waits for it at the end.
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
  at::cuda::CUDAEvent queued;
  queued.record(current);
  queued.block(side);
  auto graph = std::make_unique<Graph>(device.index());
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    // One eager pass first, on the capture stream: lazily made handles and workspaces (cuBLAS,
    // attention kernels) are created outside the capture, as LibTorch's own graph tools do.
    body();
    // Thread-local mode: another thread's CUDA calls (a memory reading, say) cannot break it.
    graph->graph().capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      body();
    } catch (...) {
      // End the capture so the stream and the allocator's routing are released, then report the
      // body's own error (an out-of-memory stays one).
      const std::exception_ptr error = std::current_exception();
      try {
        graph->graph().capture_end();
      } catch (...) {  // NOLINT(bugprone-empty-catch): the body's error is the one to report
      }
      std::rethrow_exception(error);
    }
    graph->graph().capture_end();
  }
  at::cuda::CUDAEvent captured;
  captured.record(side);
  captured.block(current);
  return graph;
}

}  // namespace docsift::device::cuda_plugin
