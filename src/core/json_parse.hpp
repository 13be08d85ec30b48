#pragma once
// Parsing a JSON file with an error that says where: a syntax error or a truncated file is
// reported with the JSON pointer of the value being read when the text stopped making sense
// (e.g. `t.json: /results/0/samples_us/17: the file ends early (truncated?)`), not only a byte
// offset.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kk3 {

/// Parses `bytes`, the contents of `file`. Throws error(input) naming the file, the JSON pointer
/// and the byte offset when it is not valid JSON; gzip-compressed bytes are decompressed first.
[[nodiscard]] nlohmann::ordered_json parse_json_text(const std::filesystem::path& file,
                                                     const std::string& bytes);

/// Escapes one reference token of a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
[[nodiscard]] std::string json_pointer_token(const std::string& key);

}  // namespace kk3
