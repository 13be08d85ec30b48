#pragma once
// The sweep's journal (issue 8): JSON lines beside the output file (OUT.journal), one line per
// finished unit of work, each appended and flushed to disk before the sweep goes on, so that
// `kk3tune sweep --resume` continues after a kill -9 without measuring anything again.
//
// What the lines hold, and the codec that writes and reads them: results/journal_lines.hpp.
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/journal_lines.hpp"
#include "sweep/sweep.hpp"

namespace kk3::sweep {

// The journal's contents and the item keys are the result model's.
using results::count_key;
using results::journal_count;
using results::journal_fault;
using results::journal_state;
using results::shape_key;

/// The journal of one sweep. Every add_* appends one line and flushes it to the disk. state()
/// is what the file held when it was opened, plus the faults added since (the supervisor checks
/// a new fault against them); the sweep looks each unit up once, before doing it.
class journal {
 public:
  /// Starts a new journal at `file` (which must not exist) with this header.
  static journal create(const std::filesystem::path& file, const std::string& key,
                        unsigned long long seed, bool timed);
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
  void add_unit(const std::string& unit, const std::vector<record>& records, std::size_t compiles,
                std::size_t failures);
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
