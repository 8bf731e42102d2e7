// The rows file reader (rows/rows_file.h) on any bytes as a Parquet rows file: written to a
// scratch file per input and read through one DuckDB session (one thread), as `rows verify` does.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "fuzz_support.h"
#include "rows/duckdb_session.h"
#include "rows/rows_file.h"

namespace {

std::unique_ptr<openrecipes::DuckDbSession> duckdb;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  duckdb = std::make_unique<openrecipes::DuckDbSession>(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  const std::string path = fuzz::write_scratch_file("rows.parquet", fuzz::as_text(data, size));
  Problems problems;
  std::optional<RowsFileSummary> summary = read_rows_file(path, *duckdb, problems);
  fuzz::check(summary.has_value() || !problems.empty(), "read_rows_file: nullopt has a problem",
              problems);
  return 0;
}
