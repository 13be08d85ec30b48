#include "sweep/claims.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.hpp"

namespace kk3::sweep {
namespace {

std::filesystem::path claim_file(const std::filesystem::path& dir, std::size_t item) {
  return dir / ("item-" + std::to_string(item));
}

}  // namespace

item_claims::item_claims(std::filesystem::path dir, int worker)
    : m_dir(std::move(dir)), m_worker(worker) {
  std::error_code ec;
  std::filesystem::create_directories(m_dir, ec);
  if (ec)
    throw error(error_kind::io,
                m_dir.string() + ": cannot create the claims folder (" + ec.message() + ")");
}

std::vector<std::size_t> item_claims::mine(std::size_t items) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < items; ++i) {
    std::ifstream in(claim_file(m_dir, i));
    int worker = -1;
    if (in >> worker && worker == m_worker) out.push_back(i);
  }
  return out;
}

std::optional<std::size_t> item_claims::claim_next(std::size_t items) {
  for (; m_next < items; ++m_next) {
    const std::string file = claim_file(m_dir, m_next).string();
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;  // another worker has it
      throw error(error_kind::io,
                  file + ": cannot claim the work item (" + std::strerror(errno) + ")");
    }
    const std::string text = std::to_string(m_worker) + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) throw error(error_kind::io, file + ": cannot write the claim");
    return m_next++;
  }
  return std::nullopt;
}

}  // namespace kk3::sweep
