#include "catalog/schema_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string_view>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace openrecipes {
namespace {

// One step into a document: a mapping key or a list index.
struct Step {
  std::string key;
  bool is_index = false;
  std::size_t index = 0;
};

// valijson names the instance location as {"<root>", "[gpu]", "[0]", ...}; the document tells
// whether a bracket is a key or an index.
std::vector<Step> steps_from_context(const std::vector<std::string>& context,
                                     const YamlNode& root) {
  std::vector<Step> steps;
  const YamlNode* node = &root;
  for (const std::string& part : context) {
    if (part == "<root>" || part.size() < 2 || part.front() != '[') continue;
    std::string inner = part.substr(1, part.size() - 2);
    Step step{inner};
    if (node && node->kind == YamlNode::Kind::kSequence) {
      step.is_index = true;
      step.index = std::stoul(inner);
      node = step.index < node->items.size() ? &node->items[step.index] : nullptr;
    } else {
      node = node ? node->find(inner) : nullptr;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

std::string field_path(const std::vector<Step>& steps) {
  std::string path;
  for (const Step& step : steps) {
    if (step.is_index) {
      path += fmt::format("[{}]", step.index);
    } else {
      path += (path.empty() ? "" : ".") + step.key;
    }
  }
  return path;
}

const YamlNode* node_at(const YamlNode& root, const std::vector<Step>& steps) {
  const YamlNode* node = &root;
  for (const Step& step : steps) {
    if (step.is_index) {
      if (node->kind != YamlNode::Kind::kSequence || step.index >= node->items.size())
        return nullptr;
      node = &node->items[step.index];
    } else {
      node = node->find(step.key);
      if (!node) return nullptr;
    }
  }
  return node;
}

// Follows a local "$ref": "#/definitions/x".
const nlohmann::json& resolve_ref(const nlohmann::json& root, const nlohmann::json& schema) {
  const nlohmann::json* current = &schema;
  for (int hops = 0; hops < 16 && current->is_object(); ++hops) {
    auto found = current->find("$ref");
    if (found == current->end() || !found->is_string()) break;
    const std::string& ref = found->get_ref<const std::string&>();
    if (ref.rfind("#", 0) != 0) break;
    // "#/definitions/name", every reference our schemas hold, without parsing a JSON pointer
    // (called for each value of each recipe); any other form through json_pointer.
    std::string_view path = std::string_view(ref).substr(1);
    std::size_t slash = path.find('/', 1);
    if (path.size() > 1 && path[0] == '/' && slash != std::string_view::npos &&
        path.find('/', slash + 1) == std::string_view::npos &&
        path.find('~') == std::string_view::npos) {
      auto group = root.find(path.substr(1, slash - 1));
      if (group != root.end() && group->is_object()) {
        auto target = group->find(path.substr(slash + 1));
        if (target != group->end()) {
          current = &*target;
          continue;
        }
      }
    }
    current = &root.at(nlohmann::json::json_pointer(ref.substr(1)));
  }
  return *current;
}

// The schema node that governs the value at `steps`, before following its own "$ref" (so that
// its description stays), or null json when none is known.
nlohmann::json schema_at(const nlohmann::json& root, const std::vector<Step>& steps) {
  const nlohmann::json* schema = &root;
  for (const Step& step : steps) {
    const nlohmann::json& parent = resolve_ref(root, *schema);
    if (!parent.is_object()) return nullptr;
    if (step.is_index) {
      if (!parent.contains("items")) return nullptr;
      schema = &parent.at("items");
    } else if (parent.contains("properties") && parent.at("properties").contains(step.key)) {
      schema = &parent.at("properties").at(step.key);
    } else if (parent.contains("additionalProperties") &&
               parent.at("additionalProperties").is_object()) {
      schema = &parent.at("additionalProperties");
    } else {
      return nullptr;
    }
  }
  return *schema;
}

std::string join_values(const nlohmann::json& values, const char* separator) {
  std::string out;
  for (const auto& value : values) {
    if (!out.empty()) out += separator;
    out += value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

// JSON Schema's type names in YAML's words.
std::string yaml_type_name(const std::string& type) {
  if (type == "object") return "mapping";
  if (type == "array") return "list";
  return type;
}

std::string expected_types(const nlohmann::json& schema) {
  if (!schema.is_object() || !schema.contains("type")) return "";
  const nlohmann::json& type = schema.at("type");
  if (type.is_string()) return yaml_type_name(type.get<std::string>());
  std::string out;
  for (const auto& each : type) {
    out += (out.empty() ? "" : " or ") + yaml_type_name(each.get<std::string>());
  }
  return out;
}

std::string expected_pattern(const nlohmann::json& schema) {
  if (!schema.is_object()) return "";
  std::string out = "a string matching /" + schema.value("pattern", std::string()) + "/";
  if (schema.contains("examples") && schema.at("examples").is_array() &&
      !schema.at("examples").empty()) {
    out += ", such as " + schema.at("examples").at(0).dump();
  }
  return out;
}

std::string short_description(const nlohmann::json& schema) {
  std::string text = schema.is_object() ? schema.value("description", std::string()) : "";
  std::size_t stop = text.find('\n');
  for (std::size_t at = text.find(". "); at != std::string::npos && at < stop;
       at = text.find(". ", at + 1)) {
    bool abbreviation = (at >= 3 && text.compare(at - 3, 3, "e.g") == 0) ||
                        (at >= 3 && text.compare(at - 3, 3, "i.e") == 0);
    if (!abbreviation) {
      stop = at;
      break;
    }
  }
  if (stop != std::string::npos) text.resize(stop);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// The schema without `pattern` and `propertyNames` where they are keywords (not property names),
// for valijson; `collect` receives every pattern found.
nlohmann::json without_patterns(const nlohmann::json& schema, std::set<std::string>& collect) {
  if (!schema.is_object()) return schema;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : schema.items()) {
    if (key == "pattern" && value.is_string()) {
      collect.insert(value.get<std::string>());
    } else if (key == "propertyNames") {
      if (value.is_object() && value.contains("pattern"))
        collect.insert(value.at("pattern").get<std::string>());
    } else if (key == "properties" || key == "definitions" || key == "patternProperties") {
      nlohmann::json children = nlohmann::json::object();
      for (const auto& [name, child] : value.items())
        children[name] = without_patterns(child, collect);
      out[key] = children;
    } else if (key == "items" || key == "additionalProperties" || key == "not") {
      out[key] = without_patterns(value, collect);
    } else if ((key == "anyOf" || key == "oneOf" || key == "allOf") && value.is_array()) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& child : value) list.push_back(without_patterns(child, collect));
      out[key] = list;
    } else {
      out[key] = value;
    }
  }
  return out;
}

// True for valijson's wrapper errors that only restate an inner one ("Failed to validate against
// schema associated with property name ...").
bool restates_inner_error(const std::string& text) {
  return text.rfind("Failed to validate against schema associated with property", 0) == 0 ||
         text.rfind("Failed to validate item #", 0) == 0 ||
         text.rfind("Failed to validate against child schema", 0) == 0 ||
         text.rfind("Failed to validate against additional properties schema", 0) == 0;
}

// The name quoted at the end of `text` after `prefix` (valijson ends it with "'.").
std::string quoted_name(const std::string& text, const std::string& prefix) {
  return text.substr(prefix.size(), text.size() - prefix.size() - 2);  // drop "'."
}

// Describes a missing required field `name` of the mapping at `steps` (field path `field`): its
// type and its schema's short description.
void describe_missing(Problem& problem, const std::string& name, const std::string& field,
                      const std::vector<Step>& steps, const nlohmann::json& schema_root) {
  problem.field = field.empty() ? name : field + "." + name;
  problem.message = "missing required field";
  std::vector<Step> child_steps = steps;
  child_steps.push_back({name});
  nlohmann::json child = schema_at(schema_root, child_steps);
  nlohmann::json child_resolved = resolve_ref(schema_root, child);
  std::string type = expected_types(child_resolved);
  if (type.empty() && child_resolved.is_object() && child_resolved.contains("const")) {
    type = child_resolved.at("const").dump();
  }
  std::string description = short_description(child);
  problem.expected = type.empty()          ? description
                     : description.empty() ? type
                                           : fmt::format("{} ({})", type, description);
  problem.found = "nothing";
}

// Describes an unknown field `name` of the mapping at `field` whose (resolved) schema is
// `schema`: where it is and which fields are allowed.
void describe_unknown(Problem& problem, const std::string& name, const std::string& field,
                      const nlohmann::json& schema, const YamlDocument& document) {
  problem.field = field.empty() ? name : field + "." + name;
  problem.position = document.position_of(problem.field);
  problem.message = "unknown field";
  if (schema.is_object() && schema.contains("properties")) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : schema.at("properties").items()) keys.push_back(key);
    problem.expected = "one of " + fmt::format("{}", fmt::join(keys, ", "));
  }
  problem.found = "'" + (name.size() > 60 ? name.substr(0, 57) + "..." : name) + "'";
}

// Describes a broken type, enum, const, pattern or anyOf/oneOf constraint of the value's
// (resolved) `schema`, `described` before its "$ref"; false when `text` is none of these.
bool describe_form(Problem& problem, const std::string& text, const nlohmann::json& schema,
                   const nlohmann::json& described) {
  if (text.find("'type' constraint") != std::string::npos) {
    problem.message = "wrong type";
    problem.expected = expected_types(schema);
  } else if (text.find("enum values") != std::string::npos && schema.is_object() &&
             schema.contains("enum")) {
    problem.message = "not an allowed value";
    problem.expected = "one of " + join_values(schema.at("enum"), ", ");
  } else if (text.find("'const' constraint") != std::string::npos && schema.is_object() &&
             schema.contains("const")) {
    problem.message = "must equal the protocol's value";
    problem.expected = schema.at("const").dump();
  } else if (text.find("'pattern' constraint") != std::string::npos) {
    problem.message = "wrong format";
    problem.expected = expected_pattern(schema);
  } else if (text.find("anyOf") != std::string::npos || text.find("oneOf") != std::string::npos) {
    problem.message = "does not match any allowed form";
    problem.expected = short_description(described);
  } else {
    return false;
  }
  return true;
}

// Describes a broken bound (minimum, maximum, item count, string length) of the value `node`
// whose (resolved) schema is `schema`; false when `text` is none of these.
bool describe_bound(Problem& problem, const std::string& text, const nlohmann::json& schema,
                    const YamlNode* node) {
  if (text.find("greater than") != std::string::npos && schema.is_object() &&
      (schema.contains("minimum") || schema.contains("exclusiveMinimum"))) {
    problem.message = "too small";
    problem.expected = schema.contains("minimum")
                           ? "at least " + schema.at("minimum").dump()
                           : "more than " + schema.at("exclusiveMinimum").dump();
  } else if (text.find("less than") != std::string::npos && schema.is_object() &&
             schema.contains("maximum")) {
    problem.message = "too large";
    problem.expected = "at most " + schema.at("maximum").dump();
  } else if (text.find("no more than") != std::string::npos && schema.is_object() &&
             schema.contains("maxItems")) {
    problem.message = "too many items";
    problem.expected = "at most " + schema.at("maxItems").dump();
    problem.found = node ? fmt::format("{} items", node->items.size()) : "";
  } else if (text.find("no fewer than") != std::string::npos && schema.is_object() &&
             schema.contains("minItems")) {
    problem.message = "too few items";
    problem.expected = "at least " + schema.at("minItems").dump();
    problem.found = node ? fmt::format("{} items", node->items.size()) : "";
  } else if (text.find("String should be no fewer") != std::string::npos) {
    problem.message = "must not be empty";
  } else if (text.find("String should be no more") != std::string::npos && schema.is_object() &&
             schema.contains("maxLength")) {
    problem.message = "too long";
    problem.expected = "at most " + schema.at("maxLength").dump() + " characters";
    problem.found = node ? fmt::format("{} characters", node->scalar.size()) : "";
  } else {
    return false;
  }
  return true;
}

// An integer written with more digits than an int64 holds is read as a floating-point number,
// so the schema calls it a wrong type where an integer is expected; say what it is: a number
// past the field's bound (or past int64's, without one), worded as describe_bound words it.
void describe_integer_past_int64(Problem& problem, const YamlNode& node,
                                 const nlohmann::json& schema) {
  const std::string& text = node.scalar;
  if (node.kind != YamlNode::Kind::kScalar || node.quoted ||
      problem.expected.find("integer") == std::string::npos)
    return;
  const bool negative = !text.empty() && text.front() == '-';
  const std::size_t first_digit = negative || (!text.empty() && text.front() == '+') ? 1 : 0;
  if (text.size() <= first_digit ||
      text.find_first_not_of("0123456789", first_digit) != std::string::npos)
    return;
  const char* bound = negative ? "minimum" : "maximum";
  problem.message = negative ? "too small" : "too large";
  std::string limit = negative ? std::to_string(std::numeric_limits<std::int64_t>::min())
                               : std::to_string(std::numeric_limits<std::int64_t>::max());
  if (schema.is_object() && schema.contains(bound)) limit = schema.at(bound).dump();
  problem.expected = fmt::format("at {} {}", negative ? "least" : "most", limit);
}

// Turns one valijson error into a Problem, or nothing for the wrapper errors that only restate
// an inner one.
std::optional<Problem> to_problem(const valijson::ValidationResults::Error& error,
                                  const YamlDocument& document, const nlohmann::json& schema_root) {
  const std::string& text = error.description;
  if (restates_inner_error(text)) return std::nullopt;
  std::vector<Step> steps = steps_from_context(error.context, document.root);
  std::string field = field_path(steps);
  Problem problem{document.file, document.position_of(field), field, "schema", text, "", ""};
  const YamlNode* node = node_at(document.root, steps);
  nlohmann::json described = schema_at(schema_root, steps);
  nlohmann::json schema = resolve_ref(schema_root, described);
  if (node) problem.found = describe_found(*node);

  static const std::string kMissing = "Missing required property '";
  static const std::string kUnknown =
      "Object contains a property that could not be validated using 'properties' or "
      "'additionalProperties' constraints: '";
  if (text.rfind(kMissing, 0) == 0 && text.size() > kMissing.size() + 1) {
    describe_missing(problem, quoted_name(text, kMissing), field, steps, schema_root);
  } else if (text.rfind(kUnknown, 0) == 0 && text.size() > kUnknown.size() + 1) {
    describe_unknown(problem, quoted_name(text, kUnknown), field, schema, document);
  } else if (!describe_form(problem, text, schema, described) &&
             !describe_bound(problem, text, schema, node)) {
    problem.message = text;
    if (!problem.message.empty() && problem.message.back() == '.') problem.message.pop_back();
  }
  if (problem.message == "wrong type" && node) describe_integer_past_int64(problem, *node, schema);
  return problem;
}

// The schema nodes of `root` (each after resolve_ref) under which check_patterns may meet a
// pattern: one with `pattern` or a `propertyNames` pattern, or one whose `properties`,
// `additionalProperties` or `items` lead to such a node. Found as a fixed point over every node
// reachable from the root, so that a schema whose $refs loop is right too.
std::unordered_set<const nlohmann::json*> nodes_with_patterns(const nlohmann::json& root) {
  // The nodes check_patterns can reach, each with the nodes it walks into.
  std::map<const nlohmann::json*, std::vector<const nlohmann::json*>> children;
  std::vector<const nlohmann::json*> pending = {&resolve_ref(root, root)};
  while (!pending.empty()) {
    const nlohmann::json* node = pending.back();
    pending.pop_back();
    if (!node->is_object() || children.count(node)) continue;
    std::vector<const nlohmann::json*>& next = children[node];
    auto add = [&](const nlohmann::json& schema) {
      const nlohmann::json* resolved = &resolve_ref(root, schema);
      next.push_back(resolved);
      pending.push_back(resolved);
    };
    if (auto properties = node->find("properties");
        properties != node->end() && properties->is_object()) {
      for (const nlohmann::json& property : *properties) add(property);
    }
    if (auto additional = node->find("additionalProperties");
        additional != node->end() && additional->is_object()) {
      add(*additional);
    }
    if (auto items = node->find("items"); items != node->end()) add(*items);
  }
  std::unordered_set<const nlohmann::json*> with;
  for (const auto& [node, next] : children) {
    auto names = node->find("propertyNames");
    if (node->contains("pattern") ||
        (names != node->end() && names->is_object() && names->contains("pattern"))) {
      with.insert(node);
    }
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [node, next] : children) {
      if (with.count(node)) continue;
      if (std::any_of(next.begin(), next.end(), [&](const auto* n) { return with.count(n); })) {
        with.insert(node);
        grew = true;
      }
    }
  }
  return with;
}

}  // namespace

