#pragma once
// Parsing a JSON file with an error that says where: a syntax error or a truncated file is
// reported with the JSON pointer of the value being read when the text stopped making sense
// (e.g. `t.json: /results/0/samples_us/17: the file ends early (truncated?)`), not only a byte
// offset.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kk3::report {

/// Parses `bytes`, the contents of `file`. Throws error(input) naming the file, the JSON pointer
/// and the byte offset when it is not valid JSON; gzip-compressed bytes are decompressed first.
nlohmann::ordered_json parse_json_text(const std::filesystem::path& file, const std::string& bytes);

/// The schema_version kk3tune writes (results/schema/kk3tune-result.schema.json), and the oldest
/// it reads. 2: a record's model shape is an object of the family's key dimensions ("shape":
/// {"heads": 16}); 1 had the integers "heads" and "blocks". 3: the objective is an object
/// (timing/objective.hpp) per family (sweeps: families.F.objective and plan.objective) and per
/// entry (time files: results.N.timing.objective); 2 had plan.objective "graph" and no more.
inline constexpr int k_schema_version = 3;
inline constexpr int k_oldest_schema_version = 1;

/// Escapes one reference token of a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string json_pointer_token(const std::string& key);

}  // namespace kk3::report
