// DuckDB's C API behind rows/duckdb_session.h: the session's handles, streaming query results and
// the vector accessors the Parquet readers use. Only src/rows/*.cc include this header, so duckdb.h
// stays inside the rows layer (docs/architecture.md).
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "rows/duckdb_session.h"

namespace openrecipes {

/// A query DuckDB refused or failed on a file (missing, corrupt, a type it cannot cast). Internal
/// to the rows layer: every public function of rows that reads a user's file catches it and
/// returns a Problem naming the file. The message is the first line of DuckDB's own (the rest
/// echoes our SQL).
class DuckDbError : public std::runtime_error {
 public:
  explicit DuckDbError(const std::string& message)
      : std::runtime_error(message.substr(0, message.find('\n'))) {}
};

/// The database and connection a DuckDbSession owns.
struct DuckDbSession::Handles {
  duckdb_database database = nullptr;
  duckdb_connection connection = nullptr;
};

/// One chunk of a query result (up to 2,048 rows, DuckDB's vector size); owned, freed on
/// destruction. `handle()` is the C API's duckdb_data_chunk.
class DuckDbChunk {
 public:
  explicit DuckDbChunk(duckdb_data_chunk chunk) : chunk_(chunk) {}
  DuckDbChunk(DuckDbChunk&& other) noexcept : chunk_(other.chunk_) { other.chunk_ = nullptr; }
  DuckDbChunk& operator=(DuckDbChunk&& other) noexcept;
  DuckDbChunk(const DuckDbChunk&) = delete;
  DuckDbChunk& operator=(const DuckDbChunk&) = delete;
  ~DuckDbChunk();
  duckdb_data_chunk handle() const { return chunk_; }
  /// Rows in the chunk.
  std::uint64_t size() const;

 private:
  duckdb_data_chunk chunk_;
};

/// A streaming query result; `next()` returns chunks in result order until it returns an empty
/// optional-like null chunk. Throws DuckDbError when execution fails midway (a corrupt page).
class DuckDbStream {
 public:
  DuckDbStream(DuckDbStream&&) noexcept;
  ~DuckDbStream();
  /// The next chunk, or a chunk with a null handle at the end.
  DuckDbChunk next();
  /// Columns of the result.
  std::uint64_t column_count();
  /// Name of column `index`.
  std::string column_name(std::uint64_t index);
  /// Type of column `index`, owned by the caller (duckdb_destroy_logical_type).
  duckdb_logical_type column_type(std::uint64_t index);

 private:
  friend DuckDbStream stream_query(DuckDbSession& session, const std::string& sql);
  struct Impl;
  explicit DuckDbStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Runs `sql` on `session` as a streaming query (results are produced as they are read, so memory
/// stays at a few chunks whatever the file size). Throws DuckDbError when the query cannot start.
DuckDbStream stream_query(DuckDbSession& session, const std::string& sql);

/// A logical type's SQL spelling, e.g. `INTEGER[]` or `STRUCT(role VARCHAR, content VARCHAR)[]`.
std::string type_name(duckdb_logical_type type);

/// The string at `row` of a VARCHAR vector's data.
inline std::string_view string_at(duckdb_string_t* strings, std::uint64_t row) {
  return {duckdb_string_t_data(&strings[row]), duckdb_string_t_length(strings[row])};
}

/// Whether `row` of a vector is non-null (`validity` may be null: all valid).
inline bool is_valid(std::uint64_t* validity, std::uint64_t row) {
  return !validity || duckdb_validity_row_is_valid(validity, row);
}

}  // namespace openrecipes
