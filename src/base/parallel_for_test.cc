#include "base/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace openrecipes {
namespace {

TEST(ParallelFor, CallsTheBodyOnceForEachIndex) {
  for (std::size_t count : {0u, 1u, 7u, 1000u}) {
    std::vector<std::atomic<int>> calls(count);
    parallel_for(count, [&](std::size_t i) { calls[i]++; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i].load(), 1) << count << " " << i;
  }
}

TEST(ParallelFor, RethrowsTheFirstExceptionAfterEveryThreadStopped) {
  std::atomic<int> started{0};
  EXPECT_THROW(parallel_for(500,
                            [&](std::size_t i) {
                              started++;
                              if (i == 3) throw std::runtime_error("item 3");
                              std::this_thread::sleep_for(std::chrono::milliseconds(1));
                            }),
               std::runtime_error);
  // The others stop taking work: not every item ran (each thread checks before its next one).
  EXPECT_LT(started.load(), 500);
}

}  // namespace
}  // namespace openrecipes
