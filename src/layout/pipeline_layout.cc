// The layout string's grammar: parse_pipeline_layout and pipeline_layout_text, after
// PipelineParallelLayerLayout.parse_str_to_list (megatron/core/transformer/
// pipeline_parallel_layer_layout.py, NVIDIA/Megatron-LM), with each character's position kept so
// that a problem can name it.
#include "layout/pipeline_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>
#include <utility>

#include "base/utf8.h"

namespace openrecipes {
namespace {

// The longest string a layout may unroll to: far beyond any model, small enough to stay cheap.
constexpr std::size_t kMaxUnrolled = std::size_t{1} << 20;

// Characters with the 1-based position in the original text each came from.
struct Positioned {
  std::string chars;
  std::vector<int> positions;
  void push(char c, int position) {
    chars.push_back(c);
    positions.push_back(position);
  }
};

struct ParseFailure {
  int position = 0;  // 1-based; 0: the whole string
  std::string message, expected, found;
};

// Reads the decimal count at `text.chars[at]` (at least one digit); sets `end` past it. nullopt
// when there is no digit; a count beyond kMaxUnrolled reads as kMaxUnrolled + 1.
std::optional<std::size_t> count_at(const Positioned& text, std::size_t at, std::size_t& end) {
  end = at;
  std::size_t n = 0;
  while (end < text.chars.size() && std::isdigit(static_cast<unsigned char>(text.chars[end]))) {
    n = std::min(n * 10 + static_cast<std::size_t>(text.chars[end] - '0'), kMaxUnrolled + 1);
    ++end;
  }
  if (end == at) return std::nullopt;
  return n;
}

// Appends `count` copies of text[from, to) to `out`; false when `out` would pass kMaxUnrolled.
bool repeat(const Positioned& text, std::size_t from, std::size_t to, std::size_t count,
            Positioned& out) {
  if ((to - from) * count + out.chars.size() > kMaxUnrolled) return false;
  for (std::size_t k = 0; k < count; ++k) {
    for (std::size_t i = from; i < to; ++i) out.push(text.chars[i], text.positions[i]);
  }
  return true;
}

// One left-to-right pass of Megatron-LM's first pattern, `\(([^)]+)\)\*(\d+)`: a group closed by
// the next `)` and followed by `*N` is unrolled; anything else is copied.
std::optional<Positioned> unroll_groups(const Positioned& in, ParseFailure& failure) {
  Positioned out;
  std::size_t i = 0;
  while (i < in.chars.size()) {
    std::size_t close = in.chars[i] == '(' ? in.chars.find(')', i + 1) : std::string::npos;
    std::size_t end = 0;
    std::optional<std::size_t> n;
    if (close != std::string::npos && close > i + 1 && close + 1 < in.chars.size() &&
        in.chars[close + 1] == '*') {
      n = count_at(in, close + 2, end);
    }
    if (!n) {
      out.push(in.chars[i], in.positions[i]);
      ++i;
      continue;
    }
    if (!repeat(in, i + 1, close, *n, out)) {
      failure = {in.positions[i], "the layout unrolls to too many layers",
                 fmt::format("at most {} symbols (layers, E, L and |) once unrolled", kMaxUnrolled),
                 "more"};
      return std::nullopt;
    }
    i = end;
  }
  return out;
}

// One pass of the second pattern, `(.)\*(\d+)`: a character followed by `*N` is repeated.
std::optional<Positioned> unroll_characters(const Positioned& in, ParseFailure& failure) {
  Positioned out;
  std::size_t i = 0;
  while (i < in.chars.size()) {
    std::size_t end = 0;
    std::optional<std::size_t> n;
    if (i + 1 < in.chars.size() && in.chars[i + 1] == '*') n = count_at(in, i + 2, end);
    if (!n) {
      out.push(in.chars[i], in.positions[i]);
      ++i;
      continue;
    }
    if (!repeat(in, i, i + 1, *n, out)) {
      failure = {in.positions[i], "the layout unrolls to too many layers",
                 fmt::format("at most {} symbols (layers, E, L and |) once unrolled", kMaxUnrolled),
                 "more"};
      return std::nullopt;
    }
    i = end;
  }
  return out;
}

// The character of `text` that starts at byte `at` (0-based), whole when it is UTF-8 of several
// bytes, and its code point as "U+00E9"; a byte that starts no valid character as "byte 0xC3".
std::pair<std::string, std::string> character_at(const std::string& text, std::size_t at) {
  const unsigned char lead = static_cast<unsigned char>(text[at]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  std::string_view piece = std::string_view(text).substr(at, length);
  if (lead < 0x80 || lead >= 0xF8 || piece.size() != length || first_invalid_utf8(piece))
    return {"", fmt::format("byte 0x{:02X}", lead)};
  std::uint32_t code = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k)
    code = (code << 6) | (static_cast<unsigned char>(piece[k]) & 0x3F);
  return {std::string(piece), fmt::format("U+{:04X}", code)};
}

// Why the character at 1-based byte `position` of `original` cannot be read as a layer: an
// unclosed or unopened parenthesis, a misplaced '*' or count, or a character that is no layer
// (a non-ASCII one named by its code point, never cut in half).
ParseFailure bad_character(const std::string& original, int position) {
  const std::size_t at = static_cast<std::size_t>(position - 1);
  const char c = original[at];
  const std::string expected = "E (embedding), t (decoder layer), m (MTP layer), L (loss) or |";
  std::string message = fmt::format("'{}' is not a layer", c);
  std::string found(1, c);
  if (static_cast<unsigned char>(c) >= 0x80) {
    auto [character, code] = character_at(original, at);
    message = character.empty() ? fmt::format("{} is not UTF-8 text", code)
                                : fmt::format("'{}' ({}) is not a layer", character, code);
    found = character.empty() ? code : fmt::format("'{}' ({})", character, code);
  } else if (c == '(' && original.find(')', at + 1) == std::string::npos) {
    message = "'(' is never closed: a group is '(...)*N'";
    return {position, message, "')' then '*N'", "the end of the layout"};
  } else if (c == ')' && original.rfind('(', at) == std::string::npos) {
    message = "')' closes no group: a group is '(...)*N'";
  } else if (c == '(' || c == ')') {
    message = "a group must be '(...)*N', not nested and followed by its count";
  } else if (c == '*') {
    message = "'*' must follow a layer or a group and precede a count";
  } else if (std::isdigit(static_cast<unsigned char>(c))) {
    message = "a count must follow '*'";
  }
  return {position, message, expected, found};
}

// The unrolled characters as chunks, checked for the order Megatron-LM requires
// (validate_layer_layout): E first and once, L last and once, no decoder layer after an MTP layer.
std::optional<std::vector<PipelineChunk>> read_chunks(const Positioned& text,
                                                      const std::string& original,
                                                      ParseFailure& failure) {
  const std::string kLayers = "ELtm|";
  for (std::size_t i = 0; i < text.chars.size(); ++i) {
    if (kLayers.find(text.chars[i]) == std::string::npos) {
      failure = bad_character(original, text.positions[i]);
      return std::nullopt;
    }
  }
  const std::size_t layers = static_cast<std::size_t>(
      std::count_if(text.chars.begin(), text.chars.end(), [](char c) { return c != '|'; }));
  std::vector<PipelineChunk> chunks(1);
  std::size_t seen = 0;
  bool seen_mtp = false;
  for (std::size_t i = 0; i < text.chars.size(); ++i) {
    const char c = text.chars[i];
    const int at = text.positions[i];
    if (c == '|') {
      chunks.emplace_back();
      continue;
    }
    ++seen;
    PipelineChunk& chunk = chunks.back();
    if (c == 'E' && seen != 1) {
      failure = {at, "the embedding must be the first layer, once", "E first", "E here"};
      return std::nullopt;
    }
    if (c == 'L' && seen != layers) {
      failure = {at, "the loss must be the last layer, once", "L last", "L here"};
      return std::nullopt;
    }
    if (c == 't' && seen_mtp) {
      failure = {at, "decoder layers must come before the MTP layers", "t before m", "t after m"};
      return std::nullopt;
    }
    chunk.has_embedding = chunk.has_embedding || c == 'E';
    chunk.has_loss = chunk.has_loss || c == 'L';
    chunk.decoder_layers += c == 't' ? 1 : 0;
    chunk.mtp_layers += c == 'm' ? 1 : 0;
    seen_mtp = seen_mtp || c == 'm';
  }
  if (layers == 0 || !chunks.front().has_embedding || !chunks.back().has_loss) {
    failure = {0, "the layout must start with the embedding and end with the loss",
               "E first and L last", layers == 0 ? "no layers" : "no E first or no L last"};
    return std::nullopt;
  }
  return chunks;
}

// One chunk's characters: E, the decoder layers, the MTP layers, L; runs of three or more folded.
std::string chunk_text(const PipelineChunk& chunk) {
  auto run = [](char c, int n) {
    return n >= 3 ? fmt::format("{}*{}", c, n) : std::string(static_cast<std::size_t>(n), c);
  };
  return std::string(chunk.has_embedding ? "E" : "") + run('t', chunk.decoder_layers) +
         run('m', chunk.mtp_layers) + (chunk.has_loss ? "L" : "");
}

}  // namespace

int PipelinePlacement::stage_decoder_layers(int stage) const {
  int layers = 0;
  for (int v = 0; v < vpp; ++v) layers += at(stage, v).decoder_layers;
  return layers;
}

int PipelinePlacement::stage_mtp_layers(int stage) const {
  int layers = 0;
  for (int v = 0; v < vpp; ++v) layers += at(stage, v).mtp_layers;
  return layers;
}

int PipelinePlacement::largest_chunk_counted_layers() const {
  int largest = 0;
  for (const PipelineChunk& chunk : chunks) largest = std::max(largest, chunk.counted_layers());
  return largest;
}

int PipelinePlacement::largest_stage_counted_layers() const {
  int largest = 0;
  for (int p = 0; p < pp; ++p) {
    int counted = 0;
    for (int v = 0; v < vpp; ++v) counted += at(p, v).counted_layers();
    largest = std::max(largest, counted);
  }
  return largest;
}

std::optional<std::vector<PipelineChunk>> parse_pipeline_layout(const std::string& text,
                                                                const std::string& field,
                                                                Problems& problems) {
  Positioned source;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ',') source.push(text[i], static_cast<int>(i) + 1);  // commas are cosmetic
  }
  ParseFailure failure;
  std::optional<Positioned> groups = unroll_groups(source, failure);
  std::optional<Positioned> unrolled =
      groups ? unroll_characters(*groups, failure) : std::optional<Positioned>{};
  std::optional<std::vector<PipelineChunk>> chunks =
      unrolled ? read_chunks(*unrolled, text, failure) : std::nullopt;
  if (chunks) return chunks;
  std::string where = failure.position > 0
                          ? fmt::format("at position {} of '{}'", failure.position, text)
                          : fmt::format("in '{}'", text);
  problems.push_back({"",
                      {},
                      field,
                      "mesh.pipeline_layout",
                      fmt::format("pipeline layout {}: {}", where, failure.message),
                      failure.expected,
                      failure.found});
  return std::nullopt;
}

