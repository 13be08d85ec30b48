#pragma once
// The lines of the sweep journal (src/sweep/journal.hpp describes them): writing one line per
// finished unit of work, and reading a journal back into a journal_state.
#include <filesystem>
#include <string>

#include "sweep/journal.hpp"

namespace kk3::report {

std::string journal_header_line(const std::string& key, unsigned long long seed, bool timed);
std::string journal_ceiling_line(double tb_s);
std::string journal_count_line(const std::string& key, const sweep::journal_count& c);
std::string journal_verified_line(const std::string& shape, const std::map<std::string, sweep::verification>& variants);
std::string journal_unit_line(const std::string& unit, const std::vector<sweep::record>& records, std::size_t compiles,
                              std::size_t failures);
std::string journal_fault_line(const sweep::journal_fault& f);

/// Reads a whole journal. Throws error(io) naming the file and line for a line that is not a
/// journal line; an unfinished last line (a kill mid-write) is skipped and counted.
sweep::journal_state read_journal(const std::filesystem::path& file);

}  // namespace kk3::report
