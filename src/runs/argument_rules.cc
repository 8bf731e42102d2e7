#include "runs/argument_rules.h"

#include <fmt/format.h>

#include "base/yaml_fields.h"
#include "catalog/catalog_loader.h"

namespace openrecipes {
namespace {

ArgumentClass class_from_id(const std::string& id) {
  if (id == "execution") return ArgumentClass::kExecution;
  if (id == "same_math_swap") return ArgumentClass::kSameMathSwap;
  if (id == "benign") return ArgumentClass::kBenign;
  return ArgumentClass::kConvergence;  // the schema allows nothing else
}

ArgumentTakes takes_from_id(const std::string& id) {
  if (id == "switch") return ArgumentTakes::kSwitch;
  if (id == "values") return ArgumentTakes::kValues;
  return ArgumentTakes::kValue;
}

// Reports a second use of `value` (at `field`), first used at `first_field`.
bool check_once(std::map<std::string, std::string>& seen, const std::string& value,
                const std::string& field, const std::string& what, const YamlDocument& document,
                Problems& problems) {
  auto [it, inserted] = seen.emplace(value, field);
  if (inserted) return true;
  SourcePosition first = document.position_of(it->second);
  problems.push_back(
      {document.file, document.position_of(field), field, "rules.unique",
       fmt::format("{} '{}' is already used at line {} ({})", what, value, first.line, it->second),
       "each " + what + " in one rule only", value});
  return false;
}

// A component is given exactly for same-math swaps.
bool check_component(ArgumentClass argument_class, const std::string& component,
                     const std::string& field, const YamlDocument& document, Problems& problems) {
  bool swap = argument_class == ArgumentClass::kSameMathSwap;
  if (swap == !component.empty()) return true;
  std::string path = swap ? field : field + ".component";
  problems.push_back({document.file, document.position_of(path), path, "rules.component",
                      swap ? "a same-math swap names the component test it needs"
                           : "only a same-math swap names a component test",
                      swap ? "component: <keyword of the test's name>" : "no component",
                      swap ? "none" : component});
  return false;
}

}  // namespace

std::string_view class_id(ArgumentClass argument_class) {
  switch (argument_class) {
    case ArgumentClass::kExecution:
      return "execution";
    case ArgumentClass::kSameMathSwap:
      return "same_math_swap";
    case ArgumentClass::kConvergence:
      return "convergence";
    case ArgumentClass::kBenign:
      return "benign";
  }
  return "convergence";
}

std::string_view class_label(ArgumentClass argument_class) {
  return argument_class == ArgumentClass::kSameMathSwap ? "same-math swap"
                                                        : class_id(argument_class);
}

ArgumentRules::ArgumentRules(std::string file, std::vector<ArgumentRule> arguments,
                             std::vector<EnvironmentRule> environment)
    : file_(std::move(file)),
      arguments_(std::move(arguments)),
      environment_(std::move(environment)) {
  for (std::size_t i = 0; i < arguments_.size(); ++i) {
    by_name_.emplace(arguments_[i].name, i);
    for (const std::string& spelling : arguments_[i].spellings)
      by_spelling_.emplace(spelling, std::pair{i, false});
    for (const std::string& negation : arguments_[i].negations)
      by_spelling_.emplace(negation, std::pair{i, true});
  }
  for (std::size_t i = 0; i < environment_.size(); ++i)
    by_variable_.emplace(environment_[i].name, i);
}

SpellingMatch ArgumentRules::find_spelling(std::string_view spelling) const {
  auto it = by_spelling_.find(spelling);
  if (it == by_spelling_.end()) return {};
  return {&arguments_[it->second.first], it->second.second};
}

const ArgumentRule* ArgumentRules::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &arguments_[it->second];
}

const EnvironmentRule* ArgumentRules::find_environment(std::string_view variable) const {
  auto exact = by_variable_.find(variable);
  if (exact != by_variable_.end()) return &environment_[exact->second];
  const EnvironmentRule* best = nullptr;
  for (const EnvironmentRule& rule : environment_) {
    if (rule.name.empty() || rule.name.back() != '*') continue;
    std::string_view prefix(rule.name.data(), rule.name.size() - 1);
    if (variable.substr(0, prefix.size()) == prefix &&
        (!best || prefix.size() + 1 > best->name.size())) {
      best = &rule;
    }
  }
  return best;
}

std::optional<ArgumentRules> argument_rules_from_yaml(const YamlDocument& document,
                                                      Problems& problems) {
  std::size_t before = problems.size();
  std::vector<ArgumentRule> arguments;
  std::map<std::string, std::string> names, spellings;
  if (const YamlNode* list = document.root.find("arguments")) {
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const YamlNode& item = list->items[i];
      std::string field = fmt::format("arguments[{}]", i);
      ArgumentRule rule;
      rule.name = field_string(item, "name");
      rule.argument_class = class_from_id(field_string(item, "class"));
      rule.spellings = field_string_list(item, "spellings");
      rule.negations = field_string_list(item, "negations");
      rule.takes = takes_from_id(field_string(item, "takes", "value"));
      rule.component = field_string(item, "component");
      rule.reason = field_string(item, "reason");
      rule.position = document.position_of(field + ".name");
      check_once(names, rule.name, field + ".name", "name", document, problems);
      for (std::size_t s = 0; s < rule.spellings.size(); ++s) {
        check_once(spellings, rule.spellings[s], fmt::format("{}.spellings[{}]", field, s),
                   "spelling", document, problems);
      }
      for (std::size_t s = 0; s < rule.negations.size(); ++s) {
        check_once(spellings, rule.negations[s], fmt::format("{}.negations[{}]", field, s),
                   "spelling", document, problems);
      }
      check_component(rule.argument_class, rule.component, field, document, problems);
      arguments.push_back(std::move(rule));
    }
  }
  std::vector<EnvironmentRule> environment;
  std::map<std::string, std::string> variables;
  if (const YamlNode* list = document.root.find("environment")) {
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const YamlNode& item = list->items[i];
      std::string field = fmt::format("environment[{}]", i);
      EnvironmentRule rule;
      rule.name = field_string(item, "name");
      rule.argument_class = class_from_id(field_string(item, "class"));
      rule.component = field_string(item, "component");
      rule.reason = field_string(item, "reason");
      rule.position = document.position_of(field + ".name");
      check_once(variables, rule.name, field + ".name", "variable", document, problems);
      check_component(rule.argument_class, rule.component, field, document, problems);
      environment.push_back(std::move(rule));
    }
  }
  if (problems.size() != before) return std::nullopt;
  return ArgumentRules(document.file, std::move(arguments), std::move(environment));
}

std::optional<ArgumentRules> load_argument_rules_file(const std::string& rules_path,
                                                      const std::string& schema_path,
                                                      Problems& problems) {
  std::optional<YamlDocument> document = load_checked_file(rules_path, schema_path, problems);
  if (!document) return std::nullopt;
  return argument_rules_from_yaml(*document, problems);
}

std::optional<ArgumentRules> load_argument_rules(const std::filesystem::path& root,
                                                 Problems& problems) {
  return load_argument_rules_file(
      (root / "rules" / "arguments.yaml").lexically_normal().string(),
      (root / "schema" / "arguments.schema.yaml").lexically_normal().string(), problems);
}

}  // namespace openrecipes
