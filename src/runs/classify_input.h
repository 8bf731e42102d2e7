// What `openrecipes classify` compares: two training commands, each read from a recipe (its `run`,
// `env` and `correctness.component_tests`), a text file holding a command, or standard input, and
// their classification under the catalog's rules/arguments.yaml (argument_classifier.h).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/recipe.h"
#include "runs/argument_classifier.h"
#include "runs/training_command.h"

namespace openrecipes {

/// One side of the comparison as read from its file.
struct ClassifyOperand {
  std::string source;   ///< as the user named it; `-` for standard input
  bool recipe = false;  ///< read from a recipe (.yaml or .yml): its `run` field
  std::string command;  ///< the command's text
  int first_line = 1;   ///< the file line of the command's line 1
  std::optional<std::vector<ComponentTest>> component_tests;  ///< recipes only
  std::vector<TrainingVariable> env;                          ///< a recipe's `env:`, at file lines
};

/// Reads one side: `-` from `standard_input`, a `.yaml`/`.yml` path as a recipe (its `run` must be
/// a scalar), any other path as a command. Returns nullopt with problems (file:line:col) when the
/// file cannot be read, is over kMaxCatalogFileBytes, is not YAML, or has no `run` scalar.
std::optional<ClassifyOperand> read_classify_operand(const std::string& path,
                                                     std::istream& standard_input,
                                                     Problems& problems);

/// The operand's training command with every line a line of its file, its recipe `env:` merged
/// in. `side` ("candidate", "reference") starts each note. Malformed shell, no command, or text
/// that is not text go to `problems` (rule `classify.command`) at their file line; conflicts
/// between a recipe's env and its run, and the other commands beside the training command, go to
/// `notes`.
TrainingCommand classify_operand_command(const ClassifyOperand& operand, const std::string& side,
                                         const ArgumentRules& rules, Problems& problems,
                                         std::vector<std::string>& notes);

/// Both sides, the rules file they were classed with, and the classification.
struct ClassifyReport {
  ClassifyOperand candidate;
  ClassifyOperand reference;
  std::string rules_file;  ///< rules/arguments.yaml under the root, as named for messages
  Classification result;   ///< its notes include the reading notes of both sides
};

/// `openrecipes classify`: loads `<rules_root>/rules/arguments.yaml`, reads both sides
/// (read_classify_operand; at most one may be `-`), reads their commands and classifies the
/// candidate against the reference. Returns nullopt with problems when the rules, either file or
/// either command cannot be read; a failing verdict is a report (ClassifyReport::result.passes()).
std::optional<ClassifyReport> classify_files(const std::filesystem::path& rules_root,
                                             const std::string& candidate_path,
                                             const std::string& reference_path,
                                             std::istream& standard_input, Problems& problems);

}  // namespace openrecipes
