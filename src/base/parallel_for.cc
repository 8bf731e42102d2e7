#include "base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace openrecipes {

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body,
                  std::size_t per_thread) {
  std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
  threads = std::min(threads, (count + per_thread - 1) / std::max<std::size_t>(per_thread, 1));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (std::size_t i; !failed && (i = next++) < count;) body(i);
    } catch (...) {
      if (!failed.exchange(true)) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace openrecipes
