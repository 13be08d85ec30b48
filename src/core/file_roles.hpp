#pragma once
// What a command reads and what it writes, by the option that names each file, checked in one
// place before any work: no output may be one of the inputs (it would destroy what is read) or
// another output (one would silently replace the other). Paths are compared as the file system
// sees them: through symbolic links and "..", and by device and inode where the file exists
// (a hard link is the same file under another name).
#include <filesystem>
#include <string>
#include <vector>

namespace kk3 {

/// The files of one command. Each is named by the option that gave it ("--out", "--config",
/// "results", "--kernel-dir"), for messages.
class file_roles {
 public:
  /// A file the command reads.
  void input(std::string option, const std::filesystem::path& file);
  /// Every regular file under `folder` (recursively) is read: kernel sources, configs.
  void input_folder(const std::string& option, const std::filesystem::path& folder);
  /// A file the command writes (or replaces, or removes when done: a journal).
  void output(std::string option, const std::filesystem::path& file);

  /// Throws error(usage) for the first output that is an input or another output, naming both
  /// options and the file; nothing has been written then.
  void check() const;

 private:
  struct entry {
    std::string option;
    std::filesystem::path file;
    bool in_folder = false;  ///< a file of the folder the option named, not the option's file
  };
  std::vector<entry> m_inputs, m_outputs;
};

/// Whether `a` and `b` name one file: the same device and inode when both exist, else the same
/// path once links and ".." are resolved (a file that does not exist yet).
[[nodiscard]] bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace kk3
