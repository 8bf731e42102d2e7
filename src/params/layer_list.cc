#include "params/layer_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace openrecipes {

std::optional<std::vector<std::string>> read_layer_list(const HfConfig& c, const std::string& key,
                                                        std::int64_t layers,
                                                        const std::vector<std::string>& kinds,
                                                        Problems& problems) {
  if (!c.has(key)) return std::vector<std::string>();
  const std::size_t recorded = c.problems().size();
  std::vector<std::string> values = c.strings(key);
  if (c.problems().size() != recorded) return std::nullopt;  // a wrong type, recorded on `c`
  if (static_cast<std::int64_t>(values.size()) != layers) {
    problems.push_back(c.problem_at(key, fmt::format("{} must list every layer", key),
                                    fmt::format("{} entries (num_hidden_layers)", layers),
                                    fmt::format("{} entries", values.size())));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::find(kinds.begin(), kinds.end(), values[i]) == kinds.end()) {
      problems.push_back(c.problem_at(fmt::format("{}[{}]", key, i), "unknown layer kind",
                                      fmt::format("{}", fmt::join(kinds, " or ")),
                                      "\"" + values[i] + "\""));
      return std::nullopt;
    }
  }
  return values;
}

}  // namespace openrecipes
