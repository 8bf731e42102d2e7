#include "layout/layout_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <sstream>
#include <vector>

namespace openrecipes {
namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// A positive integer up to 2^20 (no sign, no spaces); nullopt otherwise.
std::optional<int> positive(const std::string& digits) {
  int value = 0;
  if (digits.empty() || digits.size() > 7) return std::nullopt;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 1 || value > (1 << 20)) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.push_back("");
  return parts;
}

// A problem with the flag `field`'s value (field: the flag, e.g. `--layout`).
void add_problem(Problems& problems, const std::string& field, std::string message,
                 std::string expected, std::string found) {
  problems.push_back({"",
                      {},
                      field,
                      "arguments.layout",
                      std::move(message),
                      std::move(expected),
                      std::move(found)});
}

constexpr const char* kLayoutExample = "sizes such as TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1";

}  // namespace

std::optional<Layout> parse_layout_text(const std::string& text, std::int64_t row_tokens,
                                        Problems& problems) {
  // Longest names first so that ETP is not read as EP... nor VPP as PP.
  static const std::vector<std::string> kNames = {"VPP", "ETP", "MBS", "TP",
                                                  "PP",  "CP",  "EP",  "DP"};
  std::map<std::string, int> sizes;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    std::string w = upper(word);
    std::string name;
    for (const std::string& candidate : kNames) {
      if (w.rfind(candidate, 0) == 0) {
        name = candidate;
        break;
      }
    }
    if (name.empty()) {
      add_problem(problems, "--layout", fmt::format("unknown layout word '{}'", word),
                  kLayoutExample, word);
      return std::nullopt;
    }
    std::optional<int> value = positive(w.substr(name.size()));
    if (!value) {
      add_problem(problems, "--layout",
                  fmt::format("'{}': {} needs a whole number from 1 to {}, as in {}2", word, name,
                              1 << 20, name),
                  fmt::format("a whole number from 1 to {}", 1 << 20), word);
      return std::nullopt;
    }
    if (!sizes.emplace(name, *value).second) {
      add_problem(problems, "--layout", fmt::format("'{}': {} is given twice", word, name),
                  "each size once", word);
      return std::nullopt;
    }
  }
  if (sizes.empty()) {
    add_problem(problems, "--layout", "an empty layout", kLayoutExample, fmt::format("'{}'", text));
    return std::nullopt;
  }
  auto size = [&](const std::string& name) { return sizes.count(name) ? sizes.at(name) : 1; };
  Layout layout;
  layout.tp = size("TP");
  layout.pp = size("PP");
  layout.vpp = size("VPP");
  layout.cp = size("CP");
  layout.ep = size("EP");
  layout.etp = size("ETP");
  layout.dp = sizes.count("DP") ? sizes.at("DP") : 0;
  layout.rows_per_microbatch = size("MBS");
  layout.sequence_parallel = layout.tp > 1;
  std::int64_t tokens = static_cast<std::int64_t>(layout.rows_per_microbatch) * row_tokens;
  layout.max_tokens_per_gpu = (tokens + layout.cp - 1) / layout.cp;
  if (layout.ep > 1) layout.dispatcher = "alltoall";
  return layout;
}

