// The layout string's grammar and the placement of each of Megatron-LM's four forms, on
// hand-counted cases and the strings Megatron-LM's own documentation uses.
#include "layout/pipeline_layout.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

std::string layout_problem_text(const Problems& problems) {
  return render_problems(problems, OutputFormat::kText);
}

std::vector<PipelineChunk> parsed(const std::string& text) {
  Problems problems;
  std::optional<std::vector<PipelineChunk>> chunks =
      parse_pipeline_layout(text, "--pipeline-layout", problems);
  EXPECT_TRUE(chunks) << layout_problem_text(problems);
  return chunks.value_or(std::vector<PipelineChunk>{});
}

// The problem parsing `text` reports, as its printed line.
std::string refusal(const std::string& text) {
  Problems problems;
  EXPECT_FALSE(parse_pipeline_layout(text, "--pipeline-layout", problems)) << text;
  return layout_problem_text(problems);
}

PipelineChunk chunk(int decoders, int mtp = 0, bool embedding = false, bool loss = false) {
  return PipelineChunk{decoders, mtp, embedding, loss};
}

ModelShape layout_model(int layers, int mtp = 0) { return testing::model_with_layers(layers, mtp); }

Layout layout_pipeline(int pp, int vpp) { return testing::pipeline_layout_of(pp, vpp); }

TEST(PipelineLayout, ParsesMegatronsDocumentedStrings) {
  // PipelineParallelLayerLayout.parse_str_to_list's docstring: "Ettt|(tt|)*29,m|L" is
  // [E,t,t,t] + [t,t] x 29 + [m], [L]: DeepSeek-V3's 61 layers and its MTP layer on 32 chunks.
  std::vector<PipelineChunk> chunks = parsed("Ettt|(tt|)*29,m|L");
  ASSERT_EQ(chunks.size(), 32u);
  EXPECT_EQ(chunks[0], chunk(3, 0, true));
  for (std::size_t i = 1; i <= 29; ++i) EXPECT_EQ(chunks[i], chunk(2)) << i;
  EXPECT_EQ(chunks[30], chunk(0, 1));
  EXPECT_EQ(chunks[31], chunk(0, 0, false, true));
  // TransformerConfig.pipeline_model_parallel_layout's docstring: 'Et*3|(tt|)*29,m|L' is the same.
  EXPECT_EQ(parsed("Et*3|(tt|)*29,m|L"), chunks);
  // ... and 'E|(tt|)*2,(t|)*4,mL': eight chunks, the MTP layer beside the loss.
  chunks = parsed("E|(tt|)*2,(t|)*4,mL");
  ASSERT_EQ(chunks.size(), 8u);
  EXPECT_EQ(chunks[0], chunk(0, 0, true));
  EXPECT_EQ(chunks[2], chunk(2));
  EXPECT_EQ(chunks[3], chunk(1));
  EXPECT_EQ(chunks[7], chunk(0, 1, false, true));
}

TEST(PipelineLayout, ParsesTheStringsOfMegatronsUnitTests) {
  // tests/unit_tests/transformer/test_pipeline_parallel_layer_layout.py: the recipe form
  // "E|(t|)*2m|m|m|..." unrolls to "E|t|t|m|m|m|..." (its legacy layout, one loss stage).
  EXPECT_EQ(parsed("E|(t|)*2m|m|m|L"), parsed("E|t|t|m|m|m|L"));
  EXPECT_EQ(parsed("E|t|t|m|m|m|L").size(), 7u);
  // That file's split-loss layouts ("...|LL|LL", newer than the validate_layer_layout this
  // project follows: the loss once, last) are refused.
  EXPECT_NE(refusal("E|t|t|m|m|m|LL|LL").find("the loss must be the last layer, once"),
            std::string::npos);
  // The placement refuses MTP layers spread over stages (validate_layer_layout: "All of the MTP
  // layers must be in the same one virtual pipeline stage").
  Layout l = layout_pipeline(7, 1);
  l.pipeline_layout = "E|t|t|m|m|m|L";
  EXPECT_FALSE(place_layers(layout_model(2, 3), l));
}

