#pragma once
// The sweep journal's contents (src/sweep/journal.hpp keeps the file): JSON lines beside the
// output file (OUT.journal), one line per finished unit of work, in the result file's record
// layout at full precision (results/codec.hpp). The codec writes each line and reads a whole
// journal back.
//
// Lines:
//   header    {"kk3tune_journal":3,"key":DIGEST,"seed":S,"timed":B}
//             the plan and flags it belongs to
//   ceiling   {"ceiling_tb_s":X}   the copy ceiling of the first run
//   count     {"count":KEY,"tokens":T,"records":[...],"carried":[...]}
//             one token count of one family/mode/shape measured: its records at full precision
//             and the first round's order, which the next count screens from (the rest of the
//             screening state follows from the token counts and these records)
//   verified  {"verified":SHAPE,"variants":{ID:{reason,verification}}}
//             a shape's finalists verified
//   unit      {"unit":FAMILY/MODE,"records":[...],"compiles":N,"compile_failures":K}
//             a compile-only run
//   fault     {"fault":SHAPE,"tokens":T,"variant":ID,"status":S,"reason":R} (S: launch_failed
//             or timeout)
//             a variant that ended or hung its worker process: excluded from that shape on restart
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/model.hpp"

namespace kk3::results {

/// One token count of one family/mode/shape, finished.
struct journal_count {
  long long tokens = 0;
  /// as measured: final ones unverified, the rest dropped; faulted and unlaunchable ones with
  /// their reasons
  std::vector<record> records;
  std::vector<std::string> carried;  ///< the screening order carried to the next count
};

/// A variant that faulted or hung: it is left out of its shape from then on.
struct journal_fault {
  std::string shape;  ///< shape key (family/mode/H/NB)
  long long tokens = 0;
  std::string variant;
  results::status status = results::status::launch_failed;  ///< launch_failed or timeout
  std::string reason;
};

/// Everything a journal holds, keyed for the sweep to look up.
struct journal_state {
  std::string key;
  unsigned long long seed = 0;
  bool timed = false;
  std::optional<double> ceiling_tb_s;
  std::map<std::string, journal_count> counts;  ///< count key -> count
  /// shape key -> variant -> outcome
  std::map<std::string, std::map<std::string, verification>> verified;
  std::map<std::string, std::vector<record>> units;  ///< compile-only: family/mode -> records
  /// family/mode -> (compiles, failures)
  std::map<std::string, std::pair<std::size_t, std::size_t>> unit_compiles;
  std::vector<journal_fault> faults;
  std::size_t truncated_lines = 0;  ///< an unfinished last line (a kill mid-write), skipped
};

[[nodiscard]] std::string journal_header_line(const std::string& key, unsigned long long seed,
                                              bool timed);
[[nodiscard]] std::string journal_ceiling_line(double tb_s);
[[nodiscard]] std::string journal_count_line(const std::string& key, const journal_count& c);
[[nodiscard]] std::string journal_verified_line(
    const std::string& shape, const std::map<std::string, verification>& variants);
[[nodiscard]] std::string journal_unit_line(const std::string& unit,
                                            const std::vector<record>& records,
                                            std::size_t compiles, std::size_t failures);
[[nodiscard]] std::string journal_fault_line(const journal_fault& f);

/// Reads a whole journal. Throws error(io) naming the file and line for a line that is not a
/// journal line; an unfinished last line (a kill mid-write) is skipped and counted.
[[nodiscard]] journal_state read_journal(const std::filesystem::path& file);

}  // namespace kk3::results
