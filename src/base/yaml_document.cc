#include "base/yaml_document.h"

#include <fmt/format.h>
#include <utf8proc.h>
#include <yaml.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "base/ascii.h"
#include "base/source_text.h"

namespace openrecipes {
namespace {

// Deepest nesting accepted: the tree is freed and walked recursively, so a bound keeps a
// hostile file from overflowing the stack (libyaml itself keeps its stacks on the heap).
constexpr std::size_t kMaxDepth = 500;

// A character YAML 1.2 allows in a stream (c-printable,
// https://yaml.org/spec/1.2.2/#51-character-set).
bool is_yaml_printable(std::int32_t c) {
  return c == 0x09 || c == 0x0A || c == 0x0D || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
         (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

// NEL, LS and PS: line breaks to libyaml (YAML 1.1, https://yaml.org/spec/1.1/#id871136), plain
// characters to YAML 1.2 and to editors, so that a file holding one would read differently.
bool is_yaml11_line_break(std::int32_t c) { return c == 0x85 || c == 0x2028 || c == 0x2029; }

// The offset just past the quoted scalar that opens at `open`, or npos when the file ends first.
std::size_t closing_quote(std::string_view text, std::size_t open) {
  char quote = text[open];
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is an escaped quote
      } else {
        return i + 1;
      }
    }
  }
  return std::string_view::npos;
}

// Turns libyaml's marks, which count characters from the start of the stream (after a byte
// order mark), into byte offsets of the text. Marks mostly move forward, so the walk resumes
// where the last one stopped.
class MarkOffsets {
 public:
  explicit MarkOffsets(std::string_view text)
      : text_(text), origin_(text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0) {
    reset();
  }

  std::size_t offset(std::size_t characters) {
    if (characters < characters_) reset();
    while (characters_ < characters && bytes_ < text_.size()) {
      ++bytes_;
      while (bytes_ < text_.size() && (static_cast<unsigned char>(text_[bytes_]) & 0xC0) == 0x80)
        ++bytes_;
      ++characters_;
    }
    return bytes_;
  }

 private:
  void reset() {
    bytes_ = origin_;
    characters_ = 0;
  }

  std::string_view text_;
  std::size_t origin_;
  std::size_t bytes_ = 0;
  std::size_t characters_ = 0;
};

// Thrown from inside the event handler to stop parsing at the first structural problem.
struct StrictnessError {
  SourcePosition position;
  std::string field;
  std::string message;
};

// Builds a YamlNode tree from libyaml's events, refusing what catalog files must not contain.
class TreeBuilder {
 public:
  TreeBuilder(std::string_view text, const SourceText& source)
      : text_(text), source_(source), marks_(text) {}

  YamlNode take_root() { return std::move(root_); }

  /// The byte offset and position of a libyaml mark.
  std::size_t offset(const yaml_mark_t& mark) { return marks_.offset(mark.index); }
  SourcePosition position(const yaml_mark_t& mark) { return source_.position(offset(mark)); }

  /// One parsing event: the document's nodes, in order (stream and document events aside).
  void on_event(const yaml_event_t& event) {
    switch (event.type) {
      case YAML_ALIAS_EVENT:
        throw StrictnessError{
            position(event.start_mark), current_path(),
            "YAML aliases (*name) are not allowed in catalog files; write the value out"};
      case YAML_SCALAR_EVENT:
        return scalar(event);
      case YAML_SEQUENCE_START_EVENT:
        return open(event.start_mark, event.data.sequence_start.anchor,
                    event.data.sequence_start.tag, YamlNode::Kind::kSequence);
      case YAML_MAPPING_START_EVENT:
        return open(event.start_mark, event.data.mapping_start.anchor, event.data.mapping_start.tag,
                    YamlNode::Kind::kMapping);
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        return close();
      default:
        return;
    }
  }

 private:
  struct Frame {
    YamlNode node;
    std::optional<YamlEntry> pending;  // a mapping's key waiting for its value
    std::set<std::string> keys;
  };

