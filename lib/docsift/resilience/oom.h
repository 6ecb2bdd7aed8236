// Out-of-memory in every shape LibTorch and CUDA produce it (docs/memory.md, "The tier ladder"),
// told apart from every other failure, which the ladder must not retry.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace docsift::resilience {

enum class ErrorClass {
  kAllocatorOom,      // c10::OutOfMemoryError from the caching allocator
  kCublasAlloc,       // CUBLAS_STATUS_ALLOC_FAILED (handle or workspace creation)
  kCudnnAlloc,        // CUDNN_STATUS_ALLOC_FAILED / CUDNN_STATUS_NOT_SUPPORTED under pressure
  kAcceleratorAlloc,  // a CUDA error carrying cudaErrorMemoryAllocation ("out of memory")
  kHostAlloc,         // std::bad_alloc, "DefaultCPUAllocator: can't allocate memory"
  kOther,             // anything else: not retried
};

std::string_view to_string(ErrorClass value);
bool is_out_of_memory(ErrorClass value);

struct ClassifiedError {
  ErrorClass error_class = ErrorClass::kOther;
  std::string message;  // first line, without LibTorch's backtrace
};

// Classifies an exception in flight (`std::current_exception()` inside a catch block).
ClassifiedError classify(std::exception_ptr error);

}  // namespace docsift::resilience
