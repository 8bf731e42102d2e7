#include "validate/recipe_rules.h"

namespace openrecipes {

void RuleContext::report(const std::string& rule, const std::string& field, std::string message,
                         std::string expected, std::string found) const {
  report_at(file.document.position_of(field), rule, field, std::move(message), std::move(expected),
            std::move(found));
}

void RuleContext::report_at(SourcePosition position, const std::string& rule,
                            const std::string& field, std::string message, std::string expected,
                            std::string found) const {
  problems_.push_back({file.display_path, position, field, rule, std::move(message),
                       std::move(expected), std::move(found)});
}

void RuleContext::add(Problem problem) const { problems_.push_back(std::move(problem)); }

void check_recipe_rules(const RuleContext& context) {
  check_catalog_rules(context);
  check_mesh_rules(context);
  check_figure_rules(context);
  check_convergence_rules(context);
  check_run_rules(context);
  check_hygiene_rules(context);
  check_deviation(context);
}

}  // namespace openrecipes
