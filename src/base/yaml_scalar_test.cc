#include "base/yaml_scalar.h"

#include <gtest/gtest.h>

#include "base/yaml_document.h"

namespace openrecipes {
namespace {

// What the catalog's own reader makes of `key: <scalar>`.
nlohmann::json read_back(const std::string& scalar) {
  Problems problems;
  std::optional<YamlDocument> document =
      parse_yaml("key: " + scalar + "\n", "block.yaml", problems);
  EXPECT_TRUE(document) << scalar;
  return document ? resolve_scalar(document->root.entries[0].value) : nlohmann::json();
}

TEST(YamlScalar, EveryTextReadsBackAsTheSameString) {
  for (std::string text : {"gptoss-tulu3-fixed8192-v1",
                           "True",
                           "NULL",
                           "~",
                           "0x2A",
                           "1e3",
                           "042",
                           ".inf",
                           "a: b",
                           "#x",
                           "x #y",
                           "[1]",
                           "{a}",
                           "- a",
                           "say \"hi\"",
                           "it's",
                           "tab\there",
                           "two\nlines",
                           "trailing ",
                           " leading",
                           "<|return|>",
                           "café",
                           "",
                           "2026-10-14",
                           "yes",
                           "no"}) {
    nlohmann::json back = read_back(yaml_scalar(text));
    EXPECT_TRUE(back.is_string()) << text << " -> " << yaml_scalar(text);
    if (back.is_string()) {
      EXPECT_EQ(back.get<std::string>(), text) << yaml_scalar(text);
    }
  }
}

TEST(YamlScalar, PlainWhenNothingCanBeMisread) {
  EXPECT_EQ(yaml_scalar("gptoss-tulu3-fixed8192-v1"), "gptoss-tulu3-fixed8192-v1");
  EXPECT_EQ(yaml_scalar(
                "source conversations in a seeded global permutation, cut into rows; rows skipped"),
            "source conversations in a seeded global permutation, cut into rows; rows skipped");
  EXPECT_EQ(yaml_scalar("True"), "\"True\"");
  EXPECT_EQ(yaml_scalar("0x2A"), "\"0x2A\"");
}

}  // namespace
}  // namespace openrecipes
