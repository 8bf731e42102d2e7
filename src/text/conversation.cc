#include "text/conversation.h"

#include <fmt/format.h>

#include <stdexcept>

namespace openrecipes {

Conversation conversation_from_json(const nlohmann::ordered_json& value) {
  const nlohmann::ordered_json& list = value.is_object() && value.contains("messages") ? value.at("messages") : value;
  if (!list.is_array()) {
    throw std::invalid_argument(value.is_object() && value.contains("messages")
                                    ? fmt::format("messages: expected a list of messages, found {}", list.type_name())
                                    : fmt::format("expected a list of messages, or an object with \"messages\"; found {}",
                                                  value.type_name()));
  }
  if (list.empty()) throw std::invalid_argument("the conversation has no messages");
  Conversation conversation;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const nlohmann::ordered_json& m = list[i];
    auto fail = [&](const std::string& field, const std::string& what) {
      return std::invalid_argument(fmt::format("messages[{}]{}{}: {}", i, field.empty() ? "" : ".", field, what));
    };
    if (!m.is_object()) throw fail("", fmt::format("expected an object, found {}", m.type_name()));
    Message message;
    if (!m.contains("role")) throw fail("role", "missing (expected system, user, assistant or tool)");
    if (!m.at("role").is_string()) {
      throw fail("role", fmt::format("expected a string: system, user, assistant or tool; found {}", m.at("role").type_name()));
    }
    message.role = m.at("role").get<std::string>();
    if (message.role != "system" && message.role != "user" && message.role != "assistant" && message.role != "tool") {
      throw fail("role", fmt::format("unknown role '{}' (expected system, user, assistant or tool)", message.role));
    }
    if (m.contains("content") && !m.at("content").is_null()) {
      if (!m.at("content").is_string()) {
        throw fail("content", fmt::format("expected a string, found {}", m.at("content").type_name()));
      }
      message.content = m.at("content").get<std::string>();
    } else if (message.role != "assistant") {
      throw fail("content", m.contains("content") ? "null (only assistant messages may omit it)" : "missing");
    }
    // reasoning_content is the name Qwen's template reads; the others are aliases, used only
    // when it is absent.
    for (const char* key : {"reasoning_content", "reasoning", "thinking"}) {
      if (m.contains(key) && !m.at(key).is_null()) {
        if (!m.at(key).is_string()) throw fail(key, "expected a string");
        message.reasoning = m.at(key).get<std::string>();
        break;
      }
    }
    if (m.contains("name") && !m.at("name").is_null()) {
      if (!m.at("name").is_string()) throw fail("name", "expected a string");
      message.name = m.at("name").get<std::string>();
    }
    if (m.contains("tool_calls") && !m.at("tool_calls").is_null() && message.role != "assistant") {
      throw fail("tool_calls", "only assistant messages make tool calls");
    }
    if (m.contains("tool_calls") && !m.at("tool_calls").is_null()) {
      if (!m.at("tool_calls").is_array()) throw fail("tool_calls", "expected a list");
      for (std::size_t k = 0; k < m.at("tool_calls").size(); ++k) {
        const nlohmann::ordered_json& call = m.at("tool_calls")[k];
        const nlohmann::ordered_json& function = call.is_object() && call.contains("function") ? call.at("function") : call;
        if (!function.is_object() || !function.contains("name") || !function.at("name").is_string()) {
          throw fail(fmt::format("tool_calls[{}]", k), "expected {name, arguments} (or {function: {...}})");
        }
        ToolCall tool{function.at("name").get<std::string>(), "{}"};
        if (function.contains("arguments")) {
          const nlohmann::ordered_json& arguments = function.at("arguments");
          tool.arguments = arguments.is_string() ? arguments.get<std::string>() : python_json_dumps(arguments);
        }
        message.tool_calls.push_back(std::move(tool));
      }
    }
    conversation.push_back(std::move(message));
  }
  return conversation;
}

std::string python_json_dumps(const nlohmann::ordered_json& value) {
  switch (value.type()) {
    case nlohmann::ordered_json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, child] : value.items()) {
        out += (first ? "" : ", ") + nlohmann::ordered_json(key).dump(-1, ' ', false) + ": " + python_json_dumps(child);
        first = false;
      }
      return out + "}";
    }
    case nlohmann::ordered_json::value_t::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + python_json_dumps(value[i]);
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
