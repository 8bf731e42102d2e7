#include "rows/conversation_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_depth.h"
#include "base/json_syntax.h"
#include "rows/duckdb_stream.h"
#include "rows/parquet_footer.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// What is wrong with an input, thrown from deep in its reading and caught by the public function
// that reads it, which returns it as a Problem; it never leaves this file.
struct InputFault {
  Problem problem;
};

// An input problem in `file` (at a JSONL `line`, or 0), rule `rows.input`.
[[noreturn]] void input_fault(const std::string& file, std::string message, std::uint64_t line = 0,
                              std::string field = "") {
  throw InputFault{{file,
                    {static_cast<int>(line), 0},
                    std::move(field),
                    "rows.input",
                    std::move(message),
                    "",
                    ""}};
}

// A problem with row `row` of Parquet input `path` at `field` (e.g. `messages[2].role`).
[[noreturn]] void row_fault(const std::string& path, std::uint64_t row, const std::string& field,
                            std::string message) {
  input_fault(path, std::move(message), 0, fmt::format("row {}: {}", row, field));
}

InputFormat format_of(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".parquet") return InputFormat::kParquet;
  if (extension == ".jsonl" || extension == ".json") return InputFormat::kJsonl;
  input_fault(path, fmt::format("expected a .parquet or .jsonl file, found '{}'",
                                extension.empty() ? "no extension" : extension));
}

void check_readable(const std::string& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) input_fault(path, "no such file");
  if (!fs::is_regular_file(status)) input_fault(path, "not a regular file");
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw IoError(path, path + ": cannot be read");
}

std::uint32_t clamp_bytes(std::uint64_t bytes) {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(bytes, std::numeric_limits<std::uint32_t>::max()));
}

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// Calls `take(line_number, line)` for each non-blank line (1-based numbers; a final CR removed).
template <typename Take>
void for_each_jsonl_line(const std::string& path, Take take) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path, path + ": cannot be read");
  std::string line;
  std::uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (is_blank(line)) continue;
    take(number, line);
  }
  if (in.bad()) throw IoError(path, path + ": read error");
}

// The Parquet columns the builder reads: `messages` (a list of structs) and, if present, `id`.
struct ParquetLayout {
  bool has_id = false;
  std::uint64_t role_child = 0;
  std::uint64_t content_child = 0;
};

ParquetLayout check_parquet_layout(const std::string& path, DuckDbSession& duckdb) {
  ParquetLayout layout;
  bool has_messages = false;
  std::string found_columns;
  if (std::optional<std::string> unsafe = parquet_footer_problem(path))
    input_fault(path, "not a readable Parquet file (" + *unsafe + ")");
  try {
    DuckDbStream columns =
        stream_query(duckdb, "SELECT * FROM read_parquet(" + sql_string(path) + ") LIMIT 0");
    for (std::uint64_t i = 0; i < columns.column_count(); ++i) {
      std::string name = columns.column_name(i);
      found_columns += (i ? ", " : "") + name;
      if (name == "id") layout.has_id = true;
      if (name != "messages") continue;
      has_messages = true;
      duckdb_logical_type type = columns.column_type(i);
      std::string spelled = type_name(type);
      bool ok = duckdb_get_type_id(type) == DUCKDB_TYPE_LIST;
      bool has_role = false, has_content = false;
      if (ok) {
        duckdb_logical_type child = duckdb_list_type_child_type(type);
        ok = duckdb_get_type_id(child) == DUCKDB_TYPE_STRUCT;
        for (idx_t k = 0; ok && k < duckdb_struct_type_child_count(child); ++k) {
          char* child_name = duckdb_struct_type_child_name(child, k);
          duckdb_logical_type member = duckdb_struct_type_child_type(child, k);
          bool is_text = duckdb_get_type_id(member) == DUCKDB_TYPE_VARCHAR;
          std::string member_name = child_name;
          duckdb_free(child_name);
          duckdb_destroy_logical_type(&member);
          if (member_name == "role" && is_text) has_role = true, layout.role_child = k;
          if (member_name == "content" && is_text) has_content = true, layout.content_child = k;
        }
        duckdb_destroy_logical_type(&child);
      }
      duckdb_destroy_logical_type(&type);
      if (!ok || !has_role || !has_content) {
        input_fault(
            path,
            fmt::format("expected a list of STRUCT(role VARCHAR, content VARCHAR), found {}",
                        spelled),
            0, "messages");
      }
    }
  } catch (const DuckDbError& error) {
    input_fault(path, fmt::format("not a readable Parquet file ({})", error.what()));
  }
  if (!has_messages) {
    input_fault(path, fmt::format("no column 'messages' (expected the layout of "
                                  "allenai/tulu-3-sft-mixture: id, messages, "
                                  "source; found {})",
                                  found_columns.empty() ? "no columns" : found_columns));
  }
  return layout;
}

