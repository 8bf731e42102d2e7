// `openrecipes rows build`: the fixed SFT rows (data/README.md). Conversations are taken in one
// seeded permutation over all inputs, rendered, tokenized and masked by the text layer, packed by
// RowPacker and written as a rows file (data/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/protocol.h"
#include "text/chat_format.h"

namespace openrecipes {

/// What to build.
struct RowsBuildOptions {
  std::vector<std::string>
      inputs;  ///< Parquet or JSONL files, in the order their conversations are numbered
  std::string tokenizer_path;   ///< a tokenizer.json
  std::string tokenizer_label;  ///< how the recipe names the tokenizer; may be empty
  std::string eos_token;  ///< empty: the eos_token of tokenizer_config.json beside tokenizer.json
  LossMaskType loss_mask = LossMaskType::kGptOss;
  std::int64_t rows = 6400;                  ///< rows to keep (data/README.md: 6,400)
  std::int64_t row_tokens = kRowTokens;      ///< tokens per row (the protocol)
  std::uint64_t seed = 42;                   ///< seed of the permutation (data/README.md: 42)
  std::string name;                          ///< the row set's name, e.g. gptoss-tulu3-fixed8192-v1
  std::string output;                        ///< the rows file to write
  unsigned threads = 0;                      ///< 0: every core
  std::uint64_t batch_bytes = 256ull << 20;  ///< conversation text held in memory at once, bytes
};

/// Where a build is, for progress output.
struct RowsBuildProgress {
  std::string stage;      ///< "scanning", "packing", "writing"
  std::int64_t rows = 0;  ///< rows kept so far
  std::int64_t target_rows = 0;
  std::int64_t conversations = 0;  ///< conversations packed so far
};

/// What a build made: everything the recipe's `workload.dataset` block records, and more.
struct RowsBuildResult {
  std::string name;
  std::string tokenizer_label;  ///< the label with the tokenizer.json sha256
  std::string tokenizer_sha256;
  std::string loss_mask;
  std::int64_t rows = 0;
  std::int64_t row_tokens = 0;
  std::int64_t padding_tokens = 0;
  std::uint64_t seed = 0;
  std::string packing;  ///< the packing rule in words, as recipes state it
  std::int64_t supervised_tokens = 0;
  double supervised_token_ratio = 0;
  std::string rows_sha256;
  std::string parquet_sha256;
  std::uint64_t parquet_bytes = 0;
  std::string builder;  ///< the command and versions that built the rows
  std::string eos_token;
  std::int32_t eos_id = 0;
  std::int64_t skipped_rows = 0;
  std::int64_t conversations_used = 0;
  std::uint64_t conversations_available = 0;
  std::string output;

  /// The "openrecipes.rows" metadata stored in the file.
  nlohmann::json metadata() const;
};

/// Builds the rows file `options.output` (atomically). `progress` is called between batches. A
/// build that cannot finish returns nullopt with one Problem naming the file (and line or row)
/// at fault, or the option (`--rows`, `-o`), rule `rows.build` or `rows.input`: an unreadable
/// tokenizer or input, a conversation the chat format cannot render, too few conversations for
/// the rows asked for, an output that is a directory or one of the inputs. Throws IoError when a
/// file cannot be read or the output cannot be written, or DuckDB cannot start.
std::optional<RowsBuildResult> build_rows(
    const RowsBuildOptions& options, Problems& problems,
    const std::function<void(const RowsBuildProgress&)>& progress = {});

/// The packing rule in words, as recipes state it (data/README.md), for `row_tokens` tokens per
/// row.
std::string packing_description(std::int64_t row_tokens);

}  // namespace openrecipes
