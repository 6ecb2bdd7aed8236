#include "docsift/resilience/oom.h"

#include <c10/util/Exception.h>

#include <new>

namespace docsift::resilience {
namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

// c10::Error subclasses other than OutOfMemoryError, and plain c10::Error, say what failed only
// in their message; AcceleratorError (2.8+) is matched this way too, so older LibTorch builds
// that throw a plain c10::Error for the same CUDA error are classified alike.
ErrorClass from_message(std::string_view m) {
  if (contains(m, "CUBLAS_STATUS_ALLOC_FAILED")) return ErrorClass::kCublasAlloc;
  if (contains(m, "CUDNN_STATUS_ALLOC_FAILED") || contains(m, "CUDNN_STATUS_NOT_SUPPORTED")) {
    return ErrorClass::kCudnnAlloc;
  }
  if (contains(m, "DefaultCPUAllocator: can't allocate memory") ||
      contains(m, "DefaultCPUAllocator: not enough memory")) {
    return ErrorClass::kHostAlloc;
  }
  if (contains(m, "CUDA out of memory")) return ErrorClass::kAllocatorOom;
  if (contains(m, "CUDA error: out of memory") || contains(m, "cudaErrorMemoryAllocation")) {
    return ErrorClass::kAcceleratorAlloc;
  }
  return ErrorClass::kOther;
}

}  // namespace

std::string_view to_string(ErrorClass value) {
  switch (value) {
    case ErrorClass::kAllocatorOom:
      return "allocator_oom";
    case ErrorClass::kCublasAlloc:
      return "cublas_alloc";
    case ErrorClass::kCudnnAlloc:
      return "cudnn_alloc";
    case ErrorClass::kAcceleratorAlloc:
      return "accelerator_alloc";
    case ErrorClass::kHostAlloc:
      return "host_alloc";
    case ErrorClass::kOther:
      return "other";
  }
  return "other";
}

bool is_out_of_memory(ErrorClass value) { return value != ErrorClass::kOther; }

ClassifiedError classify(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const c10::OutOfMemoryError& e) {
    return {ErrorClass::kAllocatorOom, first_line(e.what_without_backtrace())};
  } catch (const c10::Error& e) {
    const std::string message = first_line(e.what_without_backtrace());
    return {from_message(e.what_without_backtrace()), message};
  } catch (const std::bad_alloc& e) {
    return {ErrorClass::kHostAlloc, std::string("host allocation failed (") + e.what() + ")"};
  } catch (const std::exception& e) {
    return {ErrorClass::kOther, first_line(e.what())};
  } catch (...) {
    return {ErrorClass::kOther, "unknown exception"};
  }
}

}  // namespace docsift::resilience
