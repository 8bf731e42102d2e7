// Packing: conversations, each followed by one EOS token, concatenated into one token stream and
// cut into consecutive rows of exactly `row_tokens` tokens; rows with no supervised token are
// skipped. Pure: tokens in, rows out (data/README.md, "Packing").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes {

/// One row of the rows file.
struct PackedRow {
  std::int64_t row = 0;                 ///< 0-based index among the kept rows
  std::int64_t stream_row = 0;          ///< 0-based index among all cut rows, skipped ones included
  std::vector<std::int32_t> input_ids;  ///< exactly row_tokens token ids
  std::vector<std::uint8_t> loss_mask;  ///< row_tokens values, 1 = supervised
  /// The ids of the conversations with at least one token (the EOS included) in this row, in order.
  std::vector<std::string> conversation_ids;
  /// Where the row starts in its first conversation's tokens (rendered tokens, then its EOS):
  /// 0 when the row starts at a conversation boundary, else tokens already in earlier rows.
  std::int64_t first_token_offset = 0;
  std::int64_t supervised_tokens = 0;  ///< sum of loss_mask
};

/// Counts over everything packed so far.
struct PackingStats {
  std::int64_t rows = 0;               ///< rows kept (emitted)
  std::int64_t skipped_rows = 0;       ///< rows cut but dropped: no supervised token
  std::int64_t conversations = 0;      ///< conversations added
  std::int64_t supervised_tokens = 0;  ///< in kept rows
};

/// Cuts the stream into rows and hands each kept row to `emit` in order, until `max_rows` rows
/// have been kept.
class RowPacker {
 public:
  /// `row_tokens` >= 1 tokens per row; `eos_id` the token between conversations (never
  /// supervised); `max_rows` >= 1. Throws BugError for a bound out of range (callers check the
  /// options first).
  RowPacker(std::int64_t row_tokens, std::int32_t eos_id, std::int64_t max_rows,
            std::function<void(PackedRow&&)> emit);

  /// Appends one conversation's tokens and 0/1 mask (same length), then the EOS. Stops as soon
  /// as the last row is kept; tokens past it are not used. Returns whether more rows are wanted.
  /// Throws BugError when the lengths differ.
  bool add(std::string_view conversation_id, const std::vector<std::int32_t>& ids,
           const std::vector<std::uint8_t>& mask);

  /// Whether `max_rows` rows have been kept.
  bool done() const { return stats_.rows >= max_rows_; }
  const PackingStats& stats() const { return stats_; }

 private:
  void push(std::int32_t id, std::uint8_t mask, std::string_view conversation_id,
            std::int64_t position_in_conversation);
  void cut();

  std::int64_t row_tokens_;
  std::int32_t eos_id_;
  std::int64_t max_rows_;
  std::function<void(PackedRow&&)> emit_;
  PackedRow current_;
  std::int64_t stream_rows_ = 0;
  PackingStats stats_;
};

}  // namespace openrecipes
