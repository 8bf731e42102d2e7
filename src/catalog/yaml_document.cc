#include "catalog/yaml_document.h"

#include <fmt/format.h>
#include <utf8proc.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace openrecipes {
namespace {

SourcePosition to_position(const YAML::Mark& mark) {
  if (mark.line < 0) return {1, 1};
  return {mark.line + 1, mark.column + 1};
}

// Thrown from inside the event handler to stop parsing at the first structural problem.
struct StrictnessError {
  SourcePosition position;
  std::string field;
  std::string message;
};

// Builds a YamlNode tree from yaml-cpp's events, refusing what catalog files must not contain.
class TreeBuilder : public YAML::EventHandler {
 public:
  YamlNode take_root() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    refuse_anchor(mark, anchor);
    YamlNode node;
    node.kind = YamlNode::Kind::kNull;
    node.position = to_position(mark);
    complete(std::move(node));
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw StrictnessError{to_position(mark), current_path(),
                          "YAML aliases (*name) are not allowed in catalog files; write the value out"};
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    refuse_anchor(mark, anchor);
    refuse_tag(mark, tag, {"?", "!", "tag:yaml.org,2002:str"});
    YamlNode node;
    node.kind = YamlNode::Kind::kScalar;
    node.position = to_position(mark);
    node.scalar = value;
    node.quoted = tag != "?";
    complete(std::move(node));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, YamlNode::Kind::kSequence);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, YamlNode::Kind::kMapping);
  }
  void OnMapEnd() override { close(); }

  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    throw StrictnessError{to_position(mark), current_path(),
                          fmt::format("YAML anchors (&{}) are not allowed in catalog files", name)};
  }

 private:
  struct Frame {
    YamlNode node;
    std::optional<YamlEntry> pending;  // a mapping's key waiting for its value
    std::set<std::string> keys;
  };

  void refuse_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) {
      throw StrictnessError{to_position(mark), current_path(),
                            "YAML anchors (&name) are not allowed in catalog files"};
    }
  }

  void refuse_tag(const YAML::Mark& mark, const std::string& tag,
                  std::initializer_list<const char*> allowed) {
    for (const char* ok : allowed) {
      if (tag == ok) return;
    }
    throw StrictnessError{to_position(mark), current_path(),
                          fmt::format("explicit YAML tag '{}' is not allowed in catalog files", tag)};
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            YamlNode::Kind kind) {
    refuse_anchor(mark, anchor);
    refuse_tag(mark, tag, {"?", "!", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"});
    Frame frame;
    frame.node.kind = kind;
    frame.node.position = to_position(mark);
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

  std::vector<Frame> stack_;
  YamlNode root_;
};

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

SourcePosition position_of_offset(std::string_view text, std::size_t offset) {
  SourcePosition position{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++position.column;
    }
  }
  return position;
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
  if (ec || !fs::exists(status)) return fail("no such file");
  if (!fs::is_regular_file(status)) return fail("not a regular file");
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return fail("cannot read the file size: " + ec.message());
  if (size > max_bytes) {
    return fail(fmt::format("file is {} bytes; a catalog file may be at most {} bytes", size,
                            max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("cannot open: {}", std::strerror(errno)));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) return fail("short read");
  return text;
}

std::optional<YamlDocument> parse_yaml(std::string_view text, const std::string& file,
                                       Problems& problems) {
  auto fail = [&](SourcePosition position, std::string field, std::string message) {
    problems.push_back({file, position, std::move(field), "yaml", std::move(message), "", ""});
    return std::nullopt;
  };
  // UTF-8 first: yaml-cpp would otherwise read other encodings silently.
  for (std::size_t offset = 0; offset < text.size();) {
    utf8proc_int32_t codepoint = 0;
    utf8proc_ssize_t length = utf8proc_iterate(
        reinterpret_cast<const utf8proc_uint8_t*>(text.data() + offset),
        static_cast<utf8proc_ssize_t>(text.size() - offset), &codepoint);
    if (length < 0) {
      return fail(position_of_offset(text, offset), "",
                  fmt::format("the file is not valid UTF-8: byte offset {} (0x{:02X})", offset,
                              static_cast<unsigned char>(text[offset])));
    }
    if (codepoint == 0) {
      return fail(position_of_offset(text, offset), "",
                  fmt::format("the file contains a NUL byte at byte offset {}", offset));
    }
    offset += static_cast<std::size_t>(length);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return fail({1, 1}, "", "the file is empty; expected a YAML mapping");
  }

  std::istringstream stream{std::string(text)};
  TreeBuilder builder;
  try {
    YAML::Parser parser(stream);
    if (!parser.HandleNextDocument(builder)) {
      return fail({1, 1}, "", "the file holds no YAML document");
    }
    YamlDocument document;
    document.file = file;
    document.root = builder.take_root();
    TreeBuilder rest;
    if (parser.HandleNextDocument(rest)) {
      return fail({1, 1}, "", "the file holds more than one YAML document (a second '---')");
    }
    index_positions(document.root, "", document.positions);
    return document;
  } catch (const StrictnessError& error) {
    return fail(error.position, error.field, error.message);
  } catch (const YAML::DeepRecursion& error) {
    return fail(to_position(error.mark), "",
                fmt::format("nesting is deeper than {} levels", error.depth()));
  } catch (const YAML::Exception& error) {
    return fail(to_position(error.mark), "", "YAML syntax error: " + error.msg);
  }
}

nlohmann::json resolve_scalar(const YamlNode& node) {
  if (node.kind == YamlNode::Kind::kNull) return nullptr;
  const std::string& s = node.scalar;
  if (node.quoted) return s;
  // YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex kInteger(R"([-+]?[0-9]+)");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, kInteger)) {
    std::int64_t value = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size()) return value;
    return std::strtod(s.c_str(), nullptr);  // beyond int64: a float, which range checks catch
  }
  if (std::regex_match(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") {
    return HUGE_VAL;  // nlohmann stores it; schema bounds reject it
  }
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
  return s;
}

nlohmann::json to_json(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kNull:
    case YamlNode::Kind::kScalar:
      return resolve_scalar(node);
    case YamlNode::Kind::kSequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const YamlNode& item : node.items) array.push_back(to_json(item));
      return array;
    }
    case YamlNode::Kind::kMapping: {
      nlohmann::json object = nlohmann::json::object();
      for (const YamlEntry& entry : node.entries) object[entry.key] = to_json(entry.value);
      return object;
    }
  }
  return nullptr;
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
  return "string " + nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace openrecipes