std::optional<SchemaChecker> SchemaChecker::load(const std::string& path, Problems& problems) {
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  std::optional<YamlDocument> document = parse_yaml(*text, path, problems);
  if (!document) return std::nullopt;
  SchemaChecker checker;
  auto json = std::make_shared<const nlohmann::json>(to_json(document->root));
  checker.json_ = json;
  checker.ordered_json_ = to_ordered_json(document->root);
  std::set<std::string> sources;
  nlohmann::json for_valijson = without_patterns(*json, sources);
  for (const std::string& source : sources) {
    std::optional<Pattern> pattern =
        Pattern::compile(source, {path, {1, 1}, "", "schema", "", "", ""}, problems);
    if (!pattern) return std::nullopt;
    checker.patterns_.emplace(source, std::move(*pattern));
  }
  try {
    auto schema = std::make_shared<valijson::Schema>();
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(for_valijson);
    parser.populateSchema(adapter, *schema);
    checker.schema_ = std::move(schema);
    checker.with_patterns_ = std::make_shared<const std::unordered_set<const nlohmann::json*>>(
        nodes_with_patterns(*json));
  } catch (const std::exception& error) {
    problems.push_back({path,
                        {1, 1},
                        "",
                        "schema",
                        fmt::format("not a usable JSON Schema: {}", error.what()),
                        "",
                        ""});
    return std::nullopt;
  }
  return checker;
}

