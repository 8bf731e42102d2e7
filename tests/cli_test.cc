// The binary as a user runs it: exit codes, output formats, --root, and a broken catalog.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string output;  // stdout
};

CliRun run(const std::string& arguments, const std::string& directory = testing::source_dir()) {
  testing::ShellRun result = testing::run_binary(arguments, directory, "2>/dev/null");
  return {result.exit_code, result.output};
}

// Runs the binary as `run` does, keeping its stderr instead of its stdout (a command's errors).
CliRun run_errors(const std::string& arguments) {
  testing::ShellRun result =
      testing::run_binary(arguments, testing::source_dir(), "2>&1 >/dev/null");
  return {result.exit_code, result.output};
}

// A copy of the bundled catalog's shared files in a temporary folder, without recipes.
fs::path copy_catalog(const std::string& name) {
  fs::path root = testing::fresh_dir(name);
  fs::create_directories(root / "recipes");
  fs::path source = testing::source_dir();
  for (const char* file : {"models.yaml", "gpus.yaml", "authors.yaml"}) {
    fs::copy_file(source / file, root / file);
  }
  fs::copy(source / "schema", root / "schema", fs::copy_options::recursive);
  fs::copy(source / "patches", root / "patches", fs::copy_options::recursive);
  fs::copy(source / "templates", root / "templates", fs::copy_options::recursive);
  fs::copy(source / "models", root / "models", fs::copy_options::recursive);
  fs::copy_file(source / "site.yaml", root / "site.yaml");
  return root;
}

TEST(Cli, ValidatesTheBundledCatalog) {
  CliRun result = run("validate");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "4 recipes, 0 problems\n");
}

TEST(Cli, AFileNamedTwiceIsCheckedOnce) {
  const std::string gpt = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  CliRun twice = run("validate " + gpt + " ./" + gpt + " recipes/gpt-oss-20b/../gpt-oss-20b/h200/" +
                     "attune-tp1-pp2-ep4.yaml");
  EXPECT_EQ(twice.exit_code, 0) << twice.output;
  EXPECT_EQ(twice.output, "1 recipe, 0 problems\n");
  CliRun two = run("validate " + gpt + " recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml");
  EXPECT_EQ(two.output, "2 recipes, 0 problems\n");
}

// A recipe outside the catalog found from the working folder is told which catalog that was, and
// how to name another.
TEST(Cli, ARecipeOutsideTheCatalogNamesTheCatalogAndRoot) {
  std::string copy = testing::fresh_dir("cli_outside") + "/attune-tp1-pp2-ep4.yaml";
  std::filesystem::copy_file(
      testing::source_dir() + "/recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml", copy);
  CliRun result = run("validate '" + copy + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(
      result.output.find(copy +
                         ":1:1: the file is not inside the recipes/ folder of the "
                         "catalog at " +
                         testing::source_dir() + " (give --root for the catalog it belongs to)"),
      std::string::npos)
      << result.output;
}

TEST(Cli, FindsTheRootFromASubdirectory) {
  CliRun result = run("validate", testing::source_dir() + "/recipes/gpt-oss-20b");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "4 recipes, 0 problems\n");
}

TEST(Cli, JsonOutputIsAnArray) {
  CliRun ok = run("validate --format json");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(ok.output), nlohmann::json::array());
  CliRun bad = run("validate --format json tests/fixtures/bad/wrong_types.yaml");
  EXPECT_EQ(bad.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(bad.output);
  ASSERT_TRUE(problems.is_array());
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0]["file"], "tests/fixtures/bad/wrong_types.yaml");
  for (const char* key : {"line", "column", "field", "rule", "message", "expected", "found"}) {
    EXPECT_TRUE(problems[0].contains(key)) << key;
  }
}

TEST(Cli, ProblemsPrintOnePerLineWithPositions) {
  CliRun result = run("validate tests/fixtures/bad/wrong_types.yaml tests/fixtures/bad/empty.yaml");
  EXPECT_EQ(result.exit_code, 1);
  std::regex line(R"(^tests/fixtures/bad/[a-z_]+\.yaml:\d+:\d+: .+$)");
  std::istringstream lines(result.output);
  std::string text;
  int problem_lines = 0;
  while (std::getline(lines, text)) {
    if (text.find(" recipes, ") != std::string::npos) continue;
    EXPECT_TRUE(std::regex_match(text, line)) << text;
    ++problem_lines;
  }
  EXPECT_GT(problem_lines, 2);
  EXPECT_NE(result.output.find("wrong_types.yaml:6:3: gpu.count: wrong type (expected integer, "
                               "found string \"eight\")"),
            std::string::npos)
      << result.output;
}

