// Exports say what they drop: for every bundled recipe (recipes/**.yaml) and every target, each
// argument of the recipe's run command is in the draft, either translated (an argument of the same
// canonical name in a slime or Megatron-LM command; a `.field = ` assignment of one of the rule's
// Megatron-Bridge spellings, rules/arguments.yaml) or named in one of the draft's comment lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "export/export_draft.h"
#include "runs/training_command.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using testing::bundled_catalog;
using testing::source_dir;

const ArgumentRules& rules() { return testing::bundled_argument_rules(); }

std::vector<std::string> bundled_recipe_paths() {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(source_dir()) / "recipes")) {
    if (entry.path().extension() == ".yaml")
      paths.push_back(fs::relative(entry.path(), source_dir()).string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The draft's comment lines and its other lines.
struct DraftLines {
  std::vector<std::string> comments;
  std::vector<std::string> code;
};

DraftLines split_lines(const std::string& text) {
  DraftLines lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::size_t start = line.find_first_not_of(' ');
    bool comment = start != std::string::npos && line[start] == '#';
    (comment ? lines.comments : lines.code).push_back(line);
  }
  return lines;
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// `word` in `line` with no word character on either side.
bool has_word(const std::string& line, const std::string& word) {
  for (std::size_t at = line.find(word); at != std::string::npos; at = line.find(word, at + 1)) {
    bool before = at > 0 && word_char(line[at - 1]);
    bool after = at + word.size() < line.size() && word_char(line[at + word.size()]);
    if (!before && !after) return true;
  }
  return false;
}

bool named_in_a_comment(const DraftLines& lines, const std::string& word) {
  for (const std::string& line : lines.comments) {
    if (line.find(word) != std::string::npos && (word.front() == '$' || has_word(line, word)))
      return true;
  }
  return false;
}

// A Megatron-Bridge assignment of the argument: `.key = ` for one of its rule's dotted spellings.
bool assigned_in_bridge(const DraftLines& lines, const std::string& flag) {
  SpellingMatch match = rules().find_spelling(flag);
  if (!match.rule) return false;
  for (const std::string& spelling : match.rule->spellings) {
    std::size_t dot = spelling.rfind('.');
    if (spelling.rfind("--", 0) == 0 || dot == std::string::npos) continue;
    std::string assignment = spelling.substr(dot) + " = ";
    for (const std::string& line : lines.code) {
      if (line.find(assignment) != std::string::npos) return true;
    }
  }
  return false;
}

TEST(ExportCoverage, EveryArgumentOfEveryRecipeIsCarriedOrNamed) {
  std::vector<std::string> paths = bundled_recipe_paths();
  ASSERT_GE(paths.size(), testing::kBundledRecipes.size());
  for (const std::string& path : paths) {
    RecipeReport report = validate_recipe_file(bundled_catalog(), source_dir() + "/" + path);
    ASSERT_TRUE(report.recipe) << path << testing::describe(report.problems);
    Problems problems;
    std::optional<ExportSource> source = export_source_from_recipe(
        *report.recipe, path, bundled_catalog().catalog, rules(), problems);
    ASSERT_TRUE(source) << path << testing::describe(problems);
    TrainingCommand run = read_training_command(report.recipe->run, rules());
    ASSERT_TRUE(run.problems.empty()) << path;
    bool model_args_outside = source->model_arguments_outside_run;
    for (ExportTarget target :
         {ExportTarget::kSlime, ExportTarget::kMegatronLm, ExportTarget::kMegatronBridge}) {
      std::string text = export_recipe_text(*source, target, rules());
      DraftLines lines = split_lines(text);
      TrainingCommand draft = target == ExportTarget::kMegatronBridge
                                  ? TrainingCommand{}
                                  : read_training_command(text, rules());
      const char* kNames[] = {"slime", "megatron-lm", "megatron-bridge"};
      std::string where = path + " --to " + kNames[static_cast<int>(target)];
      if (model_args_outside) {
        EXPECT_TRUE(named_in_a_comment(lines, "${MODEL_ARGS[@]}")) << where << "\n" << text;
      }
      if (target == ExportTarget::kMegatronLm) {  // a flag written twice: the last one wins
        std::map<std::string, int> flags;
        for (const std::string& line : lines.code) {
          std::size_t at = line.find_first_not_of(' ');
          if (at != std::string::npos && line.compare(at, 2, "--") == 0)
            ++flags[line.substr(at, line.find(' ', at) - at)];
        }
        for (const auto& [flag, count] : flags) EXPECT_EQ(count, 1) << flag << " in " << where;
      }
      for (const TrainingArgument* argument : in_written_order(run)) {
        if (argument->spelling.rfind("--", 0) != 0) continue;
        bool translated = target == ExportTarget::kMegatronBridge
                              ? assigned_in_bridge(lines, argument->spelling)
                              : draft.find(argument->name) != nullptr;
        EXPECT_TRUE(translated || named_in_a_comment(lines, argument->spelling))
            << argument->spelling << " of " << where << " is neither carried nor named:\n"
            << text;
      }
    }
  }
}

// A recipe whose layout and run state a layout string and the account-for switches: every
// export writes them once, from the layout, with the recipe's value.
TEST(ExportCoverage, ThePlacementArgumentsOfARecipeAreCarried) {
  const std::string path = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  std::string text = testing::read_source_file(path);
  text = testing::replace_all(text, "  layer_split: null\n",
                              "  layer_split: null\n  pipeline_layout: 'Et*12|t*12L'\n");
  text = testing::replace_all(
      text, "--pipeline-model-parallel-size 2 \\\n",
      "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Et*12|t*12L' \\\n");
  RecipeReport report = validate_recipe_text(bundled_catalog(), path, path, text);
  ASSERT_TRUE(report.recipe) << testing::describe(report.problems);
  EXPECT_TRUE(report.problems.empty()) << testing::describe(report.problems);
  Problems problems;
  std::optional<ExportSource> source =
      export_source_from_recipe(*report.recipe, path, bundled_catalog().catalog, rules(), problems);
  ASSERT_TRUE(source) << testing::describe(problems);
  std::string lm = export_recipe_text(*source, ExportTarget::kMegatronLm, rules());
  TrainingCommand command = read_training_command(lm, rules());
  const TrainingArgument* layout = command.find("pipeline_model_parallel_layout");
  ASSERT_NE(layout, nullptr) << lm;
  EXPECT_EQ(layout->value, "Et*12|t*12L");
  std::string bridge = export_recipe_text(*source, ExportTarget::kMegatronBridge, rules());
  EXPECT_NE(bridge.find("cfg.model.pipeline_model_parallel_layout = \"Et*12|t*12L\"\n"),
            std::string::npos)
      << bridge;
}

ExportSource gpt_oss_source() {
  const std::string path = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  RecipeReport report = validate_recipe_file(bundled_catalog(), source_dir() + "/" + path);
  Problems problems;
  return *export_source_from_recipe(*report.recipe, path, bundled_catalog().catalog, rules(),
                                    problems);
}

bool comment_has(const std::string& text, const std::string& words) {
  for (const std::string& line : split_lines(text).comments) {
    if (line.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(ExportCoverage, MegatronLmSftDraftUsesTheSftPathAndSaysWhatIsMissing) {
  std::string text = export_recipe_text(gpt_oss_source(), ExportTarget::kMegatronLm, rules());
  TrainingCommand command = read_training_command(text, rules());
  ASSERT_NE(command.find("sft"), nullptr) << text;
  ASSERT_NE(command.find("tokenizer_type"), nullptr);
  EXPECT_EQ(command.find("tokenizer_type")->value, "SFTTokenizer");
  EXPECT_NE(text.find("  --sft-tokenizer-prompt-format \"$SFT_PROMPT_FORMAT\" \\\n"),
            std::string::npos);
  EXPECT_NE(text.find("  --data-path \"$SFT_JSONL\" \\\n"), std::string::npos);
  EXPECT_TRUE(comment_has(text, "Megatron-LM reads neither the rows Parquet nor this mask"));
  EXPECT_TRUE(comment_has(text, "loss mask gpt_oss"));
  EXPECT_TRUE(comment_has(text, "Supply SFT_JSONL"));
  EXPECT_TRUE(comment_has(text, "patches/attune_gpt_oss_yarn.py"));
}

TEST(ExportCoverage, BridgeDraftNamesTheSpecPatchesAndRows) {
  std::string text = export_recipe_text(gpt_oss_source(), ExportTarget::kMegatronBridge, rules());
  EXPECT_TRUE(comment_has(text,
                          "Layer spec, not carried: the recipe's run loads --spec "
                          "attune_gpt_oss_yarn"))
      << text;
  EXPECT_TRUE(comment_has(text, "(patches: patches/attune_gpt_oss_yarn.py)"));
  EXPECT_TRUE(comment_has(text, "set cfg.model.transformer_layer_spec"));
  EXPECT_TRUE(comment_has(text, "Rows and loss mask, not carried"));
  EXPECT_NE(text.find("    cfg.tokenizer.tokenizer_model = \"openai/gpt-oss-20b\"\n"),
            std::string::npos);
}

TEST(ExportCoverage, SlimeExportNamesPatchesPlaceholdersAndVariables) {
  std::string text = export_recipe_text(gpt_oss_source(), ExportTarget::kSlime, rules());
  EXPECT_TRUE(
      comment_has(text, "Patches, not carried by the command: patches/attune_gpt_oss_yarn.py"))
      << text;
  EXPECT_TRUE(comment_has(text, "Fill before running: <slime entry module>"));
  EXPECT_TRUE(comment_has(text, "Set: HF_CKPT, TORCH_DIST, SFT_DATA"));
}

// The checks above can fail: a draft that leaves out an argument without naming it is caught.
TEST(ExportCoverage, ASilentDropIsCaught) {
  DraftLines lines = split_lines("    cfg.model.tensor_model_parallel_size = 1\n    # --lr-x\n");
  EXPECT_TRUE(assigned_in_bridge(lines, "--tensor-model-parallel-size"));
  EXPECT_FALSE(assigned_in_bridge(lines, "--actor-num-nodes"));
  EXPECT_FALSE(named_in_a_comment(lines, "--lr"));
  EXPECT_TRUE(named_in_a_comment(lines, "--lr-x"));
}

}  // namespace
}  // namespace openrecipes
