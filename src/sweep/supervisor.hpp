#pragma once
// Isolation (issue 8): the sweep's GPU work runs in a worker process that its supervisor
// restarts. A variant that faults (an illegal address, a trap: a sticky error that ends the
// CUDA context), kills the worker, or runs longer than --variant-timeout is recorded in the
// journal as launch_failed or timeout with the reason, and the next worker resumes from the
// journal without it. The supervisor itself never touches the GPU.
#include <string>
#include <utility>
#include <vector>

namespace kk3::sweep {

class journal;

struct supervisor_options {
  std::vector<std::string> worker_argv;  ///< the worker's command line (this executable, --worker)
  double variant_timeout_s = 60;         ///< GPU work of one variant longer than this is a hang
  int max_restarts = 64;                 ///< then give up (each restart needs a new fault)
  std::vector<std::pair<std::string, std::string>>
      env;           ///< set in the worker (e.g. CUDA_VISIBLE_DEVICES)
  std::string name;  ///< the worker's name in messages (e.g. "GPU 1"); empty for one worker
};

/// Runs workers until one exits on its own; returns that exit code. Appends each fault to `log`.
/// Throws error(launch) when a worker dies without naming a variant, or the same variant
/// faults twice at one shape.
int supervise(const supervisor_options& options, journal& log);

/// The exit code with which a worker asks to be restarted after reporting a variant's fault.
inline constexpr int k_exit_worker_restart = 75;

}  // namespace kk3::sweep