  void scalar(const yaml_event_t& event) {
    const auto& data = event.data.scalar;
    refuse_anchor(event.start_mark, data.anchor);
    refuse_tag(event.start_mark, data.tag);
    std::string value(reinterpret_cast<const char*>(data.value), data.length);
    bool plain = data.style == YAML_PLAIN_SCALAR_STYLE && !data.tag;
    YamlNode node;
    node.position = position(event.start_mark);
    // An empty plain value and the null words are null nodes (the core schema's null).
    if (plain &&
        (value.empty() || value == "~" || value == "null" || value == "Null" || value == "NULL")) {
      node.kind = YamlNode::Kind::kNull;
      complete(std::move(node));
      return;
    }
    node.kind = YamlNode::Kind::kScalar;
    node.scalar = std::move(value);
    node.quoted = !plain;  // quoted, block, or tagged `!` (a non-specific string)
    std::size_t at = offset(event.start_mark);
    node.style = at < text_.size() ? text_[at] : 0;
    if ((node.style == '"' || node.style == '\'') &&
        closing_quote(text_, at) == std::string_view::npos) {
      throw StrictnessError{node.position, current_path(),
                            fmt::format("a {}-quoted string opens here and is never closed",
                                        node.style == '"' ? "double" : "single")};
    }
    for (unsigned char c : node.scalar) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
        throw StrictnessError{
            node.position, current_path(),
            fmt::format("the string holds control character U+{:04X} (written as an "
                        "escape); catalog text may hold only tabs and line breaks",
                        static_cast<int>(c))};
      }
    }
    complete(std::move(node));
  }

  void refuse_anchor(const yaml_mark_t& mark, const yaml_char_t* anchor) {
    if (!anchor) return;
    throw StrictnessError{position(mark), current_path(),
                          fmt::format("YAML anchors (&{}) are not allowed in catalog files",
                                      reinterpret_cast<const char*>(anchor))};
  }

  // `!` alone, the non-specific tag, makes a string; anything else was written as a type.
  void refuse_tag(const yaml_mark_t& mark, const yaml_char_t* tag) {
    if (!tag || std::strcmp(reinterpret_cast<const char*>(tag), "!") == 0) return;
    throw StrictnessError{position(mark), current_path(),
                          fmt::format("explicit YAML tag '{}' is not allowed in catalog files",
                                      reinterpret_cast<const char*>(tag))};
  }

  void open(const yaml_mark_t& mark, const yaml_char_t* anchor, const yaml_char_t* tag,
            YamlNode::Kind kind) {
    refuse_anchor(mark, anchor);
    refuse_tag(mark, tag);
    if (stack_.size() >= kMaxDepth) {
      throw StrictnessError{position(mark), current_path(),
                            fmt::format("nesting is deeper than {} levels", kMaxDepth)};
    }
    Frame frame;
    frame.node.kind = kind;
    frame.node.position = position(mark);
    stack_.push_back(std::move(frame));
  }

  void close() {
    YamlNode node = std::move(stack_.back().node);
    stack_.pop_back();
    complete(std::move(node));
  }

  void complete(YamlNode node) {
    if (stack_.empty()) {
      root_ = std::move(node);
      return;
    }
    Frame& top = stack_.back();
    if (top.node.kind == YamlNode::Kind::kSequence) {
      top.node.items.push_back(std::move(node));
      return;
    }
    if (!top.pending) {
      if (node.kind != YamlNode::Kind::kScalar || node.scalar.empty()) {
        throw StrictnessError{node.position, current_path(),
                              "a mapping key must be a non-empty plain string"};
      }
      if (!top.keys.insert(node.scalar).second) {
        std::string field = join(current_path(), node.scalar);
        throw StrictnessError{node.position, field,
                              fmt::format("duplicate key '{}' in the same mapping", node.scalar)};
      }
      top.pending = YamlEntry{node.scalar, node.position, {}};
      return;
    }
    top.pending->value = std::move(node);
    top.node.entries.push_back(std::move(*top.pending));
    top.pending.reset();
  }

  static std::string join(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }

  // The dotted path of the node being built, for error messages.
  std::string current_path() const {
    std::string path;
    for (const Frame& frame : stack_) {
      if (frame.node.kind == YamlNode::Kind::kSequence) {
        if (&frame != &stack_.front() || !path.empty()) {
          path += fmt::format("[{}]", frame.node.items.size());
        }
      } else if (frame.pending) {
        path = join(path, frame.pending->key);
      }
    }
    return path;
  }

  std::string_view text_;
  const SourceText& source_;
  MarkOffsets marks_;
  std::vector<Frame> stack_;
  YamlNode root_;
};

