#include "catalog/measurement_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/yaml_fields.h"
#include "catalog/catalog_loader.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::optional<int> optional_int(const YamlNode& node, std::string_view key) {
  std::optional<double> value = field_optional_number(node, key);
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}

MeasurementSource source_from_yaml(const YamlNode& node) {
  MeasurementSource s;
  s.file = field_string(node, "file");
  s.commit = field_string(node, "commit");
  s.section = field_string(node, "section");
  s.row = field_int32(node, "row");
  s.line = field_int32(node, "line");
  return s;
}

void read_layout(const YamlNode& item, PublishedMeasurement& m) {
  m.gbs = field_int(item, "gbs");
  m.mbs = field_int32(item, "mbs");
  m.seq_length = field_int(item, "seq_length");
  m.fsdp = optional_int(item, "fsdp");
  m.tp = field_int32(item, "tp", 1);
  m.pp = field_int32(item, "pp", 1);
  m.cp = field_int32(item, "cp", 1);
  m.vpp = optional_int(item, "vpp");
  m.ep = optional_int(item, "ep");
  m.etp = optional_int(item, "etp");
  m.ga = optional_int(item, "ga");
  m.ga_mismatch = field_bool(item, "ga_mismatch");
}

PublishedMeasurement row_from_yaml(const YamlNode& item, std::size_t index) {
  PublishedMeasurement m;
  m.release = field_string(item, "release");
  m.task = field_string(item, "task");
  m.model = field_string(item, "model");
  m.model_as_written = field_string(item, "model_as_written");
  m.variant = field_string_list(item, "variant");
  m.system = field_string(item, "system");
  m.gpu = field_string(item, "gpu");
  m.gpus = field_int32(item, "gpus");
  m.precision_as_written = field_optional_string(item, "precision_as_written");
  m.precision = field_string(item, "precision");
  m.precision_stated = field_bool(item, "precision_stated", true);
  m.measurement = field_string(item, "measurement");
  read_layout(item, m);
  m.routing = field_optional_string(item, "routing").value_or("");
  m.tokens_per_s_per_gpu = field_number(item, "tokens_per_s_per_gpu");
  m.model_tflop_per_s_per_gpu = field_number(item, "model_tflop_per_s_per_gpu");
  m.notes = field_string_list(item, "notes");
  m.known_issue = field_optional_string(item, "known_issue").value_or("");
  if (const YamlNode* source = field_mapping(item, "source")) m.source = source_from_yaml(*source);
  m.position = item.position;
  m.index = index;
  return m;
}

PublishedRunSettings run_settings_from_yaml(const YamlNode& item) {
  PublishedRunSettings s;
  s.gpus = field_string_list(item, "gpus");
  s.precisions = field_string_list(item, "precisions");
  if (std::optional<double> gbs = field_optional_number(item, "gbs"))
    s.gbs = static_cast<std::int64_t>(*gbs);
  s.mbs = optional_int(item, "mbs");
  s.tp = optional_int(item, "tp");
  s.pp = optional_int(item, "pp");
  s.vpp = optional_int(item, "vpp");
  s.ep = optional_int(item, "ep");
  s.dispatcher = field_string(item, "dispatcher");
  s.flex_backend = field_string(item, "flex_backend");
  s.shared_expert_overlap = field_bool(item, "shared_expert_overlap");
  s.ep_a2a_overlap = field_bool(item, "ep_a2a_overlap");
  s.fused_expert_mlp = field_bool(item, "fused_expert_mlp");
  if (item.find("recompute_modules"))
    s.recompute_modules = field_string_list(item, "recompute_modules");
  if (const YamlNode* source = field_mapping(item, "source")) {
    s.source_file = field_string(*source, "file");
    s.source_commit = field_string(*source, "commit");
    s.source_configs = field_string_list(*source, "configs");
  }
  return s;
}

