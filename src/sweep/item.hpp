#pragma once
// One work item on a GPU (sweep/plan.hpp): its token counts screened and measured, the shape's
// finalists verified, its dispatch table selected. Three steps, three functions; the journal
// makes each resumable.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "device/device_info.hpp"
#include "jit/loaded_kernels.hpp"
#include "sweep/plan.hpp"
#include "timing/timer.hpp"
#include "verify/verifier.hpp"

namespace kk3::sweep {

/// What running items on one GPU shares.
struct item_tools {
  const sweep_request& request;
  const device::device_info& info;
  const timing::timer& timer;
  const verify::verifier& verifier;
  unsigned long long seed = 0;
};

/// A record of variant `v` of an item at shape `s`, with nothing measured yet.
record make_record(const work_item& item, const families::shape& s, const space::variant& v);

/// Runs `item` with its mode's kernels (those that compiled): appends its records and its
/// dispatch entry to `out`; `on_count` is called after each token count with a progress line.
/// Throws error(launch) when the reference faulted here before, or a variant faults now.
void run_item(const item_tools& g, const work_item& item,
              const std::vector<jit::loaded_kernel>& kernels, results::result_set& out,
              const std::function<void(const std::string&)>& on_count);

/// Asks a running sweep to stop after the count it is measuring (sweep.hpp request_stop).
bool stop_requested();

}  // namespace kk3::sweep
