#include "rows/recipe_rows_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/ascii.h"

namespace openrecipes {
namespace {

// The first run of exactly 64 hex digits in `text`, lowercased, or "".
std::string find_sha256(const std::string& text) {
  std::size_t run = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) {
      ++run;
      continue;
    }
    if (run == 64) {
      return ascii_lowercase(text.substr(i - 64, 64));
    }
    run = 0;
  }
  return "";
}

// `text` with each run of whitespace as one space (YAML folds long plain scalars over lines).
std::string collapse_spaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct Checker {
  const YamlDocument& document;
  RecipeRowsCheck& out;

  bool states(const std::string& field) const { return document.positions.count(field) > 0; }

  template <typename T>
  void check(const std::string& field, const T& from_rows, const T& in_recipe, bool equal) {
    if (!states(field)) return;
    if (equal) {
      out.matched.push_back(field);
      return;
    }
    std::string short_name = field.substr(field.rfind('.') + 1);
    out.problems.push_back({document.file, document.position_of(field), field, "rows." + short_name,
                            "does not match the rows file", fmt::format("{}", from_rows),
                            fmt::format("{}", in_recipe)});
  }
  template <typename T>
  void check(const std::string& field, const T& from_rows, const T& in_recipe) {
    check(field, from_rows, in_recipe, from_rows == in_recipe);
  }
};

}  // namespace

RecipeRowsCheck check_rows_against_recipe(const RowsFileSummary& rows, const YamlDocument& document,
                                          const Recipe& recipe) {
  RecipeRowsCheck out;
  Checker c{document, out};
  const Dataset& dataset = recipe.workload.dataset;
  const DatasetBuild& build = dataset.build;
  const std::string b = "workload.dataset.build.";
  c.check("workload.row_tokens", rows.row_tokens, recipe.workload.row_tokens);
  c.check("workload.dataset.rows_sha256", rows.rows_sha256, dataset.rows_sha256);
  c.check(b + "rows", rows.rows, build.rows);
  c.check(b + "row_tokens", rows.row_tokens, build.row_tokens);
  c.check(b + "padding_tokens", rows.padding_tokens, build.padding_tokens);
  if (build.supervised_token_ratio) {
    // Recipes state the ratio to 3 decimals (the bundled recipes: 0.621).
    c.check(
        b + "supervised_token_ratio", fmt::format("{:.3f}", rows.supervised_token_ratio),
        fmt::format("{:.3f}", *build.supervised_token_ratio),
        std::fabs(rows.supervised_token_ratio - *build.supervised_token_ratio) <= 0.0005 + 1e-12);
  }
  c.check(b + "parquet_sha256", rows.parquet_sha256, build.parquet_sha256);
  c.check(b + "parquet_bytes", static_cast<std::int64_t>(rows.parquet_bytes), build.parquet_bytes);

  // What only the file's build metadata knows.
  const nlohmann::json& meta = rows.build;
  auto from_meta = [&](const char* key, const std::string& field, auto in_recipe) {
    using T = decltype(in_recipe);
    if (!meta.is_object()) {
      out.unchecked.push_back(field + " (the rows file has no build metadata)");
      return;
    }
    if (!meta.contains(key)) {
      out.unchecked.push_back(field + " (the rows file's build metadata does not record it)");
      return;
    }
    try {
      c.check(field, meta.at(key).get<T>(), in_recipe);
    } catch (const nlohmann::json::exception&) {
      out.unchecked.push_back(field + " (the file's build metadata holds a " +
                              meta.at(key).type_name() + ")");
    }
  };
  from_meta("loss_mask", b + "loss_mask", build.loss_mask);
  from_meta("seed", b + "seed", static_cast<std::uint64_t>(build.seed));
  from_meta("name", b + "name", build.name);
  if (!build.packing.empty()) from_meta("packing", b + "packing", collapse_spaces(build.packing));
  from_meta("builder", b + "builder", collapse_spaces(build.builder));
  std::string tokenizer_sha256 = find_sha256(build.tokenizer);
  if (tokenizer_sha256.empty()) {
    out.problems.push_back({document.file, document.position_of(b + "tokenizer"), b + "tokenizer",
                            "rows.tokenizer",
                            "names no tokenizer.json sha256 (64 hex digits) to check",
                            meta.is_object() && meta.contains("tokenizer_sha256") &&
                                    meta.at("tokenizer_sha256").is_string()
                                ? meta.at("tokenizer_sha256").get<std::string>()
                                : "",
                            build.tokenizer});
  } else {
    from_meta("tokenizer_sha256", b + "tokenizer", tokenizer_sha256);
  }
  std::stable_sort(out.problems.begin(), out.problems.end(),
                   [](const Problem& left, const Problem& right) {
                     return std::pair(left.position.line, left.position.column) <
                            std::pair(right.position.line, right.position.column);
                   });
  return out;
}

}  // namespace openrecipes
