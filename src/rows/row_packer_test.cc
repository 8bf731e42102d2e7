#include "rows/row_packer.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace openrecipes {
namespace {

constexpr std::int32_t kEos = 99;

// Packs `conversations` (ids with masks) into rows of `row_tokens` until `max_rows` are kept.
struct Packed {
  std::vector<PackedRow> rows;
  PackingStats stats;
};
Packed pack(std::int64_t row_tokens, std::int64_t max_rows,
            const std::vector<std::pair<std::vector<std::int32_t>, std::vector<std::uint8_t>>>&
                conversations) {
  Packed packed;
  RowPacker packer(row_tokens, kEos, max_rows,
                   [&](PackedRow&& row) { packed.rows.push_back(std::move(row)); });
  for (std::size_t i = 0; i < conversations.size() && !packer.done(); ++i) {
    packer.add("c" + std::to_string(i), conversations[i].first, conversations[i].second);
  }
  packed.stats = packer.stats();
  return packed;
}

TEST(RowPacker, PutsOneUnsupervisedEosAfterEachConversation) {
  Packed packed = pack(8, 1, {{{1, 2, 3}, {0, 1, 1}}, {{4, 5}, {0, 1}}, {{6}, {1}}});
  ASSERT_EQ(packed.rows.size(), 1u);
  EXPECT_EQ(packed.rows[0].input_ids, (std::vector<std::int32_t>{1, 2, 3, kEos, 4, 5, kEos, 6}));
  EXPECT_EQ(packed.rows[0].loss_mask, (std::vector<std::uint8_t>{0, 1, 1, 0, 0, 1, 0, 1}));
  EXPECT_EQ(packed.rows[0].conversation_ids, (std::vector<std::string>{"c0", "c1", "c2"}));
  EXPECT_EQ(packed.rows[0].supervised_tokens, 4);
}

TEST(RowPacker, AConversationContinuesIntoTheNextRow) {
  Packed packed = pack(4, 2, {{{1, 2, 3, 4, 5, 6}, {1, 1, 1, 1, 1, 1}}, {{7}, {1}}});
  ASSERT_EQ(packed.rows.size(), 2u);
  EXPECT_EQ(packed.rows[0].input_ids, (std::vector<std::int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(packed.rows[1].input_ids, (std::vector<std::int32_t>{5, 6, kEos, 7}));
  EXPECT_EQ(packed.rows[1].conversation_ids, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(packed.rows[0].first_token_offset, 0);
  EXPECT_EQ(packed.rows[1].first_token_offset, 4);  // tokens 0-3 of c0 were in row 0
}

TEST(RowPacker, AnEosThatSpillsOverBelongsToItsConversation) {
  Packed packed = pack(3, 2, {{{1, 2, 3}, {1, 1, 1}}, {{4, 5}, {1, 1}}});
  ASSERT_EQ(packed.rows.size(), 2u);
  EXPECT_EQ(packed.rows[1].input_ids, (std::vector<std::int32_t>{kEos, 4, 5}));
  EXPECT_EQ(packed.rows[1].conversation_ids, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(packed.rows[1].first_token_offset, 3);
}

TEST(RowPacker, RowsWithoutSupervisedTokensAreSkipped) {
  // c0's long unsupervised prompt fills row 0 and row 1 entirely; both are cut and dropped.
  Packed packed =
      pack(4, 1, {{{1, 1, 1, 1, 1, 1, 1, 1, 2, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1}}, {{5}, {1}}});
  ASSERT_EQ(packed.rows.size(), 1u);
  EXPECT_EQ(packed.stats.skipped_rows, 2);
  EXPECT_EQ(packed.rows[0].row, 0);
  EXPECT_EQ(packed.rows[0].stream_row, 2);
  EXPECT_EQ(packed.rows[0].input_ids, (std::vector<std::int32_t>{2, 3, kEos, 5}));
  EXPECT_EQ(packed.rows[0].conversation_ids, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(packed.rows[0].first_token_offset, 8);
}

TEST(RowPacker, EveryRowHasExactlyRowTokensAndPackingStopsAtTheLimit) {
  std::vector<std::pair<std::vector<std::int32_t>, std::vector<std::uint8_t>>> conversations;
  for (int i = 0; i < 50; ++i) {
    conversations.push_back({std::vector<std::int32_t>(static_cast<std::size_t>(i % 7 + 1), i),
                             std::vector<std::uint8_t>(static_cast<std::size_t>(i % 7 + 1), 1)});
  }
  Packed packed = pack(5, 6, conversations);
  ASSERT_EQ(packed.rows.size(), 6u);
  for (const PackedRow& row : packed.rows) {
    EXPECT_EQ(row.input_ids.size(), 5u);
    EXPECT_EQ(row.loss_mask.size(), 5u);
  }
  EXPECT_LT(packed.stats.conversations, 50);  // stopped early
  EXPECT_EQ(packed.rows.back().row, 5);
}

TEST(RowPacker, IncompleteLastRowIsNeverEmitted) {
  Packed packed = pack(8, 5, {{{1, 2, 3}, {1, 1, 1}}});
  EXPECT_TRUE(packed.rows.empty());
  EXPECT_EQ(packed.stats.conversations, 1);
}

TEST(RowPacker, RejectsMismatchedLengthsAndBadBounds) {
  RowPacker packer(4, kEos, 1, [](PackedRow&&) {});
  EXPECT_THROW(packer.add("c", {1, 2}, {1}), BugError);
  EXPECT_THROW(RowPacker(0, kEos, 1, [](PackedRow&&) {}), BugError);
  EXPECT_THROW(RowPacker(4, kEos, 0, [](PackedRow&&) {}), BugError);
}

}  // namespace
}  // namespace openrecipes