TEST(PipelineLayout, UnrollsLikeMegatron) {
  EXPECT_EQ(parsed("Et|tL").size(), 2u);
  EXPECT_EQ(parsed("E,t,|,t,L"), parsed("Et|tL"));  // commas are cosmetic
  EXPECT_EQ(parsed("E|*3tL").size(), 4u);           // `|*3` is three chunk ends: two empty chunks
  EXPECT_EQ(parsed("E|*3tL")[1], chunk(0));
  EXPECT_EQ(parsed("Et*0|tL")[0], chunk(0, 0, true));  // a count of 0 drops the layer
  EXPECT_EQ(parsed("(Et|)*1tL"), parsed("Et|tL"));
}

TEST(PipelineLayout, RefusesWhatMegatronRefusesNamingThePosition) {
  Problems problems;
  EXPECT_FALSE(parse_pipeline_layout("Ett|tx|L", "--pipeline-layout", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "--pipeline-layout");
  EXPECT_EQ(problems[0].rule, "mesh.pipeline_layout");
  std::string problem = refusal("Ett|tx|L");
  EXPECT_NE(problem.find("at position 6 of 'Ett|tx|L'"), std::string::npos) << problem;
  EXPECT_NE(problem.find("found x"), std::string::npos) << problem;
  EXPECT_NE(refusal("E(tt|)L").find("group"), std::string::npos);  // no *N after the group
  EXPECT_NE(refusal("E((t)*2)*2|L").find("position 3"), std::string::npos);  // nested group
  EXPECT_NE(refusal("Et*|L").find("'*'"), std::string::npos);                // * without a count
  EXPECT_NE(refusal("tE|L").find("embedding must be the first"), std::string::npos);
  EXPECT_NE(refusal("Et|LE").find("position 4"), std::string::npos);  // a second E after L
  EXPECT_NE(refusal("Etm|tL").find("before the MTP"), std::string::npos);
  EXPECT_NE(refusal("Et|t").find("end with the loss"), std::string::npos);
  EXPECT_NE(refusal("Et L").find("position 3"), std::string::npos);  // spaces are not layers
  EXPECT_NE(refusal("").find("no layers"), std::string::npos);
  EXPECT_NE(refusal("E(t|)*999999999L").find("too many"), std::string::npos);
}

// A parenthesis left open or never opened says so, and a non-ASCII character is named whole, by
// its code point, never cut into bytes.
TEST(PipelineLayout, NamesUnclosedGroupsAndNonAsciiCharacters) {
  Problems problems;
  EXPECT_FALSE(parse_pipeline_layout("Et*12|(t*12L", "--pipeline-layout", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("at position 7"), std::string::npos) << problems[0].message;
  EXPECT_NE(problems[0].message.find("'(' is never closed"), std::string::npos)
      << problems[0].message;
  EXPECT_EQ(problems[0].found, "the end of the layout");
  EXPECT_NE(refusal("Et*12|t)*2L").find("')' closes no group"), std::string::npos);
  EXPECT_NE(refusal("E((t)*2)*2|L").find("not nested"), std::string::npos);

  problems.clear();
  EXPECT_FALSE(parse_pipeline_layout("Et*12|t*12\xC3\xA9L", "--pipeline-layout", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("'\xC3\xA9' (U+00E9) is not a layer"), std::string::npos)
      << problems[0].message;
  EXPECT_EQ(problems[0].found, "'\xC3\xA9' (U+00E9)");
  // A lone continuation byte or a cut character is not UTF-8: named as a byte.
  problems.clear();
  EXPECT_FALSE(parse_pipeline_layout("Et\xA9L", "--pipeline-layout", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].found, "byte 0xA9");
  EXPECT_NE(refusal("Et\xE2\x82").find("byte 0xE2"), std::string::npos);
}

TEST(PipelineLayout, PrintsWhatItParses) {
  for (const char* text :
       {"Ettt|(tt|)*29,m|L", "E|(tt|)*2,(t|)*4,mL", "Et|L", "EtL", "(E|)*1tL", "E||tL"}) {
    std::vector<PipelineChunk> chunks = parsed(text);
    EXPECT_EQ(parsed(pipeline_layout_text(chunks)), chunks) << text;
  }
  EXPECT_EQ(pipeline_layout_text(parsed("Ettt|(tt|)*29,m|L")), "Et*3|(tt|)*29,m|L");
  EXPECT_EQ(pipeline_layout_text(parsed("Et|tt|tt|tL")), "Et|(tt|)*2,tL");
  EXPECT_EQ(pipeline_layout_text(parsed("Ett|tt|tt|ttL")), "Ett|(tt|)*2,ttL");
  EXPECT_EQ(pipeline_layout_text(parsed("Et|tL")), "Et|tL");
  // Runs of several chunks fold too.
  EXPECT_EQ(pipeline_layout_text(parsed("Et|tt|t|tt|t|tt|tL")), "Et|(tt|t|)*2,tt|tL");
  EXPECT_EQ(pipeline_layout_text(parsed("E|tt|t|tt|t|tt|tL")), "E|(tt|t|)*2,tt|tL");
}

TEST(PipelinePlacement, EvenSplit) {
  std::optional<PipelinePlacement> p = place_layers(layout_model(48), layout_pipeline(4, 2));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->chunks.size(), 8u);
  for (const PipelineChunk& c : p->chunks) EXPECT_EQ(c.decoder_layers, 6);
  EXPECT_TRUE(p->at(0, 0).has_embedding);
  EXPECT_TRUE(p->at(3, 1).has_loss);
  EXPECT_EQ(p->stage_decoder_layers(2), 12);
  PlacementError error;
  EXPECT_FALSE(place_layers(layout_model(94), layout_pipeline(8, 1), &error));  // 94 = 8 x 11.75
  EXPECT_EQ(error.rule, PlacementRule::kLayers);
  EXPECT_EQ(error.found, "8");
  EXPECT_FALSE(
      place_layers(layout_model(48), layout_pipeline(8, 4), &error));  // 6 layers per stage
  EXPECT_EQ(error.rule, PlacementRule::kVirtual);
  EXPECT_EQ(error.expected, "a divisor of 6");
}

TEST(PipelinePlacement, AccountForEmbeddingAndLoss) {
  // Qwen3-235B-A22B's 94 layers on PP8 VPP4: 94 + 2 = 96 counted, 12 per stage, 3 per chunk; the
  // first chunk holds the embedding and 2 decoder layers, the last 2 and the loss.
  Layout l = layout_pipeline(8, 4);
  l.account_for_embedding_in_pipeline_split = true;
  l.account_for_loss_in_pipeline_split = true;
  std::optional<PipelinePlacement> p = place_layers(layout_model(94), l);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at(0, 0), chunk(2, 0, true));
  EXPECT_EQ(p->at(0, 1), chunk(3));
  EXPECT_EQ(p->at(7, 3), chunk(2, 0, false, true));
  EXPECT_EQ(p->stage_decoder_layers(0), 11);
  EXPECT_EQ(p->stage_decoder_layers(3), 12);
  EXPECT_EQ(p->stage_decoder_layers(7), 11);
  EXPECT_EQ(p->largest_chunk_counted_layers(), 3);
  // The embedding alone: 95 counted layers do not divide over 8 stages.
  l.account_for_loss_in_pipeline_split = false;
  PlacementError error;
  EXPECT_FALSE(place_layers(layout_model(94), l, &error));
  EXPECT_EQ(error.rule, PlacementRule::kLayers);
  EXPECT_EQ(error.expected, "a divisor of 95");
}

TEST(PipelinePlacement, FirstAndLastStages) {
  // DeepSeek-V3's 61 layers on PP4: 15 first, 14 last, 16 on each middle stage.
  Layout l = layout_pipeline(4, 1);
  l.layer_split = LayerSplit{15, 14};
  std::optional<PipelinePlacement> p = place_layers(layout_model(61, 1), l);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stage_decoder_layers(0), 15);
  EXPECT_EQ(p->stage_decoder_layers(1), 16);
  EXPECT_EQ(p->stage_decoder_layers(3), 14);
  EXPECT_EQ(p->stage_mtp_layers(3), 1);  // MTP on the last chunk
  l.vpp = 2;                             // 15 is odd
  PlacementError error;
  EXPECT_FALSE(place_layers(layout_model(61, 1), l, &error));
  EXPECT_EQ(error.rule, PlacementRule::kVirtual);
}

