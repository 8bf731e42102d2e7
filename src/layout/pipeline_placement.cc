// place_layers: the placement each of Megatron-LM's four forms builds, and the checks
// TransformerConfig.__post_init__ (megatron/core/transformer/transformer_config.py) and
// PipelineParallelLayerLayout.validate_layer_layout
// (megatron/core/transformer/pipeline_parallel_layer_layout.py) apply to it, NVIDIA/Megatron-LM.
#include <fmt/format.h>

#include <algorithm>

#include "layout/pipeline_layout.h"

namespace openrecipes {
namespace {

// What a broken placement says: field, message, expected, found.
struct Words {
  std::string field, message, expected, found;
};

// Records that `rule` is broken in `error` (when not null), with `words()` only when the caller
// asked for them: the planner checks millions of placements and needs only the rule.
template <class MakeWords>
void fail(PlacementError* error, PlacementRule rule, MakeWords&& words) {
  if (!error) return;
  error->rule = rule;
  if (!error->words) return;
  Words w = words();
  error->field = std::move(w.field);
  error->message = std::move(w.message);
  error->expected = std::move(w.expected);
  error->found = std::move(w.found);
}

// A placement of `chunk_layers` decoder layers on every chunk, the embedding on the first chunk
// and the loss and the MTP layers on the last.
PipelinePlacement uniform_placement(int pp, int vpp, int chunk_layers, int mtp_layers) {
  PipelinePlacement p{pp, vpp, std::vector<PipelineChunk>(static_cast<std::size_t>(pp * vpp))};
  for (PipelineChunk& chunk : p.chunks) chunk.decoder_layers = chunk_layers;
  p.chunks.front().has_embedding = true;
  p.chunks.back().has_loss = true;
  p.chunks.back().mtp_layers = mtp_layers;
  return p;
}

// Each form below checks `l` and, when legal and `out` is not null, writes its placement there;
// it returns whether the form is legal, and fills `error` (when not null) when not.

// The even split, the embedding (loss) counted as a layer of the first (last) chunk when the
// account-for flag asks (get_num_layers_to_build: num_layers + 1 per flag, divided by PP and VPP,
// then one fewer decoder layer on the chunk that holds it).
bool even_placement(const ModelShape& m, const Layout& l, PlacementError* error,
                    PipelinePlacement* out) {
  const int embedding = l.account_for_embedding_in_pipeline_split ? 1 : 0;
  const int loss = l.account_for_loss_in_pipeline_split ? 1 : 0;
  const int counted = m.layers + embedding + loss;
  const bool flags = embedding + loss > 0;
  if (counted % l.pp != 0) {
    fail(error, PlacementRule::kLayers, [&] {
      return Words{
          "layout.pp",
          flags ? fmt::format("PP must divide {}'s {} layers plus the embedding and loss counted "
                              "as layers ({})",
                              m.name, m.layers, counted)
                : fmt::format("PP must divide {}'s {} layers, or layer_split, the account-for "
                              "flags or a pipeline_layout must place them",
                              m.name, m.layers),
          flags ? fmt::format("a divisor of {}", counted)
                : fmt::format("a divisor of {} or a placement", m.layers),
          fmt::format("{}", l.pp)};
    });
    return false;
  }
  const int per_stage = counted / l.pp;
  if (l.vpp > 1 && (l.pp < 2 || per_stage % l.vpp != 0)) {
    fail(error, PlacementRule::kVirtual, [&] {
      return Words{
          "layout.vpp", "VPP needs PP > 1 and must divide the layers per pipeline stage",
          l.pp < 2 ? std::string("vpp 1 at pp 1") : fmt::format("a divisor of {}", per_stage),
          fmt::format("{}", l.vpp)};
    });
    return false;
  }
  // Each chunk counts at least one layer, so the chunks that hold the embedding and the loss
  // (the same one only when PP = VPP = 1, which then counts both) never go below zero.
  const int chunk = per_stage / l.vpp;
  if (out) {
    *out = uniform_placement(l.pp, l.vpp, chunk, m.mtp_layers);
    out->chunks.front().decoder_layers -= embedding;
    out->chunks.back().decoder_layers -= loss;
  }
  return true;
}

// layer_split's first and last stages with the middle ones even; VPP divides each stage.
bool split_placement(const ModelShape& m, const Layout& l, PlacementError* error,
                     PipelinePlacement* out) {
  const LayerSplit& split = *l.layer_split;
  const int middle_layers = m.layers - split.first - split.last;
  const int middle_stages = l.pp - 2;
  const bool covers =
      l.pp >= 2 && split.first >= 1 && split.last >= 1 &&
      (middle_stages == 0 ? middle_layers == 0
                          : middle_layers >= middle_stages && middle_layers % middle_stages == 0);
  if (!covers) {
    if (l.pp < 2) {
      fail(error, PlacementRule::kLayers, [&] {
        return Words{"layout.layer_split", "a layer_split needs PP of at least 2", "null",
                     fmt::format("{{first: {}, last: {}}}", split.first, split.last)};
      });
    } else {
      fail(error, PlacementRule::kLayers, [&] {
        return Words{
            "layout.layer_split",
            fmt::format("layer_split does not account for all {} layers over {} stages", m.layers,
                        l.pp),
            middle_stages == 0
                ? fmt::format("first + last = {}", m.layers)
                : fmt::format("{} - first - last a positive multiple of the {} middle stages",
                              m.layers, middle_stages),
            fmt::format("first {}, last {}", split.first, split.last)};
      });
    }
    return false;
  }
  const int middle = middle_stages > 0 ? middle_layers / middle_stages : 0;
  if (l.vpp > 1 && (split.first % l.vpp != 0 || split.last % l.vpp != 0 || middle % l.vpp != 0)) {
    fail(error, PlacementRule::kVirtual, [&] {
      return Words{
          "layout.vpp", "VPP must divide the layers of every pipeline stage",
          middle_stages == 0  // PP 2: no middle stage to name
              ? fmt::format("a common divisor of {} and {}", split.first, split.last)
              : fmt::format("a common divisor of {}, {} and {}", split.first, middle, split.last),
          fmt::format("{}", l.vpp)};
    });
    return false;
  }
  if (!out) return true;
  *out = uniform_placement(l.pp, l.vpp, middle / l.vpp, m.mtp_layers);
  for (int v = 0; v < l.vpp; ++v) {
    out->chunks[static_cast<std::size_t>(v * l.pp)].decoder_layers = split.first / l.vpp;
    out->chunks[static_cast<std::size_t>(v * l.pp + l.pp - 1)].decoder_layers = split.last / l.vpp;
  }
  return true;
}

// The parsed chunks of `text`, from a one-entry cache: the planner checks one string for many
// candidate meshes.
// Returns null when `text` does not parse, with the problem's message in `message` (when not
// null). The pointer is valid until the next call on this thread.
const std::vector<PipelineChunk>* cached_parse(const std::string& text, std::string* message) {
  thread_local std::string last_text;
  thread_local std::optional<std::vector<PipelineChunk>> last_chunks;
  thread_local std::string last_message;
  if (text.empty()) return nullptr;
  if (text != last_text) {
    Problems problems;
    last_text = text;
    last_chunks = parse_pipeline_layout(text, "layout.pipeline_layout", problems);
    last_message = problems.empty() ? "" : problems.front().message;
  }
  if (message) *message = last_message;
  return last_chunks ? &*last_chunks : nullptr;
}

// Checks the MTP layers of a parsed layout: none, or all of the model's on one stage's last chunk.
// `chunks` are PP x VPP in Megatron-LM's order (chunk v of stage p at v x PP + p).
bool mtp_placed(const ModelShape& m, const std::vector<PipelineChunk>& chunks, int pp, int vpp,
                PlacementError* error) {
  int mtp = 0;
  for (const PipelineChunk& chunk : chunks) mtp += chunk.mtp_layers;
  bool ok = mtp == 0 || mtp == m.mtp_layers;
  for (int v = 0; ok && mtp > 0 && v < vpp; ++v) {
    for (int stage = 0; stage < pp; ++stage) {
      const int here = chunks[static_cast<std::size_t>(v * pp + stage)].mtp_layers;
      ok = ok && (here == 0 || (v == vpp - 1 && here == mtp));
    }
  }
  if (!ok) {
    fail(error, PlacementRule::kLayout, [&] {
      if (m.mtp_layers == 0) {
        return Words{"layout.pipeline_layout",
                     fmt::format("the layout places MTP layers (m), but {} has none", m.name),
                     "no m", fmt::format("{} m", mtp)};
      }
      return Words{
          "layout.pipeline_layout",
          fmt::format("the layout's MTP layers must be none or all {} of {}'s, together in the "
                      "last virtual chunk of one stage",
                      m.mtp_layers, m.name),
          fmt::format("0 or {} m in one last chunk", m.mtp_layers), fmt::format("{} m", mtp)};
    });
  }
  return ok;
}

// The explicit string's placement: PP x VPP chunks, every decoder layer once, the MTP layers as
// mtp_placed checks.
bool string_placement(const ModelShape& m, const Layout& l, PlacementError* error,
                      PipelinePlacement* out) {
  std::string message;
  const std::vector<PipelineChunk>* chunks =
      cached_parse(l.pipeline_layout, error ? &message : nullptr);
  if (!chunks) {
    fail(error, PlacementRule::kLayout, [&] {
      return Words{"layout.pipeline_layout", message, "a layout string such as Et*3|(tt|)*29,m|L",
                   l.pipeline_layout};
    });
    return false;
  }
  const int count = static_cast<int>(chunks->size());
  if (count != l.pp * l.vpp) {
    fail(error, PlacementRule::kLayout, [&] {
      return Words{"layout.pipeline_layout",
                   "the layout string must have one chunk per pipeline stage and virtual chunk",
                   fmt::format("PP x VPP = {} x {} = {} chunks", l.pp, l.vpp, l.pp * l.vpp),
                   fmt::format("{} chunks", count)};
    });
    return false;
  }
  if (l.vpp > 1 && l.pp < 2) {
    fail(error, PlacementRule::kVirtual, [&] {
      return Words{"layout.vpp", "VPP needs PP > 1", "vpp 1 at pp 1", fmt::format("{}", l.vpp)};
    });
    return false;
  }
  int decoders = 0;
  for (const PipelineChunk& chunk : *chunks) decoders += chunk.decoder_layers;
  if (decoders != m.layers) {
    fail(error, PlacementRule::kLayout, [&] {
      return Words{"layout.pipeline_layout",
                   fmt::format("the layout string must place each of {}'s {} decoder layers once",
                               m.name, m.layers),
                   fmt::format("{} t", m.layers), fmt::format("{} t", decoders)};
    });
    return false;
  }
  if (!mtp_placed(m, *chunks, l.pp, l.vpp, error)) return false;
  if (out) *out = PipelinePlacement{l.pp, l.vpp, *chunks};
  return true;
}

std::string flags_text(const Layout& l) {
  std::vector<std::string> parts;
  if (l.layer_split) parts.push_back("layer_split");
  if (l.account_for_embedding_in_pipeline_split)
    parts.push_back("account_for_embedding_in_pipeline_split");
  if (l.account_for_loss_in_pipeline_split) parts.push_back("account_for_loss_in_pipeline_split");
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

bool has_placement(const Layout& layout) {
  return !layout.pipeline_layout.empty() || layout.layer_split ||
         layout.account_for_embedding_in_pipeline_split ||
         layout.account_for_loss_in_pipeline_split;
}

bool placement_is_legal(const ModelShape& model, const Layout& layout, PlacementError* error,
                        PipelinePlacement* out) {
  if (layout.pp < 1 || layout.vpp < 1 || model.layers < 1) {
    fail(error, PlacementRule::kLayers, [&] {
      return Words{"layout.pp", "a pipeline needs layers and sizes >= 1", ">= 1",
                   fmt::format("pp {} vpp {} layers {}", layout.pp, layout.vpp, model.layers)};
    });
    return false;
  }
  const bool flags =
      layout.account_for_embedding_in_pipeline_split || layout.account_for_loss_in_pipeline_split;
  if (!layout.pipeline_layout.empty()) {
    if (layout.layer_split || flags) {
      fail(error, PlacementRule::kExclusive, [&] {
        return Words{
            "layout.pipeline_layout",
            "a pipeline_layout stands alone (Megatron-LM refuses it with other placement flags)",
            "pipeline_layout alone", fmt::format("pipeline_layout with {}", flags_text(layout))};
      });
      return false;
    }
    return string_placement(model, layout, error, out);
  }
  if (layout.layer_split && flags) {
    fail(error, PlacementRule::kExclusive, [&] {
      return Words{
          "layout.layer_split",
          "layer_split (--decoder-first/last-pipeline-num-layers) cannot be combined with the "
          "account-for flags",
          "one of them", flags_text(layout)};
    });
    return false;
  }
  return layout.layer_split ? split_placement(model, layout, error, out)
                            : even_placement(model, layout, error, out);
}

std::optional<PipelinePlacement> place_layers(const ModelShape& model, const Layout& layout,
                                              PlacementError* error) {
  PipelinePlacement placement;
  if (!placement_is_legal(model, layout, error, &placement)) return std::nullopt;
  return placement;
}

void PlacementChoice::apply_to(Layout& layout) const {
  layout.layer_split = layer_split;
  layout.account_for_embedding_in_pipeline_split = account_for_embedding_in_pipeline_split;
  layout.account_for_loss_in_pipeline_split = account_for_loss_in_pipeline_split;
  layout.pipeline_layout = pipeline_layout;
}

}  // namespace openrecipes
