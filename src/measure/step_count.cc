#include "measure/step_count.h"

#include <fmt/format.h>

#include <regex>

#include "runs/training_command.h"

namespace openrecipes {

std::optional<ForcedStepCount> force_step_count(std::string_view run, int steps,
                                                Problems& problems) {
  TrainingCommand command = read_training_command(run, no_argument_rules());
  if (const TrainingArgument* profiler =
          command.find_spelling({"--profile", "--use-pytorch-profiler"})) {
    problems.push_back({"",
                        {profiler->line, profiler->line > 0 ? 1 : 0},
                        "run",
                        "measure.step_count",
                        fmt::format("line {}: {} turns the profiler on; the protocol measures with "
                                    "it off (remove it)",
                                    profiler->line, profiler->spelling),
                        "",
                        ""});
    return std::nullopt;
  }
  ForcedStepCount forced;
  const TrainingArgument* argument =
      command.find_spelling({"--num-rollout", "--train-iters", "train.train_iters"});
  if (!argument || !argument->valued || argument->value == "~deleted") {
    problems.push_back(
        {"",
         {},
         "run",
         "measure.step_count",
         fmt::format("no step count to set to the protocol's {} (expected "
                     "--num-rollout N for slime, --train-iters N for Megatron-LM or "
                     "train.train_iters=N for Megatron-Bridge in the command itself)",
                     steps),
         "",
         ""});
    return std::nullopt;
  }
  forced.flag = argument->spelling;
  forced.recipe_value = argument->value;
  forced.framework = forced.flag == "--num-rollout"       ? RunFramework::kSlime
                     : forced.flag == "train.train_iters" ? RunFramework::kBridge
                                                          : RunFramework::kMegatronLm;
  // A flag word, then '=' or blanks (a `\`-newline continuation included), then its value word.
  // Every match with its last group (the value) replaced by the step count.
  auto replace_values = [&](const std::string& text, const std::regex& pattern) {
    std::string out;
    std::size_t copied = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& match = *it;
      std::size_t value_at = static_cast<std::size_t>(match.position(match.size() - 1));
      out += text.substr(copied, value_at - copied) + std::to_string(steps);
      copied = value_at + static_cast<std::size_t>(match.length(match.size() - 1));
    }
    return out + text.substr(copied);
  };
  static const std::regex kFlagValue(
      R"((^|[\s])(--num-rollout|--train-iters)(=|(?:[ \t]|\\\n)+)([^\s\\;|&]+))");
  static const std::regex kHydraValue(R"((^|[\s])(\+{0,2}train\.train_iters=)([^\s\\;|&]+))");
  forced.run = replace_values(replace_values(std::string(run), kFlagValue), kHydraValue);
  return forced;
}

}  // namespace openrecipes
