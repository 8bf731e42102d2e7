// The recipe schema lists every cross-field rule validate applies, with an id and a description
// (the field reference on the site is generated from that list).
#include <gtest/gtest.h>

#include <set>

#include "catalog/schema_check.h"
#include "layout/layout_rules.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::source_dir;

TEST(Schemas, ListEveryCrossFieldRuleWithAnId) {
  Problems problems;
  auto checker = SchemaChecker::load(source_dir() + "/schema/recipe.schema.yaml", problems);
  ASSERT_TRUE(checker);
  std::set<std::string> ids;
  for (const auto& rule : checker->json().at("x-cross-field-rules")) {
    ids.insert(rule.at("id").get<std::string>());
    EXPECT_FALSE(rule.at("rule").get<std::string>().empty());
  }
  for (const char* id : {"path",
                         "layout.dp",
                         "figures.cost",
                         "figures.mfu",
                         "figures.window",
                         "figures.window_tokens",
                         "run.layout",
                         "run.placement",
                         "status",
                         "patches",
                         "figures.gpu_hours",
                         "layout.label",
                         "run.seq_length",
                         "run.global_batch",
                         "run.precision",
                         "run.steps",
                         "protocol.deviation",
                         "run.microbatch",
                         "run.model_script",
                         "run.model_shape",
                         "run.offload"}) {
    EXPECT_TRUE(ids.count(id)) << id;
  }
  // Every layout rule the planner applies is listed (validate reports them under these ids).
  for (LayoutRule rule : all_layout_rules()) {
    if (rule != LayoutRule::kSizes) {
      EXPECT_TRUE(ids.count(layout_rule_id(rule))) << layout_rule_id(rule);
    }
  }
}

}  // namespace
}  // namespace openrecipes