MeasurementModel model_from_yaml(const YamlNode& item) {
  MeasurementModel m;
  m.slug = field_string(item, "slug");
  m.names = field_string_list(item, "names");
  m.kind = field_string(item, "kind");
  m.hf_repo = field_string(item, "hf_repo");
  m.config = field_optional_string(item, "config");
  m.config_reason = field_string(item, "config_reason");
  if (const YamlNode* list = item.find("run_settings")) {
    for (const YamlNode& entry : list->items)
      m.run_settings.push_back(run_settings_from_yaml(entry));
  }
  if (const YamlNode* grad = field_mapping(item, "grad_reduce_in_fp32")) {
    m.grad_reduce_in_fp32 = field_bool(*grad, "value", true);
    if (const YamlNode* source = field_mapping(*grad, "source")) {
      m.grad_reduce_source_file = field_string(*source, "file");
      m.grad_reduce_source_commit = field_string(*source, "commit");
      m.grad_reduce_source_configs = field_string_list(*source, "configs");
    }
  }
  return m;
}

template <typename T, typename F>
std::vector<T> list_from_yaml(const YamlNode& root, const char* key, F convert) {
  std::vector<T> out;
  const YamlNode* list = root.find(key);
  if (!list) return out;
  for (std::size_t i = 0; i < list->items.size(); ++i) out.push_back(convert(list->items[i], i));
  return out;
}

/// Adds problems to one dataset file's rows, each at the row's field.
class RowChecker {
 public:
  RowChecker(const YamlDocument& document, Problems& problems)
      : document_(document), problems_(problems) {}

  void fail(const PublishedMeasurement& m, const std::string& field, const std::string& rule,
            const std::string& message, const std::string& expected, const std::string& found) {
    std::string path = fmt::format("rows[{}].{}", m.index, field);
    problems_.push_back(
        {document_.file, document_.position_of(path), path, rule, message, expected, found});
  }

 private:
  const YamlDocument& document_;
  Problems& problems_;
};

void check_parallel(const PublishedMeasurement& m, RowChecker& c) {
  int model_parallel = m.tp * m.pp * m.cp;
  if (m.gpus % model_parallel != 0) {
    c.fail(
        m, "gpus", "measurements.dp", "TP x PP x CP does not divide the GPUs",
        fmt::format("a multiple of {} (TP {} x PP {} x CP {})", model_parallel, m.tp, m.pp, m.cp),
        std::to_string(m.gpus));
    return;
  }
  std::int64_t dp = m.gpus / model_parallel;
  if (m.gbs % (m.mbs * dp) != 0) {
    c.fail(m, "gbs", "measurements.batch", "MBS x DP does not divide GBS",
           fmt::format("a multiple of {} (MBS {} x DP {})", m.mbs * dp, m.mbs, dp),
           std::to_string(m.gbs));
    return;
  }
  std::int64_t ga = m.gbs / (m.mbs * dp);
  if (m.ga && !m.ga_mismatch && *m.ga != ga) {
    c.fail(m, "ga", "measurements.ga", "GA is not GBS / (MBS x DP)",
           fmt::format("{} (GBS {} / (MBS {} x DP {})), or ga_mismatch: true for a published "
                       "figure that differs",
                       ga, m.gbs, m.mbs, dp),
           std::to_string(*m.ga));
  }
  if (m.ga_mismatch && (!m.ga || *m.ga == ga)) {
    c.fail(m, "ga_mismatch", "measurements.ga",
           "ga_mismatch is set but the stated GA agrees with GBS / (MBS x DP) or is absent",
           "no ga_mismatch", m.ga ? std::to_string(*m.ga) : "no ga");
  }
  if (m.vpp && *m.vpp > 1 && m.pp == 1) {
    c.fail(m, "vpp", "measurements.vpp", "a virtual pipeline needs PP > 1", "VP 1 or null",
           std::to_string(*m.vpp));
  }
}

std::string normalised_precision(const std::string& written) {
  static const std::map<std::string, std::string> kPrecisions = {
      {"BF16", "bf16"},    {"FP8", "fp8"},     {"FP8-CS", "fp8"},
      {"FP8-MX", "mxfp8"}, {"MXFP8", "mxfp8"}, {"NVFP4", "nvfp4"}};
  auto it = kPrecisions.find(written);
  return it == kPrecisions.end() ? "" : it->second;
}

