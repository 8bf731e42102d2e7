// The --layout, --recompute and --layer-split forms.
#include "layout/layout_text.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

// Every problem as its printed line, for assertions on the words.
std::string text_of(const Problems& problems) {
  return render_problems(problems, OutputFormat::kText);
}

TEST(LayoutText, ReadsTheIssuesExampleWithOmittedSizesOne) {
  Problems error;
  std::optional<Layout> l = parse_layout_text("TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1", 8192, error);
  ASSERT_TRUE(l) << text_of(error);
  EXPECT_EQ(l->tp, 2);
  EXPECT_EQ(l->pp, 8);
  EXPECT_EQ(l->vpp, 4);
  EXPECT_EQ(l->ep, 32);
  EXPECT_EQ(l->etp, 1);
  EXPECT_EQ(l->cp, 1);
  EXPECT_EQ(l->rows_per_microbatch, 1);
  EXPECT_TRUE(l->sequence_parallel);  // TP > 1
  EXPECT_EQ(l->max_tokens_per_gpu, 8192);
  EXPECT_EQ(l->dispatcher, "alltoall");

  l = parse_layout_text("pp4 cp2 mbs2", 8192, error);
  ASSERT_TRUE(l) << text_of(error);
  EXPECT_EQ(l->tp, 1);
  EXPECT_FALSE(l->sequence_parallel);
  EXPECT_EQ(l->ep, 1);
  EXPECT_EQ(l->max_tokens_per_gpu, 8192);  // 2 rows x 8192 / CP 2
  EXPECT_EQ(l->dispatcher, "");
  EXPECT_EQ(layout_text(*l), "TP1 PP4 VPP1 CP2 EP1 ETP1 MBS2");
}

TEST(LayoutText, RefusesWhatIsNotALayout) {
  Problems error;
  EXPECT_FALSE(parse_layout_text("TP2 XP4", 8192, error));
  EXPECT_NE(text_of(error).find("unknown layout word 'XP4'"), std::string::npos) << text_of(error);
  EXPECT_FALSE(parse_layout_text("TP0", 8192, error));
  EXPECT_NE(text_of(error).find("a whole number from 1 to 1048576"), std::string::npos)
      << text_of(error);
  EXPECT_FALSE(parse_layout_text("TP-1", 8192, error));
  EXPECT_FALSE(parse_layout_text("TP2 TP4", 8192, error));
  EXPECT_NE(text_of(error).find("twice"), std::string::npos) << text_of(error);
  EXPECT_FALSE(parse_layout_text("TP99999999999", 8192, error));
  EXPECT_FALSE(parse_layout_text("   ", 8192, error));
  EXPECT_FALSE(parse_layout_text("TP", 8192, error));
}

TEST(LayoutText, ReadsRecomputeSettings) {
  Problems error;
  auto none = parse_recompute_text("none", error);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto full = parse_recompute_text("full:block:3", error);
  ASSERT_TRUE(full && *full);
  EXPECT_EQ((*full)->granularity, "full");
  EXPECT_EQ((*full)->method, "block");
  EXPECT_EQ((*full)->num_layers, 3);
  EXPECT_EQ(recompute_text(*full), "full:block:3");
  EXPECT_EQ(recompute_text(*parse_recompute_text("full", error)), "full:uniform:1");
  EXPECT_EQ(recompute_text(*parse_recompute_text("selective", error)), "selective");
  EXPECT_FALSE(parse_recompute_text("full:sideways:1", error));
  EXPECT_FALSE(parse_recompute_text("full:uniform:0", error));
  EXPECT_FALSE(parse_recompute_text("partial", error));
  EXPECT_FALSE(parse_recompute_text("", error));
}

TEST(LayoutText, ReadsSelectiveRecomputeModules) {
  Problems error;
  auto modules = parse_recompute_text("selective:mla_up_proj,mlp,mlp", error);
  ASSERT_TRUE(modules && *modules) << text_of(error);
  EXPECT_EQ((*modules)->granularity, "selective");
  EXPECT_EQ((*modules)->modules, (std::vector<std::string>{"mla_up_proj", "mlp"}));
  EXPECT_TRUE((*modules)->recomputes_module("mlp"));
  EXPECT_FALSE((*modules)->recomputes_module("core_attn"));  // listed modules replace the default
  EXPECT_EQ(recompute_text(*modules), "selective:mla_up_proj,mlp");
  EXPECT_TRUE((*parse_recompute_text("selective", error))->recomputes_module("core_attn"));
  EXPECT_TRUE(error.empty());
  EXPECT_FALSE(parse_recompute_text("selective:attention", error));
  ASSERT_EQ(error.size(), 1u);
  EXPECT_EQ(error[0].field, "--recompute");
  EXPECT_EQ(error[0].found, "attention");
  EXPECT_FALSE(parse_recompute_text("selective:", error));
  EXPECT_FALSE(parse_recompute_text("selective:mlp,", error));
  EXPECT_FALSE(parse_recompute_text("full:mlp", error));
}

TEST(LayoutText, ReadsLayerSplits) {
  Problems error;
  std::optional<LayerSplit> split = parse_layer_split_text("11,10", error);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->first, 11);
  EXPECT_EQ(split->last, 10);
  EXPECT_FALSE(parse_layer_split_text("11", error));
  EXPECT_FALSE(parse_layer_split_text("11,", error));
  EXPECT_FALSE(parse_layer_split_text("0,3", error));
  EXPECT_FALSE(parse_layer_split_text("1,2,3", error));
}

TEST(LayoutText, ProblemsNameTheFlagAndWhatWasFound) {
  Problems problems;
  EXPECT_FALSE(parse_layout_text("TP2 XP4", 8192, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "--layout");
  EXPECT_EQ(problems[0].found, "XP4");
  EXPECT_NE(problems[0].expected.find("TP2 PP8"), std::string::npos);
  problems.clear();
  EXPECT_FALSE(parse_recompute_text("partial", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "--recompute");
  EXPECT_EQ(problems[0].found, "partial");
  problems.clear();
  EXPECT_FALSE(parse_layer_split_text("0,3", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "--layer-split");
  EXPECT_EQ(problems[0].found, "0,3");
}

}  // namespace
}  // namespace openrecipes
