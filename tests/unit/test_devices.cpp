// Runs everywhere: without a GPU the status must say why, with one it must list real devices.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "docsift/device/cuda_arch.h"
#include "docsift/device/devices.h"
#include "support/skip.h"

#include <doctest/doctest.h>

TEST_CASE("cuda_status is consistent with or without a GPU") {
  const auto status = docsift::device::cuda_status();
  if (!status.compiled) {
    CHECK_FALSE(status.available);
    CHECK_FALSE(status.reason.empty());
    return;
  }
  CHECK_FALSE(status.runtime_version.empty());
  if (!status.available) {
    MESSAGE("no usable GPU: " << status.reason);
    CHECK_FALSE(status.reason.empty());
    CHECK(status.devices.empty());
    return;
  }
  REQUIRE_FALSE(status.devices.empty());
  for (const auto& d : status.devices) {
    CHECK_FALSE(d.name.empty());
    CHECK(d.total_bytes > (1ULL << 30));
    CHECK(d.free_bytes <= d.total_bytes);
    CHECK(d.major >= 5);
  }
}

// The flags of the pinned torch 2.11.0+cu130 wheel, as its libtorch_cuda.so carries them.
constexpr const char* kCuda13Flags =
    "  - NVCC architecture flags: "
    "-gencode;arch=compute_75,code=sm_75;-gencode;arch=compute_80,code=sm_80;-gencode;arch=compute_"
    "86,code=sm_86;-gencode;arch=compute_90,code=sm_90;-gencode;arch=compute_100,code=sm_100;-"
    "gencode;arch=compute_120,code=sm_120";

TEST_CASE("LibTorch's nvcc flags: which GPUs can run them") {
  using docsift::device::arch_runs_on;
  using docsift::device::parse_nvcc_arch_flags;
  const auto cu13 = parse_nvcc_arch_flags(kCuda13Flags);
  CHECK(docsift::device::describe(cu13) == "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120");
  CHECK_FALSE(arch_runs_on(cu13, 7, 0));  // V100: not in CUDA 13 builds
  CHECK(arch_runs_on(cu13, 7, 5));
  CHECK(arch_runs_on(cu13, 8, 9));   // L4/L40 run the sm_86 code (same major, older minor)
  CHECK(arch_runs_on(cu13, 9, 0));   // H100
  CHECK(arch_runs_on(cu13, 10, 3));  // B300 runs sm_100 code
  CHECK_FALSE(arch_runs_on(cu13, 11, 0));
  // Arch-specific code runs on that GPU only; PTX on it and everything newer.
  const auto special = parse_nvcc_arch_flags(
      "-gencode arch=compute_90a,code=sm_90a -gencode arch=compute_70,code=[sm_70,compute_70]");
  CHECK(docsift::device::describe(special) == "sm_90a sm_70, PTX compute_70");
  CHECK(arch_runs_on(special, 9, 0));
  CHECK(arch_runs_on(special, 12, 0));  // through the compute_70 PTX
  CHECK_FALSE(arch_runs_on(parse_nvcc_arch_flags("code=sm_90a"), 10, 0));
  CHECK(parse_nvcc_arch_flags("no flags here").empty());
  CHECK(parse_nvcc_arch_flags("code=sm_;code=sm_x0;code=foo_80").empty());
}

TEST_CASE("a GPU the LibTorch has no kernels for is named, with what to install") {
  docsift::device::CudaStatus status;
  status.compiled = status.available = true;
  status.runtime_version = "13.0";
  status.arch_flags = kCuda13Flags;
  docsift::device::CudaDevice v100;
  v100.name = "Tesla V100-SXM2-16GB";
  v100.major = 7;
  v100.minor = 0;
  const std::string message = docsift::device::arch_mismatch(status, v100);
  CHECK(message ==
        "cuda:0 (Tesla V100-SXM2-16GB, sm_70) cannot run this build's LibTorch (CUDA 13.0), which "
        "has GPU code for sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 only; build docsift against a "
        "LibTorch whose CUDA build includes sm_70 (for a V100: the cxx11-ABI LibTorch for CUDA "
        "12.6, then LIBTORCH_DIR=... scripts/setup.sh), or run on the CPU with --device cpu");
  docsift::device::CudaDevice h100 = v100;
  h100.major = 9;
  CHECK(docsift::device::arch_mismatch(status, h100).empty());
  status.arch_flags.clear();  // unknown flags: no claim either way
  CHECK(docsift::device::arch_mismatch(status, v100).empty());
}

TEST_CASE("the nvcc flags in the linked libtorch_cuda.so parse") {
  // The same text LibTorch's build configuration prints; reading it from the library file works
  // without a driver (and without loading the CUDA plugin), so the parser meets the real format on
  // every machine with a CUDA LibTorch. libtorch_cuda.so sits beside the mapped libtorch_cpu.so.
  std::ifstream maps("/proc/self/maps");
  std::string line, library;
  while (library.empty() && std::getline(maps, line)) {
    const auto at = line.find('/');
    if (at != std::string::npos && line.ends_with("/libtorch_cpu.so")) {
      library =
          std::filesystem::path(line.substr(at)).replace_filename("libtorch_cuda.so").string();
    }
  }
  REQUIRE_FALSE(library.empty());
  if (!std::filesystem::exists(library))
    DOCSIFT_SKIP("a LibTorch without CUDA (no " << library << ")");
  std::ifstream file(library, std::ios::binary);
  const std::string needle = "-gencode;arch=compute_";
  std::vector<char> chunk(1 << 24);
  std::string carry,
      flags;  // carry: the tail of the previous chunk, for a string across the boundary
  while (flags.empty()) {
    file.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (file.gcount() <= 0) break;
    const std::string text =
        carry + std::string(chunk.data(), static_cast<std::size_t>(file.gcount()));
    const auto at = text.find(needle);
    const auto end = at == std::string::npos ? at : text.find('\0', at);
    if (end != std::string::npos) {
      flags = text.substr(at, end - at);
    } else {
      carry = at != std::string::npos ? text.substr(at)
                                      : text.substr(text.size() > 64 ? text.size() - 64 : 0);
    }
  }
  REQUIRE_MESSAGE(!flags.empty(), library);
  const auto archs = docsift::device::parse_nvcc_arch_flags(flags);
  MESSAGE(library << ": " << docsift::device::describe(archs));
  CHECK_FALSE(archs.empty());
  CHECK(docsift::device::describe(archs).find("sm_") != std::string::npos);
}