std::string pipeline_layout_text(const std::vector<PipelineChunk>& chunks) {
  std::vector<std::string> texts;
  for (const PipelineChunk& chunk : chunks) texts.push_back(chunk_text(chunk));
  auto joined = [&](std::size_t from, std::size_t count) {
    std::string out;
    for (std::size_t k = 0; k < count; ++k) out += (k ? "|" : "") + texts[from + k];
    return out;
  };
  std::string out;
  std::size_t i = 0;
  const std::size_t n = texts.size();
  while (i < n) {
    // The period (up to 16 chunks) whose repeats from here cover the most chunks, shortest first.
    std::size_t period = 1, repeats = 1;
    for (std::size_t k = 1; k <= 16 && i + 2 * k <= n; ++k) {
      std::size_t r = 1;
      while (i + (r + 1) * k <= n &&
             std::equal(texts.begin() + static_cast<std::ptrdiff_t>(i),
                        texts.begin() + static_cast<std::ptrdiff_t>(i + k),
                        texts.begin() + static_cast<std::ptrdiff_t>(i + r * k))) {
        ++r;
      }
      if (r >= 2 && k * r > period * repeats) {
        period = k;
        repeats = r;
      }
    }
    const std::string group = joined(i, period);
    i += period * repeats;
    // A group `(X|)*k` closes each copy with `|`; the layout's last chunk has no `|` after it, so
    // a run that ends the layout keeps its last copy outside the group.
    const std::size_t grouped = i == n ? repeats - 1 : repeats;
    if (grouped >= 2) {
      out += fmt::format("({}|)*{},", group, grouped);
    } else if (grouped == 1) {
      out += group + "|";
    }
    if (i == n) out += group;
  }
  return out;
}

}  // namespace openrecipes
