// A DuckDB in-memory database and connection through DuckDB's C API (duckdb.h), used to read and
// write Parquet: Debian has no Parquet library, DuckDB's reader and writer are well kept.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace openrecipes {

/// A query DuckDB refused or failed (a missing or corrupt file, a type it cannot cast). The
/// message is the first line of DuckDB's own (the rest echoes our SQL); callers add which file
/// and what they were doing.
class DuckDbError : public std::runtime_error {
 public:
  explicit DuckDbError(const std::string& message) : std::runtime_error(message.substr(0, message.find('\n'))) {}
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
  friend class DuckDbSession;
  struct Impl;
  explicit DuckDbStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// An in-memory database with one connection.
class DuckDbSession {
 public:
  /// Opens an in-memory database using `threads` threads (0: DuckDB's default, every core).
  /// Throws DuckDbError if DuckDB cannot start.
  explicit DuckDbSession(unsigned threads = 0);
  ~DuckDbSession();
  DuckDbSession(const DuckDbSession&) = delete;
  DuckDbSession& operator=(const DuckDbSession&) = delete;

  /// Runs `sql` and discards its result. Throws DuckDbError with DuckDB's message.
  void execute(const std::string& sql);
  /// Runs `sql` and returns the first column of the first row as text (null as ""). Throws
  /// DuckDbError, or when the result is empty.
  std::string query_text(const std::string& sql);
  /// Runs `sql` as a streaming query (results are produced as they are read, so memory stays at
  /// a few chunks whatever the file size). Throws DuckDbError when the query cannot start.
  DuckDbStream stream(const std::string& sql);

  duckdb_connection connection() const { return connection_; }

 private:
  duckdb_database database_ = nullptr;
  duckdb_connection connection_ = nullptr;
};

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

/// `text` as an SQL string literal ('...' with quotes doubled), for file names in queries.
std::string sql_string(std::string_view text);

/// The DuckDB library version (e.g. "v1.4.4").
std::string duckdb_version();

}  // namespace openrecipes
