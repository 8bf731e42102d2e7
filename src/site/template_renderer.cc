#include "site/template_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <kainjow/mustache.hpp>
#include <sstream>

#include "base/error.h"
#include "base/source_text.h"
#include "base/utf8.h"
#include "base/yaml_document.h"

namespace openrecipes {
namespace {

namespace mustache = kainjow::mustache;

mustache::data to_data(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      mustache::data object{mustache::data::type::object};
      for (const auto& [key, child] : value.items()) object.set(key, to_data(child));
      return object;
    }
    case nlohmann::json::value_t::array: {
      mustache::data list{mustache::data::type::list};
      for (const auto& child : value) list.push_back(to_data(child));
      return list;
    }
    case nlohmann::json::value_t::string:
      return mustache::data{value.get<std::string>()};
    case nlohmann::json::value_t::boolean:
      return mustache::data{value.get<bool>()};
    case nlohmann::json::value_t::null:
      return mustache::data{false};
    default:
      return mustache::data{value.dump()};  // numbers: already the text to show
  }
}

// The templates' paths in `folder`, sorted.
std::vector<std::filesystem::path> template_paths(const std::filesystem::path& folder) {
  std::error_code ec;
  std::vector<std::filesystem::path> paths;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".mustache") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The text of the template at `path` when it is UTF-8 and parses; else nullopt with a problem
// at the line:column of the fault.
std::optional<std::string> read_template(const std::filesystem::path& path, Problems& problems) {
  std::optional<std::string> text = read_text_file(path.string(), kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  if (std::optional<std::size_t> bad = first_invalid_utf8(*text)) {
    problems.push_back({path.string(), SourceText(*text).position(*bad), "", "templates",
                        fmt::format("not valid UTF-8 at byte offset {}", *bad), "", ""});
    return std::nullopt;
  }
  mustache::mustache parsed{*text};
  if (parsed.is_valid()) return text;
  // kainjow names a byte offset ("... at 4268"); turn it into line:column.
  std::string message = parsed.error_message();
  SourcePosition position{1, 1};
  std::size_t at = message.rfind(" at ");
  if (at != std::string::npos) {
    std::size_t offset = std::strtoull(message.c_str() + at + 4, nullptr, 10);
    position = SourceText(*text).position(offset);
    message.resize(at);
  }
  problems.push_back({path.string(), position, "", "templates",
                      "the template does not parse: " + message, "", ""});
  return std::nullopt;
}

}  // namespace

std::optional<TemplateRenderer> TemplateRenderer::load(const std::filesystem::path& folder,
                                                       Problems& problems) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    problems.push_back(
        {folder.string(), {0, 0}, "", "templates", "the templates folder is missing", "", ""});
    return std::nullopt;
  }
  TemplateRenderer renderer;
  renderer.folder_ = folder;
  std::size_t before = problems.size();
  for (const std::filesystem::path& path : template_paths(folder)) {
    if (std::optional<std::string> text = read_template(path, problems))
      renderer.templates_[path.stem().string()] = *text;
  }
  if (problems.size() == before) renderer.check_required(problems);
  renderer.check_partials(problems);
  if (problems.size() != before) return std::nullopt;
  return renderer;
}

void TemplateRenderer::check_required(Problems& problems) const {
  for (const char* required : kSiteTemplates) {
    if (!templates_.count(required)) {
      problems.push_back({(folder_ / (std::string(required) + ".mustache")).string(),
                          {0, 0},
                          "",
                          "templates",
                          "the site needs this template; it is missing",
                          "",
                          ""});
    }
  }
}

void TemplateRenderer::check_partials(Problems& problems) const {
  // kainjow renders an unknown {{> partial}} as nothing.
  for (const auto& [name, text] : templates_) {
    for (std::size_t at = text.find("{{>"); at != std::string::npos;
         at = text.find("{{>", at + 3)) {
      std::size_t close = text.find("}}", at);
      std::string partial = text.substr(at + 3, close == std::string::npos ? 0 : close - at - 3);
      partial.erase(0, partial.find_first_not_of(' '));
      partial.erase(partial.find_last_not_of(' ') + 1);
      if (!templates_.count(partial) || partial.rfind('_', 0) != 0) {
        problems.push_back(
            {(folder_ / (name + ".mustache")).string(), SourceText(text).position(at), "",
             "templates",
             fmt::format("includes '{}', which is not a partial template (_name.mustache) here",
                         partial),
             "", ""});
      }
    }
  }
}

std::optional<std::string> TemplateRenderer::render(const std::string& name,
                                                    const nlohmann::json& context,
                                                    Problems& problems) const {
  auto it = templates_.find(name);
  if (it == templates_.end())
    throw BugError("no template " + name + ".mustache (load checks the site's templates)");
  mustache::data data = to_data(context);
  for (const auto& [partial_name, text] : templates_) {
    if (partial_name.rfind('_', 0) != 0) continue;  // only _name templates are partials
    std::string partial_text = text;
    data.set(partial_name, mustache::partial{[partial_text] { return partial_text; }});
  }
  mustache::mustache view{it->second};
  std::string out = view.render(data);
  if (!view.is_valid()) {
    problems.push_back({(folder_ / (name + ".mustache")).string(),
                        {0, 0},
                        "",
                        "templates",
                        "the template does not render: " + view.error_message(),
                        "",
                        ""});
    return std::nullopt;
  }
  return out;
}

}  // namespace openrecipes
