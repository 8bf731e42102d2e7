// Converts a JSONL file of conversations ({id, messages: [{role, content}], source} per line) to
// Parquet in the layout of allenai/tulu-3-sft-mixture, through the project's DuckDB: the corpus of
// bench/rows_build_speed.mjs (bench/README.md). No Parquet writer is on the machine otherwise.
//   jsonl_to_parquet IN.jsonl OUT.parquet
#include <fmt/format.h>

#include <exception>
#include <string>

#include "rows/duckdb_session.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: jsonl_to_parquet IN.jsonl OUT.parquet\n");
    return 2;
  }
  // Row groups of about 10,000 conversations, so a reader can spread a file over its threads;
  // the rows keep the file's line order (DuckDB's default preserve_insertion_order).
  std::string sql = fmt::format(
      "COPY (SELECT id, messages, source FROM read_json({}, format = 'newline_delimited', "
      "columns = {{id: 'VARCHAR', messages: 'STRUCT(role VARCHAR, content VARCHAR)[]', "
      "source: 'VARCHAR'}})) "
      "TO {} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 10000)",
      openrecipes::sql_string(argv[1]), openrecipes::sql_string(argv[2]));
  try {
    openrecipes::DuckDbSession duckdb;
    duckdb.execute(sql);
  } catch (const std::exception& error) {
    fmt::print(stderr, "jsonl_to_parquet: {} -> {}: {}\n", argv[1], argv[2], error.what());
    return 1;
  }
  return 0;
}
