#include "runs/argument_classifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace openrecipes {
namespace {

// Lower case, with `-`, `_` and runs of blanks as one space, for keyword matching.
std::string fold(std::string_view text) {
  std::string out;
  for (char c : text) {
    char folded = (c == '-' || c == '_' || c == '\t')
                      ? ' '
                      : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (folded == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += folded;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Sort order of the table: the classes that decide the verdict first.
int rank(const std::optional<ArgumentClass>& argument_class) {
  if (!argument_class) return 0;
  switch (*argument_class) {
    case ArgumentClass::kConvergence:
      return 1;
    case ArgumentClass::kSameMathSwap:
      return 2;
    case ArgumentClass::kExecution:
      return 3;
    case ArgumentClass::kBenign:
      return 4;
  }
  return 0;
}

ClassifiedDifference classify(const CommandDifference& difference, const ArgumentRules& rules) {
  ClassifiedDifference out{difference, std::nullopt, "", "", ""};
  switch (difference.kind) {
    case DifferenceKind::kArgument: {
      const ArgumentRule* rule = difference.known ? rules.find(difference.name) : nullptr;
      if (!rule) {
        out.reason = fmt::format("no rule in {} names it", rules.file());
        return out;
      }
      out.rule = rule->name;
      if (difference.unevaluated && rule->argument_class != ArgumentClass::kBenign) {
        out.reason =
            "not evaluated: a value holds $(...), $((...)) or a variable the text does not "
            "define, kept as written; compare the values by hand";
        return out;
      }
      out.argument_class = rule->argument_class;
      out.reason = rule->reason;
      out.component = rule->component;
      return out;
    }
    case DifferenceKind::kEnvironment: {
      const EnvironmentRule* rule = rules.find_environment(difference.name);
      if (!rule) {
        out.reason = fmt::format("no rule in {} names this environment variable", rules.file());
        return out;
      }
      out.argument_class = rule->argument_class;
      out.rule = rule->name;
      out.reason = rule->reason;
      out.component = rule->component;
      return out;
    }
    case DifferenceKind::kProgram:
      out.reason = "the launcher, module or script differs; no rule classes it";
      return out;
    case DifferenceKind::kExternalArray:
      out.reason =
          "defined outside the command and expanded on one side only: its arguments cannot be "
          "compared";
      return out;
  }
  return out;
}

}  // namespace

std::string_view verdict_id(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUnknownArguments:
      return "unknown_arguments";
    case Verdict::kConvergenceChange:
      return "convergence_change";
    case Verdict::kNeedsComponentTests:
      return "needs_component_tests";
    case Verdict::kSwapsCovered:
      return "swaps_covered";
    case Verdict::kExecutionOnly:
      return "execution_only";
    case Verdict::kBenignOnly:
      return "benign_only";
    case Verdict::kSame:
      return "same";
  }
  return "unknown_arguments";
}

bool Classification::passes() const {
  return verdict == Verdict::kSame || verdict == Verdict::kBenignOnly ||
         verdict == Verdict::kExecutionOnly || verdict == Verdict::kSwapsCovered;
}

std::string Classification::verdict_text() const {
  std::vector<std::string> names;
  switch (verdict) {
    case Verdict::kUnknownArguments:
      for (const ClassifiedDifference& d : differences) {
        if (!d.argument_class) names.push_back(d.difference.name);
      }
      return fmt::format("unknown arguments: fails ({})", fmt::join(names, ", "));
    case Verdict::kConvergenceChange:
      for (const ClassifiedDifference& d : differences) {
        if (d.argument_class == ArgumentClass::kConvergence) names.push_back(d.difference.name);
      }
      return fmt::format("convergence change: new experiment ({})", fmt::join(names, ", "));
    case Verdict::kNeedsComponentTests:
      for (const ComponentCheck& check : components) {
        if (check.status != ComponentCheck::Status::kPassed) names.push_back(check.component);
      }
      return fmt::format("needs component tests: {}", fmt::join(names, ", "));
    case Verdict::kSwapsCovered:
      for (const ComponentCheck& check : components) names.push_back(check.component);
      return fmt::format("same-math swaps covered by passed component tests: {}",
                         fmt::join(names, ", "));
    case Verdict::kExecutionOnly:
      return "execution only";
    case Verdict::kBenignOnly:
      return "same apart from benign arguments";
    case Verdict::kSame:
      return "same";
  }
  return "";
}

bool component_matches(std::string_view component, std::string_view test_name) {
  std::string keyword = fold(component);
  return !keyword.empty() && fold(test_name).find(keyword) != std::string::npos;
}

Classification classify_commands(const TrainingCommand& candidate, const TrainingCommand& reference,
                                 const ArgumentRules& rules,
                                 const std::optional<std::vector<ComponentTest>>& candidate_tests) {
  Classification out;
  for (const CommandDifference& difference : diff_training_commands(candidate, reference)) {
    out.differences.push_back(classify(difference, rules));
  }
  std::stable_sort(out.differences.begin(), out.differences.end(),
                   [](const ClassifiedDifference& a, const ClassifiedDifference& b) {
                     return rank(a.argument_class) < rank(b.argument_class);
                   });

  for (const std::string& name : candidate.external_arrays) {
    if (std::find(reference.external_arrays.begin(), reference.external_arrays.end(), name) !=
        reference.external_arrays.end()) {
      out.notes.push_back(
          fmt::format("{} is defined outside the command: its arguments are not compared", name));
    }
  }

  bool unknown = false, convergence = false, swap = false, execution = false, benign = false;
  for (const ClassifiedDifference& d : out.differences) {
    if (!d.argument_class) {
      unknown = true;
      continue;
    }
    convergence |= *d.argument_class == ArgumentClass::kConvergence;
    execution |= *d.argument_class == ArgumentClass::kExecution;
    benign |= *d.argument_class == ArgumentClass::kBenign;
    if (*d.argument_class != ArgumentClass::kSameMathSwap) continue;
    swap = true;
    auto check = std::find_if(out.components.begin(), out.components.end(),
                              [&](const ComponentCheck& c) { return c.component == d.component; });
    if (check == out.components.end()) {
      out.components.push_back({d.component, {}, ComponentCheck::Status::kMissing, ""});
      check = out.components.end() - 1;
    }
    check->needed_by.push_back(d.difference.name);
  }

  bool all_passed = true;
  for (ComponentCheck& check : out.components) {
    for (const ComponentTest& test : candidate_tests.value_or(std::vector<ComponentTest>{})) {
      if (!component_matches(check.component, test.test)) continue;
      if (test.result == "pass") {
        check.status = ComponentCheck::Status::kPassed;
        check.test = test.test;
        break;
      }
      check.status = ComponentCheck::Status::kFailed;
      check.test = test.test;
    }
    all_passed &= check.status == ComponentCheck::Status::kPassed;
  }
  if (swap && !candidate_tests) {
    out.notes.push_back("the candidate is a command, not a recipe: it lists no component tests");
  }

  if (unknown) {
    out.verdict = Verdict::kUnknownArguments;
  } else if (convergence) {
    out.verdict = Verdict::kConvergenceChange;
  } else if (swap) {
    out.verdict = all_passed ? Verdict::kSwapsCovered : Verdict::kNeedsComponentTests;
  } else if (execution) {
    out.verdict = Verdict::kExecutionOnly;
  } else if (benign) {
    out.verdict = Verdict::kBenignOnly;
  } else {
    out.verdict = Verdict::kSame;
  }
  return out;
}

}  // namespace openrecipes
