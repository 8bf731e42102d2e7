#include "base/number_format.h"

#include <gtest/gtest.h>

#include <limits>

namespace openrecipes {
namespace {

TEST(NumberFormat, MatchesSeed003) {
  EXPECT_EQ(format_thousands(2451.44, 1), "2,451.4");
  EXPECT_EQ(format_thousands(2366.73, 1), "2,366.7");
  EXPECT_EQ(format_thousands(2289.65, 1), "2,289.7");  // half away from zero
  EXPECT_EQ(format_thousands(2451.44, 2), "2,451.44");
  EXPECT_EQ(format_thousands(999.7, 1), "999.7");
  EXPECT_EQ(format_usd(0.9), "$0.90");
  EXPECT_EQ(format_usd(1.6), "$1.60");
  EXPECT_EQ(format_fraction_percent(0.134, 1), "13.4%");
  EXPECT_EQ(format_fraction_percent(0.1293, 1), "12.9%");
  EXPECT_EQ(format_count(9008136192), "9,008,136,192");
}

TEST(NumberFormat, HandlesEdges) {
  EXPECT_EQ(format_thousands(0, 1), "0.0");
  EXPECT_EQ(format_thousands(1000000, 0), "1,000,000");
  EXPECT_EQ(format_thousands(-1234.5, 1), "-1,234.5");
  EXPECT_EQ(format_thousands(-0.01, 1), "0.0");
  EXPECT_EQ(format_count(-1000), "-1,000");
  EXPECT_EQ(format_count(std::numeric_limits<std::int64_t>::min()), "-9,223,372,036,854,775,808");
  EXPECT_EQ(format_usd(1234.5), "$1,234.50");
}

TEST(NumberFormat, StatedNumbersKeepADecimal) {
  EXPECT_EQ(format_stated(9.0), "9.0");
  EXPECT_EQ(format_stated(8.96), "8.96");
  EXPECT_EQ(format_stated(8.2), "8.2");
  EXPECT_EQ(format_stated(0.00042), "0.00042");
  EXPECT_EQ(format_stated(9.5e-05), "9.5e-05");
  EXPECT_EQ(format_stated(0.999997), "0.999997");
}

}  // namespace
}  // namespace openrecipes
