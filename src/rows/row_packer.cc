#include "rows/row_packer.h"

#include <stdexcept>
#include <utility>

#include "base/error.h"

namespace openrecipes {

RowPacker::RowPacker(std::int64_t row_tokens, std::int32_t eos_id, std::int64_t max_rows,
                     std::function<void(PackedRow&&)> emit)
    : row_tokens_(row_tokens), eos_id_(eos_id), max_rows_(max_rows), emit_(std::move(emit)) {
  if (row_tokens < 1) throw BugError("row tokens must be at least 1");
  if (max_rows < 1) throw BugError("rows must be at least 1");
  current_.input_ids.reserve(static_cast<std::size_t>(row_tokens));
  current_.loss_mask.reserve(static_cast<std::size_t>(row_tokens));
}

bool RowPacker::add(std::string_view conversation_id, const std::vector<std::int32_t>& ids,
                    const std::vector<std::uint8_t>& mask) {
  if (ids.size() != mask.size()) throw BugError("ids and mask differ in length");
  if (done()) return false;
  ++stats_.conversations;
  std::int64_t length = static_cast<std::int64_t>(ids.size());
  for (std::int64_t i = 0; i < length && !done(); ++i) {
    push(ids[static_cast<std::size_t>(i)], mask[static_cast<std::size_t>(i)] ? 1 : 0,
         conversation_id, i);
  }
  if (!done()) push(eos_id_, 0, conversation_id, length);
  return !done();
}

void RowPacker::push(std::int32_t id, std::uint8_t mask, std::string_view conversation_id,
                     std::int64_t position_in_conversation) {
  if (current_.input_ids.empty()) current_.first_token_offset = position_in_conversation;
  if (current_.conversation_ids.empty() || position_in_conversation == 0) {
    current_.conversation_ids.emplace_back(conversation_id);
  }
  current_.input_ids.push_back(id);
  current_.loss_mask.push_back(mask);
  current_.supervised_tokens += mask;
  if (static_cast<std::int64_t>(current_.input_ids.size()) == row_tokens_) cut();
}

void RowPacker::cut() {
  PackedRow row = std::move(current_);
  row.stream_row = stream_rows_++;
  current_ = PackedRow{};
  current_.input_ids.reserve(static_cast<std::size_t>(row_tokens_));
  current_.loss_mask.reserve(static_cast<std::size_t>(row_tokens_));
  if (row.supervised_tokens == 0) {
    ++stats_.skipped_rows;
    return;
  }
  row.row = stats_.rows++;
  stats_.supervised_tokens += row.supervised_tokens;
  emit_(std::move(row));
}

}  // namespace openrecipes
