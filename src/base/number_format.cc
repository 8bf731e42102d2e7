#include "base/number_format.h"

#include <fmt/format.h>

#include <cmath>

namespace openrecipes {
namespace {

// "1234567" -> "1,234,567".
std::string group_thousands(const std::string& digits) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

double round_to(double value, int decimals) {
  double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

bool equals_rounded(double stated, double exact, int decimals) {
  return std::fabs(stated - round_to(exact, decimals)) < 0.5 * std::pow(10.0, -decimals - 3);
}

std::string format_thousands(double value, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::fabs(round_to(value, decimals)), decimals);
  std::size_t point = digits.find('.');
  std::string out = group_thousands(digits.substr(0, point));
  if (point != std::string::npos) out += digits.substr(point);
  bool negative = value < 0 && out.find_first_not_of("0.,") != std::string::npos;
  return negative ? "-" + out : out;
}

std::string format_count(std::int64_t value) {
  // Exact for every int64 (a double would round counts above 2^53).
  std::uint64_t magnitude =
      value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  return (value < 0 ? "-" : "") + group_thousands(std::to_string(magnitude));
}

std::string format_usd(double usd) { return "$" + format_thousands(usd, 2); }

std::string format_fraction_percent(double fraction, int decimals) {
  return format_thousands(fraction * 100.0, decimals) + "%";
}

std::string format_stated(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace openrecipes
