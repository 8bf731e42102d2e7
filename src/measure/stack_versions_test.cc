#include "measure/stack_versions.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

std::string value_of(const NamedValues& stack, const std::string& name) {
  for (const auto& [key, value] : stack) {
    if (key == name) return value;
  }
  return "(absent)";
}

// What the program prints in a slime training image.
constexpr const char* kSlimeDump =
    "python: 3.12.3\npytorch: 2.11.0+cu129\ncuda: 12.9\nnccl: 2.28.9\ntransformer_engine: 2.10.0\n"
    "megatron_core: 0.16.0rc0\nmegatron_lm_commit: 1dcf0daf\nslime: 0.3.0\nslime_commit: "
    "a897e1f0\n";

TEST(StackVersions, ReadsTheDumpIntoTheStackFields) {
  NamedValues stack = parse_stack_versions(kSlimeDump, RunFramework::kSlime);
  EXPECT_EQ(value_of(stack, "framework"), "slime 0.3.0 (THUDM/slime a897e1f0)");
  EXPECT_EQ(value_of(stack, "megatron_lm"), "commit 1dcf0daf (megatron-core 0.16.0rc0)");
  EXPECT_EQ(value_of(stack, "transformer_engine"), "2.10.0");
  EXPECT_EQ(value_of(stack, "pytorch"), "2.11.0+cu129");
  EXPECT_EQ(value_of(stack, "cuda"), "12.9");
  EXPECT_EQ(value_of(stack, "nccl"), "2.28.9");
  EXPECT_EQ(value_of(stack, "python"), "3.12.3");
  EXPECT_EQ(stack.front().first, "framework");
}

TEST(StackVersions, WhatTheDumpLacksIsNotPinned) {
  NamedValues stack =
      parse_stack_versions("python: 3.11.2\nnoise without a colon\n", RunFramework::kMegatronLm);
  EXPECT_EQ(value_of(stack, "framework"), "Megatron-LM not pinned");
  EXPECT_EQ(value_of(stack, "megatron_lm"), "not pinned");
  EXPECT_EQ(value_of(stack, "pytorch"), "not pinned");
  EXPECT_EQ(value_of(stack, "python"), "3.11.2");
}

TEST(StackVersions, TheBlockQuotesWhatYamlWouldType) {
  std::string block = stack_block_yaml(parse_stack_versions(kSlimeDump, RunFramework::kSlime));
  EXPECT_NE(block.find("stack:\n  framework: slime 0.3.0 (THUDM/slime a897e1f0)\n"),
            std::string::npos)
      << block;
  EXPECT_NE(block.find("  cuda: \"12.9\"\n"), std::string::npos) << block;
}

}  // namespace
}  // namespace openrecipes