TEST(Cli, RecipeFilesNotNamedYamlAreReportedNotSkipped) {
  fs::path root = copy_catalog("yml_file");
  fs::create_directories(root / "recipes/gpt-oss-20b/h200");
  fs::copy_file(
      fs::path(testing::source_dir()) / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml",
      root / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yml");
  fs::create_symlink(root / "nowhere.yaml", root / "recipes/gpt-oss-20b/h200/dangling.yaml");
  ASSERT_EQ(::mkfifo((root / "recipes/gpt-oss-20b/h200/pipe.yaml").c_str(), 0644), 0);
  CliRun result = run("--root '" + root.string() + "' validate", "/");
  EXPECT_EQ(result.exit_code, 1);
  // Each named as every problem is, relative to the working directory ("/" here).
  const std::string folder =
      (root / "recipes/gpt-oss-20b/h200").lexically_relative("/").generic_string();
  EXPECT_NE(result.output.find(folder + "/attune-tp1-pp2-ep4.yml: a recipe file must end in .yaml"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find(folder + "/dangling.yaml: a link that leads nowhere"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find(folder + "/pipe.yaml: not a regular file"), std::string::npos)
      << result.output;
  fs::remove_all(root);
}

TEST(Cli, ControlCharactersNeverReachTheTerminal) {
  fs::path root = copy_catalog("control");
  std::ofstream(root / "bad.yaml") << "model: \"x\\e[2J\"\n";
  CliRun result = run("--root '" + root.string() + "' validate bad.yaml", root.string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.output.find('\x1b'), std::string::npos);
  fs::remove_all(root);
}

TEST(Cli, BuildRefusesAnInvalidCatalogAndKeepsTheOldSite) {
  fs::path root = copy_catalog("build_invalid");
  fs::create_directories(root / "recipes/gpt-oss-20b/h200");
  fs::path recipe = root / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  fs::copy_file(
      fs::path(testing::source_dir()) / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml", recipe);
  std::string quoted = "'" + root.string() + "'";
  ASSERT_EQ(run("--root " + quoted + " build", "/").exit_code, 0);
  auto page = [&] {
    std::ifstream in(root / "site/gpt-oss-20b/h200/index.html");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string before = page();
  ASSERT_FALSE(before.empty());
  std::ofstream(recipe, std::ios::app) << "surprise: 1\n";
  CliRun result = run("--root " + quoted + " build", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("surprise: unknown field"), std::string::npos) << result.output;
  EXPECT_EQ(page(), before);
  fs::remove_all(root);
}

TEST(Cli, BuildCheckListsStaleMissingAndExtraFiles) {
  fs::path root = copy_catalog("build_check");
  fs::create_directories(root / "recipes/gpt-oss-20b/h200");
  fs::copy_file(
      fs::path(testing::source_dir()) / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml",
      root / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  std::string quoted = "'" + root.string() + "'";
  ASSERT_EQ(run("--root " + quoted + " build", "/").exit_code, 0);
  EXPECT_EQ(run("--root " + quoted + " build --check", "/").exit_code, 0);
  std::ofstream(root / "site/index.html", std::ios::app) << "<!-- edited -->";
  fs::remove(root / "site/fields.html");
  std::ofstream(root / "site/stray.html") << "x";
  CliRun result = run("--root " + quoted + " build --check", "/");
  EXPECT_EQ(result.exit_code, 1);
  auto shown = [&](const char* file) {
    return (root / "site" / file).lexically_relative("/").string();
  };
  EXPECT_NE(result.output.find("stale: " + shown("index.html")), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("missing: " + shown("fields.html")), std::string::npos);
  EXPECT_NE(result.output.find("extra: " + shown("stray.html")), std::string::npos);
  // As JSON: one object, every difference with its kind.
  CliRun json = run("--root " + quoted + " build --check --format json", "/");
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json checked = nlohmann::json::parse(json.output);
  EXPECT_EQ(checked["up_to_date"], false);
  EXPECT_EQ(checked["recipes"], 1);
  std::set<std::string> kinds;
  for (const auto& d : checked["differences"]) {
    kinds.insert(d["kind"].get<std::string>() + " " + d["path"].get<std::string>());
  }
  EXPECT_EQ(kinds,
            (std::set<std::string>{"stale index.html", "missing fields.html", "extra stray.html"}))
      << json.output;
  CliRun written = run("--root " + quoted + " build --format json", "/");
  ASSERT_EQ(written.exit_code, 0) << written.output;
  EXPECT_GT(nlohmann::json::parse(written.output)["files_written"].get<int>(), 5);
  CliRun current = run("--root " + quoted + " build --check --format json", "/");
  EXPECT_EQ(current.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(current.output)["up_to_date"], true) << current.output;
  EXPECT_EQ(run("--root " + quoted + " build --check", "/").exit_code, 0);
  fs::remove_all(root);
}

TEST(Cli, BuildRefusesToReplaceAFolderItDidNotWrite) {
  fs::path root = copy_catalog("build_foreign");
  fs::create_directories(root / "notes");
  std::ofstream(root / "notes/keep.txt") << "mine";
  CliRun result =
      run("--root '" + root.string() + "' build --out '" + (root / "notes").string() + "'", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(fs::exists(root / "notes/keep.txt"));
  fs::remove_all(root);
}

TEST(Cli, BuildRefusesAnOutFolderInsideTheCatalog) {
  fs::path root = copy_catalog("build_inside");
  std::string quoted = "'" + root.string() + "'";
  EXPECT_EQ(run("--root " + quoted + " build --out " + quoted + "/recipes/site", "/").exit_code, 2);
  EXPECT_EQ(run("--root " + quoted + " build --out " + quoted, "/").exit_code, 2);
  EXPECT_EQ(run("--root " + quoted + " build --out /", "/").exit_code, 2);
  EXPECT_FALSE(fs::exists(root / "recipes/site"));
  fs::remove_all(root);
}

TEST(Cli, BuildChecksSiteYamlAndTemplates) {
  fs::path root = copy_catalog("build_settings");
  std::string quoted = "'" + root.string() + "'";
  std::ofstream(root / "site.yaml") << "repository_url: \"javascript:alert(1)//\"\nbranch: main\n";
  CliRun result = run("--root " + quoted + " build", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("site.yaml:1:1: repository_url: wrong format"), std::string::npos)
      << result.output;
  fs::copy_file(fs::path(testing::source_dir()) / "site.yaml", root / "site.yaml",
                fs::copy_options::overwrite_existing);
  fs::remove(root / "templates/_head.mustache");
  result = run("--root " + quoted + " build", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("includes '_head', which is not a partial template"),
            std::string::npos)
      << result.output;
  std::ofstream(root / "templates/_head.mustache") << "<!doctype html>\n<p>\n{{#open}}\n";
  result = run("--root " + quoted + " build", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("_head.mustache:3:1: the template does not parse"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(fs::exists(root / "site"));
  fs::remove_all(root);
}

TEST(Cli, ServeNeedsABuiltSite) {
  fs::path root = copy_catalog("serve_nothing");
  EXPECT_EQ(run("--root '" + root.string() + "' serve --port 0", "/").exit_code, 2);
  fs::remove_all(root);
}

TEST(Cli, ActiveParamsFromAModelOrAConfig) {
  CliRun by_name = run("active-params Qwen3.5-122B-A10B");
  EXPECT_EQ(by_name.exit_code, 0);
  EXPECT_NE(by_name.output.find("N = 9,008,136,192 active parameters per token"), std::string::npos)
      << by_name.output;
  EXPECT_NE(by_name.output.find("linear attention      36"), std::string::npos) << by_name.output;
  CliRun json = run("active-params gpt-oss-20b --format json");
  EXPECT_EQ(json.exit_code, 0);
  nlohmann::json parsed = nlohmann::json::parse(json.output);
  EXPECT_EQ(parsed["active_params"], 3607142400);
  EXPECT_EQ(parsed["components"][0]["name"], "attention");
  CliRun folder = run("active-params tests/fixtures/configs/llama-3.1-8b.json --format json");
  EXPECT_EQ(nlohmann::json::parse(folder.output)["active_params"], 7504658432);
  CliRun unknown = run("active-params no-such-model");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.output.find("no-such-model: neither a file nor a model in models.yaml"),
            std::string::npos)
      << unknown.output;
  CliRun bad = run("active-params tests/fixtures/bad/wrong_types.yaml");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("wrong_types.yaml:1:1: not valid JSON at byte 1"), std::string::npos)
      << bad.output;
  // A missing path is a missing file, even outside any catalog (it searched for one and asked
  // for --root).
  fs::path outside = testing::fresh_dir("active_params_outside");
  for (const char* missing : {"./no-such.json", "no-such.json", "sub/config.json"}) {
    CliRun gone = run(std::string("active-params ") + missing, outside.string());
    EXPECT_EQ(gone.exit_code, 1) << missing;
    EXPECT_NE(gone.output.find(std::string(missing) + ": no such file"), std::string::npos)
        << gone.output;
  }
}

TEST(Cli, RowsBuildPrintsTheDatasetBlockAndVerifyChecksARecipe) {
  std::string dir = testing::fresh_dir("cli_rows");
  std::string tokenizer = testing::npm_tokenizer_path("tokenizer-gptoss");
  std::string build_args = "rows build --tokenizer '" + tokenizer +
                           "' --loss-mask gpt_oss --rows 8 --row-tokens 64 --name cli-rows "
                           "tests/fixtures/rows/conversations.jsonl -o '" +
                           dir + "/rows.parquet'";
  CliRun built = run(build_args);
  ASSERT_EQ(built.exit_code, 0);
  std::smatch sha;
  ASSERT_TRUE(std::regex_search(built.output, sha,
                                std::regex("\n    rows_sha256: ([0-9a-f]{64})\n    build:\n")))
      << built.output;
  EXPECT_NE(built.output.find(
                "\n      rows: 8\n      row_tokens: 64\n      padding_tokens: 0\n      seed: 42\n"),
            std::string::npos)
      << built.output;

  CliRun verified = run("rows verify '" + dir + "/rows.parquet' --format json");
  EXPECT_EQ(verified.exit_code, 0);
  nlohmann::json summary = nlohmann::json::parse(verified.output);
  EXPECT_EQ(summary["rows_sha256"], sha[1].str());
  EXPECT_EQ(summary["rows"], 8);
  EXPECT_EQ(summary["build"]["name"], "cli-rows");

  CliRun against = run("rows verify '" + dir +
                       "/rows.parquet' --recipe recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  EXPECT_EQ(against.exit_code, 1);
  EXPECT_NE(
      against.output.find(
          "attune-tp1-pp2-ep4.yaml:43:7: workload.dataset.build.rows: does not match the rows "
          "file (expected 8, found 6400)"),
      std::string::npos)
      << against.output;

  EXPECT_EQ(run("rows verify '" + dir + "/missing.parquet'").exit_code, 1);
  EXPECT_EQ(run("rows verify tests/fixtures/rows/conversations.jsonl").exit_code, 1);
  EXPECT_EQ(
      run("rows build --loss-mask gpt_oss --name x conversations.jsonl -o x.parquet").exit_code, 2);
  EXPECT_EQ(run(testing::replace_all(build_args, "--rows 8", "--rows 0")).exit_code, 2);
  EXPECT_EQ(run(testing::replace_all(build_args, "gpt_oss", "llama")).exit_code, 2);
  EXPECT_EQ(run("rows").exit_code, 2);
  EXPECT_EQ(run("rows frob").exit_code, 2);
  EXPECT_EQ(run(testing::replace_all(build_args, "--rows 8", "--rows 010")).exit_code,
            2);  // not octal 8
  EXPECT_EQ(run(build_args + " --seed 0x2A").exit_code, 2);
  EXPECT_EQ(run(build_args + " --eos ''").exit_code, 2);
}

TEST(Cli, ScorePrintsTheResultBlockAndChecksTheRecipe) {
  const std::string log = "tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log";
  CliRun scored =
      run("score " + log + " --recipe recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  EXPECT_EQ(scored.exit_code, 0) << scored.output;
  EXPECT_NE(scored.output.find(
                "result:\n  tokens_per_s_per_gpu: 9448.16\n  usd_per_million_tokens: 0.23\n"
                "  step_time_cv_percent: 3.99\n  mfu: 0.2068\n"),
            std::string::npos)
      << scored.output;
  // Every step's time, to the microsecond, ten to a line (the recipe's optional step_times_s).
  EXPECT_NE(scored.output.find("  window_tokens: 15728640\n  step_times_s: [41.8724, 14.6339, "
                               "14.1027, 13.9573, 14.0116, 13.5993, 14.1709, 13.6214, 13.5552, "
                               "13.097,\n    13.631, "),
            std::string::npos)
      << scored.output;
  // A log against another recipe of the same GPUs: every stated figure it does not give is
  // named. (The gpt-oss log against a 32-GPU recipe now stops at the log's own world size:
  // tests/run_evidence_cli_test.cc.)
  CliRun other =
      run("score tests/fixtures/logs/slime_qwen35_122b_flex_32xh200.log --recipe "
          "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.output.find(
                "attune-tp1-pp4-ep8-rc2.yaml:76:3: result.tokens_per_s_per_gpu: does not match the "
                "log's score (expected 2289.65"),
            std::string::npos)
      << other.output;
  nlohmann::json json =
      nlohmann::json::parse(run("score " + log + " --gpus 8 --format json").output);
  EXPECT_NEAR(json["result"]["tokens_per_s_per_gpu"].get<double>(), 9448.16, 0.005);
  EXPECT_TRUE(json["result"]["mfu"].is_null());
  EXPECT_EQ(run("score " + log).exit_code, 2);  // no GPU count
  EXPECT_EQ(run("score tests/fixtures/rows/conversations.jsonl --gpus 8").exit_code, 1);
  EXPECT_EQ(run("score " + log + " --gpus 8 --window 5 25").exit_code, 1);  // steps 20-25 missing
  EXPECT_EQ(run("score " + log + " --gpus 8 --window 19 5").exit_code, 2);
}

TEST(Cli, ScoreWithFormatJsonPrintsABadLogAsAJsonProblemArray) {
  fs::path dir = testing::fresh_dir("score_bad_log");
  fs::create_directories(dir);
  std::string log = (dir / "cut.log").string();
  std::ofstream(log)
      << " iteration 1/ 20 | elapsed time per iteration (ms): 5000.0 | lm loss: 2.0 |\n"
         " iteration 2/ 20 | elapsed time per iteration (ms): 5000.0 | lm loss:";
  CliRun json = run_errors("score '" + log + "' --gpus 8 --format json");
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(json.output);
  ASSERT_TRUE(problems.is_array()) << json.output;
  ASSERT_EQ(problems.size(), 1u) << json.output;
  EXPECT_EQ(problems[0]["file"], log);
  EXPECT_EQ(problems[0]["line"], 2);
  EXPECT_EQ(problems[0]["field"], "lm loss");
  EXPECT_EQ(problems[0]["rule"], "log.number");
  CliRun text = run_errors("score '" + log + "' --gpus 8");
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.output.find(log + ":2:"), std::string::npos) << text.output;
  // A series that does not read: converge and check print it the same way.
  CliRun converge = run_errors("converge '" + log + "' '" + log + "' --format json");
  EXPECT_EQ(converge.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(converge.output)[0]["file"], log) << converge.output;
  CliRun check =
      run_errors("check recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml --candidate-log '" + log +
                 "' --reference-log '" + log + "' --format json");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(check.output)[0]["rule"], "log.number") << check.output;
  // A rows file that is not there: one problem, as JSON with --format json.
  CliRun rows = run_errors("rows verify '" + (dir / "absent.parquet").string() + "' --format json");
  EXPECT_EQ(rows.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(rows.output)[0]["message"], "no such file") << rows.output;
}

TEST(Cli, ConvergeComparesTwoRunsAndFailsOnADifference) {
  const std::string candidate = "tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log";
  CliRun pass = run("converge " + candidate +
                    " tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm.log");
  EXPECT_EQ(pass.exit_code, 0) << pass.output;
  EXPECT_NE(pass.output.find("  convergence:\n    steps: 20\n    result: pass\n"),
            std::string::npos)
      << pass.output;
  // Both arms' losses at every step, as the logs print them (the recipe's optional `losses`).
  EXPECT_NE(pass.output.find("    losses:\n      candidate: [1.392882, 1.325411, 1.253102,"),
            std::string::npos)
      << pass.output;
  nlohmann::json passed = nlohmann::json::parse(
      run("converge " + candidate +
          " tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm.log --format json")
          .output);
  EXPECT_EQ(passed["losses"]["candidate"].size(), 20u);
  EXPECT_EQ(passed["losses"]["reference"].size(), 20u);
  // Golden values every fifth step cannot give every step's loss: the block says so.
  CliRun sampled =
      run("converge " + candidate +
          " tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm_golden_values.json");
  EXPECT_NE(sampled.output.find("    # losses: the runs do not both log a finite loss at every "
                                "step from 0\n"),
            std::string::npos)
      << sampled.output;
  CliRun fail = run("converge " + candidate +
                    " tests/fixtures/logs/slime_qwen35_122b_flex_32xh200.log --format json");
  EXPECT_EQ(fail.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(fail.output)["result"], "fail");
  EXPECT_EQ(run("converge " + candidate + " no/such.log").exit_code, 1);
  EXPECT_EQ(run("converge " + candidate + " " + candidate + " --min-correlation 2").exit_code, 2);
  for (const char* flag : {"--min-correlation", "--final-loss-tolerance", "--max-outlier-ratio",
                           "--outlier-sigmas", "--high-loss-tolerance", "--skip-first"}) {
    EXPECT_EQ(run("converge " + candidate + " " + candidate + " " + flag + " nan").exit_code, 2)
        << flag;
  }
}

TEST(Cli, CheckComposesTheCorrectnessBlock) {
  const std::string qwen = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8";
  // Classified against the reference; convergence without logs is the recipe's statement, so the
  // result is unverified (exit 1) until --accept-stated takes it.
  CliRun flex = run("check " + qwen + "-flex.yaml --reference " + qwen + ".yaml");
  EXPECT_EQ(flex.exit_code, 1) << flex.output;
  EXPECT_NE(
      flex.output.find(
          "configuration    pass       recomputed same-math swaps covered by passed component "
          "tests: dispatcher"),
      std::string::npos)
      << flex.output;
  EXPECT_NE(flex.output.find("convergence      unverified as stated "), std::string::npos)
      << flex.output;
  EXPECT_NE(flex.output.find("correctness:\n  result: unverified\n"), std::string::npos);
  CliRun accepted =
      run("check " + qwen + "-flex.yaml --reference " + qwen + ".yaml --accept-stated");
  EXPECT_EQ(accepted.exit_code, 0) << accepted.output;
  EXPECT_NE(accepted.output.find("result: pass (stated, not verified: convergence taken from the "
                                 "recipe as stated, --accept-stated)\n"),
            std::string::npos)
      << accepted.output;
  EXPECT_NE(accepted.output.find("correctness:\n  result: pass\n"), std::string::npos);
  // The other way round, the base recipe swaps the dispatcher back with no component test of its
  // own: a failure --accept-stated does not lift.
  CliRun base = run("check " + qwen + ".yaml --reference " + qwen +
                    "-flex.yaml --accept-stated --format json");
  EXPECT_EQ(base.exit_code, 1);
  nlohmann::json parsed = nlohmann::json::parse(base.output);
  EXPECT_EQ(parsed["result"], "fail");
  EXPECT_EQ(parsed["parts"][2]["name"], "component tests");
  EXPECT_FALSE(parsed["parts"][2]["evidence_passes"]);
  EXPECT_EQ(parsed["parts"][2]["status"], "fail");
  // Convergence recomputed from the logs: a curve that is not the reference's fails the check.
  const std::string gpt = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  const std::string logs = "tests/fixtures/logs/";
  const std::string arms = " --candidate-log " + logs +
                           "megatron_lm_gpt_oss_20b_8xh200.log --reference-log " + logs +
                           "megatron_lm_gpt_oss_20b_reference_arm.log";
  CliRun converged = run("check " + gpt + arms);
  EXPECT_NE(converged.output.find("convergence      pass       recomputed 20 steps"),
            std::string::npos)
      << converged.output;
  EXPECT_NE(converged.output.find("    losses:\n      candidate: [1.392882, "), std::string::npos)
      << converged.output;
  // The gpt-oss recipe's reference is Megatron-Bridge's recipe, not a file here: configuration
  // stays the recipe's statement.
  EXPECT_EQ(converged.exit_code, 1) << converged.output;
  EXPECT_NE(converged.output.find("configuration    unverified as stated "), std::string::npos);
  CliRun diverged = run("check " + gpt + " --candidate-log " + logs +
                        "megatron_lm_gpt_oss_20b_8xh200.log --reference-log " + logs +
                        "slime_qwen35_122b_flex_32xh200.log");
  EXPECT_EQ(diverged.exit_code, 1);
  EXPECT_NE(diverged.output.find("  result: fail"), std::string::npos);
  EXPECT_EQ(run("check " + gpt + " --candidate-log x.log").exit_code, 2);
  EXPECT_EQ(
      run("check " + gpt + " --reference " + logs + "megatron_lm_gpt_oss_20b_8xh200.log").exit_code,
      1);
}

TEST(Cli, CheckWithoutEvidenceIsUnverified) {
  const std::string gpt = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  CliRun text = run("check " + gpt);
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_NE(text.output.find("convergence      unverified as stated "), std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("\nresult: unverified (not checked by this command: configuration, "
                             "component tests, convergence;"),
            std::string::npos)
      << text.output;
  EXPECT_EQ(text.output.find("\nresult: pass"), std::string::npos) << text.output;
  EXPECT_EQ(text.output.find("correctness:\n  result: pass"), std::string::npos) << text.output;
  CliRun json = run("check " + gpt + " --format json");
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json parsed = nlohmann::json::parse(json.output);
  EXPECT_EQ(parsed["result"], "unverified");
  EXPECT_EQ(parsed["parts"][3]["status"], "unverified");
  EXPECT_EQ(parsed["stated_parts"].size(), 3u);
  // --accept-stated: a pass that says, in text and JSON, what it rests on.
  CliRun accepted = run("check " + gpt + " --accept-stated --format json");
  EXPECT_EQ(accepted.exit_code, 0) << accepted.output;
  nlohmann::json taken = nlohmann::json::parse(accepted.output);
  EXPECT_EQ(taken["result"], "pass");
  EXPECT_EQ(taken["result_text"],
            "pass (stated, not verified: configuration, component tests, convergence taken from "
            "the recipe as stated, --accept-stated)");
  EXPECT_TRUE(taken["accept_stated"]);
}

TEST(Cli, CheckWithEveryInputGivenIsVerified) {
  // Every part recomputed: the reference command (here the recipe's own command in a file: no
  // argument differs) and both logs. The result is a plain pass, with no stated part.
  const std::string gpt = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  const std::string logs = "tests/fixtures/logs/";
  fs::path reference = fs::path(testing::fresh_dir("check_verified")) / "reference.sh";
  RecipeReport report =
      validate_recipe_file(testing::bundled_catalog(), testing::source_dir() + "/" + gpt);
  ASSERT_TRUE(report.recipe) << testing::describe(report.problems);
  std::ofstream(reference) << report.recipe->run;
  CliRun verified =
      run("check " + gpt + " --reference " + reference.string() + " --candidate-log " + logs +
          "megatron_lm_gpt_oss_20b_8xh200.log --reference-log " + logs +
          "megatron_lm_gpt_oss_20b_reference_arm.log --format json");
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  nlohmann::json parsed = nlohmann::json::parse(verified.output);
  EXPECT_EQ(parsed["result"], "pass");
  EXPECT_EQ(parsed["result_text"], "pass");
  EXPECT_EQ(parsed["summary"], "passed; every part recomputed");
  EXPECT_TRUE(parsed["stated_parts"].empty());
  for (const auto& part : parsed["parts"]) EXPECT_EQ(part["status"], "pass") << part;
}

// An unknown, missing or misplaced command is named as COMMAND with the commands it could be
// (CLI11 said "A subcommand is required"; `--format json validate` read "json" as the command).
TEST(Cli, UnknownCommandIsNamed) {
  const std::string commands =
      "COMMAND: expected one of validate, build, serve, active-params, tokenize, render, rows, ";
  for (const auto& [arguments, says] : std::vector<std::pair<std::string, std::string>>{
           {"bogus", "openrecipes: " + commands},
           {"", "openrecipes: " + commands},
           {"--root . --explain validate", "openrecipes: " + commands},
           {"rows",
            "openrecipes rows: COMMAND: expected one of build, verify (see openrecipes "
            "rows --help), found none"},
           {"rows bogus",
            "openrecipes rows: COMMAND: expected one of build, verify (see "
            "openrecipes rows --help), found 'bogus'"}}) {
    CliRun r = run_errors(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.output;
    EXPECT_TRUE(r.output.starts_with(says)) << arguments << ": " << r.output;
  }
  EXPECT_NE(run_errors("").output.find(", found none"), std::string::npos);
  EXPECT_NE(run_errors("--format json validate").output.find("found '--format' before it"),
            std::string::npos);
  // Options of the top level, and help, still reach CLI11.
  EXPECT_EQ(run("--root . validate").exit_code, 0);
  EXPECT_EQ(run("--root=. validate").exit_code, 0);
  EXPECT_EQ(run("--help").exit_code, 0);
  EXPECT_EQ(run("rows --help").exit_code, 0);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("validate --format xml").exit_code, 2);
  EXPECT_EQ(run("no-such-command").exit_code, 2);
  EXPECT_EQ(run("").exit_code, 2);
  EXPECT_EQ(run("--root /nonexistent validate").exit_code, 2);
  EXPECT_EQ(run("validate", "/").exit_code, 2);  // no catalog above /
}

// CLI11 hands an option the next word whatever it is: a missing value must not swallow the next
// flag (`build --out --check` wrote a site into a folder named "--check" and exited 0), and an
// empty value must not fall back to the default.
TEST(Cli, AnOptionsValueIsNeverAFlagNorEmpty) {
  fs::path swallowed_into = fs::path(testing::source_dir()) / "--check";
  CliRun swallowed = run_errors("build --out --check");
  EXPECT_EQ(swallowed.exit_code, 2) << swallowed.output;
  EXPECT_NE(swallowed.output.find("--out: expected a value, found the flag '--check'"),
            std::string::npos)
      << swallowed.output;
  EXPECT_FALSE(fs::exists(swallowed_into));
  for (const std::string& command :
       {std::string("build --out ''"), std::string("--root '' validate"),
        std::string("plan --model '' --gpu H200 --gpus 8"),
        std::string("plan --model gpt-oss-20b --gpu -x --gpus 8")}) {
    CliRun r = run_errors(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("expected a value, found"), std::string::npos) << command << r.output;
  }
  // A negative number is a value (refused here by the option's own range, not as a flag).
  CliRun negative = run_errors("score no-such.log --window -1 19");
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(
      negative.output.find("--window: expected a whole number from 0 to 16777216, found '-1'"),
      std::string::npos)
      << negative.output;
}

// `arguments` (with --format json) exit 2 with one problem of rule `usage` whose field, expected
// and found are the ones given.
void expect_usage_problem(const std::string& arguments, const std::string& field,
                          const std::string& expected, const std::string& found) {
  CliRun json = run_errors(arguments);
  EXPECT_EQ(json.exit_code, 2) << arguments;
  nlohmann::json refused = nlohmann::json::parse(json.output);
  ASSERT_TRUE(refused.is_array() && refused.size() == 1u) << json.output;
  EXPECT_EQ(refused[0]["rule"], "usage");
  EXPECT_EQ(refused[0]["field"], field);
  EXPECT_EQ(refused[0]["expected"], expected);
  EXPECT_EQ(refused[0]["found"], found);
}

// The errors found before a command runs (no catalog, a --root that is not one, an unknown
// command) come as the one-problem JSON array too when the command line asks for JSON.
TEST(Cli, ErrorsBeforeTheCommandRunsAreJsonWithFormatJson) {
  expect_usage_problem("--root /nonexistent validate --format json", "--root",
                       "a catalog (a folder holding models.yaml and recipes/)", "'/nonexistent'");
  for (const auto& [arguments, directory] : std::vector<std::pair<std::string, std::string>>{
           {"bogus --format json", testing::source_dir()}, {"validate --format json", "/"}}) {
    testing::ShellRun r = testing::run_binary(arguments, directory, "2>&1 >/dev/null");
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.output;
    nlohmann::json problems = nlohmann::json::parse(r.output, nullptr, false);
    ASSERT_TRUE(problems.is_array() && problems.size() == 1u) << arguments << ": " << r.output;
    EXPECT_EQ(problems[0]["rule"], "usage") << r.output;
  }
  CliRun text = run_errors("--root /nonexistent validate");
  EXPECT_TRUE(text.output.starts_with("openrecipes: --root: expected a catalog")) << text.output;
}

// Numbers are read as written in decimal, and a refused one is named with what was expected:
// CLI11 alone read "010" as octal 8 and "0x10" as 16, called "8abc" out of range, and let NaN
// through its range checks.
TEST(Cli, NumbersAreDecimalAndARefusalSaysWhatWasExpected) {
  const std::string plan = "plan --model gpt-oss-20b --gpu H200 ";
  for (const char* gpus : {"8abc", "010", "0x10", "1e1", "8.0", "0", "2097152", "-8", "+8"}) {
    CliRun r = run_errors(plan + "--gpus " + gpus);
    EXPECT_EQ(r.exit_code, 2) << gpus << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("--gpus: expected a whole number from 1 to 1048576, "
                                        "found '") +
                            gpus + "'"),
              std::string::npos)
        << r.output;
  }
  for (const char* headroom : {"nan", "inf", "0x0.1p0", "0.95", "-0.1", "0.1x", "."}) {
    CliRun r = run_errors(plan + "--gpus 8 --headroom " + headroom);
    EXPECT_EQ(r.exit_code, 2) << headroom << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("--headroom: expected a number from 0 to 0.9, found '") +
                            headroom + "'"),
              std::string::npos)
        << r.output;
  }
  CliRun export_run = run_errors(
      "export --to megatron-lm --model gpt-oss-20b --gpu H200 --gpus 8 --layout EP8 "
      "--seq-length 0x100");
  EXPECT_EQ(export_run.exit_code, 2) << export_run.output;
  EXPECT_NE(export_run.output.find("--seq-length: expected a whole number from 1 to 16777216"),
            std::string::npos)
      << export_run.output;
  // With --format json the refusal is a problem with its field, expected and found.
  expect_usage_problem(plan + "--gpus 0x10 --format json", "--gpus",
                       "a whole number from 1 to 1048576", "'0x10'");
  // What a person writes still reads: an exponent, a point without a leading zero.
  EXPECT_EQ(run(plan + "--gpus 8 --top 1 --headroom 5e-2").exit_code, 0);
  EXPECT_EQ(run(plan + "--gpus 8 --top 1 --headroom .2").exit_code, 0);
  CliRun converge = run_errors("converge a.log b.log --outlier-sigmas 0");
  EXPECT_EQ(converge.exit_code, 2) << converge.output;
  EXPECT_NE(converge.output.find("--outlier-sigmas: expected a number above 0, found '0'"),
            std::string::npos)
      << converge.output;
}

// CLI11's own usage errors (an unknown option, a stray argument, a switch's value that is not
// true or false, an option without its value, a value outside its choices) are worded as the
// commands word theirs, name the command, exit 2, and with --format json fill the problem's
// field, expected and found.
TEST(Cli, UsageErrorsOfTheParserNameTheFlagWhatWasExpectedAndWhatWasFound) {
  struct Case {
    std::string arguments;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"plan --bogus",
       "openrecipes plan: --bogus: expected one of the command's options (see "
       "openrecipes plan --help), found '--bogus'"},
      {"plan extra words",
       "openrecipes plan: unexpected arguments 'extra words' (see openrecipes "
       "plan --help)"},
      {"plan --tp-comm-overlap=garbage",
       "--tp-comm-overlap: expected true or false (or the flag alone), found 'garbage'"},
      {"plan --gpus", "--gpus: expected a value (INT in [1 - 1048576]) after it, found none"},
      {"validate --format xml",
       "openrecipes validate: --format: expected one of text, json, "
       "found 'xml'"},
      {"plan --model gpt-oss-20b --gpu H200 --gpus 8 --top 1 --top 2",
       "openrecipes plan: --top: expected one value (give it once), found 2"},
      {"score --window 5 19 --window 6 18 x.log",
       "openrecipes score: --window: expected 2 values (give it once), found 4"},
      {"score --window 5 x.log",
       "openrecipes score: --window: expected at least 2 values, found 1"},
      // After "--" every word is an argument, even one that looks like an option.
      {"plan --model gpt-oss-20b --gpu H200 --gpus 8 -- --format json",
       "openrecipes plan: unexpected arguments '--format json' (see openrecipes plan --help)"},
      {"tokenize --tokenizer x -- a b", "openrecipes tokenize: unexpected argument 'b' (see"},
  };
  for (const Case& c : cases) {
    CliRun r = run_errors(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.arguments << ": " << r.output;
    EXPECT_EQ(r.output.find("The following argument"), std::string::npos) << r.output;
  }
  expect_usage_problem("plan --format json --tp-comm-overlap=garbage", "--tp-comm-overlap",
                       "true or false (or the flag alone)", "'garbage'");
  // An unknown option is what was found, not the words after it (its value, perhaps).
  CliRun with_value = run_errors("plan --bogus=3 extra");
  EXPECT_NE(with_value.output.find("--bogus: expected one of the command's options (see "
                                   "openrecipes plan --help), found '--bogus=3'\n"),
            std::string::npos)
      << with_value.output;
  // After "--" the words are arguments: a file named --format asks for no JSON.
  CliRun after_dashes = run_errors("validate --bogus -- --format json");
  EXPECT_TRUE(after_dashes.output.starts_with("openrecipes validate: --bogus: expected"))
      << after_dashes.output;
  expect_usage_problem("plan --format json --gpus 8 --gpus 16", "--gpus",
                       "one value (give it once)", "2");
  expect_usage_problem("validate --format json --bogus", "--bogus",
                       "one of the command's options (see openrecipes validate --help)",
                       "'--bogus'");
}

// A positional argument names a file, a folder or a catalog entry, so an empty or blank one is a
// usage error that names the argument (`validate ''` said "No such file", with no path to show);
// tokenize's TEXT is any text and may be empty.
TEST(Cli, AnEmptyOrBlankPathIsAUsageErrorNamingTheArgument) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"validate ", "FILE"},
      {"validate recipes/gpt-oss-20b ", "FILE"},
      {"check ", "RECIPE"},
      {"score ", "LOG"},
      {"rows verify ", "ROWS"},
      {"active-params ", "PATH|MODEL"},
      {"finalize ", "DRAFT"},
      {"classify recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml ", "REFERENCE"},
  };
  for (const auto& [command, argument] : cases) {
    for (const auto& [value, found] : std::vector<std::pair<std::string, std::string>>{
             {"''", "an empty text"}, {"'  '", "only blanks"}}) {
      CliRun r = run_errors(command + value);
      EXPECT_EQ(r.exit_code, 2) << command << value << ": " << r.output;
      EXPECT_NE(r.output.find(argument + ": expected a value, found " + found), std::string::npos)
          << command << value << ": " << r.output;
    }
  }
  expect_usage_problem("validate '' --format json", "FILE", "a value", "an empty text");
  CliRun text = run_errors("tokenize --tokenizer no/such/tokenizer.json ''");
  EXPECT_EQ(text.output.find("TEXT:"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("no/such/tokenizer.json"), std::string::npos) << text.output;
}

