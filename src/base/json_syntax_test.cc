// json_syntax_error on a real config of the bundled catalog, edited one value at a time.
#include "base/json_syntax.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace openrecipes {
namespace {

const char* kConfig = "models/gpt-oss-20b/config.json";

TEST(JsonSyntax, TheBundledConfigIsJson) {
  EXPECT_FALSE(json_syntax_error(testing::read_source_file(kConfig)));
}

TEST(JsonSyntax, ANumberPastADoubleNamesItsFieldLineAndText) {
  std::string text = testing::read_source_file(kConfig);
  int line = testing::line_containing(kConfig, "\"hidden_size\"");
  text = testing::replace_all(text, "\"hidden_size\": 2880", "\"hidden_size\": 1e309");
  std::optional<JsonSyntaxError> error = json_syntax_error(text);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->message, "number out of range");
  EXPECT_EQ(error->field, "hidden_size");
  EXPECT_EQ(error->found, "1e309");
  EXPECT_EQ(error->position.line, line);
  // The column is the number's first character.
  std::size_t line_start = text.rfind('\n', text.find("1e309")) + 1;
  EXPECT_EQ(error->position.column, static_cast<int>(text.find("1e309") - line_start) + 1);
  // nlohmann::json::parse throws out_of_range (not parse_error) here: what the check spares.
  EXPECT_THROW(
      {
        nlohmann::json parsed = nlohmann::json::parse(text);
        EXPECT_TRUE(parsed.is_null());
      },
      nlohmann::json::out_of_range);
}

TEST(JsonSyntax, ANumberInAListNamesItsIndex) {
  std::optional<JsonSyntaxError> error =
      json_syntax_error(R"({"layers": [{"size": 1}, {"size": [0, -2e400]}]})");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->field, "layers[1].size[1]");
  EXPECT_EQ(error->found, "-2e400");
}

TEST(JsonSyntax, ASyntaxErrorNamesItsByte) {
  std::string text = testing::read_source_file(kConfig);
  text = testing::replace_all(text, "\"hidden_size\": 2880,", "\"hidden_size\": 2880,,");
  std::optional<JsonSyntaxError> error = json_syntax_error(text);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->message.rfind("not valid JSON at byte ", 0), 0u) << error->message;
  EXPECT_TRUE(error->field.empty());
  EXPECT_EQ(error->position.line, testing::line_containing(kConfig, "\"hidden_size\""));
}

}  // namespace
}  // namespace openrecipes
