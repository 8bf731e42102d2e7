#include "cli/parse_error_message.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

namespace openrecipes::cli {
namespace {

// The words of `text` split at single spaces.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  while (!text.empty()) {
    std::size_t space = text.find(' ');
    words.emplace_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

// `text` after `prefix`, or nullopt when it does not start with it.
std::optional<std::string_view> after(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  return text.substr(prefix.size());
}

// CLI11's "a,b,c" as "a, b, c".
std::string spaced_list(std::string_view list) {
  std::string spaced(list);
  for (std::size_t comma = spaced.find(','); comma != std::string::npos;
       comma = spaced.find(',', comma + 2)) {
    spaced.insert(comma + 1, " ");
  }
  return spaced;
}

// "--to: expected one of slime, megatron-lm, found 'x'" from CLI::IsMember's "x not in {a,b}".
std::optional<std::string> not_a_choice(std::string_view name, std::string_view detail) {
  std::size_t not_in = detail.rfind(" not in {");
  if (not_in == std::string_view::npos || !detail.ends_with("}")) return std::nullopt;
  return fmt::format("{}: expected one of {}, found '{}'", name,
                     spaced_list(detail.substr(not_in + 9, detail.size() - not_in - 10)),
                     detail.substr(0, not_in));
}

// The value an option's type description asks for, in words: "TEXT:{text,json}" as "one of text,
// json", "INT:INT in [1 - 1048576]" as "INT in [1 - 1048576]", "TEXT" as "a value".
std::string wanted_value(std::string_view type) {
  if (std::size_t colon = type.find(':'); colon != std::string_view::npos) {
    type = type.substr(colon + 1);
  }
  if (type.starts_with("{") && type.ends_with("}")) {
    return "one of " + spaced_list(type.substr(1, type.size() - 2));
  }
  if (type == "TEXT" || type.empty()) return "a value";
  return fmt::format("a value ({})", type);
}

}  // namespace

std::string usage_message(const CLI::ParseError& error, const std::string& command,
                          const std::vector<std::string>& before_dashes) {
  const std::string message = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    // CLI11 lists the unexpected arguments last to first (detail::rjoin).
    std::string_view listed = message;
    if (std::size_t colon = listed.find(": "); colon != std::string_view::npos) {
      listed.remove_prefix(colon + 2);
    }
    std::vector<std::string> words = words_of(listed);
    std::erase(words, "--");  // CLI11 lists the separator among the extras
    std::string found;
    for (auto word = words.rbegin(); word != words.rend(); ++word) {
      found += (found.empty() ? "" : " ") + *word;
    }
    if (!words.empty() && words.back().starts_with("-") &&
        std::find(before_dashes.begin(), before_dashes.end(), words.back()) !=
            before_dashes.end()) {
      // The first the command line gave, alone: the words after it may be its value.
      const std::string& first = words.back();
      return fmt::format("{}: expected one of the command's options (see {} --help), found '{}'",
                         first.substr(0, first.find('=')), command, first);
    }
    return fmt::format("unexpected argument{} '{}' (see {} --help)", words.size() > 1 ? "s" : "",
                       found, command);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error)) {
    if (auto rest = after(message, "Could not convert: ")) {
      std::size_t equals = rest->find(" = ");
      if (equals != std::string_view::npos) {
        return fmt::format("{}: expected true or false (or the flag alone), found '{}'",
                           rest->substr(0, equals), rest->substr(equals + 3));
      }
    }
    return message;
  }
  std::size_t colon = message.find(": ");
  if (colon == std::string::npos || !message.starts_with("-")) return message;
  // CLI11 words these "NAME: DETAIL" (Error.hpp).
  std::string_view name(message.data(), colon);
  std::string_view detail(message.data() + colon + 2, message.size() - colon - 2);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) && detail.starts_with("1 required ") &&
      detail.ends_with(" missing")) {
    return fmt::format("{}: expected {} after it, found none", name,
                       wanted_value(detail.substr(11, detail.size() - 11 - 8)));
  }
  // A value count CLI11 refuses: "At Most 1 required but received 2" (a single-value option
  // given twice, `--top 1 --top 2`), "At Most 2 required but received 4" (`--window 5 19 --window
  // 6 18`), "At least 2 required but received 1" (`--window 5`).
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) {
    constexpr std::string_view kReceived = " required but received ";
    for (std::string_view bound : {"At Most ", "At least "}) {
      std::optional<std::string_view> rest = after(detail, bound);
      std::size_t but = rest ? rest->find(kReceived) : std::string_view::npos;
      if (but == std::string_view::npos) continue;
      std::string_view wanted = rest->substr(0, but),
                       received = rest->substr(but + kReceived.size());
      const bool most = bound == "At Most ";
      return fmt::format("{}: expected {}{} value{}{}, found {}", name, most ? "" : "at least ",
                         wanted == "1" ? "one" : wanted, wanted == "1" ? "" : "s",
                         most ? " (give it once)" : "", received);
    }
  }
  if (dynamic_cast<const CLI::ValidationError*>(&error)) {
    if (std::optional<std::string> choice = not_a_choice(name, detail)) return *choice;
  }
  return message;
}

}  // namespace openrecipes::cli