TEST(Cli, MissingFileExitsOne) {
  CliRun result = run("validate no/such.yaml");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("no/such.yaml: no such file"), std::string::npos) << result.output;
}

TEST(Cli, RecipeFiledUnderTheWrongModelFails) {
  fs::path root = copy_catalog("wrong_place");
  fs::create_directories(root / "recipes/qwen3.5-122b-a10b/h200");
  fs::copy_file(
      fs::path(testing::source_dir()) / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml",
      root / "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp2-ep4.yaml");
  CliRun result = run("--root '" + root.string() + "' validate", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("model: the file's path disagrees with its model"),
            std::string::npos)
      << result.output;
  fs::remove_all(root);
}

TEST(Cli, BrokenSharedFileIsReportedAndStopsTheCheck) {
  fs::path root = copy_catalog("broken_gpus");
  std::ofstream(root / "gpus.yaml", std::ios::app) << "  - type: H200\n    slug: h200x\n";
  CliRun result = run("--root '" + root.string() + "' validate", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("gpus.yaml:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("missing required field"), std::string::npos) << result.output;
  fs::remove_all(root);
}

// A model's slug is a folder at the site's top, beside index.html and recipes/: one that looks
// like a file or is `recipes` would collide when the site is built, so validate refuses it.
TEST(Cli, AModelSlugThatCollidesWithTheSiteIsRefused) {
  for (const std::string slug : {"index.html", "style.css", "recipes"}) {
    fs::path root = copy_catalog("site_slug");
    fs::copy(root / "models" / "llama3-8b", root / "models" / slug);
    std::ofstream(root / "models.yaml", std::ios::app)
        << "  - name: Clash\n    slug: " << slug
        << "\n    family: Llama\n    hf_repo: a/b\n    notes: x\n";
    CliRun result = run("--root '" + root.string() + "' validate", "/");
    EXPECT_EQ(result.exit_code, 1) << slug;
    int line = 0;
    std::istringstream lines(testing::read_source_file("models.yaml"));
    for (std::string l; std::getline(lines, l);) ++line;
    std::string expected =
        "models.yaml:" + std::to_string(line + 2) + ":5: models[9].slug: the slug names";
    EXPECT_NE(result.output.find(expected), std::string::npos) << slug << "\n" << result.output;
    EXPECT_NE(result.output.find("found " + slug + ")"), std::string::npos) << result.output;
    fs::remove_all(root);
  }
}

// A config without a Hugging Face revision must say where it was copied from.
TEST(Cli, AModelWithoutARevisionNeedsTheSourceOfItsConfig) {
  fs::path root = copy_catalog("config_source");
  fs::remove(root / "models" / "llama3-8b" / "source.yaml");
  CliRun result = run("--root '" + root.string() + "' validate", "/");
  EXPECT_EQ(result.exit_code, 1);
  int line = testing::line_containing("models.yaml", "slug: llama3-8b");
  EXPECT_NE(result.output.find("models.yaml:" + std::to_string(line) + ":5: models[2].revision:"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("models/llama3-8b/source.yaml"), std::string::npos) << result.output;
  std::ofstream(root / "models" / "llama3-8b" / "source.yaml") << "";  // empty says nothing
  EXPECT_EQ(run("--root '" + root.string() + "' validate", "/").exit_code, 1);
  fs::remove_all(root);
}

TEST(Cli, DuplicateGpuTypeIsReported) {
  fs::path root = copy_catalog("duplicate_gpu");
  std::string text = testing::read_source_file("gpus.yaml");
  std::size_t at = text.find("  - type: H200");
  std::string entry = text.substr(at, text.find("  - type: B200") - at);
  std::ofstream(root / "gpus.yaml", std::ios::app)
      << testing::replace_all(entry, "slug: h200", "slug: h200b");
  CliRun result = run("--root '" + root.string() + "' validate", "/");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("gpus[6].type: appears twice"), std::string::npos) << result.output;
  fs::remove_all(root);
}

// copy_catalog with the published-measurement dataset, its first row's global batch (4096) made
// 4095, which MBS x DP does not divide.
fs::path catalog_with_a_broken_measurement_row(const std::string& name) {
  fs::path root = copy_catalog(name);
  fs::create_directories(root / "data" / "measurements");
  fs::copy_file(fs::path(testing::source_dir()) / "data/measurements/models.yaml",
                root / "data/measurements/models.yaml");
  std::string rows = testing::read_source_file("data/measurements/megatron-bridge.yaml");
  rows.replace(rows.find("    gbs: 4096\n"), 14, "    gbs: 4095\n");
  std::ofstream(root / "data/measurements/megatron-bridge.yaml") << rows;
  return root;
}

TEST(Cli, ValidateChecksThePublishedMeasurementsAtFileLineAndField) {
  fs::path root = catalog_with_a_broken_measurement_row("broken_measurements");
  CliRun result = run("--root '" + root.string() + "' validate", "/");
  EXPECT_EQ(result.exit_code, 1);
  int line = testing::line_containing("data/measurements/megatron-bridge.yaml", "gbs: 4096");
  std::string expected = "data/measurements/megatron-bridge.yaml:" + std::to_string(line) +
                         ":5: rows[0].gbs: MBS x DP does not divide GBS";
  EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  fs::remove_all(root);
}

// A broken dataset is the planner's error, said once; it is not a recipe "left out of the
// calibration" (plan printed it both ways, as a warning first).
TEST(Cli, PlanRefusesABrokenDatasetAsAnErrorNotAWarning) {
  fs::path root = catalog_with_a_broken_measurement_row("plan_broken_measurements");
  fs::copy(fs::path(testing::source_dir()) / "recipes", root / "recipes",
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::copy(fs::path(testing::source_dir()) / "rules", root / "rules", fs::copy_options::recursive);
  testing::ShellRun result = testing::run_binary(
      "--root '" + root.string() + "' plan --model gpt-oss-20b --gpu H200 --gpus 8 --top 1", "/",
      "2>&1");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const std::string problem = "rows[0].gbs: MBS x DP does not divide GBS";
  const std::size_t first = result.output.find(problem);
  ASSERT_NE(first, std::string::npos) << result.output;
  EXPECT_EQ(result.output.find(problem, first + 1), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("warning"), std::string::npos) << result.output;
  fs::remove_all(root);
}

// models.yaml and the other shared files, and the dataset's files, are checked as what they are
// when named, not as recipes (which listed every missing recipe field against them).
TEST(Cli, ValidateChecksANamedCatalogDataFileAsWhatItIs) {
  CliRun models = run("validate models.yaml gpus.yaml");
  EXPECT_EQ(models.exit_code, 0) << models.output;
  EXPECT_NE(models.output.find("0 recipes, 0 problems"), std::string::npos) << models.output;
  fs::path root = catalog_with_a_broken_measurement_row("named_data_files");
  const std::string recipe = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  fs::create_directories((root / recipe).parent_path());
  fs::copy_file(fs::path(testing::source_dir()) / recipe, root / recipe);
  fs::copy(fs::path(testing::source_dir()) / "rules", root / "rules", fs::copy_options::recursive);
  CliRun named = run("--root '" + root.string() + "' validate '" +
                         (root / "data/measurements/megatron-bridge.yaml").string() + "' '" +
                         (root / recipe).string() + "'",
                     "/");
  EXPECT_EQ(named.exit_code, 1) << named.output;
  EXPECT_NE(named.output.find("rows[0].gbs: MBS x DP does not divide GBS"), std::string::npos)
      << named.output;
  EXPECT_EQ(named.output.find("missing required field"), std::string::npos) << named.output;
  EXPECT_NE(named.output.find("1 recipe, 1 problem"), std::string::npos) << named.output;
  fs::remove_all(root);
}

// Two runs that differ only in where the layers sit on the pipeline stages are the same
// training on other hardware placement: execution only, like a PP size change.
TEST(Cli, ClassifyCallsAPipelineLayoutChangeExecution) {
  fs::path dir = testing::fresh_dir("classify_layout");
  auto command = [](const std::string& layout) {
    return "python3 pretrain_gpt.py --pipeline-model-parallel-size 4 "
           "--pipeline-model-parallel-layout '" +
           layout + "' --seed 1\n";
  };
  std::ofstream(dir / "even.sh") << command("Et*12|t*12|t*12|t*12L");
  std::ofstream(dir / "moved.sh") << command("Et*11|t*12|t*12|t*13L");
  CliRun result = run("classify --format json '" + (dir / "moved.sh").string() + "' '" +
                      (dir / "even.sh").string() + "'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  nlohmann::json json = nlohmann::json::parse(result.output);
  EXPECT_EQ(json["verdict"]["id"], "execution_only");
  ASSERT_EQ(json["differences"].size(), 1u) << result.output;
  const nlohmann::json& layout = json["differences"][0];
  EXPECT_EQ(layout["name"], "pipeline_model_parallel_layout");
  EXPECT_EQ(layout["class"], "execution");
  EXPECT_EQ(layout["reference"], "Et*12|t*12|t*12|t*12L");
  EXPECT_EQ(layout["candidate"], "Et*11|t*12|t*12|t*13L");
}

TEST(Cli, ClassifyClassesTheSeedPairsAndFailsUnknownArguments) {
  const std::string base = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";
  CliRun flex = run("classify recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml " + base);
  EXPECT_EQ(flex.exit_code, 0) << flex.output;
  EXPECT_TRUE(std::regex_search(
      flex.output, std::regex("same-math swap +moe_token_dispatcher_type +\\(absent\\) +flex")))
      << flex.output;
  EXPECT_NE(flex.output.find(
                "verdict         same-math swaps covered by passed component tests: dispatcher\n"),
            std::string::npos)
      << flex.output;

  CliRun rc2 = run(
      "classify --format json recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml " + base);
  EXPECT_EQ(rc2.exit_code, 0) << rc2.output;
  nlohmann::json result = nlohmann::json::parse(rc2.output);
  EXPECT_EQ(result["verdict"]["id"], "execution_only");
  EXPECT_EQ(result["verdict"]["passes"], true);
  EXPECT_EQ(result["candidate"]["kind"], "recipe");
  EXPECT_EQ(result["rules"], "rules/arguments.yaml");
  ASSERT_EQ(result["differences"].size(), 3u);
  const nlohmann::json& run_length = result["differences"][2];
  EXPECT_EQ(run_length["name"], "num_rollout");
  EXPECT_EQ(run_length["class"], "benign");
  EXPECT_EQ(run_length["reference"], "14");
  EXPECT_EQ(run_length["candidate"], "20");
  EXPECT_EQ(run_length["candidate_spelling"], "--num-rollout");
  EXPECT_EQ(run_length["reference_line"],
            testing::line_containing("recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml",
                                     "--num-rollout 14"));  // the line in the recipe file
  for (const char* key : {"class", "kind", "name", "rule", "reference", "candidate",
                          "reference_line", "candidate_line", "reason"}) {
    EXPECT_TRUE(run_length.contains(key)) << key;
  }
  EXPECT_TRUE(result["component_tests"].is_array());
  EXPECT_TRUE(result["notes"].is_array());

  // A command file with an argument no rule knows fails; so does a bare command's untested swap.
  fs::path dir = testing::fresh_dir("classify");
  std::ofstream(dir / "reference.sh")
      << "python3 train.py --tensor-model-parallel-size 2 --seed 1\n";
  std::ofstream(dir / "unknown.sh")
      << "python3 train.py --tensor-model-parallel-size 4 --seed 1 --made-up 3\n";
  std::ofstream(dir / "swap.sh")
      << "python3 train.py --tensor-model-parallel-size 2 --seed 1 --attention-backend fused\n";
  CliRun unknown = run("classify --format json '" + (dir / "unknown.sh").string() + "' '" +
                       (dir / "reference.sh").string() + "'");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  nlohmann::json failed = nlohmann::json::parse(unknown.output);
  EXPECT_EQ(failed["verdict"]["id"], "unknown_arguments");
  EXPECT_EQ(failed["verdict"]["passes"], false);
  EXPECT_EQ(failed["differences"][0]["class"], "unknown");
  EXPECT_EQ(failed["differences"][0]["rule"], nullptr);
  CliRun swap = run("classify '" + (dir / "swap.sh").string() + "' '" +
                    (dir / "reference.sh").string() + "'");
  EXPECT_EQ(swap.exit_code, 1) << swap.output;
  EXPECT_NE(swap.output.find("verdict         needs component tests: attention\n"),
            std::string::npos)
      << swap.output;

  // Usage errors exit 2; a missing file or a broken rules file exits 1 naming file and line.
  EXPECT_EQ(run("classify " + base).exit_code, 2);
  EXPECT_EQ(run("classify " + base + " " + base + " --format xml").exit_code, 2);
  CliRun missing = run("classify no/such.sh " + base);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("no/such.sh: no such file"), std::string::npos) << missing.output;
  fs::path root = copy_catalog("classify_rules");
  fs::create_directories(root / "rules");
  std::ofstream(root / "rules/arguments.yaml")
      << "arguments:\n- name: seed\n  class: sometimes\n"
         "  spellings: [--seed]\n  reason: seed\nenvironment: []\n";
  CliRun broken = run(
      "classify '" + (dir / "unknown.sh").string() + "' '" + (dir / "reference.sh").string() + "'",
      root.string());
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.output.find("rules/arguments.yaml:3:3: arguments[0].class:"), std::string::npos)
      << broken.output;
  fs::remove_all(root);
}

TEST(Cli, ClassifyNamesMalformedOrMissingCommandsAndNotesTheOthers) {
  const std::string reference = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";
  fs::path dir = testing::fresh_dir("classify_problems");
  std::ofstream(dir / "unterminated.sh") << "python3 train.py \\\n  --lr \"1e-5 --seed 1\n";
  std::ofstream(dir / "empty.sh") << "";
  std::ofstream(dir / "binary.sh") << std::string("\xff\xfe\x00x", 4);
  std::ofstream(dir / "two.sh") << "python3 a.py --seed 1\npython3 a.py --seed 2\n";
  std::ofstream(dir / "ref.sh") << "mkdir -p /out --verbose\npython3 train.py --seed 1 --lr 1e-5\n";
  auto classify = [&](const std::string& file, const std::string& against) {
    return run("classify '" + (dir / file).string() + "' '" + against + "'");
  };
  CliRun unterminated = classify("unterminated.sh", reference);
  EXPECT_EQ(unterminated.exit_code, 1);
  EXPECT_NE(
      unterminated.output.find("unterminated.sh:2:1: the \" quote opened here is never closed"),
      std::string::npos)
      << unterminated.output;
  CliRun empty = classify("empty.sh", reference);
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.output.find("empty.sh: no command found"), std::string::npos) << empty.output;
  CliRun binary = classify("binary.sh", reference);
  EXPECT_EQ(binary.exit_code, 1);
  EXPECT_NE(binary.output.find("binary.sh:1:1: not text"), std::string::npos) << binary.output;
  EXPECT_EQ(binary.output.find("\xff"), std::string::npos);
  CliRun two = classify("two.sh", (dir / "ref.sh").string());
  EXPECT_EQ(two.exit_code, 1);
  EXPECT_NE(two.output.find("several training commands (lines 1, 2)"), std::string::npos)
      << two.output;
  CliRun noted = classify("ref.sh", (dir / "ref.sh").string());
  EXPECT_EQ(noted.exit_code, 0) << noted.output;
  EXPECT_NE(noted.output.find("candidate: compared the command at line 2"), std::string::npos)
      << noted.output;
}

TEST(Cli, ClassifyComparesTheRecipesEnv) {
  const std::string reference = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";
  fs::path dir = testing::fresh_dir("classify_env");
  std::string recipe = testing::read_source_file(reference);
  std::string changed =
      testing::replace_all(recipe, "  TORCHINDUCTOR_COMPILE_THREADS: '1'\n",
                           "  TORCHINDUCTOR_COMPILE_THREADS: '1'\n  NCCL_ALGO: Tree\n");
  changed = testing::replace_all(changed, "  CUDA_DEVICE_MAX_CONNECTIONS: '1'\n",
                                 "  CUDA_DEVICE_MAX_CONNECTIONS: '2'\n");
  ASSERT_NE(changed, recipe);
  std::ofstream(dir / "env.yaml") << changed;
  CliRun result = run("classify --format json '" + (dir / "env.yaml").string() + "' " + reference);
  nlohmann::json json = nlohmann::json::parse(result.output);
  bool algo = false;
  for (const nlohmann::json& d : json["differences"])
    algo |= d["name"] == "NCCL_ALGO" && d["candidate"] == "Tree";
  EXPECT_TRUE(algo) << result.output;
  bool conflict = false;
  for (const nlohmann::json& note : json["notes"])
    conflict |= note.get<std::string>().find("candidate: env CUDA_DEVICE_MAX_CONNECTIONS") == 0;
  EXPECT_TRUE(conflict) << result.output;
}

TEST(Cli, AnUnreadableFileIsAnIoErrorCaughtOnceInMain) {
  CliRun result = run_errors("tokenize --tokenizer /nonexistent/tokenizer.json abc");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output.rfind("openrecipes tokenize: /nonexistent/tokenizer.json: ", 0), 0u)
      << result.output;
  EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
}

