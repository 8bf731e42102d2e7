#include "measure/preflight.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rows/dataset_block.h"
#include "rows/rows_builder.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const std::string& kGptOss = testing::kBundledRecipes[0];
const std::string& kQwen = testing::kBundledRecipes[1];

// A recipe file's text read as measure reads it, kept alive for the request's document pointer.
struct RecipeText {
  YamlDocument document;
  Recipe recipe;
};

RecipeText parsed(const std::string& text, const std::string& file) {
  Problems problems;
  std::optional<YamlDocument> document = parse_yaml(text, file, problems);
  EXPECT_TRUE(document) << testing::describe(problems);
  RecipeText out{document.value_or(YamlDocument{}), {}};
  out.recipe = recipe_from_yaml(out.document.root);
  return out;
}

RecipeText bundled(const std::string& path) {
  return parsed(testing::read_source_file(path), path);
}

MeasureRequest request_for(const RecipeText& recipe, const std::string& file) {
  MeasureRequest request;
  request.recipe_file = file;
  request.document = &recipe.document;
  return request;
}

// The placeholder filled and the three variables set; SFT_DATA names no local file.
MeasureRequest filled(const RecipeText& recipe, const std::string& file) {
  MeasureRequest request = request_for(recipe, file);
  request.set = {{"slime entry module", "train_async"}};
  request.env = {{"HF_CKPT", "/ckpt/hf"},
                 {"TORCH_DIST", "/ckpt/dist"},
                 {"SFT_DATA", "hf://datasets/x/rows.parquet"}};
  return request;
}

std::vector<std::string> lines_of(const Problems& problems) {
  std::vector<std::string> out;
  for (const Problem& problem : problems) out.push_back(format_problem_line(problem));
  return out;
}

// The bundled recipe as it stands: every refusal at once, each at its line and column.
TEST(MeasurePreflight, TheBundledRecipeIsRefusedForItsPlaceholderAndItsThreeVariables) {
  RecipeText recipe = bundled(kGptOss);
  MeasurePreflight preflight = preflight_measure(recipe.recipe, request_for(recipe, kGptOss));
  std::vector<std::string> lines = lines_of(preflight.problems);
  ASSERT_EQ(lines.size(), 4u) << testing::describe(preflight.problems);
  EXPECT_EQ(lines[0], kGptOss +
                          ":136:14: run: the placeholder <slime entry module> is not filled: bash "
                          "would read it as redirections (expected --set 'slime entry "
                          "module=train_async' (a Python module name: slime's train (train.py) or "
                          "train_async (train_async.py), run from the slime checkout "
                          "(THUDM/slime)), found <slime entry module>)");
  EXPECT_EQ(lines[1], kGptOss +
                          ":140:21: run: the run reads $HF_CKPT and nothing sets it (expected "
                          "--env HF_CKPT=VALUE, the recipe's env, or HF_CKPT in the submitting "
                          "environment, found unset)");
  EXPECT_EQ(preflight.problems[2].rule, "measure.variable");
  EXPECT_NE(preflight.problems[2].message.find("$TORCH_DIST"), std::string::npos);
  EXPECT_EQ(preflight.problems[3].position.line, 142);
  EXPECT_NE(preflight.problems[3].message.find("$SFT_DATA"), std::string::npos);
}

TEST(MeasurePreflight, TheQwenRecipesAlsoNeedTheirModelArgs) {
  for (std::size_t i = 1; i < testing::kBundledRecipes.size(); ++i) {
    const std::string& path = testing::kBundledRecipes[i];
    RecipeText recipe = bundled(path);
    MeasurePreflight preflight = preflight_measure(recipe.recipe, request_for(recipe, path));
    EXPECT_EQ(testing::rules_of(preflight.problems),
              (std::vector<std::string>{"measure.placeholder", "measure.array", "measure.variable",
                                        "measure.variable", "measure.variable"}))
        << path;
  }
}

// The 4-node Qwen recipes need a Ray cluster across their nodes; the 1-node gpt-oss one does not.
TEST(MeasurePreflight, ASlimeRunAcrossNodesIsToldItNeedsARayCluster) {
  auto ray_notes = [](const std::string& path, const NamedValues& env) {
    RecipeText recipe = bundled(path);
    MeasureRequest request = request_for(recipe, path);
    request.env = env;
    int count = 0;
    for (const std::string& note : preflight_measure(recipe.recipe, request).notes)
      count += note.find("RAY_ADDRESS") != std::string::npos;
    return count;
  };
  EXPECT_EQ(ray_notes(kQwen, {}), 1);
  EXPECT_EQ(ray_notes(kQwen, {{"RAY_ADDRESS", "head:6379"}}), 0);
  EXPECT_EQ(ray_notes(kGptOss, {}), 0);
}

