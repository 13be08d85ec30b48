#pragma once
// The parts of a result file the reader (results/reader.hpp) reads into the model: a time file's
// entries, a sweep's records, families and dispatch tables. Each takes a json_fields, lenient or
// strict (json_fields.hpp), and fails naming the file and the JSON pointer.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/json_fields.hpp"
#include "results/model.hpp"

namespace kk3::results {

/// The records of a kind "time" document: one per entry of "results" (or the one measurement of
/// the first layout of `time --json`, its variant in the subject).
[[nodiscard]] std::vector<record> read_time_entries(const json_fields& f,
                                                    const nlohmann::ordered_json& doc);

/// One record of a sweep's "records" list at `at` (its objective is its family's: the caller's).
/// The one record decoder: lenient for a result file (what is there), strict for a journal's
/// records at full precision (results/codec.hpp: record_from_json; every field required).
[[nodiscard]] record read_record(const json_fields& f, const nlohmann::ordered_json& e,
                                 const std::string& at);

/// A finalist's verification block at `at`; its reason is the record's (`reason`).
[[nodiscard]] verification read_verification(const json_fields& f, const nlohmann::ordered_json& v,
                                             const std::string& at, const std::string& reason);

/// The "families" object of a sweep. Strict: required, and each family's knobs and shape_keys
/// (or schema 1's shape_key) too; lenient: what is there.
[[nodiscard]] std::vector<family_summary> read_families(const json_fields& f,
                                                        const nlohmann::ordered_json& doc);

/// One entry of a sweep's "dispatch" list at `at`. Strict fields (emit) also require each range's
/// knobs, runner_up and margin and at least one range; lenient ones take what is there.
[[nodiscard]] dispatch_entry read_dispatch(const json_fields& f, const nlohmann::ordered_json& d,
                                           const std::string& at);

}  // namespace kk3::results
