#include "cli/number_options.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

#include "base/ascii.h"

namespace openrecipes::cli {
namespace {

// Whether `text` is a decimal number as a person writes one: an optional '-', digits with at
// most one '.', and an optional exponent (e or E, a sign, digits). No hex, no "inf" or "nan",
// nothing before or after.
bool is_decimal_number(const std::string& text) {
  std::size_t i = 0, n = text.size();
  if (i < n && text[i] == '-') ++i;
  std::size_t digits = 0;
  bool point = false;
  for (; i < n; ++i) {
    if (ascii_digit(text[i])) {
      ++digits;
    } else if (text[i] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits == 0) return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    for (; i < n && ascii_digit(text[i]); ++i) ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == n;
}

}  // namespace

CLI::Validator whole_number(std::int64_t low, std::int64_t high) {
  CLI::Validator check(
      [low, high](std::string& text) -> std::string {
        const std::string expected =
            fmt::format("expected a whole number from {} to {}, found '{}'", low, high, text);
        std::size_t first_digit = !text.empty() && text.front() == '-' ? 1 : 0;
        if (text.size() <= first_digit ||
            text.find_first_not_of("0123456789", first_digit) != std::string::npos ||
            (text.size() > first_digit + 1 && text[first_digit] == '0'))
          return expected;
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < low || value > high)
          return expected;
        return "";
      },
      fmt::format("INT in [{} - {}]", low, high));
  return check;
}

CLI::Validator real_number(double low, double high) {
  const std::string range = std::isinf(high) ? fmt::format("of at least {}", low)
                                             : fmt::format("from {} to {}", low, high);
  CLI::Validator check(
      [low, high, range](std::string& text) -> std::string {
        if (is_decimal_number(text)) {
          double value = std::strtod(text.c_str(), nullptr);
          if (std::isfinite(value) && value >= low && value <= high) return "";
        }
        return fmt::format("expected a number {}, found '{}'", range, text);
      },
      std::isinf(high) ? fmt::format("FLOAT at least {}", low)
                       : fmt::format("FLOAT in [{} - {}]", low, high));
  return check;
}

CLI::Validator positive_real_number(double high) {
  const std::string range =
      std::isinf(high) ? "above 0" : fmt::format("above 0 and at most {}", high);
  CLI::Validator check(
      [high, range](std::string& text) -> std::string {
        if (is_decimal_number(text)) {
          double value = std::strtod(text.c_str(), nullptr);
          if (std::isfinite(value) && value > 0 && value <= high) return "";
        }
        return fmt::format("expected a number {}, found '{}'", range, text);
      },
      "FLOAT " + range);
  return check;
}

}  // namespace openrecipes::cli
