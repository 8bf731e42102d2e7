#include "measure/sbatch_script.h"

#include <fmt/format.h>

#include <cctype>

#include "figures/figures.h"
#include "measure/stack_versions.h"

namespace openrecipes {
namespace {

constexpr const char* kRunEnd = "OPENRECIPES_RUN_END";
constexpr const char* kVersionsEnd = "OPENRECIPES_VERSIONS_END";

bool is_shell_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// `srun` for one task on the first node, in the image when there is one.
std::string srun_prefix(const SbatchOptions& options) {
  std::string prefix = "srun --nodes=1 --ntasks=1";
  if (!options.container_image.empty())
    prefix += " --container-image=" + shell_quote(options.container_image);
  if (!options.container_mounts.empty())
    prefix += " --container-mounts=" + shell_quote(options.container_mounts);
  return prefix;
}

// True when `body` holds `end` as a line of its own, which would end the heredoc early.
bool holds_end_line(const std::string& body, const char* end) {
  return body.find(std::string("\n") + end) != std::string::npos || body.rfind(end, 0) == 0;
}

// A quoted heredoc into a variable: nothing in `body` is expanded. `body` must not hold the line
// `end` (holds_end_line).
std::string heredoc_variable(const std::string& name, const std::string& body, const char* end) {
  std::string text = body;
  if (!text.empty() && text.back() != '\n') text += '\n';
  return fmt::format("{}=$(cat <<'{}'\n{}{}\n)\n", name, end, text, end);
}

// A problem with the recipe (at the recipe's file) or with a command-line flag (in no file, so
// base/problem.h prints the flag without a position).
Problem sbatch_problem(const SbatchOptions& options, std::string field, std::string rule,
                       std::string message) {
  std::string file = field.rfind("--", 0) == 0 ? std::string() : options.recipe_file;
  return {std::move(file), {}, std::move(field), std::move(rule), std::move(message), "", ""};
}

// What the script cannot be written from: a partial node, an --out folder Slurm cannot take, an
// --env name the shell cannot take. Returns false with problems.
bool check_sbatch_inputs(const Recipe& recipe, const SbatchOptions& options, Problems& problems) {
  std::size_t before = problems.size();
  const RecipeGpu& gpu = recipe.gpu;
  if (gpu.per_node < 1 || gpu.count < 1 || gpu.count % gpu.per_node != 0) {
    problems.push_back(
        sbatch_problem(options, "gpu", "measure.nodes",
                       fmt::format("count {} is not a whole number of nodes of per_node {} GPUs",
                                   gpu.count, gpu.per_node)));
  }
  if (options.out_dir.find_first_of(" \t\n\r'\"") != std::string::npos) {
    problems.push_back(
        sbatch_problem(options, "--out " + options.out_dir, "measure.out",
                       "a folder for Slurm's #SBATCH --output may not hold blanks or quotes"));
  }
  for (const auto& [name, value] : options.env) {
    if (!is_shell_name(name))
      problems.push_back(sbatch_problem(options, fmt::format("--env {}={}", name, value),
                                        "measure.env",
                                        fmt::format("{} is not a shell variable name", name)));
  }
  return problems.size() == before;
}

// The run with the protocol's step count (force_step_count), or nullopt with a problem.
std::optional<ForcedStepCount> forced_run(const Recipe& recipe, const SbatchOptions& options,
                                          Problems& problems) {
  Problems refused;
  std::optional<ForcedStepCount> forced = force_step_count(recipe.run, options.steps, refused);
  if (!forced) {
    for (const Problem& problem : refused)
      problems.push_back(sbatch_problem(options, problem.field, problem.rule, problem.message));
    return std::nullopt;
  }
  if (holds_end_line(forced->run, kRunEnd)) {
    problems.push_back(
        sbatch_problem(options, "run", "measure.run",
                       fmt::format("holds the line {}, which the script uses to end it", kRunEnd)));
    return std::nullopt;
  }
  return forced;
}

// The #SBATCH lines and the header comment.
std::string sbatch_header(const Recipe& recipe, const SbatchOptions& options,
                          const SbatchScript& script) {
  const ForcedStepCount& steps = script.step_count;
  std::string s = "#!/bin/bash\n";
  s += fmt::format("#SBATCH --job-name=openrecipes-measure\n");
  s += fmt::format("#SBATCH --nodes={}\n", script.nodes);
  s += "#SBATCH --ntasks-per-node=1\n";
  if (options.gpu_request) s += fmt::format("#SBATCH --gpus-per-node={}\n", recipe.gpu.per_node);
  s += "#SBATCH --exclusive\n";
  s += fmt::format("#SBATCH --output={}/slurm-%j.log\n", options.out_dir);
  if (!options.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", options.partition);
  if (!options.account.empty()) s += fmt::format("#SBATCH --account={}\n", options.account);
  const std::pair<const char*, const std::string*> optional_lines[] = {
      {"--qos", &options.qos},
      {"--reservation", &options.reservation},
      {"--time", &options.time},
      {"--exclude", &options.exclude},
      {"--nodelist", &options.nodelist}};
  for (const auto& [flag, value] : optional_lines) {
    if (!value->empty()) s += fmt::format("#SBATCH {}={}\n", flag, *value);
  }
  for (const std::string& arg : options.sbatch_args) s += fmt::format("#SBATCH {}\n", arg);
  s += fmt::format(
      "#\n# openrecipes measure: {} once under the protocol ({} steps, profiler off, scored over "
      "steps 5-19).\n",
      options.recipe_name, options.steps);
  s += fmt::format("# {}: {} ({} as the recipe's run states it).\n", steps.flag, options.steps,
                   steps.recipe_value);
  if (!options.gpu_request)
    s += "# No GPU request (--no-gpu-request): only for a cluster without GPUs.\n";
  return s;
}

// The environment, the version dump and the run.
std::string sbatch_body(const Recipe& recipe, const SbatchOptions& options,
                        const SbatchScript& script) {
  std::string s = "\n# The recipe's environment, then --env.\n";
  for (const auto& [name, value] : recipe.env) {
    s += fmt::format("export {}={}\n", name,
                     value.find('$') != std::string::npos ? value : shell_quote(value));
  }
  for (const auto& [name, value] : options.env)
    s += fmt::format("export {}={}\n", name, shell_quote(value));
  s += fmt::format("\nversions_file={}\n",
                   shell_quote(options.out_dir) + "/versions-\"$SLURM_JOB_ID\".txt");
  s += "echo \"openrecipes measure: job $SLURM_JOB_ID on $SLURM_JOB_NUM_NODES node(s), started "
       "$(date -u +%FT%TZ)\"\n";
  s += "\n# Step 1: the stack's versions (Python, PyTorch, CUDA, NCCL, Transformer Engine, "
       "Megatron-LM, framework).\n";
  s += heredoc_variable("versions_program", stack_versions_program(), kVersionsEnd);
  s += fmt::format(
      "{} python3 -c \"$versions_program\" >\"$versions_file\" || echo \"openrecipes measure: the "
      "version dump failed\"\n",
      srun_prefix(options));
  s += fmt::format("\n# Step 2: the recipe's run, {} steps.\n", options.steps);
  std::string run = script.step_count.run;
  if (!options.model_args_file.empty()) {
    run = fmt::format("# --model-args-file: the arrays the run expands (MODEL_ARGS).\nsource {}\n",
                      shell_quote(options.model_args_file)) +
          run;
  }
  s += heredoc_variable("run_command", run, kRunEnd);
  s += fmt::format("{} bash -c \"$run_command\"\n", srun_prefix(options));
  s += "status=$?\n";
  s += "echo \"openrecipes measure: the run ended with exit status $status at $(date -u "
       "+%FT%TZ)\"\n";
  s += "exit $status\n";
  return s;
}

}  // namespace

std::string job_log_path(const std::string& out_dir, long long job_id) {
  return fmt::format("{}/slurm-{}.log", out_dir, job_id);
}

std::string job_versions_path(const std::string& out_dir, long long job_id) {
  return fmt::format("{}/versions-{}.txt", out_dir, job_id);
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::optional<SbatchScript> write_sbatch_script(const Recipe& recipe, const SbatchOptions& options,
                                                Problems& problems) {
  if (!check_sbatch_inputs(recipe, options, problems)) return std::nullopt;
  std::optional<ForcedStepCount> forced = forced_run(recipe, options, problems);
  if (!forced) return std::nullopt;
  SbatchScript script;
  script.nodes = node_count(recipe.gpu.count, recipe.gpu.per_node);
  script.step_count = std::move(*forced);
  script.text = sbatch_header(recipe, options, script) + sbatch_body(recipe, options, script);
  return script;
}

}  // namespace openrecipes
