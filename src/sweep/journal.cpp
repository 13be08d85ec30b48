#include "sweep/journal.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.hpp"
#include "results/journal_lines.hpp"

namespace kk3::sweep {

std::filesystem::path journal_path(const std::filesystem::path& out) {
  return out.string() + ".journal";
}

journal::journal(std::filesystem::path file, std::FILE* f, journal_state state)
    : m_file(std::move(file)), m_f(f), m_state(std::move(state)) {}

journal::journal(journal&& o) noexcept
    : m_file(std::move(o.m_file)), m_f(o.m_f), m_state(std::move(o.m_state)) {
  o.m_f = nullptr;
}

journal& journal::operator=(journal&& o) noexcept {
  if (this != &o) {
    if (m_f) std::fclose(m_f);
    m_file = std::move(o.m_file);
    m_f = o.m_f;
    m_state = std::move(o.m_state);
    o.m_f = nullptr;
  }
  return *this;
}

journal::~journal() {
  if (m_f) std::fclose(m_f);
}

journal journal::create(const std::filesystem::path& file, const std::string& key,
                        unsigned long long seed, bool timed) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) {
      throw error(
          error_kind::io,
          file.string() +
              ": the journal of an unfinished sweep is there: pass --resume to continue it, "
              "or delete it to start again");
    }
    throw error(error_kind::io,
                file.string() + ": cannot create the journal: " + std::strerror(errno));
  }
  std::FILE* f = ::fdopen(fd, "a");
  journal_state s;
  s.key = key;
  s.seed = seed;
  s.timed = timed;
  journal j(file, f, std::move(s));
  j.append(results::journal_header_line(key, seed, timed));
  return j;
}

journal journal::resume(const std::filesystem::path& file, const std::string& key) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw error(
        error_kind::io,
        file.string() +
            ": no journal to resume (a sweep writes OUT.journal beside --out OUT while it runs)");
  }
  journal_state s = results::read_journal(file);
  if (s.key != key) {
    throw error(error_kind::usage,
                file.string() +
                    ": this journal belongs to another plan or other flags (--config, --family, "
                    "--tokens, --min-gain, --arch, --inject-fault): resume with the same ones");
  }
  if (s.truncated_lines) {
    // Cut the unfinished last line off, so the next append starts a fresh line.
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::resize_file(file, text.rfind('\n') + 1);
  }
  std::FILE* f = std::fopen(file.c_str(), "a");
  if (!f)
    throw error(error_kind::io,
                file.string() + ": cannot append to the journal: " + std::strerror(errno));
  return journal(file, f, std::move(s));
}

void journal::append(const std::string& line) {
  const std::string text = line + "\n";
  if (std::fwrite(text.data(), 1, text.size(), m_f) != text.size() || std::fflush(m_f) != 0 ||
      ::fdatasync(::fileno(m_f)) != 0) {
    throw error(error_kind::io,
                m_file.string() + ": cannot append to the journal: " + std::strerror(errno));
  }
}

void journal::add_ceiling(double tb_s) {
  append(results::journal_ceiling_line(tb_s));
}

void journal::add_count(const std::string& key, const journal_count& c) {
  append(results::journal_count_line(key, c));
}

void journal::add_verified(const std::string& shape,
                           const std::map<std::string, verification>& variants) {
  append(results::journal_verified_line(shape, variants));
}

void journal::add_unit(const std::string& unit, const std::vector<record>& records,
                       std::size_t compiles, std::size_t failures) {
  append(results::journal_unit_line(unit, records, compiles, failures));
}

void journal::add_fault(const journal_fault& f) {
  append(results::journal_fault_line(f));
  m_state.faults.push_back(f);
}

}  // namespace kk3::sweep
