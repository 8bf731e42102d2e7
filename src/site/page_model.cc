#include "site/page_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "base/ascii.h"
#include "base/number_format.h"
#include "catalog/protocol.h"
#include "site/chart_model.h"

namespace openrecipes {
namespace {

using nlohmann::json;

const Author* author_of(const Catalog& catalog, const Recipe& recipe) {
  return recipe.author.github.empty() ? catalog.find_author(recipe.author.name) : nullptr;
}

std::string author_name(const Recipe& recipe) {
  return recipe.author.github.empty() ? recipe.author.name : recipe.author.github;
}

std::string author_url(const Recipe& recipe) {
  return recipe.author.github.empty() ? recipe.author.url
                                      : "https://github.com/" + recipe.author.github;
}

bool follows_protocol_window(const RecipeResult& r) {
  return r.steps_per_run == kProtocolSteps && r.window_first == kWindowFirstStep &&
         r.window_last == kWindowLastStep;
}

std::string measured_line(const RecipeResult& r) {
  if (follows_protocol_window(r)) return r.measured;
  return fmt::format("{}, {}-step run scored over steps {}–{}", r.measured, r.steps_per_run,
                     r.window_first, r.window_last);
}

std::string mfu_line(const RecipeResult& r) {
  if (!r.mfu) return "not stated: " + r.mfu_note;
  return fmt::format("{} (N = {} active parameters per token)", format_fraction_percent(*r.mfu, 1),
                     format_count(r.active_params.count));
}

std::string convergence_line(const Convergence& c) {
  return fmt::format(
      "correlation {}, final loss difference {}, {} pointwise failure{} over {} steps",
      c.correlation ? format_stated(*c.correlation) : "none (a constant loss series)",
      format_stated(c.final_loss_difference), c.pointwise_failures,
      c.pointwise_failures == 1 ? "" : "s", c.steps);
}

std::string gpus_line(const Recipe& r) {
  return fmt::format("{} x {} {} GB ({}, {} per node)", r.gpu.count, r.gpu.type, r.gpu.memory_gb,
                     r.gpu.instance, r.gpu.per_node);
}

json stack_rows(const NamedValues& stack) {
  json rows = json::array();
  for (const auto& [name, value] : stack) {
    std::string label = name;
    std::replace(label.begin(), label.end(), '_', ' ');
    rows.push_back({{"name", label}, {"value", value}});
  }
  return rows;
}

json citation_list(const std::map<std::string, const Author*>& cited) {
  json citations = json::array();
  for (const auto& [name, author] : cited) {
    citations.push_back(
        {{"author", name}, {"text", author->citation_text}, {"bibtex", author->bibtex}});
  }
  return citations;
}

json card(const Catalog& catalog, const CatalogRecipe& entry, int rank,
          const SiteSettings& settings) {
  const Recipe& r = entry.recipe;
  const Author* author = author_of(catalog, r);
  json tests = json::array();
  for (const ComponentTest& t : r.correctness.component_tests) {
    tests.push_back({{"test", t.test},
                     {"gpu", t.gpu},
                     {"date", t.date},
                     {"shape", t.shape},
                     {"result", t.result},
                     {"detail", t.detail}});
  }
  json env = json::array();
  for (const auto& [name, value] : r.env) env.push_back({{"assignment", name + "=" + value}});
  return {
      {"rank", rank},
      {"anchor", entry.stem()},
      {"stem", entry.stem()},
      {"page_href", entry.stem() + ".html"},  // from the pair page
      {"tokens_per_s_short", format_thousands(r.result.tokens_per_s_per_gpu, 1)},
      {"tokens_per_s", format_thousands(r.result.tokens_per_s_per_gpu, 2)},
      {"tokens_per_s_value", r.result.tokens_per_s_per_gpu},  // for sorting (site.js)
      {"usd_per_million", format_usd(r.result.usd_per_million_tokens)},
      {"usd_value", r.result.usd_per_million_tokens},
      {"gpus", r.gpu.count},
      {"label", r.layout.label},
      {"highlights", r.layout.highlights},
      {"summary", r.layout.summary},
      {"measured", r.result.measured},
      {"measured_line", measured_line(r.result)},
      {"protocol_deviation", r.result.protocol_deviation},
      {"has_deviation", !r.result.protocol_deviation.empty()},
      {"author", author_name(r)},
      {"author_url", author_url(r)},
      {"cite", author && !author->citation_text.empty()},
      {"gpus_line", gpus_line(r)},
      {"mfu", mfu_line(r.result)},
      {"cv", format_thousands(r.result.step_time_cv_percent, 2) + "%"},
      {"convergence", convergence_line(r.correctness.convergence)},
      {"component_tests", tests},
      {"gpu_hours", format_stated(r.result.gpu_hours)},
      {"rows_name", r.workload.dataset.build.name},
      {"rows_sha256", r.workload.dataset.rows_sha256},
      {"stack", stack_rows(r.stack)},
      {"env", env},
      {"has_env", !env.empty()},
      {"run", r.run},
      {"notes", note_blocks(r.notes)},
      {"has_notes", !r.notes.empty()},
      {"file_path", entry.catalog_path},
      {"file_href", entry.catalog_path},
      {"file_name", entry.stem() + ".yaml"},
      {"repository_href",
       fmt::format("{}/blob/{}/{}", settings.repository_url, settings.branch, entry.catalog_path)},
      {"file_text", entry.text},
  };
}

}  // namespace

std::size_t pair_page_count(std::size_t ranked) {
  return std::max<std::size_t>(1, (ranked + kRecipesPerPairPage - 1) / kRecipesPerPairPage);
}

std::string pair_page_path(const Model& model, const Gpu& gpu, std::size_t page) {
  std::string folder = model.slug + "/" + gpu.slug + "/";
  return page <= 1 ? folder + "index.html" : fmt::format("{}page-{}.html", folder, page);
}

std::string recipe_page_path(const CatalogRecipe& entry) {
  std::string path = entry.catalog_path.substr(std::string_view("recipes/").size());
  return path.substr(0, path.size() - std::string_view(".yaml").size()) + ".html";
}

json note_blocks(const std::string& notes) {
  json blocks = json::array();
  std::istringstream in(notes);
  std::vector<std::string> lines;
  auto flush = [&] {
    if (lines.empty()) return;
    bool is_list = std::all_of(lines.begin(), lines.end(),
                               [](const std::string& l) { return l.rfind("- ", 0) == 0; });
    if (is_list) {
      json items = json::array();
      for (const std::string& l : lines) items.push_back({{"item", l.substr(2)}});
      blocks.push_back({{"is_list", true}, {"items", items}});
    } else {
      std::string text;
      for (const std::string& l : lines) text += (text.empty() ? "" : " ") + l;
      blocks.push_back({{"is_list", false}, {"text", text}});
    }
    lines.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      flush();
    } else {
      lines.push_back(line);
    }
  }
  flush();
  return blocks;
}

