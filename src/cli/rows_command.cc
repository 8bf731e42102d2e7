#include "cli/rows_command.h"

#include <fmt/format.h>

#include <memory>

#include "base/number_format.h"
#include "base/yaml_document.h"
#include "catalog/recipe.h"
#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/problem_output.h"
#include "cli/progress_line.h"
#include "cli/recipe_file.h"
#include "rows/dataset_block.h"
#include "rows/duckdb_session.h"
#include "rows/recipe_rows_check.h"
#include "rows/remove_on_signal.h"
#include "rows/rows_builder.h"
#include "rows/rows_file.h"

namespace openrecipes::cli {
namespace {

const CLI::Validator kNotEmpty(
    [](std::string& text) -> std::string {
      return text.empty() ? "expected a value, found nothing" : "";
    },
    "TEXT");

struct RowsBuildFlags {
  RowsBuildOptions build;
  std::string loss_mask;
  std::string format = "text";
};

int run_rows_build(RowsBuildFlags& options) {
  options.build.loss_mask =
      parse_loss_mask_type(options.loss_mask).value();  // CLI11 checked the name
  // A build killed with SIGKILL leaves its temporary file beside the output (RowsFileWriter::finish
  // names it `.<name>.tmp-<PID>`); remove it now, unless its process still runs.
  for (const StaleTemporary& stale : remove_stale_temporaries(options.build.output, "tmp")) {
    fmt::print(stderr, "openrecipes rows build: removed stale temporary {} {} left by process {}\n",
               stale.folder ? "folder" : "file", stale.path.string(), stale.pid);
  }
  ProgressLine progress;
  Problems problems;
  std::optional<RowsBuildResult> built =
      build_rows(options.build, problems, [&](const RowsBuildProgress& p) {
        progress.show(
            fmt::format("{}: {} of {} rows, {} conversations", p.stage, format_count(p.rows),
                        format_count(p.target_rows), format_count(p.conversations)),
            p.stage != std::string("packing"));
      });
  progress.clear();
  if (!built) return print_problems(problems, output_format(options.format), stderr);
  const RowsBuildResult& result = *built;
  if (options.format == "json") {
    print_json(dataset_block_json(result));
    return kExitOk;
  }
  fmt::print(
      "# {}: {} row{} of {} tokens from {} of {} conversations ({} row{} skipped: no supervised "
      "token)\n",
      result.output, format_count(result.rows), result.rows == 1 ? "" : "s",
      format_count(result.row_tokens), format_count(result.conversations_used),
      format_count(static_cast<std::int64_t>(result.conversations_available)),
      format_count(result.skipped_rows), result.skipped_rows == 1 ? "" : "s");
  fmt::print("# EOS between conversations: {} (id {})\n", result.eos_token, result.eos_id);
  fmt::print("# Paste under workload.dataset in the recipe:\n{}", dataset_block_yaml(result));
  return kExitOk;
}

struct VerifyOptions {
  std::string rows;
  std::string recipe;
  std::string format = "text";
};

// The verified figures as JSON, with every problem and, with a recipe, what matched.
void print_verify_json(const VerifyOptions& options, const RowsFileSummary& summary,
                       const Problems& problems, const RecipeRowsCheck* check) {
  nlohmann::json out = {{"file", options.rows},
                        {"rows", summary.rows},
                        {"row_tokens", summary.row_tokens},
                        {"padding_tokens", summary.padding_tokens},
                        {"supervised_tokens", summary.supervised_tokens},
                        {"supervised_token_ratio", summary.supervised_token_ratio},
                        {"rows_sha256", summary.rows_sha256},
                        {"parquet_sha256", summary.parquet_sha256},
                        {"parquet_bytes", summary.parquet_bytes},
                        {"build", summary.build},
                        {"problems", nlohmann::json::array()},
                        {"problems_not_shown", summary.problems_not_shown}};
  for (const Problem& problem : problems) out["problems"].push_back(problem_to_json(problem));
  if (check)
    out["recipe"] = {
        {"file", options.recipe}, {"matched", check->matched}, {"unchecked", check->unchecked}};
  print_json(out);
}

// The verified figures for people, each problem on its line, then "ok" or the count.
void print_verify_text(const VerifyOptions& options, const RowsFileSummary& summary,
                       const Problems& problems, const RecipeRowsCheck* check) {
  auto line = [](const std::string& label, const std::string& value) {
    fmt::print("  {:<24}{}\n", label, value);
  };
  fmt::print("{}\n", options.rows);
  line("rows", format_count(summary.rows));
  line("row tokens", format_count(summary.row_tokens));
  line("padding tokens", format_count(summary.padding_tokens));
  line("supervised tokens",
       fmt::format("{} (ratio {:.3f})", format_count(summary.supervised_tokens),
                   summary.supervised_token_ratio));
  line("rows_sha256", summary.rows_sha256);
  line("parquet_sha256", summary.parquet_sha256);
  line("parquet bytes", format_count(static_cast<std::int64_t>(summary.parquet_bytes)));
  if (summary.build.is_object()) {
    // The file's own metadata: any JSON type may sit under a key, so none is assumed.
    auto member = [&](const char* key) {
      auto it = summary.build.find(key);
      if (it == summary.build.end()) return std::string("?");
      return it->is_string() ? it->get<std::string>()
                             : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    line("built as", fmt::format("{} (loss mask {}, seed {})", member("name"), member("loss_mask"),
                                 member("seed")));
    line("tokenizer.json sha256", member("tokenizer_sha256"));
  } else {
    line("built as", "unknown (no openrecipes.rows metadata)");
  }
  for (const Problem& problem : problems) fmt::print("{}\n", format_problem_line(problem));
  if (summary.problems_not_shown > 0)
    fmt::print("{} more problems in the file not shown\n", summary.problems_not_shown);
  if (check) {
    for (const std::string& field : check->unchecked)
      fmt::print("{}: not checked: {}\n", options.recipe, field);
    fmt::print("{}: {} field{} match, {} do not\n", options.recipe, check->matched.size(),
               check->matched.size() == 1 ? "" : "s", check->problems.size());
  }
  std::size_t total = problems.size() + summary.problems_not_shown;
  fmt::print("{}\n", total == 0 ? "ok" : fmt::format("{} problem{}", total, total == 1 ? "" : "s"));
}

int run_verify(const GlobalOptions& global, const VerifyOptions& options) {
  OutputFormat format = output_format(options.format);
  Problems problems;
  std::optional<RecipeFile> recipe;
  if (!options.recipe.empty()) {
    recipe = read_recipe_file(global, options.recipe, problems);
    if (!recipe) {
      if (problems.empty()) return kExitUsage;  // no catalog root; resolve_root said why
      problems.push_back(
          {options.recipe, {}, "", "rows.recipe", "not a valid recipe, nothing compared", "", ""});
      return print_problems(problems, format, stderr);
    }
  }
  ProgressLine progress;
  DuckDbSession duckdb;
  std::optional<RowsFileSummary> summary =
      read_rows_file(options.rows, duckdb, problems, [&](std::int64_t rows) {
        progress.show(fmt::format("reading {}: {} rows", options.rows, format_count(rows)));
      });
  progress.clear();
  if (!summary) return print_problems(problems, format, stderr);
  RecipeRowsCheck check;
  if (recipe) check = check_rows_against_recipe(*summary, recipe->document, recipe->recipe);
  problems = summary->problems;
  problems.insert(problems.end(), check.problems.begin(), check.problems.end());
  if (format == OutputFormat::kJson) {
    print_verify_json(options, *summary, problems, recipe ? &check : nullptr);
  } else {
    print_verify_text(options, *summary, problems, recipe ? &check : nullptr);
  }
  return problems.empty() ? kExitOk : kExitProblems;
}

}  // namespace

void add_rows_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  CLI::App* rows =
      app.add_subcommand("rows", "Build and verify the fixed SFT rows (data/README.md)");
  rows->require_subcommand(1);

