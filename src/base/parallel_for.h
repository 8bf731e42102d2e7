// Runs independent pieces of work on every core: for validating and rendering thousands of
// recipes on a machine of a few cores.
#pragma once

#include <cstddef>
#include <functional>

namespace openrecipes {

/// Calls `body(i)` once for each i in [0, count), on up to as many threads as the machine has
/// cores (at most 16, and at most one per `per_thread` items, so a handful of items stays on the
/// calling thread). Each thread takes the next index until none is left, so `body` must be safe
/// to call concurrently for different i and should write only to slot i of its output. When a
/// call throws, the threads stop taking work and the first exception is rethrown here once all
/// have stopped.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body,
                  std::size_t per_thread = 1);

}  // namespace openrecipes