// Orders names as readers do: case-insensitively, then byte order to stay total.
bool reads_before(const std::string& a, const std::string& b) {
  auto lower = [](const std::string& s) { return ascii_lowercase(s); };
  return std::pair(lower(a), a) < std::pair(lower(b), b);
}

json index_page(const Catalog& catalog, const RecipeRanks& ranks) {
  std::map<std::string, std::vector<const Model*>, decltype(&reads_before)> families(&reads_before);
  for (const Model& model : catalog.models) families[model.family].push_back(&model);
  json gpu_headers = json::array();
  for (const Gpu& gpu : catalog.gpus) gpu_headers.push_back({{"type", gpu.type}});
  json groups = json::array();
  for (auto& [family, models] : families) {
    std::sort(models.begin(), models.end(),
              [](const Model* a, const Model* b) { return reads_before(a->name, b->name); });
    json rows = json::array();
    for (const Model* model : models) {
      json cells = json::array();
      std::set<std::string> authors;  // of the model's ranked recipes, for the author filter
      for (const Gpu& gpu : catalog.gpus) {
        const std::vector<const CatalogRecipe*>& ranked = ranks.of(model->name, gpu.type);
        if (ranked.empty()) {
          cells.push_back(
              {{"has_recipe", false}, {"gpu", gpu.type}, {"href", pair_page_path(*model, gpu)}});
          continue;
        }
        for (const CatalogRecipe* entry : ranked) authors.insert(author_name(entry->recipe));
        const Recipe& best = ranked.front()->recipe;
        cells.push_back({{"has_recipe", true},
                         {"gpu", gpu.type},
                         {"href", pair_page_path(*model, gpu)},
                         {"tokens_per_s", format_thousands(best.result.tokens_per_s_per_gpu, 1)},
                         {"tokens_per_s_value", best.result.tokens_per_s_per_gpu},
                         {"usd_per_million", format_usd(best.result.usd_per_million_tokens)},
                         {"gpus", best.gpu.count},
                         {"recipes", ranked.size()},
                         {"plural", ranked.size() != 1}});
      }
      rows.push_back(
          {{"name", model->name},
           {"hf_repo", model->hf_repo},
           {"family", family},
           {"authors", json(authors).dump()},  // a JSON list: names may hold any character
           {"cells", cells}});
    }
    groups.push_back({{"family", family}, {"models", rows}});
  }
  return {
      {"root", ""}, {"title", "LLM training recipes"}, {"gpus", gpu_headers}, {"families", groups}};
}

