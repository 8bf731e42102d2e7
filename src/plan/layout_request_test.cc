// The layout-argument checks plan, recommend and export share (layout_request.h).
#include "plan/layout_request.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

PlanArguments gpt_oss(int gpus, const std::string& layout) {
  PlanArguments arguments;
  arguments.model = "gpt-oss-20b";
  arguments.gpu = "H200";
  arguments.gpus = gpus;
  arguments.layout.layout = layout;
  return arguments;
}

TEST(LayoutRequest, ResolvesALegalLayout) {
  Problems problems;
  std::optional<PlanRequest> request = resolve_plan_request(testing::bundled_catalog().catalog,
                                                            gpt_oss(16, "TP1 PP2 EP8"), problems);
  ASSERT_TRUE(request) << testing::describe(problems);
  EXPECT_EQ(request->cluster.per_node, 8);
  ASSERT_TRUE(request->layout);
  EXPECT_EQ(request->layout->dispatcher, "alltoall");  // the MoE default
}

TEST(LayoutRequest, RefusesAPartialNode) {
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, gpt_oss(12, "TP1 PP3 EP4"),
                                    problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--gpus");
  EXPECT_EQ(problems[0].rule, "arguments.whole_nodes");
  EXPECT_EQ(problems[0].found, "12");
  EXPECT_NE(problems[0].expected.find("multiple of the 8 GPUs per node"), std::string::npos);
  problems.clear();
  EXPECT_TRUE(
      resolve_plan_request(testing::bundled_catalog().catalog, gpt_oss(4, "TP1 EP4"), problems))
      << testing::describe(problems);  // fewer than a node is allowed
}

TEST(LayoutRequest, RefusesAnUnknownDispatcherAndAWrongDp) {
  PlanArguments arguments = gpt_oss(16, "TP1 PP2 EP8");
  arguments.layout.dispatcher = "broadcast";
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--dispatcher");
  problems.clear();
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog,
                                    gpt_oss(16, "TP1 PP2 EP8 DP4"), problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].rule, "arguments.dp");
  EXPECT_EQ(problems[0].expected, "DP8 or no DP");
}

TEST(LayoutRequest, EachBrokenRuleIsOneProblem) {
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, gpt_oss(16, "TP3 PP2 EP5"),
                                    problems));
  ASSERT_GE(problems.size(), 2u);
  EXPECT_TRUE(testing::has_rule(problems, "mesh.tp_heads")) << testing::describe(problems);
  EXPECT_TRUE(testing::has_rule(problems, "mesh.ep")) << testing::describe(problems);
  for (const Problem& p : problems) EXPECT_EQ(p.field, "--layout");
}

TEST(LayoutRequest, UnknownModelAndGpuAreBothNamed) {
  PlanArguments arguments = gpt_oss(8, "");
  arguments.model = "no-such-model";
  arguments.gpu = "Z100";
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 2u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--model");
  EXPECT_NE(problems[0].expected.find("gpt-oss-20b"), std::string::npos);
  EXPECT_EQ(problems[1].field, "--gpu");
  EXPECT_NE(problems[1].expected.find("H200"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes
