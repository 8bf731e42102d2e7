#include "rows/rows_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "base/error.h"
#include "rows/duckdb_stream.h"
#include "rows/parquet_footer.h"
#include "rows/remove_on_signal.h"
#include "rows/rows_hash.h"
#include "text/sha256.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kRowsPerAppend = 64;  // rows per appended chunk (64 x 8,192 tokens)
// Row group size asked of DuckDB's writer, which closes groups only between whole chunks, so the
// groups it writes may be larger; nothing depends on the grouping (data/README.md).
constexpr std::size_t kRowGroupSizeAsked = 2048;

// The columns, in file order, with their SQL types.
struct Column {
  const char* name;
  const char* type;
};
constexpr Column kColumns[] = {
    {"row", "INTEGER"},
    {"input_ids", "INTEGER[]"},
    {"loss_mask", "UTINYINT[]"},
    {"conversation_ids", "VARCHAR[]"},
    {"first_token_offset", "INTEGER"},
    {"stream_row", "INTEGER"},
};

// Fills list column `column` of `chunk` from `rows`; `values(row)` gives a row's vector.
template <typename T, typename Values>
void fill_list(duckdb_data_chunk chunk, idx_t column, const std::vector<PackedRow>& rows,
               Values values) {
  duckdb_vector list = duckdb_data_chunk_get_vector(chunk, column);
  std::size_t total = 0;
  for (const PackedRow& row : rows) total += values(row).size();
  duckdb_list_vector_reserve(list, total);
  duckdb_list_vector_set_size(list, total);
  auto* entries = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(list));
  auto* child = static_cast<T*>(duckdb_vector_get_data(duckdb_list_vector_get_child(list)));
  std::size_t offset = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& v = values(rows[r]);
    entries[r] = {offset, v.size()};
    std::memcpy(child + offset, v.data(), v.size() * sizeof(T));
    offset += v.size();
  }
}

}  // namespace

struct RowsFileWriter::Impl {
  // The columns' DuckDB types, destroyed with the writer. A member type rather than one of the
  // anonymous namespace, so that Impl stays valid in a unity build (-Wsubobject-linkage).
  struct LogicalTypes {
    std::vector<duckdb_logical_type> types;
    LogicalTypes() {
      duckdb_logical_type integer = duckdb_create_logical_type(DUCKDB_TYPE_INTEGER);
      duckdb_logical_type utinyint = duckdb_create_logical_type(DUCKDB_TYPE_UTINYINT);
      duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
      types = {duckdb_create_logical_type(DUCKDB_TYPE_INTEGER),
               duckdb_create_list_type(integer),
               duckdb_create_list_type(utinyint),
               duckdb_create_list_type(varchar),
               duckdb_create_logical_type(DUCKDB_TYPE_INTEGER),
               duckdb_create_logical_type(DUCKDB_TYPE_INTEGER)};
      duckdb_destroy_logical_type(&integer);
      duckdb_destroy_logical_type(&utinyint);
      duckdb_destroy_logical_type(&varchar);
    }
    ~LogicalTypes() {
      for (duckdb_logical_type& type : types) duckdb_destroy_logical_type(&type);
    }
  };
  DuckDbSession& duckdb;
  duckdb_appender appender = nullptr;
  LogicalTypes types;
  std::vector<PackedRow> pending;
  explicit Impl(DuckDbSession& session) : duckdb(session) {}
  ~Impl() {
    if (appender) duckdb_appender_destroy(&appender);
  }
};

RowsFileWriter::RowsFileWriter(DuckDbSession& duckdb) : impl_(std::make_unique<Impl>(duckdb)) {
  std::string columns;
  for (const Column& column : kColumns) {
    columns += fmt::format("{}{} {}", columns.empty() ? "" : ", ", column.name, column.type);
  }
  duckdb.execute("CREATE OR REPLACE TABLE rows (" + columns + ")");
  if (duckdb_appender_create(duckdb.handles().connection, nullptr, "rows", &impl_->appender) ==
      DuckDBError) {
    throw BugError(std::string("cannot append rows: ") + duckdb_appender_error(impl_->appender));
  }
}

RowsFileWriter::~RowsFileWriter() = default;

void RowsFileWriter::add(const PackedRow& row) {
  impl_->pending.push_back(row);
  if (impl_->pending.size() == kRowsPerAppend) flush();
}

void RowsFileWriter::flush() {
  std::vector<PackedRow>& rows = impl_->pending;
  if (rows.empty()) return;
  duckdb_data_chunk chunk =
      duckdb_create_data_chunk(impl_->types.types.data(), impl_->types.types.size());
  auto* row_numbers =
      static_cast<std::int32_t*>(duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0)));
  auto* offsets =
      static_cast<std::int32_t*>(duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 4)));
  auto* stream_rows =
      static_cast<std::int32_t*>(duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 5)));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    row_numbers[r] = static_cast<std::int32_t>(rows[r].row);
    offsets[r] = static_cast<std::int32_t>(rows[r].first_token_offset);
    stream_rows[r] = static_cast<std::int32_t>(rows[r].stream_row);
  }
  fill_list<std::int32_t>(
      chunk, 1, rows, [](const PackedRow& row) -> const auto& { return row.input_ids; });
  fill_list<std::uint8_t>(
      chunk, 2, rows, [](const PackedRow& row) -> const auto& { return row.loss_mask; });
  duckdb_vector id_lists = duckdb_data_chunk_get_vector(chunk, 3);
  std::size_t total_ids = 0;
  for (const PackedRow& row : rows) total_ids += row.conversation_ids.size();
  duckdb_list_vector_reserve(id_lists, total_ids);
  duckdb_list_vector_set_size(id_lists, total_ids);
  auto* entries = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(id_lists));
  duckdb_vector id_strings = duckdb_list_vector_get_child(id_lists);
  std::size_t offset = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    entries[r] = {offset, rows[r].conversation_ids.size()};
    for (const std::string& id : rows[r].conversation_ids) {
      duckdb_vector_assign_string_element_len(id_strings, offset++, id.data(), id.size());
    }
  }
  duckdb_data_chunk_set_size(chunk, rows.size());
  duckdb_state state = duckdb_append_data_chunk(impl_->appender, chunk);
  duckdb_destroy_data_chunk(&chunk);
  rows.clear();
  if (state == DuckDBError) {
    throw BugError(std::string("cannot append rows: ") + duckdb_appender_error(impl_->appender));
  }
}

void RowsFileWriter::finish(const std::string& path, const nlohmann::json& build) {
  flush();
  if (duckdb_appender_destroy(&impl_->appender) == DuckDBError) {
    throw BugError("cannot append rows: the appender failed to flush");
  }
  impl_->appender = nullptr;
  // A temporary sibling, renamed over the target only once complete.
  fs::path target(path);
  fs::path temporary =
      target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(), ::getpid());
  std::string sql = fmt::format(
      "COPY rows TO {} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {}, KV_METADATA {{{}: "
      "{}}})",
      sql_string(temporary.string()), kRowGroupSizeAsked, sql_string(kRowsMetadataKey),
      sql_string(build.dump()));
  std::error_code ec;
  RemoveOnSignal remove_if_interrupted(temporary.string());
  try {
    impl_->duckdb.execute(sql);
  } catch (const IoError& error) {
    fs::remove(temporary, ec);
    throw IoError(path, fmt::format("{}: cannot write ({})", path, error.what()));
  }
  fs::rename(temporary, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw IoError(path, fmt::format("{}: cannot write ({})", path, ec.message()));
  }
}

namespace {

// What makes a rows file unreadable, thrown while reading it and caught by read_rows_file, which
// returns it as a Problem; it never leaves this file.
struct RowsFault {
  Problem problem;
};

[[noreturn]] void file_fault(const std::string& path, std::string field, std::string message,
                             std::string expected = "", std::string found = "") {
  throw RowsFault{{path,
                   {},
                   std::move(field),
                   "rows.file",
                   std::move(message),
                   std::move(expected),
                   std::move(found)}};
}

// Checks the file's columns: each of kColumns present with its type.
void check_layout(const std::string& path, DuckDbSession& duckdb) {
  DuckDbStream columns =
      stream_query(duckdb, "SELECT * FROM read_parquet(" + sql_string(path) + ") LIMIT 0");
  for (const Column& column : kColumns) {
    const char* needed = column.name;
    bool found = false;
    for (std::uint64_t i = 0; i < columns.column_count(); ++i) {
      if (columns.column_name(i) != needed) continue;
      found = true;
      duckdb_logical_type type = columns.column_type(i);
      std::string spelled = type_name(type);
      duckdb_destroy_logical_type(&type);
      if (spelled != column.type)
        file_fault(path, needed, "column of the wrong type", column.type, spelled);
    }
    if (!found) {
      file_fault(
          path, needed,
          fmt::format(
              "no column '{}' (expected a rows file: row, input_ids, loss_mask, conversation_ids, "
              "first_token_offset, stream_row; data/README.md)",
              needed));
    }
  }
}

nlohmann::json read_build_metadata(const std::string& path, DuckDbSession& duckdb) {
  DuckDbStream metadata = stream_query(
      duckdb,
      fmt::format("SELECT decode(value) FROM parquet_kv_metadata({}) WHERE key = encode({})",
                  sql_string(path), sql_string(kRowsMetadataKey)));
  DuckDbChunk chunk = metadata.next();
  if (chunk.size() == 0) return nullptr;
  duckdb_vector values = duckdb_data_chunk_get_vector(chunk.handle(), 0);
  std::string_view text =
      string_at(static_cast<duckdb_string_t*>(duckdb_vector_get_data(values)), 0);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    file_fault(path, std::string("metadata.") + kRowsMetadataKey, "not valid JSON");
  }
}

// The summary being recomputed and the state carried from row to row.
class RowsReader {
 public:
  RowsReader(const std::string& path, RowsFileSummary& summary) : path_(path), summary_(summary) {}

  // A content problem: the first kShownProblems are kept, the rest counted.
  void problem(const std::string& field, const std::string& message,
               const std::string& expected = "", const std::string& found = "") {
    if (++problems_found_ <= kShownProblems) {
      summary_.problems.push_back({path_, {}, field, "rows.file", message, expected, found});
    }
  }

  // Checks and hashes every row of one chunk.
  void read_chunk(const DuckDbChunk& chunk);
  // The figures over all rows: row tokens, padding, the ratio, rows of another length.
  void finish_figures();
  // Where the build metadata disagrees with the rows.
  void compare_metadata();
  std::size_t problems_not_shown() const {
    return problems_found_ > kShownProblems ? problems_found_ - kShownProblems : 0;
  }

 private:
  // A broken file could give millions of problems; the first 20 are shown, then a count.
  static constexpr std::size_t kShownProblems = 20;
  const std::string& path_;
  RowsFileSummary& summary_;
  std::size_t problems_found_ = 0;
  RowsHasher hasher_;
  std::vector<std::int64_t> lengths_;
  std::int64_t last_stream_row_ = -1;
};