// libyaml's parser, freed on every path.
struct LibyamlParser {
  yaml_parser_t parser;
  explicit LibyamlParser(std::string_view text) {
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~LibyamlParser() { yaml_parser_delete(&parser); }
  LibyamlParser(const LibyamlParser&) = delete;
  LibyamlParser& operator=(const LibyamlParser&) = delete;
};

struct LibyamlEvent {
  yaml_event_t event{};
  ~LibyamlEvent() { yaml_event_delete(&event); }
};

// libyaml's account of a syntax error: "problem, context (which starts at L:C)", with a word on
// the commonest cause of its vaguest message.
std::string syntax_message(std::string_view text, const yaml_parser_t& parser,
                           TreeBuilder& builder) {
  std::string message = parser.problem ? parser.problem : "the file cannot be read as YAML";
  std::size_t problem_at = builder.offset(parser.problem_mark);
  if (problem_at < text.size() && text[problem_at] == '\t')
    message += " (a tab: YAML indents with spaces only)";
  if (parser.context) {
    SourcePosition at = builder.position(parser.context_mark);
    message += fmt::format(", {} that starts at {}:{}", parser.context, at.line, at.column);
  }
  return message;
}

void index_positions(const YamlNode& node, const std::string& path,
                     std::map<std::string, SourcePosition>& positions) {
  if (node.kind == YamlNode::Kind::kMapping) {
    for (const YamlEntry& entry : node.entries) {
      std::string child = path.empty() ? entry.key : path + "." + entry.key;
      positions[child] = entry.key_position;
      index_positions(entry.value, child, positions);
    }
  } else if (node.kind == YamlNode::Kind::kSequence) {
    for (std::size_t i = 0; i < node.items.size(); ++i) {
      std::string child = fmt::format("{}[{}]", path, i);
      positions[child] = node.items[i].position;
      index_positions(node.items[i], child, positions);
    }
  }
}

// YAML 1.2 core schema integer: [-+]?[0-9]+ (written out: std::regex recurses per character).
bool is_core_integer(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// YAML 1.2 core schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_core_float(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && ascii_digit(s[i])) ++i;
    return i - start;
  };
  std::size_t whole = digits();
  std::size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits();
    if (whole == 0 && fraction == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

const YamlNode* YamlNode::find(std::string_view key) const {
  if (kind != Kind::kMapping) return nullptr;
  for (const YamlEntry& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

SourcePosition YamlDocument::position_of(const std::string& field) const {
  std::string path = field;
  while (!path.empty()) {
    auto it = positions.find(path);
    if (it != positions.end()) return it->second;
    std::size_t cut = path.find_last_of(".[");
    if (cut == std::string::npos) break;
    path.resize(cut);
  }
  return {1, 1};
}

std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes,
                                          Problems& problems) {
  namespace fs = std::filesystem;
  auto fail = [&](std::string message) {
    problems.push_back({path, {0, 0}, "", "file", std::move(message), "", ""});
    return std::nullopt;
  };
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return fail(ec.message());
  if (!fs::exists(status)) return fail("no such file");
  if (!fs::is_regular_file(status)) return fail("not a regular file");
  // A file the size already shows too large is refused before a byte is read (a 3 GiB log
  // would otherwise be read up to the limit first); the read below still stops one byte past the
  // limit for files whose size the system does not know (procfs reports 0).
  if (std::uintmax_t size = fs::file_size(path, ec); !ec && size > max_bytes)
    return fail(fmt::format("file is {} bytes; it may be at most {} bytes", size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("cannot open: {}", std::strerror(errno)));
  // Read in chunks until the end or one byte past the limit, instead of trusting the size
  // (procfs reports 0) or allocating the whole limit up front.
  std::string text;
  std::uintmax_t hint = fs::file_size(path, ec);
  if (!ec) text.reserve(static_cast<std::size_t>(std::min<std::uintmax_t>(hint, max_bytes + 1)));
  char chunk[1 << 16];
  while (text.size() <= max_bytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return fail("read error");
  if (text.size() > max_bytes) {
    std::uintmax_t size = fs::file_size(path, ec);
    return fail(fmt::format(
        "file is {} bytes; it may be at most {} bytes",
        ec ? std::string("more than " + std::to_string(max_bytes)) : std::to_string(size),
        max_bytes));
  }
  return text;
}

std::optional<YamlDocument> parse_yaml(std::string_view text, const std::string& file,
                                       Problems& problems) {
  SourceText source(text);
  auto fail = [&](SourcePosition position, std::string field, std::string message) {
    problems.push_back({file, position, std::move(field), "yaml", std::move(message), "", ""});
    return std::nullopt;
  };
  // Characters first: a YAML parser would read other encodings and control bytes silently.
  for (std::size_t offset = 0; offset < text.size();) {
    // Printable ASCII, tabs and LF, nearly every byte of a recipe, need no decoding: the checks
    // below pass them all.
    const auto byte = static_cast<unsigned char>(text[offset]);
    if ((byte >= 0x20 && byte <= 0x7E) || byte == '\n' || byte == '\t') {
      ++offset;
      continue;
    }
    utf8proc_int32_t codepoint = 0;
    utf8proc_ssize_t length =
        utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + offset),
                         static_cast<utf8proc_ssize_t>(text.size() - offset), &codepoint);
    if (length < 0) {
      return fail(source.position(offset), "",
                  fmt::format("the file is not valid UTF-8: byte offset {} (0x{:02X})", offset,
                              static_cast<unsigned char>(text[offset])));
    }
    // Bidirectional overrides can make a reviewer read text that is not there (Trojan Source).
    if ((codepoint >= 0x202A && codepoint <= 0x202E) ||
        (codepoint >= 0x2066 && codepoint <= 0x2069)) {
      return fail(
          source.position(offset), "",
          fmt::format("the file holds bidirectional control character U+{:04X} at byte offset {}",
                      codepoint, offset));
    }
    if (is_yaml11_line_break(codepoint)) {
      return fail(source.position(offset), "",
                  fmt::format("the file holds line-break character U+{:04X} at byte offset {}, "
                              "which YAML 1.1 readers take as a new line and others do not; use "
                              "a plain line break",
                              codepoint, offset));
    }
    bool bom = codepoint == 0xFEFF && offset == 0;
    if (!bom && !is_yaml_printable(codepoint)) {
      return fail(source.position(offset), "",
                  fmt::format("the file holds control character U+{:04X} at byte offset {}; YAML "
                              "allows only printable characters, tabs and line breaks",
                              codepoint, offset));
    }
    if (codepoint == '\r' && (offset + 1 >= text.size() || text[offset + 1] != '\n')) {
      return fail(source.position(offset), "",
                  "the file has a line ending of CR alone (old Mac style); use LF or CRLF");
    }
    offset += static_cast<std::size_t>(length);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return fail({1, 1}, "", "the file is empty; expected a YAML mapping");
  }

  TreeBuilder builder(text, source);
  LibyamlParser libyaml(text);
  int documents = 0;
  try {
    for (bool done = false; !done;) {
      LibyamlEvent next;
      if (!yaml_parser_parse(&libyaml.parser, &next.event)) {
        const yaml_parser_t& parser = libyaml.parser;
        if (parser.context && parser.problem &&
            std::strcmp(parser.context, "while scanning a quoted scalar") == 0 &&
            std::strcmp(parser.problem, "found unexpected end of stream") == 0) {
          // Where the string opens is what to fix, not the end of the file.
          std::size_t open = builder.offset(parser.context_mark);
          bool single = open < text.size() && text[open] == '\'';
          return fail(source.position(open), "",
                      fmt::format("a {}-quoted string opens here and is never closed",
                                  single ? "single" : "double"));
        }
        // A reader error (bad encoding) has a byte offset; the others a mark.
        SourcePosition at = parser.error == YAML_READER_ERROR
                                ? source.position(parser.problem_offset)
                                : builder.position(parser.problem_mark);
        return fail(at, "", "YAML syntax error: " + syntax_message(text, parser, builder));
      }
      const yaml_event_t& event = next.event;
      if (event.type == YAML_DOCUMENT_START_EVENT && ++documents > 1) {
        return fail(builder.position(event.start_mark), "",
                    "the file holds more than one YAML document (a second '---')");
      }
      done = event.type == YAML_STREAM_END_EVENT;
      builder.on_event(event);
    }
  } catch (const StrictnessError& error) {
    return fail(error.position, error.field, error.message);
  }
  if (documents == 0) return fail({1, 1}, "", "the file holds no YAML document (only comments)");
  YamlDocument document;
  document.file = file;
  document.text = std::string(text);
  document.root = builder.take_root();
  index_positions(document.root, "", document.positions);
  return document;
}

nlohmann::json resolve_scalar(const YamlNode& node) {
  if (node.kind == YamlNode::Kind::kNull) return nullptr;
  const std::string& s = node.scalar;
  if (node.quoted) return s;
  // YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution). Every null, boolean,
  // integer, float and infinity of it starts with one of these characters; most scalars are words
  // that do not, and are strings without the comparisons below.
  if (!s.empty() && std::strchr("nNtTfF~+-.0123456789", s[0]) == nullptr) return s;
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (is_core_integer(s)) {
    std::int64_t value = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size()) return value;
    return std::strtod(s.c_str(), nullptr);  // beyond int64: a float, which range checks catch
  }
  if (is_core_float(s)) return std::strtod(s.c_str(), nullptr);
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") {
    return HUGE_VAL;  // nlohmann stores it; schema bounds reject it
  }
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
  return s;
}

namespace {

template <typename Json>
Json convert(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kNull:
    case YamlNode::Kind::kScalar:
      return Json(resolve_scalar(node));
    case YamlNode::Kind::kSequence: {
      Json array = Json::array();
      for (const YamlNode& item : node.items) array.push_back(convert<Json>(item));
      return array;
    }
    case YamlNode::Kind::kMapping: {
      Json object = Json::object();
      for (const YamlEntry& entry : node.entries) object[entry.key] = convert<Json>(entry.value);
      return object;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json to_json(const YamlNode& node) { return convert<nlohmann::json>(node); }

nlohmann::ordered_json to_ordered_json(const YamlNode& node) {
  return convert<nlohmann::ordered_json>(node);
}

std::string describe_found(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kNull:
      return "null";
    case YamlNode::Kind::kSequence:
      return "a list";
    case YamlNode::Kind::kMapping:
      return "a mapping";
    case YamlNode::Kind::kScalar:
      break;
  }
  nlohmann::json value = resolve_scalar(node);
  std::string shown = node.scalar.size() > 60 ? node.scalar.substr(0, 57) + "..." : node.scalar;
  if (value.is_boolean()) return "boolean " + shown;
  if (value.is_number_integer()) return "integer " + shown;
  if (value.is_number()) return "number " + shown;
  return "string " +
         nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace openrecipes
