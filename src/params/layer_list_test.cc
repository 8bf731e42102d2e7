// read_layer_list on hand-made configs: absent and null lists, a list of every layer, and each way
// a list can be bad (count, kind, type), with the problem's field, expected and found.
#include "params/layer_list.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

const std::vector<std::string> kKinds = {"full_attention", "sliding_attention"};

struct Read {
  std::optional<std::vector<std::string>> list;
  Problems problems;       // added by read_layer_list
  Problems config_issues;  // recorded on the config
};

Read read(const std::string& field) {
  Problems parse;
  std::string text = "{\"num_hidden_layers\": 3" + (field.empty() ? "" : ", " + field) + "}";
  std::optional<HfConfig> c = HfConfig::parse(text, "config.json", parse);
  EXPECT_TRUE(c) << text;
  Read r;
  if (!c) return r;
  r.list = read_layer_list(*c, "layer_types", 3, kKinds, r.problems);
  r.config_issues = c->problems();
  return r;
}

TEST(LayerList, AbsentOrNullIsAnEmptyList) {
  for (const std::string& field : {std::string(), std::string("\"layer_types\": null")}) {
    Read r = read(field);
    ASSERT_TRUE(r.list) << field;
    EXPECT_TRUE(r.list->empty()) << field;
    EXPECT_TRUE(r.problems.empty()) << field;
  }
}

TEST(LayerList, ReturnsEveryLayersKind) {
  Read r = read(R"("layer_types": ["sliding_attention", "sliding_attention", "full_attention"])");
  ASSERT_TRUE(r.list);
  EXPECT_EQ(*r.list,
            (std::vector<std::string>{"sliding_attention", "sliding_attention", "full_attention"}));
  EXPECT_TRUE(r.problems.empty());
}

TEST(LayerList, AListOfAnotherLengthNamesTheCount) {
  // An empty list is a list too: it says no layer's kind, so it is refused, not taken as absent.
  for (const auto& [field, found] :
       {std::pair{std::string(R"("layer_types": ["full_attention", "full_attention"])"), "2"},
        std::pair{std::string(R"("layer_types": [])"), "0"}}) {
    Read r = read(field);
    EXPECT_FALSE(r.list) << field;
    ASSERT_EQ(r.problems.size(), 1u) << field;
    EXPECT_EQ(r.problems[0].field, "layer_types");
    EXPECT_EQ(r.problems[0].message, "layer_types must list every layer");
    EXPECT_EQ(r.problems[0].expected, "3 entries (num_hidden_layers)");
    EXPECT_EQ(r.problems[0].found, std::string(found) + " entries");
  }
}

TEST(LayerList, AnUnknownKindNamesItsLayer) {
  Read r = read(R"("layer_types": ["full_attention", "linear_attention", "full_attention"])");
  EXPECT_FALSE(r.list);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].field, "layer_types[1]");
  EXPECT_EQ(r.problems[0].message, "unknown layer kind");
  EXPECT_EQ(r.problems[0].expected, "full_attention or sliding_attention");
  EXPECT_EQ(r.problems[0].found, "\"linear_attention\"");
}

TEST(LayerList, AWrongTypeIsLeftOnTheConfigAtTheListOrTheEntry) {
  struct Case {
    std::string field, at, expected, found;
  };
  for (const Case& c :
       {Case{R"("layer_types": "full_attention")", "layer_types", "a list of strings", "string"},
        Case{R"("layer_types": ["full_attention", 3, "full_attention"])", "layer_types[1]",
             "a string", "integer 3"},
        Case{R"("layer_types": ["full_attention", "full_attention", null])", "layer_types[2]",
             "a string", "null"}}) {
    Read r = read(c.field);
    EXPECT_FALSE(r.list) << c.field;
    EXPECT_TRUE(r.problems.empty()) << c.field;
    ASSERT_EQ(r.config_issues.size(), 1u) << c.field;
    EXPECT_EQ(r.config_issues[0].field, c.at) << c.field;
    EXPECT_EQ(r.config_issues[0].expected, c.expected) << c.field;
    EXPECT_NE(r.config_issues[0].found.find(c.found), std::string::npos)
        << c.field << ": " << r.config_issues[0].found;
  }
}

}  // namespace
}  // namespace openrecipes
