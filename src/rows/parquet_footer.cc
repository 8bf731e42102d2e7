#include "rows/parquet_footer.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "base/error.h"

namespace openrecipes {
namespace {

// The compact protocol's type codes (thrift-compact-protocol.md, "Struct encoding").
enum CompactType : int {
  kStop = 0,
  kBooleanTrue = 1,
  kBooleanFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
  kUuid = 13,
};

// Deeper than any Parquet footer nests (FileMetaData > RowGroup > ColumnChunk > ColumnMetaData >
// Statistics is five) and Apache Thrift's own default recursion limit.
constexpr int kMaxDepth = 64;

// Structs in lists (row groups, their column chunks, schema elements, key-value pairs) a footer
// may hold in all. DuckDB holds each decoded struct in hundreds of bytes (a ColumnChunk about 790:
// a footer of one million one-byte empty ones took 787 MB), so a count the bytes allow can still
// be a memory bomb. Rows files hold a few dozen (6 columns x a few row groups) and conversation
// Parquet files a few hundred; a table of 1,000 columns in 100 row groups would still pass.
constexpr std::uint64_t kMaxListedStructs = 100000;

struct FooterFault {
  std::string message;
};

// Skips compact-protocol values, checking every declared size against the bytes left.
class CompactWalker {
 public:
  explicit CompactWalker(std::string_view bytes) : bytes_(bytes) {}

  void skip_struct(int depth) {
    enter(depth);
    for (;;) {
      std::uint8_t header = next_byte("a field header");
      if (header == kStop) return;
      if ((header >> 4) == 0) varint("a field id");  // long form: the id follows as a varint
      skip_value(header & 0x0f, depth + 1, /*in_container=*/false);
    }
  }

 private:
  void enter(int depth) {
    if (depth > kMaxDepth)
      throw FooterFault{
          fmt::format("structs and lists nest deeper than {} at byte {}", kMaxDepth, at_)};
  }

  std::size_t left() const { return bytes_.size() - at_; }

  std::uint8_t next_byte(const char* what) {
    if (at_ >= bytes_.size())
      throw FooterFault{fmt::format("ends at byte {} inside {}", at_, what)};
    return static_cast<std::uint8_t>(bytes_[at_++]);
  }

  void skip_bytes(std::uint64_t count, const char* what) {
    if (count > left())
      throw FooterFault{fmt::format("declares {} {} {} at byte {} where {} bytes are left", count,
                                    count == 1 ? "byte of" : "bytes of", what, at_, left())};
    at_ += static_cast<std::size_t>(count);
  }

  std::uint64_t varint(const char* what) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      std::uint8_t byte = next_byte(what);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    throw FooterFault{fmt::format("a varint longer than 10 bytes ends at byte {}", at_)};
  }

  // The fewest bytes one element of `type` takes inside a list, set or map.
  static std::uint64_t min_element_bytes(int type) {
    if (type == kDouble) return 8;
    if (type == kUuid) return 16;
    return 1;
  }

  void check_count(std::uint64_t count, std::uint64_t bytes_each, const char* what) {
    if (count > left() / bytes_each)
      throw FooterFault{fmt::format(
          "declares a {} of {} elements at byte {} where {} bytes are left (at least {} each)",
          what, count, at_, left(), bytes_each)};
  }

  void skip_value(int type, int depth, bool in_container) {
    switch (type) {
      case kBooleanTrue:
      case kBooleanFalse:
        if (in_container) next_byte("a boolean");  // in a field header, the type is the value
        return;
      case kByte:
        next_byte("a byte");
        return;
      case kI16:
      case kI32:
      case kI64:
        varint("an integer");
        return;
      case kDouble:
        skip_bytes(8, "a double");
        return;
      case kUuid:
        skip_bytes(16, "a UUID");
        return;
      case kBinary:
        skip_bytes(varint("a string length"), "a string");
        return;
      case kList:
      case kSet:
        skip_list(depth, type == kList ? "list" : "set");
        return;
      case kMap:
        skip_map(depth);
        return;
      case kStruct:
        skip_struct(depth);
        return;
      default:
        throw FooterFault{fmt::format("unknown Thrift type {} at byte {}", type, at_ - 1)};
    }
  }

  // Counts `count` more structs in lists; a fault past kMaxListedStructs.
  void count_structs(std::uint64_t count) {
    listed_structs_ += count;
    if (listed_structs_ > kMaxListedStructs)
      throw FooterFault{fmt::format(
          "holds more than {} structs in lists by byte {} (columns x row groups; DuckDB would "
          "hold each in hundreds of bytes)",
          kMaxListedStructs, at_)};
  }

  void skip_list(int depth, const char* what) {
    enter(depth);
    std::uint8_t header = next_byte("a list header");
    std::uint64_t count = header >> 4;
    if (count == 15) count = varint("a list size");  // long form: the size follows as a varint
    int element = header & 0x0f;
    check_count(count, min_element_bytes(element), what);
    if (element == kStruct) count_structs(count);
    for (std::uint64_t i = 0; i < count; ++i) skip_value(element, depth + 1, true);
  }

  void skip_map(int depth) {
    enter(depth);
    std::uint64_t count = varint("a map size");
    if (count == 0) return;  // an empty map has no key and value types
    std::uint8_t types = next_byte("a map's types");
    int key = types >> 4, value = types & 0x0f;
    check_count(count, min_element_bytes(key) + min_element_bytes(value), "map");
    if (key == kStruct || value == kStruct) count_structs(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      skip_value(key, depth + 1, true);
      skip_value(value, depth + 1, true);
    }
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
  std::uint64_t listed_structs_ = 0;
};

std::uint32_t little_endian_u32(const char* bytes) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(bytes[i]);
  return value;
}

}  // namespace

std::optional<std::string> thrift_compact_struct_problem(std::string_view bytes) {
  try {
    CompactWalker(bytes).skip_struct(0);
  } catch (const FooterFault& fault) {
    return fault.message;
  }
  return std::nullopt;
}

std::optional<std::string> parquet_footer_problem(const std::string& path) {
  constexpr std::uint64_t kTrailerBytes = 8;  // footer length (u32, little-endian) and "PAR1"
  constexpr std::uint64_t kLeadingMagicBytes = 4;
  std::error_code ec;
  std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError(path, path + ": cannot read its size (" + ec.message() + ")");
  if (size < kLeadingMagicBytes + kTrailerBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  char trailer[kTrailerBytes];
  in.seekg(static_cast<std::streamoff>(size - kTrailerBytes));
  if (!in.read(trailer, kTrailerBytes)) throw IoError(path, path + ": read error");
  if (std::string_view(trailer + 4, 4) != "PAR1") return std::nullopt;
  std::uint64_t footer_bytes = little_endian_u32(trailer);
  if (footer_bytes > size - kLeadingMagicBytes - kTrailerBytes) return std::nullopt;
  std::string footer(footer_bytes, '\0');
  in.seekg(static_cast<std::streamoff>(size - kTrailerBytes - footer_bytes));
  if (!in.read(footer.data(), static_cast<std::streamsize>(footer_bytes)))
    throw IoError(path, path + ": read error");
  std::optional<std::string> problem = thrift_compact_struct_problem(footer);
  if (!problem) return std::nullopt;
  return fmt::format("its {}-byte Parquet footer {}", footer_bytes, *problem);
}

}  // namespace openrecipes