void RowsReader::read_chunk(const DuckDbChunk& chunk) {
  duckdb_vector numbers = duckdb_data_chunk_get_vector(chunk.handle(), 0);
  duckdb_vector ids = duckdb_data_chunk_get_vector(chunk.handle(), 1);
  duckdb_vector masks = duckdb_data_chunk_get_vector(chunk.handle(), 2);
  duckdb_vector stream_rows = duckdb_data_chunk_get_vector(chunk.handle(), 3);
  auto* stream_row_data = static_cast<std::int32_t*>(duckdb_vector_get_data(stream_rows));
  auto* number_data = static_cast<std::int32_t*>(duckdb_vector_get_data(numbers));
  auto* id_lists = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(ids));
  auto* mask_lists = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(masks));
  auto* id_values =
      static_cast<std::int32_t*>(duckdb_vector_get_data(duckdb_list_vector_get_child(ids)));
  auto* mask_values =
      static_cast<std::uint8_t*>(duckdb_vector_get_data(duckdb_list_vector_get_child(masks)));
  std::uint64_t* id_child_validity = duckdb_vector_get_validity(duckdb_list_vector_get_child(ids));
  std::uint64_t* mask_child_validity =
      duckdb_vector_get_validity(duckdb_list_vector_get_child(masks));
  for (std::uint64_t i = 0; i < chunk.size(); ++i) {
    std::int64_t row = summary_.rows;
    std::string at = fmt::format("row {}", row);
    if (!is_valid(duckdb_vector_get_validity(numbers), i) || number_data[i] != row) {
      problem("row", fmt::format("{}: rows are not numbered 0, 1, 2, ... in file order", at),
              std::to_string(row),
              is_valid(duckdb_vector_get_validity(numbers), i) ? std::to_string(number_data[i])
                                                               : "null");
    }
    // Rows are cut in stream order and some are skipped: stream_row rises by at least 1 a row.
    bool stream_ok = is_valid(duckdb_vector_get_validity(stream_rows), i) &&
                     stream_row_data[i] >= row && stream_row_data[i] > last_stream_row_;
    if (!stream_ok) {
      problem(
          "stream_row",
          fmt::format("{}: stream_row must rise by at least 1 a row and be at least row", at), "",
          is_valid(duckdb_vector_get_validity(stream_rows), i) ? std::to_string(stream_row_data[i])
                                                               : "null");
    }
    if (is_valid(duckdb_vector_get_validity(stream_rows), i)) last_stream_row_ = stream_row_data[i];
    if (!is_valid(duckdb_vector_get_validity(ids), i) ||
        !is_valid(duckdb_vector_get_validity(masks), i)) {
      file_fault(path_, "input_ids", fmt::format("{}: input_ids or loss_mask is null", at));
    }
    const duckdb_list_entry& id_list = id_lists[i];
    const duckdb_list_entry& mask_list = mask_lists[i];
    if (id_list.length != mask_list.length) {
      problem("loss_mask", fmt::format("{}: loss_mask and input_ids differ in length", at),
              std::to_string(id_list.length), std::to_string(mask_list.length));
    }
    std::uint64_t length = std::min(id_list.length, mask_list.length);
    const std::int32_t* row_ids = id_values + id_list.offset;
    const std::uint8_t* row_mask = mask_values + mask_list.offset;
    std::int64_t supervised = 0;
    bool bad_mask = false, bad_id = false;
    for (std::uint64_t k = 0; k < length; ++k) {
      supervised += row_mask[k] == 1;
      bad_mask |= row_mask[k] > 1 || !is_valid(mask_child_validity, mask_list.offset + k);
      bad_id |= row_ids[k] < 0 || !is_valid(id_child_validity, id_list.offset + k);
    }
    if (bad_mask) problem("loss_mask", fmt::format("{}: a loss_mask value is not 0 or 1", at));
    if (bad_id) problem("input_ids", fmt::format("{}: a token id is negative or null", at));
    if (supervised == 0)
      problem("loss_mask", fmt::format("{}: no supervised token (such rows are skipped)", at));
    hasher_.add(row_ids, row_mask, length);
    summary_.supervised_tokens += supervised;
    lengths_.push_back(static_cast<std::int64_t>(length));
    ++summary_.rows;
  }
}