TEST(PipelinePlacement, ExplicitString) {
  // DeepSeek-V3 on PP16 VPP2 as Megatron-LM's documentation writes it.
  Layout l = layout_pipeline(16, 2);
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";
  std::optional<PipelinePlacement> p = place_layers(layout_model(61, 1), l);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at(0, 0), chunk(3, 0, true));
  EXPECT_EQ(p->at(14, 1), chunk(0, 1));  // chunk 30 = VPP rank 1 of stage 14
  EXPECT_EQ(p->at(15, 1), chunk(0, 0, false, true));
  EXPECT_EQ(p->stage_decoder_layers(0), 5);  // chunks 0 and 16
  // Trained without MTP, the same placement leaves the m out.
  l.pipeline_layout = "Et*3|(tt|)*29,|L";
  EXPECT_TRUE(place_layers(layout_model(61, 1), l));
}

TEST(PipelinePlacement, RefusesStringsThatDoNotFit) {
  PlacementError error;
  Layout l = layout_pipeline(8, 2);
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";  // 32 chunks, not 16
  EXPECT_FALSE(place_layers(layout_model(61, 1), l, &error));
  EXPECT_EQ(error.rule, PlacementRule::kLayout);
  EXPECT_EQ(error.expected, "PP x VPP = 8 x 2 = 16 chunks");
  EXPECT_EQ(error.found, "32 chunks");
  l = layout_pipeline(16, 2);
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";
  EXPECT_FALSE(place_layers(layout_model(62, 1), l, &error));  // one decoder layer short
  EXPECT_EQ(error.found, "61 t");
  EXPECT_FALSE(place_layers(layout_model(61, 2), l, &error));  // 1 of 2 MTP layers
  EXPECT_NE(error.message.find("MTP"), std::string::npos);
  // A model without MTP layers is told so, not asked for "none or all 0".
  l.pipeline_layout = "Et*3|(tt|)*29,tm|L";
  EXPECT_FALSE(place_layers(layout_model(62), l, &error));
  EXPECT_NE(error.message.find("but model has none"), std::string::npos) << error.message;
  EXPECT_EQ(error.expected, "no m");
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";
  l.pipeline_layout = "Et*61|m|(|)*29,L";  // MTP on stage 1's first chunk
  EXPECT_FALSE(place_layers(layout_model(61, 1), l, &error));
  EXPECT_NE(error.message.find("last virtual chunk"), std::string::npos) << error.message;
  l.pipeline_layout = "Et*3|(tt|)*29,m|Lx";
  EXPECT_FALSE(place_layers(layout_model(61, 1), l, &error));
  EXPECT_NE(error.message.find("position 18"), std::string::npos) << error.message;
  l = layout_pipeline(1, 2);
  l.pipeline_layout = "Et|tL";
  EXPECT_FALSE(place_layers(layout_model(2), l, &error));
  EXPECT_EQ(error.rule, PlacementRule::kVirtual);
}

TEST(PipelinePlacement, FormsThatCannotBeCombined) {
  PlacementError error;
  Layout l = layout_pipeline(4, 1);
  l.layer_split = LayerSplit{15, 14};
  l.account_for_loss_in_pipeline_split = true;
  EXPECT_FALSE(place_layers(layout_model(61), l, &error));
  EXPECT_EQ(error.rule, PlacementRule::kExclusive);
  EXPECT_EQ(error.found, "layer_split, account_for_loss_in_pipeline_split");
  l.layer_split.reset();
  l.pipeline_layout = "Et*15|t*16|t*16|t*14L";
  EXPECT_FALSE(place_layers(layout_model(61), l, &error));
  EXPECT_EQ(error.rule, PlacementRule::kExclusive);
  // Short enough that `plan --layout`'s one-line refusal (capped at 240 characters) keeps it whole.
  EXPECT_LT(error.message.size(), 100u) << error.message;
  l.account_for_loss_in_pipeline_split = false;
  EXPECT_TRUE(place_layers(layout_model(61), l));
  EXPECT_TRUE(has_placement(l));
  EXPECT_FALSE(has_placement(layout_pipeline(4, 1)));
}

}  // namespace
}  // namespace openrecipes
