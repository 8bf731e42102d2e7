// The protocol terms of the run command: sequence length, global batch, precision and step count
// agree with `workload` and `result`, and a run that departs from the protocol (catalog/protocol.h)
// says so in result.protocol_deviation. Each term is read through its effective value
// (run_settings.h).
#include <fmt/format.h>

#include "catalog/protocol.h"
#include "validate/run_checks.h"

namespace openrecipes {
namespace {

bool known(RunFramework framework) { return framework != RunFramework::kUnknown; }

void missing(const RunView& run, const std::string& rule, const std::string& field, std::string why,
             const std::string& expected) {
  run.report(rule, std::nullopt, field, std::move(why), expected, "no such argument");
}

// --seq-length (Megatron-LM, slime) and Megatron-Bridge's model.seq_length and the dataset's
// length (dataset.seq_length of a fine-tuning dataset, dataset.sequence_length of a GPT dataset;
// ConfigContainer.validate asserts they agree, megatron/bridge/training/config.py), wherever
// stated, equal workload.row_tokens. Megatron-LM and Megatron-Bridge
// train on that length, so they must state it. slime need not: its validate_args always sets
// variable_seq_lengths and its set_default_megatron_args only fills a 4096 placeholder
// (slime/backends/megatron_utils/arguments.py), so each row trains at its own length, which the
// rows file sets (rows verify checks it).
void check_seq_length(const RunView& run, std::int64_t row_tokens) {
  const std::string rule = "run.seq_length";
  bool stated = false;
  for (std::string_view name :
       {"--seq-length", "model.seq_length", "dataset.seq_length", "dataset.sequence_length"}) {
    if (std::optional<RunSetting> setting = run.effective({name})) {
      stated = true;
      check_stated_integer(run, rule, *setting, "workload.row_tokens", row_tokens, name);
    }
  }
  if (stated) return;
  if (run.framework() == RunFramework::kMegatronLm) {
    missing(run, rule, "workload.row_tokens", "Megatron-LM trains on --seq-length: state it",
            fmt::format("--seq-length {}", row_tokens));
  } else if (run.framework() == RunFramework::kBridge) {
    missing(run, rule, "workload.row_tokens",
            "Megatron-Bridge trains on the recipe's seq_length: override it",
            fmt::format("model.seq_length={} dataset.seq_length={}", row_tokens, row_tokens));
  }
}

// slime's global batch: --global-batch-size, else rollout_batch_size x n_samples_per_prompt /
// num_steps_per_rollout (slime/utils/arguments.py, slime_validate_args).
std::optional<long long> slime_global_batch(const RunView& run) {
  std::optional<RunSetting> steps = run.effective({"--num-steps-per-rollout"});
  std::optional<RunSetting> rollout = run.effective({"--rollout-batch-size"});
  if (!steps || !rollout) return std::nullopt;
  std::optional<long long> s = setting_integer(steps->value), b = setting_integer(rollout->value);
  std::optional<long long> n =
      setting_integer(run.or_default({"--n-samples-per-prompt"}, "1")->value);
  if (!s || !b || !n || *s <= 0) return std::nullopt;
  return *b * *n / *s;
}

void check_global_batch(const RunView& run, std::int64_t global_batch) {
  const std::string rule = "run.global_batch";
  std::optional<RunSetting> setting =
      run.effective({"--global-batch-size", "train.global_batch_size"});
  if (setting)
    return check_stated_integer(run, rule, *setting, "workload.global_batch", global_batch,
                                "--global-batch-size");
  if (run.framework() == RunFramework::kSlime) {
    if (std::optional<long long> derived = slime_global_batch(run)) {
      if (*derived != global_batch) {
        missing(run, rule, "workload.global_batch",
                "slime's global batch (rollout batch x samples per prompt / steps per rollout) "
                "disagrees",
                fmt::format("{}", global_batch));
      }
      return;
    }
  }
  if (known(run.framework())) {
    missing(run, rule, "workload.global_batch", "the run command must state the global batch",
            run.framework() == RunFramework::kBridge
                ? fmt::format("train.global_batch_size={}", global_batch)
                : fmt::format("--global-batch-size {}", global_batch));
  }
}

// bf16: no FP16 and no FP8 settings, and Megatron-LM's --bf16 (it trains in FP32 without --bf16
// or --fp16, megatron/training/arguments.py); slime sets bf16 = not fp16
// (slime/backends/megatron_utils/arguments.py). fp8: --fp8-format (or Bridge's model.fp8) is set;
// mxfp8: also --fp8-recipe mxfp8; nvfp4: --fp4-format (Megatron-LM's Transformer-Engine flags).
void check_precision(const RunView& run, const std::string& precision) {
  const std::string rule = "run.precision";
  std::optional<RunSetting> fp16 = run.effective({"--fp16", "model.fp16"});
  std::optional<RunSetting> fp8 = run.effective({"--fp8-format", "model.fp8"});
  std::optional<RunSetting> fp8_recipe = run.effective({"--fp8-recipe", "model.fp8_recipe"});
  std::optional<RunSetting> fp4 = run.effective({"--fp4-format", "model.fp4"});
  auto stated = [](const std::optional<RunSetting>& s) {
    return s && s->value != "false" && s->value != "False" && s->value != "null" &&
           s->value != "None";
  };
  if (stated(fp16)) {
    run.report(rule, fp16, "workload.precision", "the run trains in FP16", precision, "fp16");
  }
  if (precision == "bf16") {
    for (const std::optional<RunSetting>& s : {fp8, fp8_recipe}) {
      if (stated(s)) {
        run.report(rule, s, "workload.precision",
                   "the run uses FP8: a bf16 recipe sets no FP8 format or recipe", "bf16",
                   "fp8 " + s->value);
      }
    }
    if (stated(fp4)) {
      run.report(rule, fp4, "workload.precision",
                 "the run uses FP4: a bf16 recipe sets no FP4 format", "bf16", "fp4 " + fp4->value);
    }
    if (run.framework() == RunFramework::kMegatronLm && !run.switch_on({"--bf16"})) {
      missing(run, rule, "workload.precision",
              "Megatron-LM trains in FP32 without --bf16: state it", "--bf16");
    }
  } else if (precision == "fp8" && !stated(fp8)) {
    missing(run, rule, "workload.precision", "an fp8 recipe's run sets its FP8 format",
            run.framework() == RunFramework::kBridge ? "model.fp8=hybrid" : "--fp8-format hybrid");
  } else if (precision == "mxfp8" && !(stated(fp8) && fp8_recipe && fp8_recipe->value == "mxfp8")) {
    missing(run, rule, "workload.precision",
            "an mxfp8 recipe's run sets an FP8 format and the mxfp8 recipe",
            run.framework() == RunFramework::kBridge ? "model.fp8=e4m3 model.fp8_recipe=mxfp8"
                                                     : "--fp8-format e4m3 --fp8-recipe mxfp8");
  } else if (precision == "nvfp4" && !stated(fp4)) {
    missing(run, rule, "workload.precision", "an nvfp4 recipe's run sets its FP4 format",
            run.framework() == RunFramework::kBridge ? "model.fp4=e2m1" : "--fp4-format e2m1");
  }
}

// Steps per run. slime: --num-rollout x steps per rollout, where steps per rollout is
// --num-steps-per-rollout or rollout_batch_size x n_samples_per_prompt / global_batch_size (the
// samples of a rollout over the samples of a step: slime/utils/arguments.py and the data iterator
// in slime/backends/megatron_utils/data.py); Megatron-LM --train-iters; Megatron-Bridge
// train.train_iters.
std::optional<long long> slime_steps(const RunView& run, const RunSetting& rollouts,
                                     std::int64_t global_batch) {
  std::optional<long long> r = setting_integer(rollouts.value);
  if (!r) return std::nullopt;
  if (std::optional<RunSetting> per = run.effective({"--num-steps-per-rollout"})) {
    std::optional<long long> p = setting_integer(per->value);
    return p ? std::optional<long long>(*r * *p) : std::nullopt;
  }
  std::optional<RunSetting> batch = run.effective({"--rollout-batch-size"});
  std::optional<long long> b = batch ? setting_integer(batch->value) : std::nullopt;
  std::optional<long long> n =
      setting_integer(run.or_default({"--n-samples-per-prompt"}, "1")->value);
  if (!b || !n || global_batch <= 0) return std::nullopt;
  return *r * (*b * *n / global_batch);
}

void check_steps(const RunView& run, const Recipe& r) {
  const std::string rule = "run.steps";
  const int steps = r.result.steps_per_run;
  if (run.framework() == RunFramework::kSlime) {
    std::optional<RunSetting> rollouts = run.effective({"--num-rollout"});
    if (!rollouts) {
      return missing(run, rule, "result.steps_per_run", "slime runs --num-rollout rollouts",
                     fmt::format("--num-rollout {}", steps));
    }
    std::optional<long long> total = slime_steps(run, *rollouts, r.workload.global_batch);
    if (!total) {
      return check_stated_integer(run, rule, *rollouts, "result.steps_per_run", steps,
                                  "--num-rollout");
    }
    if (*total != steps) {
      run.report(rule, rollouts, "result.steps_per_run",
                 "--num-rollout x steps per rollout (rollout batch x samples per prompt / global "
                 "batch) disagrees",
                 fmt::format("{}", steps), fmt::format("{}", *total));
    }
    return;
  }
  std::optional<RunSetting> iters = run.effective({"--train-iters", "train.train_iters"});
  if (iters)
    return check_stated_integer(run, rule, *iters, "result.steps_per_run", steps, "--train-iters");
  if (known(run.framework())) {
    missing(run, rule, "result.steps_per_run", "the run command must state its step count",
            run.framework() == RunFramework::kBridge ? fmt::format("train.train_iters={}", steps)
                                                     : fmt::format("--train-iters {}", steps));
  }
}

}  // namespace

void check_deviation(const RuleContext& c) {
  const Recipe& r = c.recipe;
  if (r.status == "planned") return;
  std::vector<std::string> departures;
  if (r.result.steps_per_run != kProtocolSteps) {
    departures.push_back(fmt::format("{} steps, not {}", r.result.steps_per_run, kProtocolSteps));
  }
  if (r.result.window_first != kWindowFirstStep || r.result.window_last != kWindowLastStep) {
    departures.push_back(fmt::format("window [{}, {}], not [{}, {}]", r.result.window_first,
                                     r.result.window_last, kWindowFirstStep, kWindowLastStep));
  }
  if (r.workload.precision != "bf16") {
    departures.push_back(fmt::format("precision {}, not bf16", r.workload.precision));
  }
  std::string found = fmt::format("{}", fmt::join(departures, "; "));
  if (!departures.empty() && r.result.protocol_deviation.empty()) {
    c.report("protocol.deviation", "result.protocol_deviation",
             "the run departs from the protocol: say how in result.protocol_deviation",
             "a protocol_deviation", found);
  } else if (departures.empty() && !r.result.protocol_deviation.empty()) {
    c.report("protocol.deviation", "result.protocol_deviation",
             fmt::format("the run follows the protocol ({} steps, window [{}, {}], bf16): remove "
                         "the deviation",
                         kProtocolSteps, kWindowFirstStep, kWindowLastStep),
             "null", r.result.protocol_deviation);
  }
}

void check_protocol_terms(const RunView& run) {
  const Recipe& r = run.context().recipe;
  check_seq_length(run, r.workload.row_tokens);
  check_global_batch(run, r.workload.global_batch);
  check_precision(run, r.workload.precision);
  check_steps(run, r);
}

}  // namespace openrecipes