TEST(MeasurePreflight, AFilledRecipeIsAcceptedAndItsPlaceholderReplaced) {
  RecipeText recipe = bundled(kGptOss);
  MeasurePreflight preflight = preflight_measure(recipe.recipe, filled(recipe, kGptOss));
  EXPECT_TRUE(preflight.problems.empty()) << testing::describe(preflight.problems);
  EXPECT_NE(preflight.run.find("python3 -m train_async --async \\\n"), std::string::npos);
  EXPECT_EQ(preflight.notes,
            (std::vector<std::string>{"rows not checked: neither --rows nor the command's "
                                      "--prompt-data or --data-path names a local file"}));
}

// sbatch hands the submitter's environment to the job.
TEST(MeasurePreflight, TheSubmittingEnvironmentSetsVariables) {
  RecipeText recipe = bundled(kGptOss);
  MeasureRequest request = filled(recipe, kGptOss);
  request.env.erase(request.env.begin());
  request.submit_env = {{"HF_CKPT", "/ckpt/hf"}};
  EXPECT_TRUE(preflight_measure(recipe.recipe, request).problems.empty());
  request.submit_env.clear();
  EXPECT_EQ(testing::rules_of(preflight_measure(recipe.recipe, request).problems),
            std::vector<std::string>{"measure.variable"});
}

TEST(MeasurePreflight, ASetThatNamesNoPlaceholderOrTakesABadValueIsRefused) {
  RecipeText recipe = bundled(kGptOss);
  MeasureRequest request = filled(recipe, kGptOss);
  request.set = {{"slime entry module", "slime/train_async.py"}, {"checkpoint", "/x"}};
  Problems problems = preflight_measure(recipe.recipe, request).problems;
  ASSERT_EQ(testing::rules_of(problems), (std::vector<std::string>{"measure.set", "measure.set"}))
      << testing::describe(problems);
  EXPECT_EQ(problems[0].position.line, 136);
  EXPECT_EQ(problems[0].found, "slime/train_async.py");
  EXPECT_EQ(problems[1].message, "--set checkpoint: the run has no placeholder <checkpoint>");
  EXPECT_EQ(problems[1].expected, "one of <slime entry module>");
}

// The issue's own example, and a newline in each kind of flag: all refused at once.
TEST(MeasurePreflight, AControlCharacterInAnyFlagIsRefused) {
  RecipeText recipe = bundled(kGptOss);
  MeasureRequest request = filled(recipe, kGptOss);
  request.account = "x\nsrun rm -rf /tmp/important";
  request.partition = "batch\r";
  request.env.emplace_back("HF_HOME", "/h\n/i");
  request.set[0].second = "train\n";
  request.sbatch_args = {"--comment=a\x1b"};
  request.container_mounts = "/a:/b\n";
  request.container_image = "img";
  Problems problems = preflight_measure(recipe.recipe, request).problems;
  std::vector<std::string> fields;
  for (const Problem& p : problems) {
    if (p.rule == "measure.control") fields.push_back(p.field);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"--partition", "--account", "--sbatch-arg",
                                              "--container-mounts", "--env", "--set"}))
      << testing::describe(problems);
  EXPECT_EQ(format_problem_line(problems[1]),
            std::string("--account: holds a control character: a newline would start another line "
                        "of the batch script (expected printable text, found x\\nsrun rm -rf "
                        "/tmp/important)"));
}

TEST(MeasurePreflight, SlurmValuesAreCheckedBeforeTheyReachAnSbatchLine) {
  RecipeText recipe = bundled(kGptOss);
  MeasureRequest request = filled(recipe, kGptOss);
  request.qos = "high prio";
  request.time = "2 hours";
  request.sbatch_args = {"constraint=h200", "--output=/tmp/x.log", "-N2", "--constraint=h200"};
  request.container_mounts = "/data:/data:ro";
  EXPECT_EQ(testing::rules_of(preflight_measure(recipe.recipe, request).problems),
            (std::vector<std::string>{"measure.sbatch_value", "measure.sbatch_value",
                                      "measure.time", "measure.sbatch_arg", "measure.sbatch_arg",
                                      "measure.sbatch_arg", "measure.container_mounts"}));
  request.qos = "high";
  request.sbatch_args = {"--constraint=h200"};
  request.container_image = "nvcr.io#nvidia/pytorch:25.01-py3";
  for (const char* time : {"90", "90:30", "1:30:00", "1-12", "1-12:30", "1-12:30:00"}) {
    request.time = time;
    EXPECT_TRUE(preflight_measure(recipe.recipe, request).problems.empty()) << time;
  }
}

