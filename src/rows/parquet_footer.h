// A bound on a Parquet file's footer before DuckDB reads it. A Parquet footer is one Thrift
// FileMetaData struct in the compact protocol; DuckDB's Thrift reader sizes each list from the
// count the list declares, so a 2 KB file that declares a list of 240 million strings makes it
// allocate 7.7 GB before it notices the bytes are missing (fuzz/README.md, "Findings fixed").
// This walk refuses such a footer first: every list, set, map and string must fit in the bytes
// that follow it.
//   Parquet layout: https://parquet.apache.org/docs/file-format/ (footer length, then "PAR1")
//   Compact protocol:
//   https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace openrecipes {

/// Walks `bytes`, one Thrift compact-protocol struct from its first byte, without building it.
/// Returns what makes the struct unsafe to decode: a list, set or map declaring more elements than
/// the bytes after its header can hold (each element takes at least one byte), more than 100,000
/// structs in lists in all (each costs DuckDB hundreds of bytes, however few bytes it takes here),
/// a string longer than the bytes left, nesting deeper than 64 structs and containers, an unknown
/// type code, a varint
/// over 10 bytes, or an end before the struct's stop byte. Returns nullopt when the struct is
/// whole; bytes after it are not read.
std::optional<std::string> thrift_compact_struct_problem(std::string_view bytes);

/// Reads the footer of the Parquet file at `path` and returns thrift_compact_struct_problem's
/// answer for it, naming the footer's size. Returns nullopt when the file is not a plain Parquet
/// file (shorter than 12 bytes, no trailing "PAR1", a footer length past the file's start): DuckDB
/// reports those itself without allocating. Throws IoError naming `path` when it cannot be read.
std::optional<std::string> parquet_footer_problem(const std::string& path);

}  // namespace openrecipes
