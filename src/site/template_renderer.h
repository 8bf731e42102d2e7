// Renders the site's Mustache templates (templates/*.mustache) with kainjow-mustache.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/problem.h"

namespace openrecipes {

/// The templates the site is rendered from, each `templates/<name>.mustache`: the partials
/// `_head` and `_foot`, the charts' partials (site/chart_model.h), then one per kind of page.
inline constexpr std::array<const char*, 12> kSiteTemplates = {
    "_head", "_foot",  "_line_chart", "_bar_chart", "_published", "index",
    "pair",  "recipe", "unmeasured",  "fields",     "running",    "submit"};

/// The templates of one folder, loaded and parsed once. `{{> _name}}` includes `_name.mustache`
/// from the same folder (partials start with '_', so they never shadow a value of the context);
/// the partials are written into their includers' text at load, so a page is parsed once, not
/// once per included chart. Values are HTML-escaped unless a template uses triple braces, which
/// ours never do for anything that comes from a recipe. render may be called from many threads.
class TemplateRenderer {
 public:
  /// Loads every `*.mustache` file in `folder`. Returns nullopt with problems when the folder is
  /// missing or a template does not parse.
  static std::optional<TemplateRenderer> load(const std::filesystem::path& folder,
                                              Problems& problems);

  /// Renders template `name` (without `.mustache`) with `context`: strings and numbers render as
  /// text, booleans drive sections, arrays repeat them. Returns nullopt and appends a Problem
  /// (the template's file, rule `templates`) when rendering fails; throws BugError for a name that
  /// load did not require.
  std::optional<std::string> render(const std::string& name, const nlohmann::json& context,
                                    Problems& problems) const;

 private:
  // Each template the site needs is there (a problem per missing one).
  void check_required(Problems& problems) const;
  // Every {{> partial}} names a _name template of the folder.
  void check_partials(Problems& problems) const;
  // Each template's text with its partials written in, into expanded_; a problem for partials
  // that include each other without end.
  void expand_partials(Problems& problems);

  std::filesystem::path folder_;
  std::map<std::string, std::string> templates_;
  std::map<std::string, std::string> expanded_;
  // Parsed templates not in use, by name (template_renderer.cc): kainjow's render is not const,
  // so each thread takes one of its own and gives it back.
  struct ParsedPool;
  std::shared_ptr<ParsedPool> parsed_;
};

}  // namespace openrecipes
