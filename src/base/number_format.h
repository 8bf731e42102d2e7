// Figures as readers see them on the site, in the style of the committed site (site/): 2,451.4
// tokens/s per GPU; $0.90 per 1M tokens; MFU 13.4%; step-time CV 0.57%; N = 9,008,136,192.
#pragma once

#include <cstdint>
#include <string>

namespace openrecipes {

/// `value` rounded half away from zero to `decimals` places (2 for cents, 4 for MFU).
double round_to(double value, int decimals);

/// True when `stated` equals `exact` rounded to `decimals` places (within floating-point noise).
bool equals_rounded(double stated, double exact, int decimals);

/// `value` with `decimals` places (half away from zero) and ',' between thousands:
/// (2451.44, 1) -> "2,451.4"; (9008136192, 0) -> "9,008,136,192".
std::string format_thousands(double value, int decimals);

/// An integer with ',' between thousands: 9008136192 -> "9,008,136,192".
std::string format_count(std::int64_t value);

/// USD to the cent with a dollar sign: 0.9 -> "$0.90"; 1234.5 -> "$1,234.50".
std::string format_usd(double usd);

/// A fraction as a percentage with `decimals` places: (0.134, 1) -> "13.4%".
std::string format_fraction_percent(double fraction, int decimals);

/// A number as stated, with at least one decimal place: 9.0 -> "9.0", 8.96 -> "8.96",
/// 9.5e-05 -> "9.5e-05" (shortest round-trip form otherwise).
std::string format_stated(double value);

}  // namespace openrecipes
