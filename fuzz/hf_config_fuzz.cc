// The parameter counter's config.json reader (params/hf_config.h) and the count itself
// (params/active_params.h) on any bytes as a config.json.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "params/active_params.h"
#include "params/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  Problems problems;
  std::optional<HfConfig> config =
      HfConfig::parse(std::string(fuzz::as_text(data, size)), "config.json", problems);
  fuzz::check(config.has_value() || !problems.empty(), "HfConfig::parse: nullopt has a problem",
              problems);
  if (!config) return 0;
  Problems count_problems;
  std::optional<ActiveParamCount> count = count_active_params(*config, count_problems);
  fuzz::check(count.has_value() || !count_problems.empty(),
              "count_active_params: nullopt has a problem", count_problems);
  for (const Problem& problem : count_problems) (void)format_problem_line(problem);
  return 0;
}
