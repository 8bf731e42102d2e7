// The rows builder's inputs: conversations in the Hugging Face layout of
// allenai/tulu-3-sft-mixture (`id`, `messages` as a list of {role, content}, `source`), from
// Parquet files (read through DuckDB) or JSONL files (one JSON object per line).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rows/duckdb_session.h"
#include "text/conversation.h"

namespace openrecipes {

/// An input that cannot be read: missing, not Parquet/JSONL, the wrong columns or types, a line
/// that is not JSON, a message without a role. The message names the file, the line (JSONL) or
/// row (Parquet, 0-based) and the field.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class InputFormat { kParquet, kJsonl };

/// One input file.
struct ConversationInput {
  std::string path;
  InputFormat format = InputFormat::kJsonl;
  std::uint64_t conversations = 0;  ///< rows (Parquet) or non-blank lines (JSONL)
};

/// Every conversation of every input, numbered in input order (the order the permutation
/// shuffles): input 0's conversations first, each file in its own row or line order.
struct ConversationIndex {
  std::vector<ConversationInput> inputs;
  /// Per conversation: its size in bytes (message text for Parquet, the line for JSONL), to size
  /// the batches the builder reads at once.
  std::vector<std::uint32_t> text_bytes;
  std::uint64_t size() const { return text_bytes.size(); }
};

/// One conversation as read, not yet rendered.
struct SourceConversation {
  std::string id;       ///< the input's `id`, or `FILE:LINE` / `FILE#ROW` when it has none
  std::string where;    ///< `FILE:LINE` (JSONL) or `FILE row N` (Parquet), for error messages
  std::string json;     ///< JSONL: the line, parsed by parse_source_conversation; else empty
  Conversation messages;
};

/// Parses `conversation.json` (when set) into its id and messages, in place. Throws InputError
/// naming the file, line and field.
void parse_source_conversation(SourceConversation& conversation);

/// Pass 1: checks each input (extension .parquet, .jsonl or .json; Parquet columns `messages` as
/// a list of structs with VARCHAR `role` and `content`, and optional `id`) and counts its
/// conversations. Throws InputError naming the file.
ConversationIndex scan_inputs(const std::vector<std::string>& paths, DuckDbSession& duckdb);

/// Pass 2: reads every input again in order and, for each conversation whose global index
/// `slot_for` maps to a slot (non-null), stores it there. Throws InputError.
void read_conversations(const ConversationIndex& index, DuckDbSession& duckdb,
                        const std::function<SourceConversation*(std::uint64_t)>& slot_for);

}  // namespace openrecipes
