#pragma once
// The sweep's journal (issue 8): JSON lines beside the output file (OUT.journal), one line per
// finished unit of work, each appended and flushed to disk before the sweep goes on, so that
// `kk3tune sweep --resume` continues after a kill -9 without measuring anything again.
//
// Lines (src/report/sweep_journal.cpp writes and reads them):
//   header    {"kk3tune_journal":1,"key":DIGEST,"seed":S,"timed":B}   the plan and flags it belongs to
//   ceiling   {"ceiling_tb_s":X}                                      the copy ceiling of the first run
//   count     {"count":KEY,"tokens":T,"records":[...],"carried":[...]}
//             one token count of one family/mode/shape measured: its records at full precision
//             and the first round's order, which the next count screens from (the rest of the
//             screening state follows from the token counts and these records)
//   verified  {"verified":SHAPE,"variants":{ID:{status,...}}}        a shape's finalists verified
//   unit      {"unit":FAMILY/MODE,"records":[...],"compiles":N,"compile_failures":K}   compile-only run
//   fault     {"fault":SHAPE,"tokens":T,"variant":ID,"status":"launch_failed"|"timeout","reason":R}
//             a variant that ended or hung its worker process: excluded from that shape on restart
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// One token count of one family/mode/shape, finished.
struct journal_count {
  long long tokens = 0;
  std::vector<record> records;            ///< as measured: final ones "unverified", the rest "dropped";
                                          ///< faulted and unlaunchable ones with their reasons
  std::vector<std::string> carried;       ///< the screening order carried to the next count
};

/// A variant that faulted or hung: it is left out of its shape from then on.
struct journal_fault {
  std::string shape;  ///< shape key (family/mode/H/NB)
  long long tokens = 0;
  std::string variant, status, reason;
};

/// Everything a journal holds, keyed for the sweep to look up.
struct journal_state {
  std::string key;
  unsigned long long seed = 0;
  bool timed = false;
  std::optional<double> ceiling_tb_s;
  std::map<std::string, journal_count> counts;                             ///< count key -> count
  std::map<std::string, std::map<std::string, verification>> verified;     ///< shape key -> variant -> outcome
  std::map<std::string, std::vector<record>> units;                        ///< compile-only: family/mode -> records
  std::map<std::string, std::pair<std::size_t, std::size_t>> unit_compiles;  ///< family/mode -> (compiles, failures)
  std::vector<journal_fault> faults;
  std::size_t truncated_lines = 0;  ///< an unfinished last line (a kill mid-write), skipped
};

/// Shape and count keys: "family/mode/heads=16" and "family/mode/heads=16/T64" (a family with
/// no key dimension: "family/mode" and "family/mode/T64").
std::string shape_key(const std::string& family, const std::string& mode, const families::dims& shape);
std::string count_key(const std::string& shape, long long tokens);

/// The journal of one sweep. Every add_* appends one line and flushes it to the disk. state()
/// is what the file held when it was opened, plus the faults added since (the supervisor checks
/// a new fault against them); the sweep looks each unit up once, before doing it.
class journal {
 public:
  /// Starts a new journal at `file` (which must not exist) with this header.
  static journal create(const std::filesystem::path& file, const std::string& key, unsigned long long seed, bool timed);
  /// Opens an existing journal to continue it; throws error(io) naming the file when it is
  /// missing or unreadable, error(usage) when its key is not `key` (another plan or flags).
  static journal resume(const std::filesystem::path& file, const std::string& key);

  journal(journal&&) noexcept;
  journal& operator=(journal&&) noexcept;
  journal(const journal&) = delete;
  journal& operator=(const journal&) = delete;
  ~journal();

  const journal_state& state() const { return m_state; }
  const std::filesystem::path& file() const { return m_file; }

  void add_ceiling(double tb_s);
  void add_count(const std::string& key, const journal_count& c);
  void add_verified(const std::string& shape, const std::map<std::string, verification>& variants);
  void add_unit(const std::string& unit, const std::vector<record>& records, std::size_t compiles, std::size_t failures);
  void add_fault(const journal_fault& f);

 private:
  journal(std::filesystem::path file, std::FILE* f, journal_state state);
  void append(const std::string& line);

  std::filesystem::path m_file;
  std::FILE* m_f = nullptr;
  journal_state m_state;
};

/// The journal beside an output file: OUT.journal.
std::filesystem::path journal_path(const std::filesystem::path& out);

}  // namespace kk3::sweep