std::optional<std::optional<Recompute>> parse_recompute_text(const std::string& text,
                                                             Problems& problems) {
  std::vector<std::string> parts = split(text, ':');
  const std::string expected =
      "none, selective, selective:MODULE,..., full, full:uniform:N or full:block:N";
  if (parts.empty()) {
    add_problem(problems, "--recompute", "an empty recompute setting", expected, "''");
    return std::nullopt;
  }
  if (parts.size() == 1 && parts[0] == "none") return std::optional<Recompute>{};
  if (parts.size() == 1 && parts[0] == "selective")
    return std::optional<Recompute>{Recompute{"selective", "", {}}};
  if (parts.size() == 2 && parts[0] == "selective") {
    Recompute recompute{"selective", "", {}};
    std::vector<std::string> modules = split(parts[1], ',');
    if (modules.empty()) modules.push_back("");
    for (const std::string& module : modules) {
      bool known = false;
      for (std::string_view name : kRecomputeModules) known = known || module == name;
      if (!known) {
        add_problem(problems, "--recompute", fmt::format("recompute module '{}'", module),
                    "core_attn, moe_act, layernorm, mla_up_proj, mlp, moe or shared_experts",
                    module);
        return std::nullopt;
      }
      if (std::find(recompute.modules.begin(), recompute.modules.end(), module) ==
          recompute.modules.end())
        recompute.modules.push_back(module);
    }
    return std::optional<Recompute>{recompute};
  }
  if (parts[0] == "full" && parts.size() <= 3) {
    Recompute recompute{"full", "uniform", 1};
    if (parts.size() >= 2) {
      if (parts[1] != "uniform" && parts[1] != "block") {
        add_problem(problems, "--recompute", fmt::format("recompute method '{}'", parts[1]),
                    "uniform or block", parts[1]);
        return std::nullopt;
      }
      recompute.method = parts[1];
    }
    if (parts.size() == 3) {
      std::optional<int> layers = positive(parts[2]);
      if (!layers) {
        add_problem(problems, "--recompute", fmt::format("recompute layers '{}'", parts[2]),
                    "a positive integer", parts[2]);
        return std::nullopt;
      }
      recompute.num_layers = *layers;
    }
    return std::optional<Recompute>{recompute};
  }
  add_problem(problems, "--recompute", fmt::format("recompute '{}'", text), expected, text);
  return std::nullopt;
}

std::optional<LayerSplit> parse_layer_split_text(const std::string& text, Problems& problems) {
  std::vector<std::string> parts = split(text, ',');
  if (parts.size() == 2) {
    std::optional<int> first = positive(parts[0]);
    std::optional<int> last = positive(parts[1]);
    if (first && last) return LayerSplit{*first, *last};
  }
  add_problem(
      problems, "--layer-split", fmt::format("layer split '{}'", text),
      "FIRST,LAST: the layers on the first and last pipeline stages, each a positive integer",
      text);
  return std::nullopt;
}

std::string layout_text(const Layout& l) {
  return fmt::format("TP{} PP{} VPP{} CP{} EP{} ETP{} MBS{}", l.tp, l.pp, l.vpp, l.cp, l.ep, l.etp,
                     l.rows_per_microbatch);
}

std::string placement_text(const Layout& l) {
  if (!l.pipeline_layout.empty()) return "layout " + l.pipeline_layout;
  if (l.layer_split) return fmt::format("split {},{}", l.layer_split->first, l.layer_split->last);
  const bool e = l.account_for_embedding_in_pipeline_split;
  const bool loss = l.account_for_loss_in_pipeline_split;
  if (e && loss) return "account for embedding and loss";
  if (e) return "account for embedding";
  if (loss) return "account for loss";
  return "";
}

std::string placement_flags_text(const Layout& l) {
  std::string out;
  if (!l.pipeline_layout.empty()) out += fmt::format(" --pipeline-layout '{}'", l.pipeline_layout);
  if (l.layer_split)
    out += fmt::format(" --layer-split {},{}", l.layer_split->first, l.layer_split->last);
  if (l.account_for_embedding_in_pipeline_split)
    out += " --account-for-embedding-in-pipeline-split";
  if (l.account_for_loss_in_pipeline_split) out += " --account-for-loss-in-pipeline-split";
  return out;
}

std::string recompute_text(const std::optional<Recompute>& recompute) {
  if (!recompute) return "none";
  if (recompute->granularity != "full") {
    std::string out = recompute->granularity;
    for (std::size_t i = 0; i < recompute->modules.size(); ++i)
      out += (i == 0 ? ":" : ",") + recompute->modules[i];
    return out;
  }
  return fmt::format("full:{}:{}", recompute->method.empty() ? "uniform" : recompute->method,
                     recompute->num_layers.value_or(1));
}

}  // namespace openrecipes
