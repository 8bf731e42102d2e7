#include "runs/classify_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace openrecipes {
namespace {

// Control characters never reach the terminal raw, and a value stays one readable cell: cut after
// `longest` characters (JSON output has it whole).
std::string cell(const std::string& text, std::size_t longest = 72) {
  std::string out;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80 && ++characters > longest) {
      out += "...";
      break;
    }
    out +=
        c < 0x20 || c == 0x7F ? fmt::format("\\x{:02X}", c) : std::string(1, static_cast<char>(c));
  }
  return out;
}

// Text from the rules or the classifier: escaped, cut only when absurdly long.
constexpr std::size_t kWhole = 1000;

// Display width in characters (UTF-8 continuation bytes take none).
std::size_t width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& text, std::size_t to) {
  return text + std::string(to > width(text) ? to - width(text) : 0, ' ');
}

std::string class_name(const ClassifiedDifference& d) {
  return d.argument_class ? std::string(class_label(*d.argument_class)) : "unknown";
}

std::string row_name(const CommandDifference& d) {
  switch (d.kind) {
    case DifferenceKind::kArgument:
    case DifferenceKind::kProgram:
      return d.name;
    case DifferenceKind::kEnvironment:
      return "env " + d.name;
    case DifferenceKind::kExternalArray:
      return "array " + d.name;
  }
  return d.name;
}

std::string_view status_name(ComponentCheck::Status status) {
  switch (status) {
    case ComponentCheck::Status::kPassed:
      return "passed";
    case ComponentCheck::Status::kFailed:
      return "failed";
    case ComponentCheck::Status::kMissing:
      return "missing";
  }
  return "missing";
}

std::string_view kind_name(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::kArgument:
      return "argument";
    case DifferenceKind::kEnvironment:
      return "environment";
    case DifferenceKind::kProgram:
      return "program";
    case DifferenceKind::kExternalArray:
      return "external_array";
  }
  return "argument";
}

nlohmann::json optional_json(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json line_json(int line) {
  return line > 0 ? nlohmann::json(line) : nlohmann::json(nullptr);
}

// The differences as an aligned table, then a blank line; "no differences" when there are none.
std::string differences_table(const Classification& result) {
  if (result.differences.empty()) return "no differences\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"class", "setting", "reference", "candidate", "reason"}};
  for (const ClassifiedDifference& d : result.differences) {
    rows.push_back({class_name(d), cell(row_name(d.difference)),
                    cell(d.difference.reference.value_or("(absent)")),
                    cell(d.difference.candidate.value_or("(absent)")), cell(d.reason, kWhole)});
  }
  std::vector<std::size_t> widths(5, 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c + 1 < row.size(); ++c) line += pad(row[c], widths[c]) + "  ";
    out += line + row.back() + "\n";
  }
  return out + "\n";
}

// The differences as JSON rows.
nlohmann::json differences_json(const Classification& result) {
  nlohmann::json differences = nlohmann::json::array();
  for (const ClassifiedDifference& d : result.differences) {
    const CommandDifference& diff = d.difference;
    nlohmann::json row = {
        {"class", d.argument_class ? std::string(class_id(*d.argument_class)) : "unknown"},
        {"kind", kind_name(diff.kind)},
        {"name", diff.name},
        {"rule", d.rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.rule)},
        {"reference", optional_json(diff.reference)},
        {"candidate", optional_json(diff.candidate)},
        {"reference_line", line_json(diff.reference_line)},
        {"candidate_line", line_json(diff.candidate_line)},
        {"reason", d.reason},
    };
    if (diff.kind == DifferenceKind::kArgument) {
      row["reference_spelling"] =
          diff.reference ? nlohmann::json(diff.reference_spelling) : nlohmann::json(nullptr);
      row["candidate_spelling"] =
          diff.candidate ? nlohmann::json(diff.candidate_spelling) : nlohmann::json(nullptr);
    }
    if (!d.component.empty()) row["component"] = d.component;
    differences.push_back(std::move(row));
  }
  return differences;
}

}  // namespace

std::string classify_report_text(const ClassifyReport& report) {
  const Classification& result = report.result;
  std::string out = fmt::format("candidate  {}\nreference  {}\n\n", cell(report.candidate.source),
                                cell(report.reference.source));
  out += differences_table(result);
  for (const ComponentCheck& check : result.components) {
    std::string listed =
        check.status == ComponentCheck::Status::kMissing
            ? (report.candidate.recipe ? " (the candidate's correctness.component_tests lists none)"
                                       : "")
            : fmt::format(": {}", cell(check.test, kWhole));
    out += fmt::format("component test  {} (for {}): {}{}\n", check.component,
                       fmt::join(check.needed_by, ", "), status_name(check.status), listed);
  }
  for (const std::string& note : result.notes)
    out += fmt::format("note            {}\n", cell(note, kWhole));
  out += fmt::format("verdict         {}\n", result.verdict_text());
  return out;
}

nlohmann::json classify_report_json(const ClassifyReport& report) {
  const Classification& result = report.result;
  auto operand_json = [](const ClassifyOperand& operand) {
    return nlohmann::json{{"source", operand.source},
                          {"kind", operand.recipe ? "recipe" : "command"}};
  };
  nlohmann::json components = nlohmann::json::array();
  for (const ComponentCheck& check : result.components) {
    components.push_back(
        {{"component", check.component},
         {"needed_by", check.needed_by},
         {"status", status_name(check.status)},
         {"test", check.test.empty() ? nlohmann::json(nullptr) : nlohmann::json(check.test)}});
  }
  return {{"candidate", operand_json(report.candidate)},
          {"reference", operand_json(report.reference)},
          {"rules", report.rules_file},
          {"differences", differences_json(result)},
          {"component_tests", components},
          {"notes", result.notes},
          {"verdict",
           {{"id", verdict_id(result.verdict)},
            {"text", result.verdict_text()},
            {"passes", result.passes()}}}};
}

}  // namespace openrecipes