void RowsReader::finish_figures() {
  summary_.rows_sha256 = hasher_.hex_digest();
  for (std::int64_t length : lengths_) summary_.row_tokens = std::max(summary_.row_tokens, length);
  for (std::size_t row = 0; row < lengths_.size(); ++row) {
    summary_.padding_tokens += summary_.row_tokens - lengths_[row];
    if (lengths_[row] != summary_.row_tokens) {
      problem("input_ids",
              fmt::format("row {}: {} tokens where the longest row has {} (every row holds exactly "
                          "row_tokens tokens)",
                          row, lengths_[row], summary_.row_tokens),
              std::to_string(summary_.row_tokens), std::to_string(lengths_[row]));
    }
  }
  if (summary_.rows > 0) {
    summary_.supervised_token_ratio = static_cast<double>(summary_.supervised_tokens) /
                                      static_cast<double>(summary_.rows * summary_.row_tokens);
  }
  if (summary_.rows == 0) problem("row", "the file holds no rows");
}

void RowsReader::compare_metadata() {
  const nlohmann::json& build = summary_.build;
  if (!build.is_null() && !build.is_object()) {
    problem(std::string("metadata.") + kRowsMetadataKey,
            "expected a JSON object of build parameters", "object", build.type_name());
  }
  if (!build.is_object()) return;
  auto compare = [&](const char* key, const nlohmann::json& actual) {
    if (build.contains(key) && build.at(key) != actual) {
      problem(std::string("metadata.") + key, "the build metadata disagrees with the rows",
              actual.dump(), build.at(key).dump());
    }
  };
  compare("rows_sha256", summary_.rows_sha256);
  compare("rows", summary_.rows);
  compare("row_tokens", summary_.row_tokens);
  compare("padding_tokens", summary_.padding_tokens);
  compare("supervised_tokens", summary_.supervised_tokens);
  if (summary_.rows > 0) compare("skipped_rows", last_stream_row_ + 1 - summary_.rows);
  const nlohmann::json& used = build.value("conversations_used", nlohmann::json());
  const nlohmann::json& available = build.value("conversations_available", nlohmann::json());
  if (used.is_number() && available.is_number() && used.get<double>() > available.get<double>()) {
    problem("metadata.conversations_used", "more conversations used than available",
            available.dump(), used.dump());
  }
}

}  // namespace

std::optional<RowsFileSummary> read_rows_file(const std::string& path, DuckDbSession& duckdb,
                                              Problems& problems,
                                              const std::function<void(std::int64_t)>& on_row) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    problems.push_back({path, {}, "", "file", "no such file", "", ""});
    return std::nullopt;
  }
  if (!fs::is_regular_file(path, ec)) {
    problems.push_back({path, {}, "", "file", "not a regular file", "", ""});
    return std::nullopt;
  }
  RowsFileSummary summary;
  try {
    std::tie(summary.parquet_sha256, summary.parquet_bytes) = sha256_file(path);
  } catch (const std::runtime_error& error) {
    throw IoError(path, error.what());
  }
  RowsReader reader(path, summary);
  try {
    if (std::optional<std::string> unsafe = parquet_footer_problem(path))
      file_fault(path, "footer", "not a readable rows file (" + *unsafe + ")");
    check_layout(path, duckdb);
    summary.build = read_build_metadata(path, duckdb);
    DuckDbStream rows =
        stream_query(duckdb, "SELECT row, input_ids, loss_mask, stream_row FROM read_parquet(" +
                                 sql_string(path) + ")");
    for (DuckDbChunk chunk = rows.next(); chunk.handle(); chunk = rows.next()) {
      reader.read_chunk(chunk);
      if (on_row) on_row(summary.rows);
    }
  } catch (const RowsFault& fault) {
    problems.push_back(fault.problem);
    return std::nullopt;
  } catch (const DuckDbError& error) {
    problems.push_back({path,
                        {},
                        "",
                        "rows.file",
                        fmt::format("not a readable rows file ({})", error.what()),
                        "",
                        ""});
    return std::nullopt;
  }
  reader.finish_figures();
  reader.compare_metadata();
  summary.problems_not_shown = reader.problems_not_shown();
  return summary;
}

}  // namespace openrecipes
