#include "base/problem.h"

#include <gtest/gtest.h>

#include <string>

namespace openrecipes {
namespace {

TEST(ProblemLine, WhatTheProgramExpectedIsPrintedWhole) {
  // An unsupported model_type lists every supported one (about 400 bytes): a user needs all of it.
  std::string expected;
  for (int i = 0; i < 60; ++i)
    expected += (i ? ", " : "") + std::string("type_") + std::to_string(i);
  ASSERT_GT(expected.size(), 400u);
  Problem problem{"config.json", {1, 1},          "model_type", "config", "unsupported model_type",
                  expected,      "\"ministral9\""};
  std::string line = format_problem_line(problem);
  EXPECT_NE(line.find(expected), std::string::npos) << line;
  EXPECT_EQ(line.find("bytes in all"), std::string::npos) << line;
}

TEST(ProblemLine, AValueFromTheInputIsCut) {
  const std::string found(10'000, 'x');
  Problem problem{"recipe.yaml", {3, 7}, "author", "schema", "too long", "a handle", found};
  std::string line = format_problem_line(problem);
  EXPECT_NE(line.find("(10000 bytes in all)"), std::string::npos) << line;
  EXPECT_LT(line.size(), 400u);
  EXPECT_EQ(line.rfind("recipe.yaml:3:7: author: too long (expected a handle, found x", 0), 0u);
}

TEST(ProblemLine, ControlCharactersAreShownEscaped) {
  Problem problem{"a.yaml", {1, 1}, "name", "schema", "bad\x1b[2J", "", "\x07"};
  std::string line = format_problem_line(problem);
  EXPECT_NE(line.find("bad\\x1B[2J"), std::string::npos) << line;
  EXPECT_NE(line.find("found \\x07"), std::string::npos) << line;
}

}  // namespace
}  // namespace openrecipes
