// The training-log reader (runs/training_log.h) on any bytes as a log: Megatron-LM,
// Megatron-Bridge and slime step lines, the settings and memory reports they print.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "runs/training_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  Problems problems;
  std::optional<TrainingLog> log =
      parse_training_log(fuzz::as_text(data, size), "fuzz.log", problems);
  fuzz::check(log.has_value() || !problems.empty(), "parse_training_log: nullopt has a problem",
              problems);
  if (!log) return 0;
  for (std::size_t i = 1; i < log->steps.size(); ++i) {
    fuzz::check(log->steps[i - 1].step < log->steps[i].step,
                "parse_training_log: steps sorted, one per step");
  }
  (void)log_format_name(log->format);
  (void)log_excerpt(fuzz::as_text(data, size));
  return 0;
}
