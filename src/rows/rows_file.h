// The rows file: Parquet written and read through DuckDB. One Parquet row per training row
// (data/README.md, "The rows file"):
//   row                 INTEGER     0-based index
//   input_ids           INTEGER[]   exactly row_tokens token ids
//   loss_mask           UTINYINT[]  row_tokens values, 1 = the token is supervised
//   conversation_ids    VARCHAR[]   ids of the conversations with tokens in the row, in order
//   first_token_offset  INTEGER     where the row starts in its first conversation's tokens
//   stream_row          INTEGER     index among all rows cut, skipped rows included
// (every column required, with these types)
// and the build's parameters as JSON under the Parquet key-value metadata key "openrecipes.rows".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/problem.h"
#include "rows/duckdb_session.h"
#include "rows/row_packer.h"

namespace openrecipes {

/// The Parquet key-value metadata key holding the build parameters (JSON).
inline constexpr const char* kRowsMetadataKey = "openrecipes.rows";

/// Collects rows in an in-memory DuckDB table, then writes them as one Parquet file (zstd, row
/// groups of 2,048 rows or more) through a temporary sibling and a rename, so the path never holds
/// half a file.
class RowsFileWriter {
 public:
  /// `duckdb` must outlive the writer. Throws IoError or BugError if DuckDB cannot make the table.
  explicit RowsFileWriter(DuckDbSession& duckdb);
  ~RowsFileWriter();
  /// Adds one row (kept in order). Throws BugError if DuckDB refuses it.
  void add(const PackedRow& row);
  /// Writes every row added to `path` with `build` as the "openrecipes.rows" metadata. Throws
  /// IoError naming `path` (the temporary file removed) when the directory is not writable.
  void finish(const std::string& path, const nlohmann::json& build);

 private:
  void flush();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Every figure `rows verify` recomputes from a rows file.
struct RowsFileSummary {
  std::int64_t rows = 0;
  std::int64_t row_tokens = 0;      ///< tokens in the longest row
  std::int64_t padding_tokens = 0;  ///< sum over rows of (row_tokens - tokens in the row)
  std::int64_t supervised_tokens = 0;
  double supervised_token_ratio = 0;  ///< supervised_tokens / (rows x row_tokens)
  std::string rows_sha256;            ///< rows_hash.h
  std::string parquet_sha256;         ///< of the file's bytes
  std::uint64_t parquet_bytes = 0;
  nlohmann::json build;  ///< the "openrecipes.rows" metadata; null when absent
  /// Content that breaks the format's rules: row numbers out of order, a mask value other than
  /// 0/1, a row without a supervised token, ids and mask of different lengths, metadata that
  /// disagrees with the content. Field: the column; file: the rows file. At most 20 are kept.
  Problems problems;
  std::size_t problems_not_shown = 0;  ///< found beyond the 20 kept
};

/// Reads the rows file at `path` and recomputes its figures. `on_row(rows_read)` is called as
/// rows are read (for progress). A file that is missing, truncated, corrupt or of the wrong
/// layout returns nullopt with one Problem naming the file and the column (field; rule `file` or
/// `rows.file`); what is wrong with the rows themselves is in the summary's problems. Throws
/// IoError when the file's bytes cannot be read for its sha256.
std::optional<RowsFileSummary> read_rows_file(const std::string& path, DuckDbSession& duckdb,
                                              Problems& problems,
                                              const std::function<void(std::int64_t)>& on_row = {});

}  // namespace openrecipes
