#include "runs/correctness_check.h"

#include <fmt/format.h>

#include "base/yaml_scalar.h"
#include "runs/convergence_block.h"

namespace openrecipes {
namespace {

std::string stated_convergence_yaml(const Convergence& c) {
  std::string out = "  convergence:\n";
  out += fmt::format("    steps: {}\n", c.steps);
  out += fmt::format("    result: {}\n", c.result);
  out += fmt::format("    correlation: {}\n", c.correlation);
  out += fmt::format("    final_loss_difference: {}\n", c.final_loss_difference);
  out += fmt::format("    pointwise_failures: {}\n", c.pointwise_failures);
  if (c.worst_step_tolerance_ratio)
    out += fmt::format("    worst_step_tolerance_ratio: {}\n", *c.worst_step_tolerance_ratio);
  if (!c.note.empty()) out += fmt::format("    note: {}\n", yaml_scalar(c.note));
  return out;
}

}  // namespace

bool CorrectnessCheck::passed() const {
  for (const CorrectnessPart& part : parts) {
    if (!part.passed) return false;
  }
  return !parts.empty();
}

std::string CorrectnessCheck::summary() const {
  std::string failed, stated;
  for (const CorrectnessPart& part : parts) {
    if (!part.passed) failed += (failed.empty() ? "" : "; ") + part.name + ": " + part.detail;
    if (!part.recomputed) stated += (stated.empty() ? "" : ", ") + part.name;
  }
  if (!failed.empty()) return "failed: " + failed;
  return stated.empty() ? "passed; every part recomputed"
                        : "passed; as the recipe states: " + stated;
}

CorrectnessCheck check_correctness(const Recipe& recipe, const CorrectnessInputs& in) {
  CorrectnessCheck check;
  const Correctness& stated = recipe.correctness;
  check.parts.push_back(
      {"validation", in.validation.empty(), true,
       in.validation.empty()
           ? "the recipe validates"
           : fmt::format("{} problem{} (openrecipes validate)", in.validation.size(),
                         in.validation.size() == 1 ? "" : "s")});
  if (in.classification) {
    check.parts.push_back(
        {"configuration", in.classification->passes(), true,
         fmt::format("{} against {}", in.classification->verdict_text(), in.reference)});
  } else {
    check.parts.push_back({"configuration", stated.configuration == "pass", false,
                           fmt::format("stated {} (give --reference to classify the arguments)",
                                       stated.configuration)});
  }
  std::string failed_tests;
  for (const ComponentTest& test : stated.component_tests) {
    if (test.result != "pass") failed_tests += (failed_tests.empty() ? "" : ", ") + test.test;
  }
  std::string uncovered;
  if (in.classification) {
    for (const ComponentCheck& component : in.classification->components) {
      if (component.status != ComponentCheck::Status::kPassed) {
        uncovered += (uncovered.empty() ? "" : ", ") + component.component;
      }
    }
  }
  std::string tests_detail =
      !failed_tests.empty() ? "not passed: " + failed_tests
      : !uncovered.empty()  ? "same-math swaps without a passed test: " + uncovered
                            : fmt::format("{} listed, all passed", stated.component_tests.size());
  check.parts.push_back({"component tests", failed_tests.empty() && uncovered.empty(),
                         in.classification.has_value(), tests_detail});
  if (in.convergence) {
    const ConvergenceResult& c = *in.convergence;
    check.parts.push_back({"convergence", c.passed, true,
                           c.passed
                               ? fmt::format("{} steps, correlation {:.6f}", c.steps, c.correlation)
                           : c.failures.empty() ? "failed"
                                                : c.failures.front()});
  } else {
    check.parts.push_back(
        {"convergence", stated.convergence.result == "pass", false,
         fmt::format("stated {} (give --candidate-log and --reference-log to compare)",
                     stated.convergence.result)});
  }
  return check;
}

std::string correctness_block_yaml(const Recipe& recipe, const CorrectnessInputs& in,
                                   const CorrectnessCheck& check) {
  const Correctness& stated = recipe.correctness;
  std::string out = "correctness:\n";
  out += fmt::format("  result: {}\n", check.passed() ? "pass" : "fail");
  out += fmt::format("  summary: {}\n", yaml_scalar(check.summary()));
  out += fmt::format("  reference: {}\n", yaml_scalar(stated.reference));
  std::string configuration = stated.configuration;
  if (in.classification) configuration = in.classification->passes() ? "pass" : "fail";
  out += fmt::format("  configuration: {}\n", configuration);
  if (stated.component_tests.empty()) {
    out += "  component_tests: []\n";
  } else {
    out += "  component_tests:\n";
    for (const ComponentTest& t : stated.component_tests) {
      out += fmt::format(
          "  - test: {}\n    shape: {}\n    gpu: {}\n    date: {}\n    result: {}\n    detail: "
          "{}\n",
          yaml_scalar(t.test), yaml_scalar(t.shape), yaml_scalar(t.gpu), yaml_scalar(t.date),
          t.result, yaml_scalar(t.detail));
    }
  }
  out += in.convergence ? convergence_block_yaml(*in.convergence)
                        : stated_convergence_yaml(stated.convergence);
  out += fmt::format("  rules: {}\n", yaml_scalar(stated.rules));
  return out;
}

}  // namespace openrecipes
