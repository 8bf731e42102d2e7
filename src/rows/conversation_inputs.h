// The rows builder's inputs: conversations in the Hugging Face layout of
// allenai/tulu-3-sft-mixture (`id`, `messages` as a list of {role, content}, `source`), from
// Parquet files (read through DuckDB) or JSONL files (one JSON object per line).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "rows/duckdb_session.h"
#include "text/conversation.h"

namespace openrecipes {

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
  std::string id;          ///< the input's `id`, or `FILE:LINE` / `FILE#ROW` when it has none
  std::string where;       ///< `FILE:LINE` (JSONL) or `FILE row N` (Parquet), for error messages
  std::string file;        ///< the input it came from
  std::uint64_t line = 0;  ///< 1-based JSONL line; 0 for Parquet
  std::optional<std::uint64_t> row;  ///< 0-based Parquet row
  std::string json;  ///< JSONL: the line, parsed by parse_source_conversation; else empty
  Conversation messages;
};

/// A Problem with `conversation` (rule `rows.input`): its file, its JSONL line, and as the field
/// `row N: FIELD` (Parquet) or `FIELD`.
Problem conversation_problem(const SourceConversation& conversation, const std::string& field,
                             std::string message);

/// Parses `conversation.json` (when set) into its id and messages, in place. Returns false with a
/// Problem naming the file, line and field when the line is not a conversation.
bool parse_source_conversation(SourceConversation& conversation, Problems& problems);

/// Pass 1: checks each input (extension .parquet, .jsonl or .json; Parquet columns `messages` as
/// a list of structs with VARCHAR `role` and `content`, and optional `id`) and counts its
/// conversations. Returns nullopt with a Problem naming the file (and column) for an input that
/// is missing, of another kind or layout, or that DuckDB cannot read. Throws IoError when a file
/// that exists cannot be read.
std::optional<ConversationIndex> scan_inputs(const std::vector<std::string>& paths,
                                             DuckDbSession& duckdb, Problems& problems);

/// Pass 2: reads every input again in order and, for each conversation whose global index
/// `slot_for` maps to a slot (non-null), stores it there. Returns false with a Problem naming the
/// file and row (Parquet messages that are null or of an unknown role) or an input that changed
/// since pass 1. Throws IoError as scan_inputs.
bool read_conversations(const ConversationIndex& index, DuckDbSession& duckdb,
                        const std::function<SourceConversation*(std::uint64_t)>& slot_for,
                        Problems& problems);

}  // namespace openrecipes