TEST(Cli, ABadTokenizerIsAProblemWithItsFieldPath) {
  CliRun text = run_errors("tokenize --tokenizer tests/fixtures/tokenizers/metaspace.json abc");
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.output,
            "tests/fixtures/tokenizers/metaspace.json: pre_tokenizer[0].type: unsupported "
            "pre-tokenizer 'Metaspace' (supported: Split, ByteLevel)\n");
  CliRun json =
      run_errors("tokenize --format json --tokenizer tests/fixtures/tokenizers/metaspace.json abc");
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(json.output);
  ASSERT_TRUE(problems.is_array());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0]["field"], "pre_tokenizer[0].type");
  EXPECT_EQ(problems[0]["rule"], "tokenizer");
}

TEST(Cli, ErrorsParseAsJsonWithFormatJson) {
  for (const char* command :
       {"render --format json --loss-mask gpt_oss --tokenizer "
        "tests/fixtures/tokenizers/lowercase.json x.json",
        "render --format json --loss-mask gpt_oss --tokenizer /nonexistent.json x.json"}) {
    CliRun result = run_errors(command);
    if (std::string(command).find("nonexistent") != std::string::npos) {
      // An IoError, caught in main: with --format json it is one problem of rule "io".
      EXPECT_EQ(result.exit_code, 1);
      nlohmann::json io = nlohmann::json::parse(result.output, nullptr, false);
      ASSERT_TRUE(io.is_array() && io.size() == 1) << result.output;
      EXPECT_EQ(io[0]["rule"], "io");
      EXPECT_EQ(io[0]["file"], "/nonexistent.json");
      EXPECT_EQ(io[0]["message"], "/nonexistent.json: no such file");
      continue;
    }
    EXPECT_EQ(result.exit_code, 1) << command;
    nlohmann::json problems = nlohmann::json::parse(result.output, nullptr, false);
    ASSERT_TRUE(problems.is_array()) << command << ": " << result.output;
    ASSERT_FALSE(problems.empty()) << command;
    EXPECT_TRUE(problems[0].contains("message")) << command;
  }
  // active-params prints a config's problems on stdout, its result.
  CliRun json = run("active-params --format json tests/fixtures/bad/wrong_types.yaml");
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(json.output, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << json.output;
  EXPECT_EQ(problems.at(0).at("file"), "tests/fixtures/bad/wrong_types.yaml");
}

// Every command, given bad input with --format json, prints nothing but one JSON array of
// problems, each with the same eight members: scripts read one shape.
TEST(Cli, EveryCommandPrintsItsErrorsInOneJsonShape) {
  const std::string bad_recipe = "tests/fixtures/bad/wrong_types.yaml";
  const std::string recipe = testing::kBundledRecipes[0];
  const std::vector<std::string> commands = {
      "validate --format json " + bad_recipe,
      "active-params --format json " + bad_recipe,
      "tokenize --format json --tokenizer tests/fixtures/tokenizers/metaspace.json abc",
      "render --format json --loss-mask gpt_oss --tokenizer "
      "tests/fixtures/tokenizers/lowercase.json x.json",
      "rows verify --format json no/such/rows.parquet",
      "score --format json no/such.log --recipe " + recipe,
      "measure --format json " + bad_recipe + " --slurm --dry-run",
      "converge --format json no/such.log no/such.log",
      "classify --format json " + bad_recipe + " " + recipe,
      "check --format json " + bad_recipe,
      "plan --format json --model no-such-model --gpu H200 --gpus 8",
      "plan --format json",
      "recommend --format json --model no-such-model --gpu H200 --gpus 8",
      "export --format json --model no-such-model --gpu H200 --gpus 8 --layout TP1 --to slime",
      "export --format json " + recipe + " --to nowhere",
      "plan --format json --gpus 0",
  };
  for (const std::string& command : commands) {
    testing::ShellRun result = testing::run_binary(command, testing::source_dir(), "2>&1");
    EXPECT_NE(result.exit_code, 0) << command;
    nlohmann::json problems = nlohmann::json::parse(result.output, nullptr, false);
    ASSERT_TRUE(problems.is_array() && !problems.empty()) << command << "\n" << result.output;
    for (const nlohmann::json& problem : problems) {
      ASSERT_TRUE(problem.is_object()) << command;
      std::vector<std::string> keys;
      for (const auto& [key, value] : problem.items()) keys.push_back(key);
      EXPECT_EQ(keys, (std::vector<std::string>{"column", "expected", "field", "file", "found",
                                                "line", "message", "rule"}))
          << command << "\n"
          << result.output;
      EXPECT_TRUE(problem["message"].is_string() && !problem["message"].get<std::string>().empty())
          << command;
    }
  }
}

TEST(Cli, VersionNamesTheReleaseAndTheCommit) {
  testing::ShellRun result = testing::run_binary("--version", testing::source_dir(), "2>&1");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(std::regex_match(
      result.output, std::regex(R"(openrecipes \d+\.\d+\.\d+ \(git ([0-9a-f]{4,40}|unknown)\)\n)")))
      << result.output;
  // The commit is the one built: in a git checkout, HEAD's (the build reconfigures after a
  // commit; run ctest after building).
  std::string head;
  if (FILE* git = popen(
          ("git -C '" + testing::source_dir() + "' rev-parse --short HEAD 2>/dev/null").c_str(),
          "r")) {
    char buffer[64] = {};
    if (fgets(buffer, sizeof buffer, git)) head = buffer;
    pclose(git);
  }
  if (!head.empty() && head.back() == '\n') head.pop_back();
  if (!head.empty()) {
    EXPECT_NE(result.output.find("(git " + head + ")"), std::string::npos)
        << result.output << " is not HEAD " << head;
  }
  // Every JSON result carries the same version.
  std::string version = result.output.substr(12, result.output.find(' ', 12) - 12);
  for (const char* command : {"active-params --format json gpt-oss-20b",
                              "plan --format json --model gpt-oss-20b --gpu H200 --gpus 8 --top 1",
                              "recommend --format json --model gpt-oss-20b --gpu H200 --gpus 8"}) {
    CliRun json = run(command);
    EXPECT_EQ(json.exit_code, 0) << command;
    nlohmann::json value = nlohmann::json::parse(json.output, nullptr, false);
    ASSERT_TRUE(value.is_object()) << command;
    EXPECT_EQ(value["openrecipes_version"], version) << command;
  }
}

TEST(Cli, HelpReadsInWordsWithExamples) {
  for (const char* command : {"plan", "recommend", "measure", "score", "export", "rows build",
                              "converge", "active-params"}) {
    testing::ShellRun help =
        testing::run_binary(std::string(command) + " --help", testing::source_dir(), "2>&1");
    EXPECT_EQ(help.exit_code, 0) << command;
    // None of CLI11's type annotations: INT:, TEXT:, FLOAT:, REQUIRED, a flag's {false}.
    for (const char* annotation :
         {"INT", "TEXT", "FLOAT", "REQUIRED", "{false}", "{true}", "[1 - "})
      EXPECT_EQ(help.output.find(annotation), std::string::npos)
          << command << ": " << annotation << "\n"
          << help.output;
    EXPECT_NE(help.output.find("\nExamples:\n  openrecipes "), std::string::npos) << command << "\n"
                                                                                  << help.output;
  }
  testing::ShellRun plan = testing::run_binary("plan --help", testing::source_dir(), "2>&1");
  EXPECT_NE(plan.output.find("--gpus N "), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("(1 to 1048576)"), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("--format {text,json}"), std::string::npos) << plan.output;
  // A one-sided bound is shown in words too.
  testing::ShellRun converge =
      testing::run_binary("converge --help", testing::source_dir(), "2>&1");
  EXPECT_NE(converge.output.find("(above 0; default: 3)"), std::string::npos) << converge.output;
  EXPECT_NE(converge.output.find("(at least 0; default: 0.05)"), std::string::npos)
      << converge.output;
  testing::ShellRun recommend =
      testing::run_binary("recommend --help", testing::source_dir(), "2>&1");
  EXPECT_NE(recommend.output.find("(required)"), std::string::npos) << recommend.output;
  testing::ShellRun top = testing::run_binary("--help", testing::source_dir(), "2>&1");
  EXPECT_NE(top.output.find("--version"), std::string::npos) << top.output;
}

// Output speaks of commands, files and docs: no "seed 000"-style references to documents a user
// does not have (a random seed, --seed, stays a fine word).
// Output that cannot be written (a full disk: /dev/full) is the output's failure, exit 1 with its
// reason, whether the command writes it in one large piece (JSON, an export draft) or in small
// ones; it used to be an "internal error (please report it)" for the large ones.
TEST(Cli, AFullStandardOutputIsReportedNotAnInternalError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const char* command :
       {"plan --calibration --format json", "plan --calibration", "validate",
        "plan --model gpt-oss-20b --gpu H200 --gpus 8 --format json",
        "export recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml --to megatron-bridge"}) {
    testing::ShellRun result =
        testing::run_binary(command, testing::source_dir(), "2>&1 >/dev/full");
    EXPECT_EQ(result.exit_code, 1) << command << "\n" << result.output;
    EXPECT_NE(result.output.find("could not write the output (standard output)"), std::string::npos)
        << command << "\n"
        << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << command << "\n"
                                                                       << result.output;
  }
}

TEST(Cli, OutputNamesDocsNotSeeds) {
  std::regex seed_reference(R"((^|[^-])seed 0\d\d\b)");
  for (const char* command :
       {"recommend --model gpt-oss-20b --gpu H200 --gpus 16 --goal peft",
        "classify recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml "
        "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml"}) {
    testing::ShellRun result = testing::run_binary(command, testing::source_dir(), "2>&1");
    EXPECT_FALSE(std::regex_search(result.output, seed_reference)) << command << "\n"
                                                                   << result.output;
  }
  EXPECT_FALSE(
      std::regex_search(testing::read_source_file("rules/arguments.yaml"), seed_reference));
}

}  // namespace
}  // namespace openrecipes