namespace {

// The links between the pages of a pair: [{number, href, current}], relative to any of them.
json page_links(std::size_t page, std::size_t pages) {
  json links = json::array();
  for (std::size_t n = 1; n <= pages; ++n) {
    links.push_back({{"number", n},
                     {"href", n == 1 ? std::string("index.html") : fmt::format("page-{}.html", n)},
                     {"current", n == page}});
  }
  return links;
}

}  // namespace

json pair_page(const Catalog& catalog, const RecipeRanks& ranks, const Model& model, const Gpu& gpu,
               const SiteSettings& settings, std::size_t page) {
  const std::vector<const CatalogRecipe*>& ranked = ranks.of(model.name, gpu.type);
  std::size_t pages = pair_page_count(ranked.size());
  page = std::clamp<std::size_t>(page, 1, pages);
  std::size_t first = (page - 1) * kRecipesPerPairPage;
  std::size_t last = std::min(ranked.size(), first + kRecipesPerPairPage);
  json cards = json::array();
  std::map<std::string, const Author*> cited;
  for (std::size_t i = first; i < last; ++i) {
    cards.push_back(card(catalog, *ranked[i], static_cast<int>(i + 1), settings));
    const Author* author = author_of(catalog, ranked[i]->recipe);
    if (author && !author->citation_text.empty()) cited[author->name] = author;
  }
  json citations = citation_list(cited);
  json tiles = json::array();
  json unmeasured = json::array();  // the GPU types with a "Not measured yet" page instead
  for (const Gpu& other : catalog.gpus) {
    const std::vector<const CatalogRecipe*>& best = ranks.of(model.name, other.type);
    if (best.empty()) {
      unmeasured.push_back(
          {{"gpu", other.type}, {"href", "../../" + pair_page_path(model, other)}});
      continue;
    }
    const Recipe& r = best.front()->recipe;
    tiles.push_back({{"gpu", other.type},
                     {"gpus", r.gpu.count},
                     {"current", other.type == gpu.type},
                     {"href", "../../" + pair_page_path(model, other)},
                     {"tokens_per_s", format_thousands(r.result.tokens_per_s_per_gpu, 1)},
                     {"usd_per_million", format_usd(r.result.usd_per_million_tokens)}});
  }
  std::vector<Bar> speed, cost;
  for (std::size_t i = first; i < last; ++i) {
    const CatalogRecipe& entry = *ranked[i];
    std::string label = fmt::format("#{} {}", i + 1, entry.stem());
    const RecipeResult& r = entry.recipe.result;
    speed.push_back({label, format_thousands(r.tokens_per_s_per_gpu, 1), r.tokens_per_s_per_gpu,
                     entry.stem() + ".html"});
    cost.push_back({label, format_usd(r.usd_per_million_tokens), r.usd_per_million_tokens,
                    entry.stem() + ".html"});
  }
  json tokens_chart = bar_chart(
      speed, "tokens-chart", "Tokens/s per GPU",
      fmt::format("Tokens/s per GPU of the {} ranked recipes{}, best first; each bar's length is "
                  "proportional to its figure.",
                  speed.size(), pages > 1 ? " on this page" : ""),
      "Tokens/s per GPU");
  json usd_chart = bar_chart(
      cost, "usd-chart", "$ / 1M tokens",
      fmt::format("Cost in US dollars per million tokens at gpus.yaml's rate, of the same {} "
                  "recipes in rank order; a shorter bar is cheaper.",
                  cost.size()),
      "$ / 1M tokens");
  std::string title = fmt::format("Training {} on {}", model.name, gpu.type);
  if (pages > 1) {
    title += fmt::format(", ranks {}–{}", format_count(static_cast<std::int64_t>(first + 1)),
                         format_count(static_cast<std::int64_t>(last)));
  }
  return {{"root", "../../"},
          {"title", title},
          {"paged", pages > 1},
          {"page", page},
          {"pages", pages},
          {"ranked", format_count(static_cast<std::int64_t>(ranked.size()))},
          {"page_links", page_links(page, pages)},
          {"model", model.name},
          {"family", model.family},
          {"hf_repo", model.hf_repo},
          {"gpu", gpu.type},
          {"model_notes", note_blocks(model.notes)},
          {"has_model_notes", !model.notes.empty()},
          {"recipes", cards},
          {"has_recipes", !cards.empty()},
          {"tokens_chart", tokens_chart},
          {"usd_chart", usd_chart},
          {"citations", citations},
          {"has_citations", !citations.empty()},
          {"tiles", tiles},
          {"has_other_gpus", tiles.size() > 1},
          {"unmeasured_gpus", unmeasured},
          {"has_unmeasured_gpus", !unmeasured.empty()}};
}

