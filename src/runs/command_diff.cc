#include "runs/command_diff.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace openrecipes {
namespace {

std::optional<double> as_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

// Both sides of each name, merged from two lists.
template <typename T>
std::map<std::string, std::pair<const T*, const T*>> pair_by_name(const std::vector<T>& candidate,
                                                                  const std::vector<T>& reference) {
  std::map<std::string, std::pair<const T*, const T*>> pairs;
  for (const T& item : candidate) pairs[item.name].first = &item;
  for (const T& item : reference) pairs[item.name].second = &item;
  return pairs;
}

}  // namespace

bool same_value(std::string_view a, std::string_view b) {
  if (a == b) return true;
  std::optional<double> x = as_number(a), y = as_number(b);
  return x && y && *x == *y;
}

std::vector<CommandDifference> diff_training_commands(const TrainingCommand& candidate,
                                                      const TrainingCommand& reference) {
  std::vector<CommandDifference> out;
  for (const auto& [name, sides] : pair_by_name(candidate.arguments, reference.arguments)) {
    const auto [mine, theirs] = sides;
    if (mine && theirs && same_value(mine->value, theirs->value)) continue;
    CommandDifference difference;
    difference.kind = DifferenceKind::kArgument;
    difference.name = name;
    difference.known = (!mine || mine->known) && (!theirs || theirs->known);
    difference.unevaluated = (mine && mine->unevaluated) || (theirs && theirs->unevaluated);
    if (mine) {
      difference.candidate = mine->value;
      difference.candidate_spelling = mine->spelling;
      difference.candidate_line = mine->line;
    }
    if (theirs) {
      difference.reference = theirs->value;
      difference.reference_spelling = theirs->spelling;
      difference.reference_line = theirs->line;
    }
    out.push_back(std::move(difference));
  }
  for (const auto& [name, sides] : pair_by_name(candidate.environment, reference.environment)) {
    const auto [mine, theirs] = sides;
    if (mine && theirs && mine->value == theirs->value) continue;
    CommandDifference difference;
    difference.kind = DifferenceKind::kEnvironment;
    difference.name = name;
    if (mine) {
      difference.candidate = mine->value;
      difference.candidate_line = mine->line;
    }
    if (theirs) {
      difference.reference = theirs->value;
      difference.reference_line = theirs->line;
    }
    out.push_back(std::move(difference));
  }
  if (candidate.program != reference.program) {
    CommandDifference difference;
    difference.kind = DifferenceKind::kProgram;
    difference.name = "program";
    if (!candidate.program.empty()) difference.candidate = candidate.program;
    if (!reference.program.empty()) difference.reference = reference.program;
    difference.candidate_line = candidate.line;
    difference.reference_line = reference.line;
    out.push_back(std::move(difference));
  }
  std::map<std::string, std::pair<bool, bool>> arrays;
  for (const std::string& name : candidate.external_arrays) arrays[name].first = true;
  for (const std::string& name : reference.external_arrays) arrays[name].second = true;
  for (const auto& [name, sides] : arrays) {
    if (sides.first && sides.second) continue;
    CommandDifference difference;
    difference.kind = DifferenceKind::kExternalArray;
    difference.name = name;
    std::string expansion = "${" + name + "[@]}";
    if (sides.first) difference.candidate = expansion;
    if (sides.second) difference.reference = expansion;
    out.push_back(std::move(difference));
  }
  return out;
}

}  // namespace openrecipes
