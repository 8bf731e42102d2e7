#include "measure/redaction.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(Redaction, TakesOutPathsRegistriesAndNames) {
  RedactionTerms terms;
  terms.add("north", "<cluster>");
  terms.add("proj-a", "<account>");
  EXPECT_EQ(redact("2.11.0 (built in /opt/pytorch/src)", terms), "2.11.0 (built in <path>)");
  EXPECT_EQ(redact("image nvcr.io/nvidia/pytorch:25.01-py3", terms), "image <registry>");
  EXPECT_EQ(redact("image gitlab:5005/team/train:1", terms), "image <registry>");
  EXPECT_EQ(redact("run on north for proj-a.", terms), "run on <cluster> for <account>.");
  // Whole words only: `northern` and `proj-ab` are other words.
  EXPECT_EQ(redact("northern proj-ab", terms), "northern proj-ab");
  // Not paths: a slash inside a word, or between words.
  EXPECT_EQ(redact("THUDM/slime a897e1f, tokens/s, a / b", terms),
            "THUDM/slime a897e1f, tokens/s, a / b");
}

TEST(Redaction, BlocksKeepTheirKeys) {
  RedactionTerms terms;
  terms.add("result", "<partition>");
  EXPECT_EQ(redact_yaml_block("# on result\nresult:\n  note: result in /home/me\n", terms),
            "# on <partition>\nresult:\n  note: <partition> in <path>\n");
}

}  // namespace
}  // namespace openrecipes