// One chunk's message columns, as the C API lays them out.
struct MessageColumns {
  duckdb_list_entry* lists;
  std::uint64_t* list_validity;
  std::uint64_t* struct_validity;
  duckdb_string_t* roles;
  std::uint64_t* role_validity;
  duckdb_string_t* contents;
  std::uint64_t* content_validity;
};

// Calls `take(row, id_or_null, columns, chunk_row)` for each row of the file.
template <typename Take>
void for_each_parquet_row(const std::string& path, DuckDbSession& duckdb, Take take) {
  ParquetLayout layout = check_parquet_layout(path, duckdb);
  std::string sql =
      fmt::format("SELECT {}, messages FROM read_parquet({})",
                  layout.has_id ? "CAST(id AS VARCHAR)" : "NULL::VARCHAR", sql_string(path));
  std::uint64_t row = 0;
  try {
    DuckDbStream rows = stream_query(duckdb, sql);
    for (DuckDbChunk chunk = rows.next(); chunk.handle(); chunk = rows.next()) {
      duckdb_vector ids = duckdb_data_chunk_get_vector(chunk.handle(), 0);
      duckdb_vector lists = duckdb_data_chunk_get_vector(chunk.handle(), 1);
      duckdb_vector structs = duckdb_list_vector_get_child(lists);
      duckdb_vector roles = duckdb_struct_vector_get_child(structs, layout.role_child);
      duckdb_vector contents = duckdb_struct_vector_get_child(structs, layout.content_child);
      MessageColumns columns{static_cast<duckdb_list_entry*>(duckdb_vector_get_data(lists)),
                             duckdb_vector_get_validity(lists),
                             duckdb_vector_get_validity(structs),
                             static_cast<duckdb_string_t*>(duckdb_vector_get_data(roles)),
                             duckdb_vector_get_validity(roles),
                             static_cast<duckdb_string_t*>(duckdb_vector_get_data(contents)),
                             duckdb_vector_get_validity(contents)};
      auto* id_strings = static_cast<duckdb_string_t*>(duckdb_vector_get_data(ids));
      std::uint64_t* id_validity = duckdb_vector_get_validity(ids);
      for (std::uint64_t i = 0; i < chunk.size(); ++i, ++row) {
        std::optional<std::string_view> id;
        if (is_valid(id_validity, i)) id = string_at(id_strings, i);
        take(row, id, columns, i);
      }
    }
  } catch (const DuckDbError& error) {
    input_fault(path, fmt::format("cannot read the rows from row {} on ({})", row, error.what()));
  }
}

