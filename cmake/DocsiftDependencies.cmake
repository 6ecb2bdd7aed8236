# Third-party dependencies. Each one is a Debian package installed by scripts/setup.sh except
# LibTorch, which comes from the pinned torch wheel or from the user (CMAKE_PREFIX_PATH/Torch_DIR).

find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
# The Public Suffix List's top-level domains (libpsl-dev, its built-in copy): the review queue's
# check of a website or email address (extract/addresses.h).
pkg_check_modules(PSL REQUIRED IMPORTED_TARGET libpsl)
# The OCR engine: Tesseract 5's C++ API (libtesseract-dev, with Leptonica) and its English data.
pkg_check_modules(TESSERACT REQUIRED IMPORTED_TARGET tesseract>=4.1 lept)
# PDF pages: Poppler's C++ library (libpoppler-cpp-dev).
pkg_check_modules(POPPLER REQUIRED IMPORTED_TARGET poppler-cpp>=0.89)

# Debian splits OpenCV into per-module -dev packages and only the full libopencv-dev (200+
# packages) ships OpenCVConfig.cmake; we need three modules, so find them directly.
find_package(OpenCV QUIET COMPONENTS core imgproc imgcodecs)
if(OpenCV_FOUND)
  add_library(docsift_opencv INTERFACE)
  target_link_libraries(docsift_opencv INTERFACE ${OpenCV_LIBS})
  target_include_directories(docsift_opencv SYSTEM INTERFACE ${OpenCV_INCLUDE_DIRS})
