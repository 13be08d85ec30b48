#pragma once
// The versions of the result format (results/schema/kk3tune-result.schema.json): what the codec
// writes and the oldest it reads and upgrades.

namespace kk3::results {

/// The schema_version kk3tune writes (results/schema/kk3tune-result.schema.json), and the oldest
/// it reads. 2: a record's model shape is an object of the family's key dimensions ("shape":
/// {"heads": 16}); 1 had the integers "heads" and "blocks". 3: the objective is an object
/// (results/objective.hpp) per family (sweeps: families.F.objective and plan.objective) and per
/// entry (time files: results.N.timing.objective); 2 had plan.objective "graph" and no more.
inline constexpr int k_schema_version = 3;
inline constexpr int k_oldest_schema_version = 1;

}  // namespace kk3::results
