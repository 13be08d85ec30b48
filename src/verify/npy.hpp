#pragma once
// Writes tensors as NumPy .npy files (format 1.0), for --save-workspace.
#include <filesystem>

#include "families/problem.hpp"

namespace kk3::verify {

/// Writes `t` to `file`. bf16 is stored as '<u2' and e4m3 as '|u1' (their raw bits; in numpy,
/// `(a.astype(np.uint32) << 16).view(np.float32)` gives bf16 values); fp32 as '<f4', int64 as
/// '<i8'. Throws error(io) naming the file.
void write_npy(const std::filesystem::path& file, const families::tensor& t);

}  // namespace kk3::verify
