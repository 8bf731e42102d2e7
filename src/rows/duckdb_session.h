// A DuckDB in-memory database and connection, used to read and write Parquet: Debian has no
// Parquet library, DuckDB's reader and writer are well kept. This header keeps duckdb.h out of
// every other layer; the C API's handles and result streams are in rows/duckdb_stream.h, which
// only src/rows/*.cc includes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace openrecipes {

/// An in-memory database with one connection.
class DuckDbSession {
 public:
  /// Opens an in-memory database using `threads` threads (0: DuckDB's default, every core).
  /// Throws IoError (base/error.h, path "DuckDB") if DuckDB cannot start.
  explicit DuckDbSession(unsigned threads = 0);
  ~DuckDbSession();
  DuckDbSession(const DuckDbSession&) = delete;
  DuckDbSession& operator=(const DuckDbSession&) = delete;

  /// Runs `sql` (ours, e.g. a COPY to a file) and discards its result. Throws IoError (path
  /// "DuckDB") with the first line of DuckDB's message when DuckDB cannot run it.
  void execute(const std::string& sql);

  /// The C API's database and connection (defined in rows/duckdb_stream.h).
  struct Handles;
  Handles& handles() const { return *handles_; }

 private:
  std::unique_ptr<Handles> handles_;
};

/// `text` as an SQL string literal ('...' with quotes doubled), for file names in queries.
std::string sql_string(std::string_view text);

/// The DuckDB library version (e.g. "v1.4.4").
std::string duckdb_version();

}  // namespace openrecipes