else()
  find_path(OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
  add_library(docsift_opencv INTERFACE)
  target_include_directories(docsift_opencv SYSTEM INTERFACE ${OPENCV_INCLUDE_DIR})
  foreach(module core imgproc imgcodecs)
    find_library(OPENCV_${module}_LIBRARY opencv_${module} REQUIRED)
    target_link_libraries(docsift_opencv INTERFACE ${OPENCV_${module}_LIBRARY})
  endforeach()
endif()
add_library(docsift::opencv ALIAS docsift_opencv)

# Without LibTorch (-DDOCSIFT_WITH_TORCH=OFF): the OCR engine's run, eval, merge and report only, for a
# machine that will never load a model (docs/install.md, "Without LibTorch"). Each layer names the files
# that build then (lib/CMakeLists.txt); nothing below is looked for.
if(NOT DOCSIFT_WITH_TORCH)
  set(DOCSIFT_WITH_CUDA OFF)
  set(DOCSIFT_WITH_CUDA_KERNELS OFF)
  set(DOCSIFT_RUNTIME_LIB_DIRS "")
  message(STATUS "docsift: built without LibTorch (DOCSIFT_WITH_TORCH=OFF): OCR engine only")
else()
  # The GPU architectures nvcc compiles docsift's own kernels (lib/docsift/device/cuda_plugin/) for. LibTorch's
  # CUDA setup turns TORCH_CUDA_ARCH_LIST into the -gencode flags of every .cu file (and without a
  # list it compiles and runs a probe for local GPUs, which fails on a machine without one).
  #   - TORCH_CUDA_ARCH_LIST given (cache or environment): as given.
  #   - DOCSIFT_CUDA_ARCHS=all, for a binary to copy to other machines: every architecture the toolkit
  #     supports from the V100's (sm_70; CUDA 13 starts at sm_75), PTX for later GPUs.
  #   - Otherwise the GPUs this machine has (nvidia-smi's compute capabilities), plus PTX; and on a machine
  #     without a GPU, where the kernels cannot run, the oldest supported architecture and its PTX, which
  #     any later GPU's driver compiles at first use: each .cu file in about a seventh of the time
  #     (docs/install.md, "docsift's own CUDA kernels").
  set(DOCSIFT_CUDA_ARCHS "local" CACHE STRING "local (this machine's GPUs, or the oldest with PTX without one) or all")
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 13.0)
      set(_all "7.5;8.0;8.6;8.9;9.0;10.0;12.0")
    elseif(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 12.8)
      set(_all "7.0;7.5;8.0;8.6;8.9;9.0;10.0;12.0")
    elseif(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 11.8)
      set(_all "7.0;7.5;8.0;8.6;8.9;9.0")
    else()
      set(_all "7.0;7.5;8.0;8.6")
    endif()
    set(_local "")
    if(NOT DOCSIFT_CUDA_ARCHS STREQUAL "all")
      find_program(_nvidia_smi nvidia-smi)
      if(_nvidia_smi)
        execute_process(COMMAND ${_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE _caps RESULT_VARIABLE _smi_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
        if(_smi_rc EQUAL 0)
          string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _caps "${_caps}")
          list(REMOVE_DUPLICATES _caps)
          foreach(_cap IN LISTS _caps)
            if(_cap IN_LIST _all)
              list(APPEND _local ${_cap})
            endif()
          endforeach()
        endif()
      endif()
    endif()
    if(DOCSIFT_CUDA_ARCHS STREQUAL "all")
      list(POP_BACK _all _newest)
      set(TORCH_CUDA_ARCH_LIST "${_all};${_newest}+PTX")
    elseif(_local)
      list(POP_BACK _local _newest)
      set(TORCH_CUDA_ARCH_LIST "${_local};${_newest}+PTX")
      list(REMOVE_ITEM TORCH_CUDA_ARCH_LIST "")
      message(STATUS "docsift: CUDA kernels for this machine's GPUs: ${TORCH_CUDA_ARCH_LIST} (DOCSIFT_CUDA_ARCHS=all for every GPU)")
    else()
      list(GET _all 0 _oldest)
      set(TORCH_CUDA_ARCH_LIST "${_oldest}+PTX")
      message(STATUS "docsift: no GPU here: CUDA kernels for ${_oldest} and its PTX, compiled for a later GPU at first use "
                     "(DOCSIFT_CUDA_ARCHS=all for native code for every GPU)")
    endif()
  endif()
  # LibTorch before 2.5 requires the target CUDA::nvToolsExt, a library CUDA 12.9 and newer toolkits no
  # longer ship (NVTX 3 is header-only). Standing the headers in for it lets such a LibTorch (a V100
  # user's 2.4 build, say) configure with a current toolkit; LibTorch 2.5 and newer never ask.
  find_package(CUDAToolkit QUIET)
  if(TARGET CUDA::nvtx3 AND NOT TARGET CUDA::nvToolsExt)
    add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
    target_link_libraries(CUDA::nvToolsExt INTERFACE CUDA::nvtx3)
  endif()
  find_package(Torch REQUIRED)
  if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    message(FATAL_ERROR "The LibTorch at ${Torch_DIR} uses the pre-C++11 std::string ABI, which cannot "
                        "link with the Debian-packaged libraries docsift uses. Download the "
                        "'cxx11 ABI' LibTorch build instead.")
  endif()
  if(Torch_VERSION AND Torch_VERSION VERSION_LESS 2.4)
    message(FATAL_ERROR "LibTorch ${Torch_VERSION} found at ${Torch_DIR}; docsift needs 2.4 or newer")
  endif()
  if(TORCH_CUDA_LIBRARIES OR TARGET torch_cuda)
    set(DOCSIFT_WITH_CUDA ON)
  else()
    set(DOCSIFT_WITH_CUDA OFF)
  endif()
  # Two ways to link LibTorch. docsift::torch, for the program and everything else, is LibTorch's
  # CPU libraries only (libtorch_cpu, libc10): linking libtorch_cuda.so would map the NVIDIA driver
  # into every docsift process, the isolated run's supervisor included (lib/docsift/memory/
  # cuda_backend.h). docsift::torch_cuda, TORCH_LIBRARIES with the CUDA libraries, is for the CUDA
  # plugin (lib/docsift/cuda/), which a process loads when it asks for a GPU.
  separate_arguments(_torch_cxx_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  add_library(docsift_torch INTERFACE)
  if(DOCSIFT_WITH_CUDA)
    target_link_libraries(docsift_torch INTERFACE torch_cpu_library c10)
  else()
    target_link_libraries(docsift_torch INTERFACE ${TORCH_LIBRARIES})
  endif()
  target_compile_options(docsift_torch INTERFACE ${_torch_cxx_flags})
  target_include_directories(docsift_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
  add_library(docsift::torch ALIAS docsift_torch)
  add_library(docsift_torch_cuda INTERFACE)
  target_link_libraries(docsift_torch_cuda INTERFACE ${TORCH_LIBRARIES})
  target_include_directories(docsift_torch_cuda SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
  add_library(docsift::torch_cuda ALIAS docsift_torch_cuda)
  # The PyPI wheel's libtorch.so exports its own static copy of std::filesystem (remove_all,
  # status, ...), and whichever library comes first in the executable's DT_NEEDED list serves
  # those symbols to the whole program. Its remove_all crashes when called from our code, so put
  # the system libstdc++ first: the program then always gets the toolchain's own std::filesystem.
  target_link_options(docsift_torch INTERFACE "LINKER:--push-state,--no-as-needed" "-lstdc++"
                      "LINKER:--pop-state")

  message(STATUS "docsift: LibTorch ${Torch_VERSION} at ${Torch_DIR} (CUDA compiled in: ${DOCSIFT_WITH_CUDA})")
  # docsift's own CUDA kernels need nvcc, which LibTorch's CUDA setup has found and enabled.
  if(DOCSIFT_WITH_CUDA AND CMAKE_CUDA_COMPILER)
    set(DOCSIFT_WITH_CUDA_KERNELS ON)
    message(STATUS "docsift: CUDA kernels for TORCH_CUDA_ARCH_LIST ${TORCH_CUDA_ARCH_LIST} (nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
  else()
    set(DOCSIFT_WITH_CUDA_KERNELS OFF)
  endif()

  # A LibTorch installed from a wheel with `pip install --no-deps` (what setup.sh does) finds its
  # remaining CUDA libraries in sibling nvidia/*/lib folders of site-packages; a full pip install
  # keeps all of them there. The linker needs them to resolve libtorch_cuda.so's own dependencies
  # (-rpath-link) and the program needs them at run time (RPATH).
  get_filename_component(_torch_root "${Torch_DIR}/../../.." ABSOLUTE)
  file(GLOB DOCSIFT_WHEEL_LIB_DIRS LIST_DIRECTORIES true "${_torch_root}/../nvidia/*/lib")
  set(DOCSIFT_RUNTIME_LIB_DIRS "${_torch_root}/lib" ${DOCSIFT_WHEEL_LIB_DIRS})
  foreach(dir ${DOCSIFT_WHEEL_LIB_DIRS})
    target_link_options(docsift_torch INTERFACE "LINKER:-rpath-link,${dir}")
    target_link_options(docsift_torch_cuda INTERFACE "LINKER:-rpath-link,${dir}")
  endforeach()
  set(CMAKE_BUILD_RPATH ${DOCSIFT_RUNTIME_LIB_DIRS})
endif()
