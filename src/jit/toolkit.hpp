#pragma once
// Facts about the compile environment: the NVRTC library and the CUDA include folder.
#include <string>
#include <vector>

#include "core/paths.hpp"

namespace kk3::jit {

/// "13.0": the NVRTC library's version, part of every cache key.
std::string nvrtc_version();
/// The SM numbers NVRTC can compile for (75, 80, ..., 90, 100, ...).
std::vector<int> nvrtc_supported_archs();

/// The CUDA include folder kernels are compiled against: $CUDA_HOME/include, else
/// $CUDA_PATH/include, else the toolkit found at build time, else /usr/local/cuda/include.
/// The first that holds cuda_fp16.h wins; `dir` is empty when none does.
located_dir find_cuda_include_dir();

/// Like find_cuda_include_dir, but throws error(compile) listing every place tried.
located_dir require_cuda_include_dir();

/// The places searched for the include folder, in order.
std::vector<located_dir> cuda_include_candidates();
/// The first candidate holding cuda_fp16.h; throws error(compile) listing them all if none.
located_dir first_cuda_include_dir(const std::vector<located_dir>& candidates);

}  // namespace kk3::jit
