#include "rows/duckdb_session.h"

#include <duckdb.h>

#include <string>

#include "base/error.h"
#include "rows/duckdb_stream.h"

namespace openrecipes {

DuckDbChunk::~DuckDbChunk() {
  if (chunk_) duckdb_destroy_data_chunk(&chunk_);
}

DuckDbChunk& DuckDbChunk::operator=(DuckDbChunk&& other) noexcept {
  if (this != &other) {
    if (chunk_) duckdb_destroy_data_chunk(&chunk_);
    chunk_ = other.chunk_;
    other.chunk_ = nullptr;
  }
  return *this;
}

std::uint64_t DuckDbChunk::size() const { return chunk_ ? duckdb_data_chunk_get_size(chunk_) : 0; }

struct DuckDbStream::Impl {
  duckdb_result result{};
  duckdb_prepared_statement statement = nullptr;
  ~Impl() {
    duckdb_destroy_result(&result);
    if (statement) duckdb_destroy_prepare(&statement);
  }
};

DuckDbStream::DuckDbStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DuckDbStream::DuckDbStream(DuckDbStream&&) noexcept = default;
DuckDbStream::~DuckDbStream() = default;

DuckDbChunk DuckDbStream::next() {
  duckdb_data_chunk chunk = duckdb_fetch_chunk(impl_->result);
  if (!chunk) {
    // A null chunk is either the end or a failure while executing; only the error tells which.
    const char* error = duckdb_result_error(&impl_->result);
    if (error && *error) throw DuckDbError(error);
  }
  return DuckDbChunk(chunk);
}

std::uint64_t DuckDbStream::column_count() { return duckdb_column_count(&impl_->result); }

std::string DuckDbStream::column_name(std::uint64_t index) {
  const char* name = duckdb_column_name(&impl_->result, index);
  return name ? name : "";
}

duckdb_logical_type DuckDbStream::column_type(std::uint64_t index) {
  return duckdb_column_logical_type(&impl_->result, index);
}

std::string type_name(duckdb_logical_type type) {
  switch (duckdb_get_type_id(type)) {
    case DUCKDB_TYPE_BOOLEAN:
      return "BOOLEAN";
    case DUCKDB_TYPE_TINYINT:
      return "TINYINT";
    case DUCKDB_TYPE_SMALLINT:
      return "SMALLINT";
    case DUCKDB_TYPE_INTEGER:
      return "INTEGER";
    case DUCKDB_TYPE_BIGINT:
      return "BIGINT";
    case DUCKDB_TYPE_UTINYINT:
      return "UTINYINT";
    case DUCKDB_TYPE_USMALLINT:
      return "USMALLINT";
    case DUCKDB_TYPE_UINTEGER:
      return "UINTEGER";
    case DUCKDB_TYPE_UBIGINT:
      return "UBIGINT";
    case DUCKDB_TYPE_FLOAT:
      return "FLOAT";
    case DUCKDB_TYPE_DOUBLE:
      return "DOUBLE";
    case DUCKDB_TYPE_VARCHAR:
      return "VARCHAR";
    case DUCKDB_TYPE_BLOB:
      return "BLOB";
    case DUCKDB_TYPE_LIST: {
      duckdb_logical_type child = duckdb_list_type_child_type(type);
      std::string name = type_name(child) + "[]";
      duckdb_destroy_logical_type(&child);
      return name;
    }
    case DUCKDB_TYPE_STRUCT: {
      std::string name = "STRUCT(";
      idx_t count = duckdb_struct_type_child_count(type);
      for (idx_t i = 0; i < count; ++i) {
        char* child_name = duckdb_struct_type_child_name(type, i);
        duckdb_logical_type child = duckdb_struct_type_child_type(type, i);
        name += (i ? ", " : "") + std::string(child_name) + " " + type_name(child);
        duckdb_free(child_name);
        duckdb_destroy_logical_type(&child);
      }
      return name + ")";
    }
    default:
      return "another type (DuckDB type " + std::to_string(duckdb_get_type_id(type)) + ")";
  }
}

DuckDbSession::DuckDbSession(unsigned threads) : handles_(std::make_unique<Handles>()) {
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) == DuckDBError)
    throw IoError("DuckDB", "cannot create a DuckDB config");
  if (threads > 0) duckdb_set_config(config, "threads", std::to_string(threads).c_str());
  // Results must come back in file order: the rows' order is part of their identity.
  duckdb_set_config(config, "preserve_insertion_order", "true");
  // No extension downloads (machines here are offline; Parquet is built into libduckdb).
  duckdb_set_config(config, "autoinstall_known_extensions", "false");
  duckdb_set_config(config, "autoload_known_extensions", "false");
  char* error = nullptr;
  duckdb_state state = duckdb_open_ext(nullptr, &handles_->database, config, &error);
  duckdb_destroy_config(&config);
  if (state == DuckDBError) {
    std::string message = error ? error : "cannot open an in-memory DuckDB database";
    duckdb_free(error);
    throw IoError("DuckDB", message.substr(0, message.find('\n')));
  }
  if (duckdb_connect(handles_->database, &handles_->connection) == DuckDBError) {
    duckdb_close(&handles_->database);
    throw IoError("DuckDB", "cannot connect to the in-memory DuckDB database");
  }
}

DuckDbSession::~DuckDbSession() {
  if (handles_->connection) duckdb_disconnect(&handles_->connection);
  if (handles_->database) duckdb_close(&handles_->database);
}

void DuckDbSession::execute(const std::string& sql) {
  duckdb_result result;
  duckdb_state state = duckdb_query(handles_->connection, sql.c_str(), &result);
  std::string error = state == DuckDBError ? duckdb_result_error(&result) : "";
  duckdb_destroy_result(&result);
  if (state == DuckDBError) throw IoError("DuckDB", error.substr(0, error.find('\n')));
}

DuckDbStream stream_query(DuckDbSession& session, const std::string& sql) {
  auto impl = std::make_unique<DuckDbStream::Impl>();
  if (duckdb_prepare(session.handles().connection, sql.c_str(), &impl->statement) == DuckDBError) {
    throw DuckDbError(duckdb_prepare_error(impl->statement));
  }
  if (duckdb_execute_prepared_streaming(impl->statement, &impl->result) == DuckDBError) {
    throw DuckDbError(duckdb_result_error(&impl->result));
  }
  return DuckDbStream(std::move(impl));
}

std::string sql_string(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

std::string duckdb_version() { return duckdb_library_version(); }

}  // namespace openrecipes