// A field's path as a chain of its parents' keys and indices, so that the walk over every value of
// every recipe builds no string; text() spells it as problems do ("a.b[2].c").
struct SchemaChecker::FieldPath {
  const FieldPath* parent = nullptr;
  const std::string* key = nullptr;  // a mapping's key, or null for a sequence's item
  std::size_t index = 0;

  std::string text() const {
    if (!parent) return "";
    std::string above = parent->text();
    if (!key) return fmt::format("{}[{}]", above, index);
    return above.empty() ? *key : above + "." + *key;
  }
};

void SchemaChecker::check_patterns(const nlohmann::json& schema_node, const YamlNode& node,
                                   const FieldPath& field, const YamlDocument& document,
                                   Problems& problems) const {
  const nlohmann::json& schema = resolve_ref(*json_, schema_node);
  if (!schema.is_object() || !with_patterns_->count(&schema)) return;
  // `found` is a callable giving the value as the problem shows it, built only on a mismatch
  // (most values match, and a catalog of thousands of recipes checks every one).
  auto check = [&](const std::string& text, const std::string& pattern_source, const FieldPath& at,
                   const std::string& what, auto&& found) {
    Pattern::Result result = patterns_.at(pattern_source).search(text);
    if (result == Pattern::Result::kMatch) return;
    const std::string at_field = at.text();
    Problem problem{document.file,
                    document.position_of(at_field),
                    at_field,
                    "schema",
                    result == Pattern::Result::kTooComplex
                        ? "the schema's pattern is too complex to check this value"
                        : "wrong format" + what,
                    expected_pattern(schema.contains("propertyNames") && what.size()
                                         ? schema.at("propertyNames")
                                         : schema),
                    found()};
    problems.push_back(std::move(problem));
  };
  if (node.kind == YamlNode::Kind::kScalar) {
    auto pattern = schema.find("pattern");
    if (pattern == schema.end()) return;
    nlohmann::json value = resolve_scalar(node);
    if (value.is_string()) {
      check(node.scalar, pattern->get_ref<const std::string&>(), field, "",
            [&] { return describe_found(node); });
    }
  } else if (node.kind == YamlNode::Kind::kMapping) {
    auto names = schema.find("propertyNames");
    const nlohmann::json* name_pattern = nullptr;
    if (names != schema.end() && names->is_object()) {
      if (auto p = names->find("pattern"); p != names->end()) name_pattern = &*p;
    }
    auto properties = schema.find("properties");
    auto additional = schema.find("additionalProperties");
    for (const YamlEntry& entry : node.entries) {
      FieldPath child{&field, &entry.key, 0};
      if (name_pattern) {
        check(entry.key, name_pattern->get_ref<const std::string&>(), child, " of a name", [&] {
          return "'" + (entry.key.size() > 60 ? entry.key.substr(0, 57) + "..." : entry.key) + "'";
        });
      }
      if (properties != schema.end() && properties->contains(entry.key)) {
        check_patterns(properties->at(entry.key), entry.value, child, document, problems);
      } else if (additional != schema.end() && additional->is_object()) {
        check_patterns(*additional, entry.value, child, document, problems);
      }
    }
  } else if (node.kind == YamlNode::Kind::kSequence) {
    auto items = schema.find("items");
    if (items == schema.end()) return;
    for (std::size_t i = 0; i < node.items.size(); ++i) {
      check_patterns(*items, node.items[i], FieldPath{&field, nullptr, i}, document, problems);
    }
  }
}

Problems SchemaChecker::check(const YamlDocument& document) const {
  nlohmann::json instance = to_json(document.root);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(instance);
  validator.validate(*schema_, adapter, &results);

  Problems all;
  std::set<std::pair<std::string, std::string>> seen;
  std::set<std::string>
      wrong_type;  // a wrong type says it all; drop the same field's other findings
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::optional<Problem> problem = to_problem(error, document, *json_);
    if (problem && seen.insert({problem->field, problem->message}).second) {
      if (problem->message == "wrong type") wrong_type.insert(problem->field);
      all.push_back(std::move(*problem));
    }
  }
  Problems problems;
  for (Problem& problem : all) {
    if (problem.message == "wrong type" || !wrong_type.count(problem.field)) {
      problems.push_back(std::move(problem));
    }
  }
  check_patterns(*json_, document.root, FieldPath{}, document, problems);
  std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
    return std::pair(a.position.line, a.position.column) <
           std::pair(b.position.line, b.position.column);
  });
  return problems;
}

}  // namespace openrecipes
