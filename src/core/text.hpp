#pragma once
// Small string and file helpers shared by every stage.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kk3 {

/// Splits on a delimiter, trimming blanks; empty items are dropped.
std::vector<std::string> split(std::string_view text, char delimiter);
/// Removes leading and trailing white space.
std::string trim(std::string_view text);
/// Joins with a separator.
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// Reads a whole file; throws error(io) naming the file.
std::string read_file(const std::filesystem::path& file);
/// Writes a file atomically (a temporary beside it, then rename); throws error(io).
void write_file_atomic(const std::filesystem::path& file, std::string_view bytes);

}  // namespace kk3
