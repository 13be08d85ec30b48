#include "sweep/supervisor.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/watch.hpp"
#include "results/codec.hpp"
#include "sweep/journal.hpp"

namespace kk3::sweep {
namespace {

volatile std::sig_atomic_t g_forward = 0;  // a signal the supervisor got, to pass on to the worker

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", s);
  return text;
}

pid_t start_worker(const supervisor_options& o, const watch::region& region) {
  std::vector<char*> argv;
  for (const std::string& a : o.worker_argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string fd = std::to_string(region.fd());
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    throw error(error_kind::device,
                std::string("cannot start a sweep worker: fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);       // a killed supervisor takes its worker along
    if (::getppid() != parent) ::_exit(127);  // it died before the line above
    ::setenv(watch::k_env, fd.c_str(), 1);
    for (const auto& [key, value] : o.env) ::setenv(key.c_str(), value.c_str(), 1);
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "kk3tune sweep: cannot start the worker: %s\n", std::strerror(errno));
    ::_exit(127);
  }
  return pid;
}

/// Waits for the worker; kills it when one variant's GPU work outlasts the timeout.
/// Returns the wait status and whether the watchdog killed it.
std::pair<int, bool> wait_for(pid_t pid, const supervisor_options& o, const watch::region& region,
                              watch::snapshot& last) {
  bool forwarded = false;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      last = region.read();  // what it wrote last, report_fault included
      return {status, false};
    }
    if (done < 0 && errno != EINTR)
      throw error(error_kind::device,
                  std::string("waiting for the sweep worker: ") + std::strerror(errno));
    if (g_forward && !forwarded) {
      ::kill(pid, SIGTERM);  // it stops after the current count and keeps what it measured
      forwarded = true;
    }
    last = region.read();
    if (last.active && last.active_s > o.variant_timeout_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return {status, true};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int supervise(const supervisor_options& o, journal& log) {
  watch::region region;
  // Ctrl-C reaches the worker with the terminal's process group; a SIGTERM (a timeout, a job
  // scheduler) reaches only this process and is passed on. Either way the worker keeps what it
  // measured and its exit code is returned.
  std::signal(SIGINT, [](int) { g_forward = 1; });
  std::signal(SIGTERM, [](int) { g_forward = 1; });
  for (int restarts = 0;; ++restarts) {
    region.reset();
    const pid_t pid = start_worker(o, region);
    watch::snapshot last;
    const auto [status, timed_out] = wait_for(pid, o, region, last);
    if (g_forward) return WIFEXITED(status) ? WEXITSTATUS(status) : k_exit_usage;

    journal_fault f;
    f.shape = last.shape;
    f.tokens = last.tokens;
    if (timed_out) {
      f.variant = last.variant;
      f.status = results::status::timeout;
      f.reason = "its GPU work ran " + seconds(last.active_s) + " s, beyond --variant-timeout " +
                 seconds(o.variant_timeout_s) + " s: the worker was killed";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == k_exit_worker_restart &&
               !last.fault_variant.empty()) {
      f.variant = last.fault_variant;
      f.status = results::status::launch_failed;
      f.reason = last.fault_reason;
    } else if (WIFSIGNALED(status) && !last.variant.empty()) {
      f.variant = last.variant;
      f.status = results::status::launch_failed;
      f.reason = std::string("the worker process died of signal ") +
                 std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) +
                 ") during this variant's GPU work";
    } else if (WIFEXITED(status)) {
      return WEXITSTATUS(status);  // finished, or an error that is not one variant's
    } else {
      throw error(error_kind::launch,
                  "the sweep worker died of signal " + std::to_string(WTERMSIG(status)) +
                      " outside any variant's GPU work; the journal " + log.file().string() +
                      " keeps what was measured (--resume)");
    }
    for (const journal_fault& old : log.state().faults) {
      if (old.shape == f.shape && old.variant == f.variant) {
        throw error(error_kind::launch, f.shape + ": " + f.variant +
                                            " failed again after a restart without it (" +
                                            f.reason + "); the journal " + log.file().string() +
                                            " keeps what was measured");
      }
    }
    if (restarts >= o.max_restarts) {
      throw error(error_kind::launch, "the sweep worker was restarted " + std::to_string(restarts) +
                                          " times; giving up (the journal " + log.file().string() +
                                          " keeps what was measured)");
    }
    log.add_fault(f);
    std::cerr << "kk3tune sweep: " << (o.name.empty() ? "" : o.name + ": ") << f.shape
              << " T=" << f.tokens << ": " << f.variant << ": " << results::to_text(f.status)
              << " (" << f.reason << "); recorded, restarting the worker without it\n";
  }
}

}  // namespace kk3::sweep