void check_precision(const PublishedMeasurement& m, RowChecker& c) {
  if (!m.precision_as_written) {
    if (m.precision_stated) {
      c.fail(m, "precision_stated", "measurements.precision",
             "no precision is written, so it cannot be stated", "false", "true");
    }
    return;
  }
  if (!m.precision_stated) {
    c.fail(m, "precision_stated", "measurements.precision", "a written precision is a stated one",
           "true", "false");
  }
  std::string expected = normalised_precision(*m.precision_as_written);
  // FP8 per-tensor tables on H100 may name the blockwise variant in a note.
  bool blockwise = expected == "fp8" && m.precision == "fp8_blockwise";
  if (m.precision != expected && !blockwise) {
    c.fail(m, "precision", "measurements.precision",
           fmt::format("does not match the written precision {}", *m.precision_as_written),
           expected, m.precision);
  }
}

void check_references(const PublishedMeasurement& m, const std::vector<Gpu>& gpus,
                      const MeasurementDataset& dataset, RowChecker& c) {
  bool known_gpu = false;
  for (const Gpu& g : gpus) known_gpu = known_gpu || g.type == m.gpu;
  if (!known_gpu) {
    c.fail(m, "gpu", "measurements.gpu", "GPU type is not in gpus.yaml", "a type of gpus.yaml",
           m.gpu);
  } else if (m.system != "DGX-" + m.gpu) {
    c.fail(m, "system", "measurements.gpu", "the system is not the GPU type's DGX", "DGX-" + m.gpu,
           m.system);
  }
  const MeasurementModel* model = dataset.find_model(m.model);
  if (!model) {
    c.fail(m, "model", "measurements.model", fmt::format("not in {}", kMeasurementModelsFile),
           "a slug of the models file", m.model);
    return;
  }
  bool dense = model->kind == "dense";
  if (dense != m.routing.empty()) {
    c.fail(m, "routing", "measurements.routing",
           dense ? "a dense model has no MoE routing" : "an MoE model's routing must be stated",
           dense ? "null" : "forced_balanced or token_drop",
           m.routing.empty() ? "null" : m.routing);
  }
}

std::string row_key(const PublishedMeasurement& m) {
  std::string variant;
  for (const std::string& v : m.variant) variant += v + ";";
  auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; };
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", m.release, m.task,
                     m.model, variant, m.system, m.gpus, m.precision, m.gbs, m.mbs, m.seq_length,
                     opt(m.fsdp), m.tp, m.pp, m.cp, opt(m.vpp), opt(m.ep), opt(m.etp), opt(m.ga));
}

void check_rows(const YamlDocument& document, const MeasurementDataset& dataset,
                const std::vector<Gpu>& gpus, Problems& problems) {
  RowChecker checker(document, problems);
  std::map<std::string, std::size_t> seen;
  for (const PublishedMeasurement& m : dataset.rows) {
    check_parallel(m, checker);
    check_precision(m, checker);
    check_references(m, gpus, dataset, checker);
    auto [it, inserted] = seen.emplace(row_key(m), m.index);
    if (!inserted) {
      checker.fail(m, "release", "measurements.unique",
                   "the same settings as another row (release, task, model, variant, system, "
                   "GPUs, precision, batch, sequence, layout)",
                   "a unique row", fmt::format("the settings of rows[{}]", it->second));
    }
  }
}

