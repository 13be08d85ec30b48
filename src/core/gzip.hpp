#pragma once
// Reading gzip-compressed files (zlib from Debian's zlib1g): results in this repository are
// stored as .json.gz, and every reader of a result, config or plan takes them as they are.
#include <filesystem>
#include <string>
#include <string_view>

namespace kk3 {

/// Whether the bytes begin with gzip's magic number (1f 8b).
[[nodiscard]] bool is_gzip(std::string_view bytes);

/// The decompressed bytes of a gzip stream (several members are concatenated, as gunzip does).
/// Corrupt or truncated data is an input error naming `file`.
[[nodiscard]] std::string gunzip(const std::filesystem::path& file, std::string_view bytes);

/// `bytes` decompressed when they are gzip, else unchanged.
[[nodiscard]] std::string maybe_gunzip(const std::filesystem::path& file, std::string bytes);

}  // namespace kk3