Conversation parquet_messages(const std::string& path, std::uint64_t row, const MessageColumns& c,
                              std::uint64_t i) {
  if (!is_valid(c.list_validity, i)) row_fault(path, row, "messages", "null");
  const duckdb_list_entry& list = c.lists[i];
  if (list.length == 0) row_fault(path, row, "messages", "the conversation has no messages");
  Conversation conversation;
  conversation.reserve(list.length);
  for (std::uint64_t k = list.offset; k < list.offset + list.length; ++k) {
    std::uint64_t index = k - list.offset;
    if (!is_valid(c.struct_validity, k)) {
      row_fault(path, row, fmt::format("messages[{}]", index), "null (expected {role, content})");
    }
    Message message;
    if (!is_valid(c.role_validity, k)) {
      row_fault(path, row, fmt::format("messages[{}].role", index),
                "missing (expected system, user, assistant or tool)");
    }
    message.role = std::string(string_at(c.roles, k));
    if (message.role != "system" && message.role != "user" && message.role != "assistant" &&
        message.role != "tool") {
      row_fault(path, row, fmt::format("messages[{}].role", index),
                fmt::format("unknown role '{}' (expected system, user, assistant or tool)",
                            message.role));
    }
    if (is_valid(c.content_validity, k)) {
      message.content = std::string(string_at(c.contents, k));
    } else if (message.role != "assistant") {
      row_fault(path, row, fmt::format("messages[{}].content", index),
                "null (only assistant messages may omit it)");
    }
    conversation.push_back(std::move(message));
  }
  return conversation;
}

std::uint64_t parquet_text_bytes(const MessageColumns& c, std::uint64_t i) {
  if (!is_valid(c.list_validity, i)) return 0;
  std::uint64_t bytes = 0;
  for (std::uint64_t k = c.lists[i].offset; k < c.lists[i].offset + c.lists[i].length; ++k) {
    bytes += 16;  // the chat format's framing, roughly
    if (is_valid(c.content_validity, k)) bytes += duckdb_string_t_length(c.contents[k]);
  }
  return bytes;
}

// parse_source_conversation's steps, throwing InputFault.
void parse_conversation_json(SourceConversation& conversation) {
  auto fail = [&](const std::string& field, std::string message) {
    throw InputFault{conversation_problem(conversation, field, std::move(message))};
  };
  if (std::optional<std::size_t> at = json_too_deep(conversation.json)) {
    fail("",
         fmt::format("nesting deeper than {} levels at byte {} of the line", kMaxJsonDepth, *at));
  }
  if (std::optional<JsonSyntaxError> error = json_syntax_error(conversation.json)) {
    // A number past a double (1e309) names its field; otherwise the position only: the library's
    // message would echo the line's bytes, binary or not.
    if (!error->field.empty()) {
      fail(error->field,
           fmt::format("number out of range: {} (expected {})", error->found, error->expected));
    }
    fail("",
         fmt::format(
             "not valid JSON at byte {} of the line (JSONL holds one conversation object per line)",
             error->byte));
  }
  nlohmann::ordered_json value = nlohmann::ordered_json::parse(conversation.json);
  if (!value.is_object()) {
    fail("", fmt::format("expected an object with id and messages, found {}", value.type_name()));
  }
  if (value.contains("id") && !value.at("id").is_null()) {
    const auto& id = value.at("id");
    if (id.is_string()) {
      conversation.id = id.get<std::string>();
    } else if (id.is_number_integer()) {
      conversation.id = id.dump();
    } else {
      fail("id", fmt::format("expected a string, found {}", id.type_name()));
    }
  }
  if (!value.contains("messages")) {
    fail("messages", "missing (expected a list of {role, content})");
  }
  if (!value.at("messages").is_array()) {
    fail("messages", fmt::format("expected a list of {{role, content}}, found {}",
                                 value.at("messages").type_name()));
  }
  Problems problems;
  std::optional<Conversation> messages =
      conversation_from_json(value, conversation.where, problems);
  if (!messages) {
    const Problem& problem = problems.front();
    fail(problem.field, problem.message);
  }
  conversation.messages = std::move(*messages);
  conversation.json.clear();
  conversation.json.shrink_to_fit();
}