TEST(MeasurePreflight, AModelArgsFileSetsTheArray) {
  RecipeText recipe = bundled(kQwen);
  MeasureRequest request = filled(recipe, kQwen);
  std::string dir = testing::fresh_dir("preflight_model_args");
  request.model_args_file = dir + "/qwen3.5-122B-A10B.sh";
  std::ofstream(request.model_args_file) << "MODEL_ARGS=(\n  --num-layers 48\n)\n";
  EXPECT_TRUE(preflight_measure(recipe.recipe, request).problems.empty());
  std::ofstream(request.model_args_file) << "OTHER_ARGS=(--num-layers 48)\n";
  EXPECT_EQ(testing::rules_of(preflight_measure(recipe.recipe, request).problems),
            std::vector<std::string>{"measure.array"});
  request.model_args_file = dir + "/missing.sh";
  EXPECT_EQ(testing::rules_of(preflight_measure(recipe.recipe, request).problems),
            (std::vector<std::string>{"measure.model_args_file", "measure.array"}));
}

// 12 rows of 64 tokens from the fixture conversations, and the printed dataset block.
struct Rows {
  std::string path;
  std::string block;
};

const Rows& fixture_rows() {
  static const Rows rows = [] {
    // One folder per test: ctest runs each test as its own process, in parallel.
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    RowsBuildOptions options = testing::fixture_rows_options(
        testing::fresh_dir("preflight_rows_" + test) + "/rows.parquet");
    Problems problems;
    std::optional<RowsBuildResult> result = build_rows(options, problems);
    EXPECT_TRUE(result) << testing::describe(problems);
    return Rows{options.output, result ? dataset_block_yaml(*result) : ""};
  }();
  return rows;
}

TEST(MeasurePreflight, TheRowsFileMustExistAndMatchTheRecipe) {
  RecipeText recipe = bundled(kGptOss);
  MeasureRequest request = filled(recipe, kGptOss);
  request.env.back().second = testing::fresh_dir("preflight_no_rows") + "/rows.parquet";
  Problems missing = preflight_measure(recipe.recipe, request).problems;
  ASSERT_EQ(testing::rules_of(missing), std::vector<std::string>{"measure.rows"});
  EXPECT_EQ(missing[0].found, request.env.back().second);

  // The fixture's rows are not the recipe's: `rows verify --recipe`'s problems, at its lines.
  request.env.back().second = fixture_rows().path;
  Problems other = preflight_measure(recipe.recipe, request).problems;
  ASSERT_FALSE(other.empty());
  EXPECT_EQ(other[0].rule, "rows.row_tokens");
  EXPECT_TRUE(testing::has_rule(other, "rows.rows_sha256"));

  // --rows naming another file than the command's.
  request.rows_file = recipe.document.file;
  EXPECT_TRUE(
      testing::has_rule(preflight_measure(recipe.recipe, request).problems, "measure.rows"));
}

// The recipe with the fixture rows' own block and row length: accepted, the match noted.
TEST(MeasurePreflight, MatchingRowsAreAccepted) {
  std::string text = testing::read_source_file(kGptOss);
  std::size_t begin = text.find("    rows_sha256:");
  std::size_t end = text.find("\nlayout:");
  text = text.substr(0, begin) + fixture_rows().block + text.substr(end + 1);
  text = testing::replace_all(text, "  row_tokens: 8192\n  rows:", "  row_tokens: 64\n  rows:");
  RecipeText recipe = parsed(text, "rows-recipe.yaml");
  MeasureRequest request = filled(recipe, "rows-recipe.yaml");
  request.env.pop_back();
  request.rows_file = fixture_rows().path;
  request.submit_env = {{"SFT_DATA", fixture_rows().path}};
  MeasurePreflight preflight = preflight_measure(recipe.recipe, request);
  EXPECT_TRUE(preflight.problems.empty()) << testing::describe(preflight.problems);
  ASSERT_EQ(preflight.notes.size(), 1u);
  EXPECT_EQ(preflight.notes[0],
            "rows " + fixture_rows().path + ": 14 field(s) of workload.dataset match");
}

TEST(MeasurePreflight, EscapesControlsForMessages) {
  EXPECT_EQ(escape_controls("a\nb\tc\rd\x01\x7f"), "a\\nb\\tc\\rd\\x01\\x7f");
}

}  // namespace
}  // namespace openrecipes