  auto build = std::make_shared<RowsBuildFlags>();
  CLI::App* b = rows->add_subcommand("build",
                                     "Build the fixed rows from Tulu-layout conversations (Parquet "
                                     "or JSONL) and print the recipe's "
                                     "workload.dataset block");
  b->add_option("INPUT", build->build.inputs,
                "Parquet or JSONL files in the allenai/tulu-3-sft-mixture layout")
      ->required();
  b->add_option("--tokenizer", build->build.tokenizer_path, "A tokenizer.json")->required();
  b->add_option("--loss-mask", build->loss_mask, "qwen3, qwen3_5 or gpt_oss")
      ->required()
      ->check(CLI::IsMember({"qwen3", "qwen3_5", "gpt_oss"}));
  b->add_option("--rows", build->build.rows, "Rows to keep")
      ->capture_default_str()
      ->check(whole_number(1, 2147483647));
  b->add_option("--row-tokens", build->build.row_tokens, "Tokens per row")
      ->capture_default_str()
      ->check(whole_number(1, std::int64_t{1} << 24));
  b->add_option("--seed", build->build.seed, "Seed of the global permutation")
      ->capture_default_str()
      ->check(whole_number(0, std::numeric_limits<std::int64_t>::max()));  // recipes hold an int64
  b->add_option("--name", build->build.name, "Name of the row set, e.g. gptoss-tulu3-fixed8192-v1")
      ->required()
      ->check(kNotEmpty);
  b->add_option("-o,--output", build->build.output, "The rows file to write (Parquet)")
      ->required()
      ->check(kNotEmpty);
  b->add_option("--eos", build->build.eos_token,
                "EOS token between conversations (default: eos_token of tokenizer_config.json "
                "beside the tokenizer)")
      ->check(kNotEmpty);
  b->add_option(
      "--tokenizer-name", build->build.tokenizer_label,
      "How the recipe names the tokenizer, e.g. 'gpt-oss (gpt-oss-20b, revision 6cee5e8)'");
  b->add_option("--threads", build->build.threads, "Threads (default: every core)")
      ->check(whole_number(1, 1024));
  b->add_option("--format", build->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  b->callback([&exit_code, build] { exit_code = run_rows_build(*build); });

  auto verify = std::make_shared<VerifyOptions>();
  CLI::App* v = rows->add_subcommand("verify",
                                     "Recompute a rows file's figures and rows_sha256; with "
                                     "--recipe, check the recipe's workload");
  v->add_option("ROWS", verify->rows, "A rows file (Parquet)")->required();
  v->add_option("--recipe", verify->recipe, "A recipe whose workload.dataset should match");
  v->add_option("--format", verify->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  v->callback([&global, &exit_code, verify] { exit_code = run_verify(global, *verify); });
}

}  // namespace openrecipes::cli
