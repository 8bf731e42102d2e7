#include "measure/subprocess.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(Subprocess, RunsAProgramAndKeepsWhatItPrinted) {
  ProcessResult result = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(result.started);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_FALSE(result.timed_out);
}

TEST(Subprocess, AProgramPastItsTimeLimitIsKilled) {
  ProcessResult result = run_process({"sh", "-c", "echo started; exec sleep 60"}, 0.5);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.exit_code, 128 + 9);  // SIGKILL
  EXPECT_EQ(result.out, "started\n");
}

TEST(Subprocess, AStopFlagKillsTheProgram) {
  volatile std::sig_atomic_t stop = 1;  // as a Ctrl-C that came before the program answered
  ProcessResult result = run_process({"sleep", "60"}, 0, &stop);
  EXPECT_TRUE(result.stopped);
  EXPECT_FALSE(result.timed_out);
}

TEST(Subprocess, AMissingProgramDoesNotStart) {
  ProcessResult result = run_process({"/nonexistent/program"});
  EXPECT_FALSE(result.started);
  EXPECT_FALSE(result.error.empty());
}

}  // namespace
}  // namespace openrecipes
