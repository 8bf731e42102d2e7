// Loss series (runs/loss_series.h) from any bytes. The first byte picks the file's extension and
// so its reader: `.csv` (`step,loss`, or a W&B panel export: runs/wandb_csv.h), `.json` (golden
// values, `{step: loss}`, a list) or `.log` (a training log); the rest is the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "runs/loss_series.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  if (size == 0) return 0;
  static const char* const kNames[] = {"loss.csv", "loss.json", "loss.log"};
  const std::string path =
      fuzz::write_scratch_file(kNames[data[0] % 3], fuzz::as_text(data + 1, size - 1));
  Problems problems;
  std::optional<LossSeries> series = read_loss_series(path, problems);
  fuzz::check(series.has_value() || !problems.empty(), "read_loss_series: nullopt has a problem",
              problems);
  return 0;
}
