#include "params/family_exaone4.h"

#include <fmt/format.h>

#include <algorithm>

#include "params/family_gqa_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_exaone4(const HfConfig& c, Problems& problems) {
  const std::size_t before = problems.size();
  GqaDecoder d;
  read_decoder_sizes(c, d);
  d.dense_ffn = c.integer("intermediate_size");
  bool windowed = c.has("sliding_window");
  if (windowed) d.sliding_window = c.integer("sliding_window", 1, 1 << 24);
  // Read only where Exaone4Config reads it: without layer_types, on a windowed model. A string
  // such as "LLLG" is refused there too ((i + 1) % "LLLG" raises in Python).
  std::int64_t pattern =
      windowed && !c.has("layer_types") ? c.integer_or("sliding_window_pattern", 4, 1) : 0;
  read_gqa_attention(c, d, problems);
  std::optional<std::vector<bool>> sliding = sliding_from_layer_types(c, d.s.layers, problems);
  if (!sliding) return build_gqa_decoder(c, d, before, problems);  // reports the problem
  d.sliding = *sliding;
  if (d.sliding.empty() && pattern > 0) {
    // Exaone4Config: "sliding_attention" if (i + 1) % sliding_window_pattern != 0.
    for (std::int64_t i = 0; i < d.s.layers; ++i) d.sliding.push_back((i + 1) % pattern != 0);
  }
  if (!windowed && std::count(d.sliding.begin(), d.sliding.end(), true) > 0) {
    problems.push_back(c.problem_at("sliding_window", "sliding_attention layers need a window",
                                    "an integer number of tokens", "null or nothing"));
  }
  d.mlp_detail = fmt::format("gate+up {} and down {}", dims(d.s.hidden, 2 * d.dense_ffn),
                             dims(d.dense_ffn, d.s.hidden));
  d.left_out = {"input embedding", "norms (with the per-head q and k norms)"};
  // EXAONE 4.5's text model (exaone4_5_text, Exaone4ForCausalLM) adds MTP layers.
  d.mtp_layers = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  return build_gqa_decoder(c, d, before, problems);
}

}  // namespace openrecipes