// Checks one input and counts its conversations into `index`.
void scan_input(const std::string& path, DuckDbSession& duckdb, ConversationIndex& index) {
  ConversationInput input{path, format_of(path), 0};
  check_readable(path);
  if (input.format == InputFormat::kJsonl) {
    for_each_jsonl_line(path, [&](std::uint64_t, const std::string& line) {
      index.text_bytes.push_back(clamp_bytes(line.size()));
      ++input.conversations;
    });
  } else {
    for_each_parquet_row(path, duckdb,
                         [&](std::uint64_t, std::optional<std::string_view>,
                             const MessageColumns& c, std::uint64_t i) {
                           index.text_bytes.push_back(clamp_bytes(parquet_text_bytes(c, i)));
                           ++input.conversations;
                         });
  }
  index.inputs.push_back(std::move(input));
}

// Reads one input again, storing each conversation `slot_for` wants; `global` counts across inputs.
void read_input(const ConversationInput& input, DuckDbSession& duckdb,
                const std::function<SourceConversation*(std::uint64_t)>& slot_for,
                std::uint64_t& global) {
  std::uint64_t first = global;
  if (input.format == InputFormat::kJsonl) {
    for_each_jsonl_line(input.path, [&](std::uint64_t line_number, const std::string& line) {
      if (global - first >= input.conversations)
        input_fault(input.path, "changed while being read");
      if (SourceConversation* slot = slot_for(global)) {
        slot->where = fmt::format("{}:{}", input.path, line_number);
        slot->file = input.path;
        slot->line = line_number;
        slot->id = slot->where;
        slot->json = line;
      }
      ++global;
    });
  } else {
    for_each_parquet_row(input.path, duckdb,
                         [&](std::uint64_t row, std::optional<std::string_view> id,
                             const MessageColumns& c, std::uint64_t i) {
                           if (row >= input.conversations)
                             input_fault(input.path, "changed while being read");
                           if (SourceConversation* slot = slot_for(global)) {
                             slot->where = fmt::format("{} row {}", input.path, row);
                             slot->file = input.path;
                             slot->row = row;
                             slot->id =
                                 id ? std::string(*id) : fmt::format("{}#{}", input.path, row);
                             slot->messages = parquet_messages(input.path, row, c, i);
                           }
                           ++global;
                         });
  }
  if (global - first != input.conversations) input_fault(input.path, "changed while being read");
}

}  // namespace

Problem conversation_problem(const SourceConversation& conversation, const std::string& field,
                             std::string message) {
  std::string where = conversation.row ? fmt::format("row {}", *conversation.row) : "";
  if (!field.empty()) where += (where.empty() ? "" : ": ") + field;
  return {conversation.file,
          {static_cast<int>(conversation.line), 0},
          where,
          "rows.input",
          std::move(message),
          "",
          ""};
}

bool parse_source_conversation(SourceConversation& conversation, Problems& problems) {
  if (conversation.json.empty()) return true;
  try {
    parse_conversation_json(conversation);
    return true;
  } catch (const InputFault& fault) {
    problems.push_back(fault.problem);
    return false;
  }
}

std::optional<ConversationIndex> scan_inputs(const std::vector<std::string>& paths,
                                             DuckDbSession& duckdb, Problems& problems) {
  ConversationIndex index;
  if (paths.empty()) {
    problems.push_back({"", {}, "INPUT", "rows.input", "no input files", "", ""});
    return std::nullopt;
  }
  try {
    for (const std::string& path : paths) scan_input(path, duckdb, index);
  } catch (const InputFault& fault) {
    problems.push_back(fault.problem);
    return std::nullopt;
  }
  return index;
}

bool read_conversations(const ConversationIndex& index, DuckDbSession& duckdb,
                        const std::function<SourceConversation*(std::uint64_t)>& slot_for,
                        Problems& problems) {
  std::uint64_t global = 0;
  try {
    for (const ConversationInput& input : index.inputs) read_input(input, duckdb, slot_for, global);
  } catch (const InputFault& fault) {
    problems.push_back(fault.problem);
    return false;
  }
  return true;
}

}  // namespace openrecipes
