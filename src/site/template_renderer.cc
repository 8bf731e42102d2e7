#include "site/template_renderer.h"

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

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

}  // namespace

std::optional<TemplateRenderer> TemplateRenderer::load(const std::filesystem::path& folder,
                                                       Problems& problems) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    problems.push_back({folder.string(), {0, 0}, "", "templates", "the templates folder is missing", "", ""});
    return std::nullopt;
  }
  TemplateRenderer renderer;
  std::size_t before = problems.size();
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() != ".mustache") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    mustache::mustache parsed{text.str()};
    if (!parsed.is_valid()) {
      problems.push_back({entry.path().string(), {1, 1}, "", "templates",
                          "the template does not parse: " + parsed.error_message(), "", ""});
      continue;
    }
    renderer.templates_[entry.path().stem().string()] = text.str();
  }
  if (problems.size() != before) return std::nullopt;
  return renderer;
}

std::string TemplateRenderer::render(const std::string& name, const nlohmann::json& context) const {
  auto it = templates_.find(name);
  if (it == templates_.end()) throw std::runtime_error("no template " + name + ".mustache");
  mustache::data data = to_data(context);
  for (const auto& [partial_name, text] : templates_) {
    if (partial_name.rfind('_', 0) != 0) continue;  // only _name templates are partials
    std::string partial_text = text;
    data.set(partial_name, mustache::partial{[partial_text] { return partial_text; }});
  }
  mustache::mustache view{it->second};
  std::string out = view.render(data);
  if (!view.is_valid()) {
    throw std::runtime_error(fmt::format("{}.mustache: {}", name, view.error_message()));
  }
  return out;
}

}  // namespace openrecipes