void check_models(const fs::path& root, const YamlDocument& document,
                  const std::vector<MeasurementModel>& models, const std::vector<Gpu>& gpus,
                  const std::vector<Model>* catalog_models, Problems& problems) {
  std::set<std::string> slugs;
  for (std::size_t i = 0; i < models.size(); ++i) {
    const MeasurementModel& m = models[i];
    auto fail = [&](const std::string& field, const std::string& rule, const std::string& message,
                    const std::string& expected, const std::string& found) {
      std::string path = fmt::format("models[{}].{}", i, field);
      problems.push_back(
          {document.file, document.position_of(path), path, rule, message, expected, found});
    };
    if (!slugs.insert(m.slug).second) {
      fail("slug", "measurements.unique", "appears twice", "a unique slug", m.slug);
    }
    for (std::size_t k = 0; k < m.run_settings.size(); ++k) {
      const PublishedRunSettings& settings = m.run_settings[k];
      for (std::size_t g = 0; g < settings.gpus.size(); ++g) {
        if (std::none_of(gpus.begin(), gpus.end(),
                         [&](const Gpu& gpu) { return gpu.type == settings.gpus[g]; })) {
          fail(fmt::format("run_settings[{}].gpus[{}]", k, g), "measurements.run_settings",
               "not a GPU type of gpus.yaml", "a type of gpus.yaml", settings.gpus[g]);
        }
      }
      if ((settings.dispatcher == "flex") != !settings.flex_backend.empty()) {
        fail(fmt::format("run_settings[{}].flex_backend", k), "measurements.run_settings",
             "the flex dispatcher names its backend, and only it",
             settings.dispatcher == "flex" ? "deepep or hybridep" : "no flex_backend",
             settings.flex_backend.empty() ? "none" : settings.flex_backend);
      }
      if (m.kind != "moe") {
        fail(fmt::format("run_settings[{}]", k), "measurements.run_settings",
             "run settings are MoE settings (dispatcher and overlaps)", "kind moe", m.kind);
      }
    }
    if (!m.config) {
      if (m.config_reason.empty()) {
        fail("config_reason", "measurements.config", "a model without a config says why",
             "a reason", "none");
      }
      continue;
    }
    std::string expected = "models/" + m.slug + "/config.json";
    if (*m.config != expected) {
      fail("config", "measurements.config", "the config is not in the model's folder", expected,
           *m.config);
    } else if (!fs::is_regular_file(root / *m.config) ||
               !fs::is_regular_file(root / "models" / m.slug / "source.yaml")) {
      fail("config", "measurements.config", "config.json or its source.yaml beside it is missing",
           "models/" + m.slug + "/config.json and source.yaml", "no such file");
    }
    if (catalog_models && std::none_of(catalog_models->begin(), catalog_models->end(),
                                       [&](const Model& c) { return c.slug == m.slug; })) {
      fail("slug", "measurements.catalog_model",
           "a model with a config is one of the catalog's models (models.yaml), which reads the "
           "same models/<slug>/config.json",
           "a models.yaml entry with slug " + m.slug, "none");
    }
  }
}

}  // namespace

bool PublishedRunSettings::matches(const PublishedMeasurement& row) const {
  auto listed = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  return listed(gpus, row.gpu) && listed(precisions, row.precision) && (!gbs || *gbs == row.gbs) &&
         (!mbs || *mbs == row.mbs) && (!tp || *tp == row.tp) && (!pp || *pp == row.pp) &&
         (!vpp || *vpp == row.vpp.value_or(1)) && (!ep || *ep == row.ep.value_or(1));
}

const PublishedRunSettings* MeasurementModel::settings_for(const PublishedMeasurement& row) const {
  for (const PublishedRunSettings& s : run_settings) {
    if (s.matches(row)) return &s;
  }
  return nullptr;
}

const MeasurementModel* MeasurementDataset::find_model(const std::string& slug) const {
  for (const MeasurementModel& m : models) {
    if (m.slug == slug) return &m;
  }
  return nullptr;
}

std::optional<MeasurementDataset> load_measurement_dataset(
    const fs::path& root, const std::vector<Gpu>& gpus, Problems& problems,
    const std::vector<Model>* catalog_models) {
  std::optional<YamlDocument> rows =
      load_checked_file((root / kMeasurementRowsFile).string(),
                        (root / "schema" / "measurements.schema.yaml").string(), problems);
  std::optional<YamlDocument> models =
      load_checked_file((root / kMeasurementModelsFile).string(),
                        (root / "schema" / "measurement-models.schema.yaml").string(), problems);
  if (!rows || !models) return std::nullopt;
  MeasurementDataset dataset;
  dataset.file = rows->file;
  dataset.models_file = models->file;
  dataset.rows = list_from_yaml<PublishedMeasurement>(rows->root, "rows", row_from_yaml);
  dataset.models = list_from_yaml<MeasurementModel>(
      models->root, "models",
      [](const YamlNode& item, std::size_t) { return model_from_yaml(item); });
  std::size_t before = problems.size();
  check_models(root, *models, dataset.models, gpus, catalog_models, problems);
  check_rows(*rows, dataset, gpus, problems);
  if (problems.size() != before) return std::nullopt;
  return dataset;
}

}  // namespace openrecipes
