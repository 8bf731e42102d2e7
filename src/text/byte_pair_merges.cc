// Byte-pair merges over one piece, in rank order, as huggingface/tokenizers does
// (models/bpe/word.rs, Word::merge_all).
#include <climits>
#include <functional>
#include <queue>
#include <tuple>

#include "text/tokenizer_impl.h"

namespace openrecipes {

void Tokenizer::Impl::bpe(std::string_view piece, TokenIds& out) const {
  if (ignore_merges) {
    if (std::optional<std::int32_t> whole = ids_by_bytes.find(piece)) {
      out.push_back(*whole);
      return;
    }
  }
  const int n = static_cast<int>(piece.size());
  if (n <= kSmallPiece) {
    bpe_small(piece, out);
    return;
  }
  std::vector<std::int32_t> id(static_cast<std::size_t>(n));
  std::vector<int> next(static_cast<std::size_t>(n)), prev(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    id[static_cast<std::size_t>(i)] =
        byte_ids[static_cast<unsigned char>(piece[static_cast<std::size_t>(i)])];
    next[static_cast<std::size_t>(i)] = i + 1 < n ? i + 1 : -1;
    prev[static_cast<std::size_t>(i)] = i - 1;
  }
  using Candidate =
      std::tuple<std::int32_t, int, std::int32_t, std::int32_t>;  // rank, pos, left, right
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  auto consider = [&](int pos) {
    if (pos < 0) return;
    int right = next[static_cast<std::size_t>(pos)];
    if (right < 0) return;
    const Merge* merge =
        merges.find(key(id[static_cast<std::size_t>(pos)], id[static_cast<std::size_t>(right)]));
    if (merge) {
      queue.emplace(merge->rank, pos, id[static_cast<std::size_t>(pos)],
                    id[static_cast<std::size_t>(right)]);
    }
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  std::vector<bool> gone(static_cast<std::size_t>(n), false);
  while (!queue.empty()) {
    auto [rank, pos, left, right_id] = queue.top();
    queue.pop();
    std::size_t p = static_cast<std::size_t>(pos);
    int right = next[p];
    if (gone[p] || right < 0 || id[p] != left || id[static_cast<std::size_t>(right)] != right_id)
      continue;
    id[p] = merges.find(key(left, right_id))->merged;
    gone[static_cast<std::size_t>(right)] = true;
    next[p] = next[static_cast<std::size_t>(right)];
    if (next[p] >= 0) prev[static_cast<std::size_t>(next[p])] = pos;
    consider(prev[p]);
    consider(pos);
  }
  for (int i = 0; i >= 0; i = next[static_cast<std::size_t>(i)])
    out.push_back(id[static_cast<std::size_t>(i)]);
}

// Most pieces are short: a linear scan over arrays on the stack, no allocation (the priority
// queue pays off only for long pieces).
void Tokenizer::Impl::bpe_small(std::string_view piece, TokenIds& out) const {
  std::int32_t id[kSmallPiece];
  std::int32_t rank[kSmallPiece];    // rank of the pair (i, i+1); INT32_MAX when none
  std::int32_t merged[kSmallPiece];  // the id that pair merges into
  int n = static_cast<int>(piece.size());
  for (int i = 0; i < n; ++i)
    id[i] = byte_ids[static_cast<unsigned char>(piece[static_cast<std::size_t>(i)])];
  auto score = [&](int i) {
    const Merge* merge = merges.find(key(id[i], id[i + 1]));
    rank[i] = merge ? merge->rank : INT32_MAX;
    merged[i] = merge ? merge->merged : 0;
  };
  for (int i = 0; i + 1 < n; ++i) score(i);
  while (n > 1) {
    int best = -1;
    std::int32_t best_rank = INT32_MAX;
    for (int i = 0; i + 1 < n; ++i) {
      if (rank[i] < best_rank) {  // strict: the leftmost of equal ranks wins
        best_rank = rank[i];
        best = i;
      }
    }
    if (best < 0) break;
    id[best] = merged[best];
    for (int i = best + 1; i + 1 < n; ++i) {
      id[i] = id[i + 1];
      rank[i] = rank[i + 1];
      merged[i] = merged[i + 1];
    }
    --n;
    if (best > 0) score(best - 1);
    if (best + 1 < n) score(best);
  }
  out.insert(out.end(), id, id + n);
}

}  // namespace openrecipes
