#pragma once
// A fixed pool of worker threads sized to the machine; tasks return futures.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace kk3 {

/// Runs submitted tasks on `threads` workers (0 = one per hardware thread). The destructor
/// finishes every queued task before it joins.
class thread_pool {
 public:
  explicit thread_pool(unsigned threads = 0) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < threads; ++i) m_workers.emplace_back([this] { work(); });
  }
  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stopping = true;
    }
    m_ready.notify_all();
    for (auto& w : m_workers) w.join();
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  /// The number of worker threads.
  unsigned size() const { return static_cast<unsigned>(m_workers.size()); }

  /// Queues `fn`; its result (or exception) arrives through the future.
  template <class F>
  auto submit(F fn) -> std::future<std::invoke_result_t<F>> {
    using result = std::invoke_result_t<F>;
    auto task = std::make_shared<std::packaged_task<result()>>(std::move(fn));
    std::future<result> done = task->get_future();
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_queue.emplace_back([task] { (*task)(); });
    }
    m_ready.notify_one();
    return done;
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_ready.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) return;
        task = std::move(m_queue.front());
        m_queue.pop_front();
      }
      task();
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<std::function<void()>> m_queue;
  bool m_stopping = false;
  std::vector<std::thread> m_workers;
};

}  // namespace kk3
