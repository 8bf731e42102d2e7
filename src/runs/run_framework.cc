#include "runs/run_framework.h"

#include <string_view>
#include <vector>

namespace openrecipes {
namespace {

// The words of `program` (joined by one space in TrainingCommand::program).
std::vector<std::string_view> program_words(std::string_view program) {
  std::vector<std::string_view> words;
  std::size_t start = 0;
  while (start < program.size()) {
    std::size_t end = program.find(' ', start);
    if (end == std::string_view::npos) end = program.size();
    if (end > start) words.push_back(program.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

std::string_view base_name(std::string_view word) {
  std::size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool is_override_argument(const TrainingArgument& argument) {
  return !argument.spelling.empty() && argument.spelling[0] != '-' &&
         argument.spelling.find('.') != std::string::npos;
}

}  // namespace

std::string framework_name(RunFramework framework) {
  switch (framework) {
    case RunFramework::kSlime:
      return "slime";
    case RunFramework::kMegatronLm:
      return "Megatron-LM";
    case RunFramework::kBridge:
      return "Megatron-Bridge";
    case RunFramework::kUnknown:
      return "an unknown framework";
  }
  return "";
}

RunFramework detect_framework(const TrainingCommand& command) {
  for (std::string_view word : program_words(command.program)) {
    std::string_view name = base_name(word);
    if (name.find("slime") != std::string_view::npos || name == "train.py" ||
        name == "train_async.py") {
      return RunFramework::kSlime;
    }
    if (name.starts_with("pretrain_") && name.ends_with(".py")) return RunFramework::kMegatronLm;
  }
  if (command.find_spelling({"--actor-num-nodes", "--rollout-batch-size", "--num-rollout"})) {
    return RunFramework::kSlime;
  }
  for (const TrainingArgument& argument : command.arguments) {
    if (is_override_argument(argument)) return RunFramework::kBridge;
  }
  return RunFramework::kUnknown;
}

}  // namespace openrecipes
