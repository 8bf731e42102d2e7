#include "text/conversation.h"

#include <fmt/format.h>

#include "base/json_depth.h"
#include "base/json_syntax.h"
#include "base/yaml_document.h"

namespace openrecipes {

namespace {

using Json = nlohmann::ordered_json;

// Reads message `m` (at `where`, "messages[i]") into `message`; false after appending a problem.
class MessageReader {
 public:
  MessageReader(const std::string& file, std::string where, Problems& problems)
      : file_(file), where_(std::move(where)), problems_(problems) {}

  bool read(const Json& m, Message& message) {
    if (!m.is_object()) return fail("", fmt::format("expected an object, found {}", m.type_name()));
    return read_role(m, message) && read_content(m, message) && read_strings(m, message) &&
           read_tool_calls(m, message);
  }

 private:
  bool fail(const std::string& field, const std::string& what) {
    problems_.push_back(
        {file_, {}, field.empty() ? where_ : where_ + "." + field, "conversation", what, "", ""});
    return false;
  }

  bool read_role(const Json& m, Message& message) {
    if (!m.contains("role"))
      return fail("role", "missing (expected system, user, assistant or tool)");
    if (!m.at("role").is_string()) {
      return fail("role",
                  fmt::format("expected a string: system, user, assistant or tool; found {}",
                              m.at("role").type_name()));
    }
    message.role = m.at("role").get<std::string>();
    if (message.role != "system" && message.role != "user" && message.role != "assistant" &&
        message.role != "tool") {
      return fail("role",
                  fmt::format("unknown role '{}' (expected system, user, assistant or tool)",
                              message.role));
    }
    return true;
  }

  bool read_content(const Json& m, Message& message) {
    if (m.contains("content") && !m.at("content").is_null()) {
      if (!m.at("content").is_string()) {
        return fail("content",
                    fmt::format("expected a string, found {}", m.at("content").type_name()));
      }
      message.content = m.at("content").get<std::string>();
    } else if (message.role != "assistant") {
      return fail("content",
                  m.contains("content") ? "null (only assistant messages may omit it)" : "missing");
    }
    return true;
  }

  // The reasoning and the tool's name.
  bool read_strings(const Json& m, Message& message) {
    // reasoning_content is the name Qwen's template reads; the others are aliases, used only
    // when it is absent.
    for (const char* key : {"reasoning_content", "reasoning", "thinking"}) {
      if (m.contains(key) && !m.at(key).is_null()) {
        if (!m.at(key).is_string()) return fail(key, "expected a string");
        message.reasoning = m.at(key).get<std::string>();
        break;
      }
    }
    if (m.contains("name") && !m.at("name").is_null()) {
      if (!m.at("name").is_string()) return fail("name", "expected a string");
      message.name = m.at("name").get<std::string>();
    }
    return true;
  }

  bool read_tool_calls(const Json& m, Message& message) {
    if (!m.contains("tool_calls") || m.at("tool_calls").is_null()) return true;
    if (message.role != "assistant")
      return fail("tool_calls", "only assistant messages make tool calls");
    if (!m.at("tool_calls").is_array()) return fail("tool_calls", "expected a list");
    for (std::size_t k = 0; k < m.at("tool_calls").size(); ++k) {
      const Json& call = m.at("tool_calls")[k];
      const Json& function =
          call.is_object() && call.contains("function") ? call.at("function") : call;
      if (!function.is_object() || !function.contains("name") || !function.at("name").is_string()) {
        return fail(fmt::format("tool_calls[{}]", k),
                    "expected {name, arguments} (or {function: {...}})");
      }
      ToolCall tool{function.at("name").get<std::string>(), "{}"};
      if (function.contains("arguments")) {
        const Json& arguments = function.at("arguments");
        tool.arguments =
            arguments.is_string() ? arguments.get<std::string>() : python_json_dumps(arguments);
      }
      message.tool_calls.push_back(std::move(tool));
    }
    return true;
  }

  const std::string& file_;
  std::string where_;
  Problems& problems_;
};

}  // namespace

std::optional<Conversation> conversation_from_json(const nlohmann::ordered_json& value,
                                                   const std::string& file, Problems& problems) {
  bool wrapped = value.is_object() && value.contains("messages");
  const Json& list = wrapped ? value.at("messages") : value;
  if (!list.is_array()) {
    problems.push_back(
        wrapped
            ? Problem{file,
                      {},
                      "messages",
                      "conversation",
                      fmt::format("expected a list of messages, found {}", list.type_name()),
                      "",
                      ""}
            : Problem{file,
                      {},
                      "",
                      "conversation",
                      fmt::format(
                          "expected a list of messages, or an object with \"messages\"; found {}",
                          value.type_name()),
                      "",
                      ""});
    return std::nullopt;
  }
  if (list.empty()) {
    problems.push_back({file, {}, "", "conversation", "the conversation has no messages", "", ""});
    return std::nullopt;
  }
  Conversation conversation;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Message message;
    if (!MessageReader(file, fmt::format("messages[{}]", i), problems).read(list[i], message))
      return std::nullopt;
    conversation.push_back(std::move(message));
  }
  return conversation;
}

std::optional<Conversation> read_conversation_file(const std::string& path, Problems& problems) {
  std::optional<std::string> text = read_text_file(path, 256u << 20, problems);
  if (!text) return std::nullopt;
  if (std::optional<std::size_t> at = json_too_deep(*text)) {
    problems.push_back({path,
                        {},
                        "",
                        "json",
                        fmt::format("nesting deeper than {} levels at byte {}", kMaxJsonDepth, *at),
                        "",
                        ""});
    return std::nullopt;
  }
  if (std::optional<JsonSyntaxError> error = json_syntax_error(*text)) {
    problems.push_back(json_syntax_problem(*error, path, "json"));
    return std::nullopt;
  }
  return conversation_from_json(nlohmann::ordered_json::parse(*text), path, problems);
}

std::string python_json_dumps(const nlohmann::ordered_json& value) {
  switch (value.type()) {
    case nlohmann::ordered_json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, child] : value.items()) {
        out += (first ? "" : ", ") + nlohmann::ordered_json(key).dump(-1, ' ', false) + ": " +
               python_json_dumps(child);
        first = false;
      }
      return out + "}";
    }
    case nlohmann::ordered_json::value_t::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i)
        out += (i ? ", " : "") + python_json_dumps(value[i]);
      return out + "]";
    }
    case nlohmann::ordered_json::value_t::number_float: {
      std::string text = value.dump();
      return text.find_first_of(".eE") == std::string::npos ? text + ".0" : text;
    }
    default:
      return value.dump(-1, ' ', false);  // strings keep non-ASCII, like ensure_ascii=False
  }
}

}  // namespace openrecipes
