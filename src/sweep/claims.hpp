#pragma once
// Work items pulled by several workers (sweep --gpus): a folder with one file per claimed item,
// created with O_EXCL, so exactly one worker gets each item, across processes (and machines on a
// shared file system). A claim file holds the claiming worker's number; a restarted worker takes
// its own claims again (its journal replays what they measured) before it claims new items.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

namespace kk3::sweep {

class item_claims {
 public:
  /// Claims in `dir` (created when missing) for worker `worker` (0-based).
  item_claims(std::filesystem::path dir, int worker);

  /// The items this worker claimed before (ascending): a restarted worker redoes them first.
  std::vector<std::size_t> mine(std::size_t items) const;
  /// Claims the lowest item below `items` that nobody has; nullopt when all are taken.
  /// Items are taken in plan order, so each worker's items ascend.
  std::optional<std::size_t> claim_next(std::size_t items);

 private:
  std::filesystem::path m_dir;
  int m_worker;
  std::size_t m_next = 0;  ///< every item below it is claimed
};

}  // namespace kk3::sweep
