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
  out += c.correlation ? fmt::format("    correlation: {}\n", *c.correlation)
                       : "    correlation: null\n";
  out += fmt::format("    final_loss_difference: {}\n", c.final_loss_difference);
  out += fmt::format("    pointwise_failures: {}\n", c.pointwise_failures);
  if (c.worst_step_tolerance_ratio)
    out += fmt::format("    worst_step_tolerance_ratio: {}\n", *c.worst_step_tolerance_ratio);
  if (!c.note.empty()) out += fmt::format("    note: {}\n", yaml_scalar(c.note));
  if (!c.candidate_losses.empty() || !c.reference_losses.empty())
    out += convergence_losses_yaml(c.candidate_losses, c.reference_losses);
  return out;
}

// The names of the parts taken as stated, comma-separated.
std::string stated_parts(const std::vector<CorrectnessPart>& parts) {
  std::string out;
  for (const CorrectnessPart& part : parts) {
    if (!part.recomputed) out += (out.empty() ? "" : ", ") + part.name;
  }
  return out;
}

// The flags that would recompute the parts taken as stated.
std::string missing_inputs(const std::vector<CorrectnessPart>& parts) {
  bool reference = false, logs = false;
  for (const CorrectnessPart& part : parts) {
    if (part.recomputed) continue;
    if (part.name == "convergence") {
      logs = true;
    } else {
      reference = true;
    }
  }
  if (reference && logs) return "--reference and --candidate-log/--reference-log";
  return reference ? "--reference" : "--candidate-log/--reference-log";
}

}  // namespace

std::string CorrectnessPart::status() const {
  if (!passed) return "fail";
  return recomputed ? "pass" : "unverified";
}

std::string CorrectnessCheck::result() const {
  if (parts.empty()) return "fail";
  bool unverified = false;
  for (const CorrectnessPart& part : parts) {
    if (!part.passed) return "fail";
    if (!part.recomputed) unverified = true;
  }
  return unverified && !accept_stated ? "unverified" : "pass";
}

bool CorrectnessCheck::passed_on_stated() const {
  if (!passed()) return false;
  for (const CorrectnessPart& part : parts) {
    if (!part.recomputed) return true;
  }
  return false;
}

std::string CorrectnessCheck::result_text() const {
  std::string stated = stated_parts(parts);
  std::string result_word = result();
  if (result_word == "unverified") {
    return fmt::format(
        "unverified (not checked by this command: {}; give {}, or --accept-stated to take the "
        "recipe's statement)",
        stated, missing_inputs(parts));
  }
  if (passed_on_stated()) {
    return fmt::format(
        "pass (stated, not verified: {} taken from the recipe as stated, "
        "--accept-stated)",
        stated);
  }
  return result_word;
}

std::string CorrectnessCheck::summary() const {
  std::string failed;
  for (const CorrectnessPart& part : parts) {
    if (!part.passed) failed += (failed.empty() ? "" : "; ") + part.name + ": " + part.detail;
  }
  if (!failed.empty()) return "failed: " + failed;
  if (result() == "unverified")
    return "unverified: not checked by this command: " + stated_parts(parts);
  return passed_on_stated() ? "passed; as the recipe states (--accept-stated, not verified): " +
                                  stated_parts(parts)
                            : "passed; every part recomputed";
}

CorrectnessCheck check_correctness(const Recipe& recipe, const CorrectnessInputs& in) {
  CorrectnessCheck check;
  check.accept_stated = in.accept_stated;
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
  // Without a classification nobody knows which swaps need a test: the list is as stated.
  if (!in.classification && failed_tests.empty())
    tests_detail += " (give --reference to find the same-math swaps that need one)";
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
  out += fmt::format("  result: {}\n", check.result());
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
