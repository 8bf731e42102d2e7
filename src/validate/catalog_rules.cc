// Rules tying a recipe to the rest of the catalog: its path, models.yaml, gpus.yaml, patches/,
// and the status its evidence allows.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "base/ascii.h"
#include "catalog/author.h"
#include "figures/layout_label.h"
#include "runs/convergence.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

std::string names_of_models(const Catalog& catalog) {
  std::vector<std::string> names;
  for (const Model& model : catalog.models) names.push_back(model.name);
  return fmt::format("one of {}", fmt::join(names, ", "));
}

std::string names_of_gpus(const Catalog& catalog) {
  std::vector<std::string> names;
  for (const Gpu& gpu : catalog.gpus) names.push_back(gpu.type);
  return fmt::format("one of {}", fmt::join(names, ", "));
}

}  // namespace

bool is_recipe_variant(std::string_view text) {
  // By hand: std::regex recurses per character and overflows the stack on long input.
  if (text.empty() || text.front() == '-' || text.back() == '-') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool word = (c >= 'a' && c <= 'z') || ascii_digit(c);
    if (!word && !(c == '-' && text[i - 1] != '-')) return false;
  }
  return true;
}

namespace {

void check_path(const RuleContext& c) {
  const Model* model = c.catalog.find_model(c.recipe.model);
  const Gpu* gpu = c.catalog.find_gpu(c.recipe.gpu.type);
  std::string handle =
      author_handle(c.recipe.author.github, c.recipe.author.name, c.catalog.authors);
  if (handle.empty()) {
    // A name of no letters or digits (`!!!`) would name the file `-tp1-...yaml`.
    c.report("path", c.recipe.author.github.empty() ? "author.name" : "author.github",
             "the author gives no handle for the file name", "a name with a letter or digit",
             c.recipe.author.github.empty() ? c.recipe.author.name : c.recipe.author.github);
    return;
  }
  std::string stem = handle + "-" + layout_slug(c.recipe.layout);
  std::string expected =
      fmt::format("recipes/{}/{}/{}[-<variant>].yaml", model ? model->slug : "<model slug>",
                  gpu ? gpu->slug : "<gpu slug>", stem);
  if (c.file.catalog_path.empty()) {
    if (c.recipe.status == "planned") return;  // a draft outside recipes/ (status.planned)
    // The catalog is found from the working folder (or --root), not from the file: say which.
    c.report_at({1, 1}, "path", "",
                fmt::format("the file is not inside the recipes/ folder of the catalog at {} (give "
                            "--root for the catalog it belongs to)",
                            c.catalog.root.string()),
                expected, c.file.display_path);
    return;
  }
  std::vector<std::string> parts;
  std::string part;
  for (char ch : c.file.catalog_path) {
    if (ch == '/') {
      parts.push_back(part);
      part.clear();
    } else {
      part += ch;
    }
  }
  parts.push_back(part);
  auto mismatch = [&](const std::string& field, const std::string& what) {
    c.report("path", field, fmt::format("the file's path disagrees with its {}", what), expected,
             c.file.catalog_path);
  };
  if (parts.size() != 4 || parts[0] != "recipes") {
    mismatch("", "content");
    return;
  }
  if (model && parts[1] != model->slug) return mismatch("model", "model");
  if (gpu && parts[2] != gpu->slug) return mismatch("gpu.type", "GPU type");
  const std::string& name = parts[3];
  if (name.size() < 5 || name.substr(name.size() - 5) != ".yaml") return mismatch("", "content");
  std::string found_stem = name.substr(0, name.size() - 5);
  if (found_stem.rfind(handle + "-", 0) != 0) return mismatch("author", "author");
  if (found_stem != stem &&
      !(found_stem.rfind(stem, 0) == 0 && found_stem[stem.size()] == '-' &&
        is_recipe_variant(std::string_view(found_stem).substr(stem.size() + 1)))) {
    mismatch("layout", "layout");
  }
}

void check_catalog_refs(const RuleContext& c) {
  const Model* model = c.catalog.find_model(c.recipe.model);
  if (!model) {
    c.report("catalog.model", "model", "the model is not in models.yaml",
             names_of_models(c.catalog), c.recipe.model);
  } else if (c.recipe.status != "planned") {  // a planned draft has no result yet
    const ActiveParams& params = c.recipe.result.active_params;
    if (params.count != model->active_params) {
      c.report("catalog.active_params", "result.active_params.count",
               fmt::format("N disagrees with the count from models/{}/config.json "
                           "(openrecipes active-params {})",
                           model->slug, model->slug),
               fmt::format("{}", model->active_params), fmt::format("{}", params.count));
    }
    std::string source = "https://huggingface.co/" + model->hf_repo;
    if (params.source != source) {
      c.report("catalog.active_params", "result.active_params.source",
               "N's source is not the model's Hugging Face repository in models.yaml", source,
               params.source);
    }
    if (model->revision.empty()) {
      c.report("catalog.active_params", "result.active_params.revision",
               "the model has no Hugging Face revision in models.yaml (its config.json was copied "
               "from another repository); add the revision the recipe's N was counted from",
               "a revision in models.yaml", params.revision);
    } else if (params.revision != model->revision) {
      c.report("catalog.active_params", "result.active_params.revision",
               "N's revision is not the model's revision in models.yaml", model->revision,
               params.revision);
    }
  }
  const Gpu* gpu = c.catalog.find_gpu(c.recipe.gpu.type);
  if (!gpu) {
    c.report("catalog.gpu", "gpu.type", "the GPU type is not in gpus.yaml",
             names_of_gpus(c.catalog), c.recipe.gpu.type);
  } else if (gpu->memory_gb != c.recipe.gpu.memory_gb) {
    c.report("catalog.gpu", "gpu.memory_gb",
             fmt::format("the memory disagrees with gpus.yaml's {}", gpu->type),
             fmt::format("{}", gpu->memory_gb), fmt::format("{}", c.recipe.gpu.memory_gb));
  }
}

void check_patches(const RuleContext& c) {
  namespace fs = std::filesystem;
  for (std::size_t i = 0; i < c.recipe.patches.size(); ++i) {
    const std::string& patch = c.recipe.patches[i];
    std::error_code ec;
    if (patch.find("..") != std::string::npos) {
      c.report("patches", fmt::format("patches[{}]", i), "a patch path may not contain '..'",
               "a file under patches/", patch);
    } else if (!fs::is_regular_file(c.catalog.root / patch, ec)) {
      c.report("patches", fmt::format("patches[{}]", i), "the patch file does not exist",
               fmt::format("a file at {}", (c.catalog.root / patch).generic_string()), "none");
    }
  }
}

void check_status(const RuleContext& c) {
  if (c.recipe.status != "verified") return;
  const Correctness& k = c.recipe.correctness;
  auto fail = [&](const std::string& field, const std::string& found) {
    c.report("status", field, "status is verified, but this correctness part did not pass", "pass",
             found);
  };
  if (k.result != "pass") fail("correctness.result", k.result);
  if (k.configuration != "pass") fail("correctness.configuration", k.configuration);
  if (k.convergence.result != "pass") fail("correctness.convergence.result", k.convergence.result);
  if (k.convergence.pointwise_failures != 0) {
    c.report("status", "correctness.convergence.pointwise_failures",
             "status is verified, but the convergence check has pointwise failures", "0",
             fmt::format("{}", k.convergence.pointwise_failures));
  }
  for (std::size_t i = 0; i < k.component_tests.size(); ++i) {
    if (k.component_tests[i].result != "pass") {
      fail(fmt::format("correctness.component_tests[{}].result", i), k.component_tests[i].result);
    }
  }
}

// A planned draft (openrecipes export) is predicted, not measured: it may not be listed.
void check_planned(const RuleContext& c) {
  if (c.recipe.status != "planned" || c.file.catalog_path.empty()) return;
  c.report("status.planned", "status",
           "planned drafts are not listed until measured: run it under the protocol and fill in "
           "result and "
           "correctness",
           "verified or unverified", "planned");
}

void check_stated_convergence(const RuleContext& c) {
  // A convergence stated as passed must meet validate_convergence's thresholds
  // (runs/convergence.h).
  const Convergence& k = c.recipe.correctness.convergence;
  if (k.result != "pass") return;
  const ConvergenceThresholds thresholds;
  if (!k.correlation || *k.correlation < thresholds.correlation) {
    c.report("convergence", "correctness.convergence.correlation",
             "convergence is stated as passed with a correlation below the threshold",
             fmt::format("at least {}", thresholds.correlation),
             k.correlation ? fmt::format("{}", *k.correlation) : "null (no correlation)");
  }
  if (k.final_loss_difference > thresholds.final_loss_tolerance) {
    c.report("convergence", "correctness.convergence.final_loss_difference",
             "convergence is stated as passed with a final loss difference above the tolerance",
             fmt::format("at most {}", thresholds.final_loss_tolerance),
             fmt::format("{}", k.final_loss_difference));
  }
}

bool is_calendar_date(const std::string& text) {
  int year = 0, month = 0, day = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d", &year, &month, &day) != 3) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

void check_dates(const RuleContext& c) {
  auto check = [&](const std::string& field, const std::string& value) {
    if (!is_calendar_date(value)) {
      c.report("dates", field, "not a real calendar date", "YYYY-MM-DD", value);
    }
  };
  check("result.measured", c.recipe.result.measured);
  for (std::size_t i = 0; i < c.recipe.correctness.component_tests.size(); ++i) {
    check(fmt::format("correctness.component_tests[{}].date", i),
          c.recipe.correctness.component_tests[i].date);
  }
}

}  // namespace

void check_catalog_rules(const RuleContext& context) {
  check_path(context);
  check_catalog_refs(context);
  check_patches(context);
  check_status(context);
  check_planned(context);
  if (context.recipe.status == "planned") return;  // no result or correctness to check yet
  check_stated_convergence(context);
  check_dates(context);
}

}  // namespace openrecipes