json recipe_page(const Catalog& catalog, const CatalogRecipe& entry, int rank, std::size_t ranked,
                 const Model& model, const Gpu& gpu, const SiteSettings& settings) {
  std::map<std::string, const Author*> cited;
  const Author* author = author_of(catalog, entry.recipe);
  if (author && !author->citation_text.empty()) cited[author->name] = author;
  json citations = citation_list(cited);
  return {
      {"root", "../../"},
      {"title", fmt::format("{}: {} on {}", entry.stem(), model.name, gpu.type)},
      {"model", model.name},
      {"family", model.family},
      {"gpu", gpu.type},
      // the page of the pair that holds this recipe's row
      {"pair_href",
       pair_page_path(model, gpu, (static_cast<std::size_t>(rank) - 1) / kRecipesPerPairPage + 1)
           .substr(model.slug.size() + gpu.slug.size() + 2)},
      {"ranked", ranked},
      {"recipe", card(catalog, entry, rank, settings)},
      {"step_time_chart", step_time_chart(entry.recipe.result, "step-time-chart")},
      {"loss_chart", loss_chart(entry.recipe.correctness.convergence, "loss-chart")},
      {"has_charts", !entry.recipe.result.step_times_s.empty() ||
                         !entry.recipe.correctness.convergence.candidate_losses.empty()},
      {"citations", citations},
      {"has_citations", !citations.empty()}};
}

json search_index(const Catalog& catalog, const RecipeRanks& ranks) {
  json entries = json::array();
  for (const Model& model : catalog.models) {
    for (const Gpu& gpu : catalog.gpus) {
      const std::vector<const CatalogRecipe*>& ranked = ranks.of(model.name, gpu.type);
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        const Recipe& r = ranked[i]->recipe;
        entries.push_back({{"model", model.name},
                           {"family", model.family},
                           {"gpu", gpu.type},
                           {"rank", i + 1},
                           {"recipe", ranked[i]->stem()},
                           {"tokens_per_s_per_gpu", r.result.tokens_per_s_per_gpu},
                           {"usd_per_million_tokens", r.result.usd_per_million_tokens},
                           {"gpus", r.gpu.count},
                           {"layout", r.layout.label},
                           {"author", author_name(r)},
                           {"measured", r.result.measured},
                           {"page", recipe_page_path(*ranked[i])},
                           {"yaml", ranked[i]->catalog_path}});
      }
    }
  }
  return {{"recipes", entries}};
}

json fields_page(const nlohmann::ordered_json& schema) {
  using ojson = nlohmann::ordered_json;
  json rows = json::array();
  auto resolve = [&](const ojson& node) -> const ojson& {
    if (node.is_object() && node.contains("$ref")) {
      std::string ref = node.at("$ref").get<std::string>();
      return schema.at(ojson::json_pointer(ref.substr(1)));
    }
    return node;
  };
  auto type_of = [&](const ojson& node) {
    const ojson& target = resolve(node);
    if (target.contains("const")) return "always " + target.at("const").dump();
    if (!target.contains("type")) return std::string("any");
    const ojson& type = target.at("type");
    std::string out;
    for (const ojson& t : type.is_array() ? type : ojson::array({type})) {
      std::string name = t.get<std::string>();
      name = name == "object" ? "mapping" : name == "array" ? "list" : name;
      out += (out.empty() ? "" : " or ") + name;
    }
    if (target.contains("enum")) {
      std::vector<std::string> values;
      for (const ojson& v : target.at("enum"))
        values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      out += ": " + fmt::format("{}", fmt::join(values, ", "));
    }
    return out;
  };
  std::function<void(const ojson&, const std::string&)> walk = [&](const ojson& node,
                                                                   const std::string& prefix) {
    const ojson& target = resolve(node);
    if (!target.contains("properties")) return;
    std::vector<std::string> required;
    if (target.contains("required"))
      required = target.at("required").get<std::vector<std::string>>();
    for (const auto& [name, child] : target.at("properties").items()) {
      std::string path = prefix.empty() ? name : prefix + "." + name;
      bool is_required = std::find(required.begin(), required.end(), name) != required.end();
      rows.push_back({{"path", path},
                      {"type", type_of(child)},
                      {"required", is_required},
                      {"description", child.value("description", std::string())}});
      walk(child, path);
      const ojson& resolved = resolve(child);
      if (resolved.contains("items")) walk(resolved.at("items"), path + "[]");
    }
  };
  walk(schema, "");
  json rules = json::array();
  if (schema.contains("x-cross-field-rules")) {
    for (const ojson& rule : schema.at("x-cross-field-rules")) {
      rules.push_back(
          {{"id", rule.value("id", std::string())}, {"rule", rule.value("rule", std::string())}});
    }
  }
  return {{"root", ""}, {"title", "Recipe fields"}, {"fields", rows}, {"rules", rules}};
}

}  // namespace openrecipes
