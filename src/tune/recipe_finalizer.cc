#include "tune/recipe_finalizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "base/atomic_write.h"
#include "base/yaml_splice.h"
#include "catalog/author.h"
#include "catalog/protocol.h"
#include "catalog/recipe_file.h"
#include "export/planned_recipe.h"
#include "figures/layout_label.h"
#include "runs/argument_classifier.h"
#include "runs/argument_rules.h"
#include "runs/convergence.h"
#include "runs/loss_series.h"
#include "runs/run_score.h"
#include "runs/settings_check.h"
#include "runs/training_command.h"
#include "runs/training_log.h"
#include "validate/recipe_rules.h"
#include "validate/recipe_validator.h"

namespace openrecipes {
namespace {

// What the two arms gave: the candidate's score, the classes of the arguments that differ from
// the reference's, and the two loss curves compared.
struct Evidence {
  ResultBlock result;
  Classification classification;
  ConvergenceResult convergence;
};

Problem problem_at(const std::string& file, SourcePosition at, const std::string& field,
                   const std::string& rule, std::string message, std::string expected = "",
                   std::string found = "") {
  return {file, at, field, rule, std::move(message), std::move(expected), std::move(found)};
}

// "the draft's FIELD (FILE:LINE:COL)", the source of a stated setting.
std::string draft_source(const FinalizeRequest& request, const RecipeFile& draft,
                         const std::string& field) {
  SourcePosition at = draft.document.position_of(field);
  return fmt::format("the draft's {} ({}:{}:{})", field, request.draft, at.line, at.column);
}

// The run's settings as the draft states them, for the log's cross-check (runs/settings_check.h).
StatedSettings stated_settings(const FinalizeRequest& request, const RecipeFile& draft) {
  const Recipe& r = draft.recipe;
  StatedSettings stated;
  stated.world_size = StatedValue{r.gpu.count, draft_source(request, draft, "gpu.count")};
  stated.global_batch =
      StatedValue{r.workload.global_batch, draft_source(request, draft, "workload.global_batch")};
  stated.seq_length =
      StatedValue{r.workload.row_tokens, draft_source(request, draft, "workload.row_tokens")};
  stated.micro_batch = StatedValue{r.layout.rows_per_microbatch,
                                   draft_source(request, draft, "layout.rows_per_microbatch")};
  if (const Model* model = draft.catalog.catalog.find_model(r.model)) {
    std::string source =
        fmt::format("models.yaml's {} (models/{}/config.json)", model->name, model->slug);
    stated.hidden_size = StatedValue{model->shape.hidden_size, source};
    stated.num_layers = StatedValue{model->shape.layers, source};
    stated.num_experts = StatedValue{model->shape.experts, source};
  }
  return stated;
}

// The candidate's log scored under the protocol with the draft's GPUs and the catalog's price,
// peak and N; nullopt with problems when the log cannot be read or states other settings.
std::optional<ResultBlock> score_candidate(const FinalizeRequest& request, const RecipeFile& draft,
                                           Problems& problems) {
  const Recipe& r = draft.recipe;
  ResultBlock block;
  block.setup = {r.gpu.count, r.workload.global_batch, r.workload.row_tokens, kWindowFirstStep,
                 kWindowLastStep};
  block.scheduler_gpu_hours = request.scheduler_gpu_hours;
  Problems unknown;
  if (!add_catalog_figures(block, draft.catalog.catalog, r.gpu.type, r.model, unknown)) {
    for (Problem& problem : unknown) {
      problem.file = request.draft;
      problem.position = draft.document.position_of(problem.field);
      problems.push_back(problem);
    }
    return std::nullopt;
  }
  std::optional<TrainingLog> log = read_training_log(request.candidate_log, problems);
  if (!log) return std::nullopt;
  SettingsCheck settings = check_log_settings(*log, stated_settings(request, draft));
  if (!settings.problems.empty()) {
    problems.insert(problems.end(), settings.problems.begin(), settings.problems.end());
    return std::nullopt;
  }
  std::optional<RunScore> score = score_run(*log, block.setup, problems);
  if (!score) return std::nullopt;
  block.score = *score;
  block.steps_per_run = log->total_steps.value_or(score->steps_in_log);
  return block;
}

// The run command of `file` read with `rules`; its problems (shell that does not read, no
// command) are the file's, at the run's lines.
std::optional<TrainingCommand> read_run(const std::string& path, const RecipeFile& file,
                                        const ArgumentRules& rules, Problems& problems) {
  TrainingCommand command = read_training_command(file.recipe.run, rules);
  int run_line = file.document.position_of("run").line + 1;  // a block scalar starts below `run:`
  for (const Problem& problem : command.problems) {
    int line = problem.position.line;
    problems.push_back(problem_at(
        path, line > 0 ? SourcePosition{run_line + line - 1, 1} : file.document.position_of("run"),
        "run", "finalize.run", problem.message));
  }
  if (!command.problems.empty()) return std::nullopt;
  return command;
}

std::optional<Evidence> gather_evidence(const FinalizeRequest& request, const RecipeFile& draft,
                                        const RecipeFile& reference, Problems& problems) {
  std::size_t before = problems.size();
  std::optional<ResultBlock> result = score_candidate(request, draft, problems);
  std::optional<ArgumentRules> rules = load_argument_rules(request.root, problems);
  std::optional<TrainingCommand> candidate_run, reference_run;
  if (rules) {
    candidate_run = read_run(request.draft, draft, *rules, problems);
    reference_run = read_run(request.reference, reference, *rules, problems);
  }
  // The candidate log is read twice (steps, then losses): a problem with it is said once.
  Problems losses;
  std::optional<LossSeries> candidate_losses = read_loss_series(request.candidate_log, losses);
  std::optional<LossSeries> reference_losses = read_loss_series(request.reference_log, losses);
  for (const Problem& problem : losses) {
    bool said = std::any_of(
        problems.begin() + static_cast<std::ptrdiff_t>(before), problems.end(),
        [&](const Problem& p) { return p.file == problem.file && p.message == problem.message; });
    if (!said) problems.push_back(problem);
  }
  if (problems.size() != before) return std::nullopt;
  return Evidence{*result,
                  classify_commands(*candidate_run, *reference_run, *rules,
                                    draft.recipe.correctness.component_tests),
                  compare_convergence(*candidate_losses, *reference_losses)};
}

// `  active_params:` under `result`, as models.yaml gives N (rule catalog.active_params).
std::string active_params_lines(const Model& model) {
  return fmt::format(
      "  active_params:\n    count: {}\n    source: https://huggingface.co/{}\n    revision: {}\n",
      model.active_params, model.hf_repo, model.revision);
}

// `  mfu_note:` under `result`: null when the catalog gave the GPU's peak and N, else why not.
std::string mfu_note_line(const ResultBlock& block) {
  if (block.peak_flop_per_s && block.active_params) return "  mfu_note: null\n";
  return "  mfu_note: gpus.yaml gives no BF16 dense peak for the GPU type, or models.yaml no N\n";
}

// The lines of `range` in `text`.
std::string entry_text(const std::string& text, const LineRange& range) {
  std::string out;
  std::size_t at = 0;
  for (int line = 1; at < text.size() && line < range.end; ++line) {
    std::size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    if (line >= range.first) out.append(text, at, end - at);
    at = end;
  }
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

// The column of key `key` of the top-level mapping `parent` (`workload`, `dataset`); 1 when
// there is none.
int key_column(const YamlDocument& document, const char* parent, const char* key) {
  const YamlNode* mapping = document.root.find(parent);
  if (!mapping || mapping->kind != YamlNode::Kind::kMapping) return 1;
  for (const YamlEntry& entry : mapping->entries)
    if (entry.key == key) return entry.key_position.column;
  return 1;
}

// The reference's `workload.dataset` entry, re-indented to sit where the draft's does.
std::optional<std::string> dataset_lines(const FinalizeRequest& request, const RecipeFile& draft,
                                         const RecipeFile& reference, Problems& problems) {
  std::optional<LineRange> range = yaml_entry_lines(reference.document, "workload.dataset");
  const YamlNode* workload = reference.document.root.find("workload");
  const YamlNode* dataset = workload ? workload->find("dataset") : nullptr;
  if (!range || !dataset || dataset->kind != YamlNode::Kind::kMapping) {
    problems.push_back(problem_at(
        request.reference, reference.document.position_of("workload.dataset"), "workload.dataset",
        "finalize.dataset",
        "the reference has no rows to share: finalize takes workload.dataset from the reference, "
        "whose 20-step arm ran on the same rows",
        "a measured reference recipe", "no dataset"));
    return std::nullopt;
  }
  int shift = key_column(draft.document, "workload", "dataset") -
              key_column(reference.document, "workload", "dataset");
  std::string out;
  std::string lines = entry_text(reference.document.text, *range);
  for (std::size_t at = 0; at < lines.size();) {
    std::size_t end = lines.find('\n', at) + 1;  // entry_text ends every line with '\n'
    std::string piece = lines.substr(at, end - at);
    if (shift > 0) piece.insert(0, static_cast<std::size_t>(shift), ' ');
    if (shift < 0)
      piece.erase(0, std::min(piece.find_first_not_of(' '), static_cast<std::size_t>(-shift)));
    out += piece;
    at = end;
  }
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

// Longest `--variant`: a file name stays far below the 255 bytes file systems allow.
constexpr std::size_t kMaxVariantChars = 64;

// recipes/<model slug>/<gpu slug>/<handle>-<layout slug>[-<variant>].yaml (the `path` rule).
std::optional<std::string> catalog_path_of(const FinalizeRequest& request, const RecipeFile& draft,
                                           Problems& problems) {
  const Recipe& r = draft.recipe;
  const Catalog& catalog = draft.catalog.catalog;
  const Model* model = catalog.find_model(r.model);
  const Gpu* gpu = catalog.find_gpu(r.gpu.type);
  if (!model || !gpu) {
    std::string field = model ? "gpu.type" : "model";
    problems.push_back(
        problem_at(request.draft, draft.document.position_of(field), field, "finalize.catalog",
                   model ? "the GPU type is not in gpus.yaml" : "the model is not in models.yaml"));
    return std::nullopt;
  }
  if (!request.variant.empty() &&
      (request.variant.size() > kMaxVariantChars || !is_recipe_variant(request.variant))) {
    problems.push_back(problem_at(
        "", {}, "--variant", "finalize.variant", "not a file-name variant",
        fmt::format("at most {} lowercase letters and digits, in words joined by '-'",
                    kMaxVariantChars),
        request.variant.size() > 80 ? request.variant.substr(0, 80) + "..." : request.variant));
    return std::nullopt;
  }
  std::string stem = author_handle(r.author.github, r.author.name, catalog.authors) + "-" +
                     layout_slug(r.layout) + (request.variant.empty() ? "" : "-" + request.variant);
  return fmt::format("recipes/{}/{}/{}.yaml", model->slug, gpu->slug, stem);
}

// What an exported draft leaves for its author and finalize cannot fill: a real author and the
// stack the run measured (openrecipes measure prints it). One problem per field left as written
// by `openrecipes export` (export/planned_recipe.h).
bool draft_is_filled(const FinalizeRequest& request, const RecipeFile& draft, Problems& problems) {
  std::size_t before = problems.size();
  if (draft.recipe.author.github == kPlaceholderHandle) {
    problems.push_back(problem_at(request.draft, draft.document.position_of("author.github"),
                                  "author.github", "finalize.author",
                                  "the draft still names export's placeholder author",
                                  "your GitHub handle, or a name and url", "your-handle"));
  }
  for (const auto& [component, version] : draft.recipe.stack) {
    if (version != "not pinned") continue;
    problems.push_back(problem_at(
        request.draft, draft.document.position_of("stack." + component), "stack." + component,
        "finalize.stack",
        "the draft does not pin this part of the stack the run measured (openrecipes measure "
        "prints the stack block)",
        "the version the run used", version));
  }
  return problems.size() == before;
}

// The text pieces finalize writes into the draft, each with the draft's lines it replaces.
struct Filled {
  std::string header, status, dataset, result, correctness;
};

// One edit per filled field, with the field's name and where its evidence came from.
struct NamedEdit {
  LineEdit edit;
  std::string field;
  std::string source;
};

std::vector<NamedEdit> edits_for(const FinalizeRequest& request, const RecipeFile& draft,
                                 const Filled& filled) {
  const YamlDocument& document = draft.document;
  std::vector<NamedEdit> edits;
  auto add = [&](const std::string& field, const std::string& lines, const std::string& source) {
    if (std::optional<LineRange> range = yaml_entry_lines(document, field))
      edits.push_back({{*range, lines}, field, source});
  };
  // The header: the comment lines before the first key (a draft's says "planned").
  int first_key = document.root.entries.empty() ? 1 : document.root.entries[0].key_position.line;
  edits.push_back({{{1, first_key}, filled.header}, "", "finalize"});
  add("status", filled.status, "the correctness check");
  add("workload.dataset", filled.dataset, request.reference);
  add("prediction", "", "");  // a measured recipe has no prediction (schema: prediction)
  if (draft.recipe.layout.highlights == kPlannedHighlights) {
    std::string indent(key_column(document, "layout", "highlights") - 1, ' ');
    add("layout.highlights",
        indent + "highlights: the planner's layout, measured under the protocol\n", "finalize");
  }
  if (draft.recipe.notes.rfind(kPlannedNotesLead, 0) == 0) {
    if (std::optional<LineRange> range = yaml_entry_lines(document, "notes")) {
      std::string lines = entry_text(document.text, *range);
      std::size_t at = lines.find(kPlannedNotesLead);
      if (at != std::string::npos) {
        lines.replace(at, std::string(kPlannedNotesLead).size(),
                      "Planned by openrecipes plan, then measured under the protocol and filled "
                      "by openrecipes finalize.");
        edits.push_back({{*range, lines}, "notes", "finalize"});
      }
    }
  }
  add("result", filled.result, request.candidate_log);
  add("correctness", filled.correctness, request.candidate_log + " and " + request.reference_log);
  // In file order: to_draft walks them top down.
  std::sort(edits.begin(), edits.end(), [](const NamedEdit& a, const NamedEdit& b) {
    return a.edit.range.first < b.edit.range.first;
  });
  return edits;
}

// Moves a problem found in the composed text to the draft: a line the draft gave keeps its place
// in the draft (shifted past the filled blocks); a line finalize filled names its field and the
// evidence it came from.
Problem to_draft(Problem problem, const FinalizeRequest& request, const RecipeFile& draft,
                 const std::vector<NamedEdit>& edits) {
  problem.file = request.draft;
  int line = problem.position.line;
  int shift = 0;
  for (const NamedEdit& named : edits) {
    const LineRange& r = named.edit.range;
    int written =
        static_cast<int>(std::count(named.edit.lines.begin(), named.edit.lines.end(), '\n'));
    int first_out = r.first + shift;
    if (line >= first_out && line < first_out + written) {
      problem.position =
          named.field.empty() ? SourcePosition{1, 1} : draft.document.position_of(named.field);
      problem.message +=
          fmt::format(" (in {} as finalize filled it from {})",
                      named.field.empty() ? "the header" : named.field, named.source);
      return problem;
    }
    if (line >= first_out + written) shift += written - (r.end - r.first);
  }
  if (line > 0) problem.position.line = line - shift;
  return problem;
}

std::string header_lines(const std::string& catalog_path, const CorrectnessCheck& check,
                         bool verified) {
  std::string out = fmt::format(
      "# {}\n# An OpenRecipes recipe; the fields are documented in schema/recipe.schema.yaml.\n"
      "# Filled by openrecipes finalize from the measured run and its reference arm.\n",
      catalog_path);
  if (!verified) out += fmt::format("# Not verified: {}\n", check.summary());
  return out;
}

}  // namespace

std::optional<FinalizedRecipe> finalize_recipe(const FinalizeRequest& request, Problems& problems) {
  std::optional<RecipeFile> draft = read_recipe_file(request.root, request.draft, problems);
  std::optional<RecipeFile> reference = read_recipe_file(request.root, request.reference, problems);
  if (!draft || !reference) return std::nullopt;
  if (reference->recipe.status == "planned") {
    problems.push_back(problem_at(request.reference, reference->document.position_of("status"),
                                  "status", "finalize.reference",
                                  "the reference is a planned draft, not a measured recipe",
                                  "a verified catalog recipe", "planned"));
    return std::nullopt;
  }
  if (reference->recipe.model != draft->recipe.model) {
    problems.push_back(problem_at(request.reference, reference->document.position_of("model"),
                                  "model", "finalize.reference",
                                  "the reference trains another model: its rows and command are "
                                  "not the draft's reference",
                                  draft->recipe.model, reference->recipe.model));
    return std::nullopt;
  }
  bool filled_by_author = draft_is_filled(request, *draft, problems);
  std::optional<std::string> catalog_path = catalog_path_of(request, *draft, problems);
  std::optional<std::string> dataset = dataset_lines(request, *draft, *reference, problems);
  std::optional<Evidence> evidence = gather_evidence(request, *draft, *reference, problems);
  if (!filled_by_author || !catalog_path || !dataset || !evidence) return std::nullopt;

  Recipe recipe = draft->recipe;
  recipe.correctness.reference = fmt::format(
      "{}, run as the reference arm on the same image, rows and GPU type", request.reference);
  recipe.correctness.rules =
      "argument classes of the catalog's rules/arguments.yaml (openrecipes classify); 20-step "
      "check by Megatron-Bridge validate_convergence with its pipeline thresholds (openrecipes "
      "converge)";
  const Model& model = *draft->catalog.catalog.find_model(recipe.model);
  CorrectnessInputs inputs;
  inputs.classification = evidence->classification;
  inputs.reference = request.reference;
  inputs.convergence = evidence->convergence;

  FinalizedRecipe out;
  out.catalog_path = *catalog_path;
  out.path = request.root / *catalog_path;
  out.result = evidence->result;
  Filled filled;
  filled.dataset = *dataset;
  filled.result = result_block_yaml(evidence->result) + mfu_note_line(evidence->result) +
                  active_params_lines(model);
  std::vector<NamedEdit> edits;
  // Twice: the first text, unverified, is validated; the check then composes validation's
  // verdict with the rest and sets the status; the second text must validate as it is written.
  for (int pass = 0; pass < 2; ++pass) {
    out.check = check_correctness(recipe, inputs);
    bool verified = pass == 1 && out.check.passed();
    out.status = verified ? "verified" : "unverified";
    filled.header = header_lines(*catalog_path, out.check, verified);
    filled.status = "status: " + out.status + "\n";
    filled.correctness = correctness_block_yaml(recipe, inputs, out.check);
    edits = edits_for(request, *draft, filled);
    std::vector<LineEdit> plain;
    for (const NamedEdit& named : edits) plain.push_back(named.edit);
    out.text = splice_lines(draft->document.text, plain);
    RecipeReport report =
        validate_recipe_text(draft->catalog, *catalog_path, *catalog_path, out.text);
    inputs.validation = report.problems;
  }
  if (!inputs.validation.empty()) {
    for (const Problem& problem : inputs.validation)
      problems.push_back(to_draft(problem, request, *draft, edits));
    return std::nullopt;
  }
  return out;
}

bool write_finalized_recipe(const FinalizedRecipe& recipe, bool replace, Problems& problems) {
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::symlink_status(recipe.path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    problems.push_back(problem_at(
        recipe.path.string(), {}, "", "finalize.exists",
        "something other than a recipe is at the draft's catalog path", "a recipe file or nothing",
        std::filesystem::is_symlink(status)     ? "a symbolic link"
        : std::filesystem::is_directory(status) ? "a folder"
                                                : "a device, FIFO or socket"));
    return false;
  }
  if (!replace && std::filesystem::exists(status)) {
    problems.push_back(problem_at(recipe.path.string(), {}, "", "finalize.exists",
                                  "a recipe is already at the draft's catalog path (give "
                                  "--replace to overwrite it, or --variant for another name)"));
    return false;
  }
  std::filesystem::create_directories(recipe.path.parent_path(), ec);
  if (ec) {
    problems.push_back(problem_at(recipe.path.parent_path().string(), {}, "", "io",
                                  "cannot create the folder", "", ec.message()));
    return false;
  }
  return write_text_atomically(recipe.path.string(), recipe.text, "", problems);
}

}  // namespace openrecipes
