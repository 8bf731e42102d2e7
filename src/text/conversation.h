// A chat conversation as the rows builder and `openrecipes render` take it: a list of messages
// with role, content, optional reasoning and tool calls (the Hugging Face messages layout, as in
// allenai/tulu-3-sft-mixture).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// One tool call of an assistant message.
struct ToolCall {
  std::string name;
  std::string arguments;  ///< JSON text of the arguments, as written or serialized compactly
};

/// One message.
struct Message {
  std::string role;  ///< system, user, assistant or tool
  std::string content;
  std::string
      reasoning;  ///< assistant reasoning (`reasoning_content` or `reasoning`); may be empty
  std::vector<ToolCall> tool_calls;
  std::string name;  ///< tool messages: the tool's name (optional)
};

using Conversation = std::vector<Message>;

/// Reads a conversation from JSON: a list of messages, or an object with a `messages` list. Tool
/// call arguments given as objects are serialized as Python's json.dumps does (", " and ": ",
/// keys in file order, non-ASCII kept), which is what the models' Jinja templates print.
/// Returns nullopt and appends one Problem (file `file`, rule `conversation`, the field path such
/// as `messages[1].role`) for a missing or unknown role, a content that is not a string,
/// malformed tool calls, or an empty conversation.
std::optional<Conversation> conversation_from_json(const nlohmann::ordered_json& value,
                                                   const std::string& file, Problems& problems);

/// Reads the JSON file at `path` (at most 256 MiB, nesting within kMaxJsonDepth) as
/// conversation_from_json does. Returns nullopt and appends a Problem for a file that cannot be
/// read, bad JSON (rule `json`) or a bad conversation.
std::optional<Conversation> read_conversation_file(const std::string& path, Problems& problems);

/// `value` as Python's json.dumps(value, ensure_ascii=False) prints it.
std::string python_json_dumps(const nlohmann::ordered_json& value);

}  // namespace openrecipes
