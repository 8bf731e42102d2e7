// The settings and memory reports a log prints, read from fixture logs in Megatron-LM's and
// slime's real formats (megatron/training/arguments.py `_print_args`, utils.py `report_memory`).
#include "runs/log_settings.h"

#include <gtest/gtest.h>

#include "runs/memory_report.h"
#include "runs/training_log.h"
#include "test_support.h"

namespace openrecipes {
namespace {

TrainingLog read_fixture(const std::string& name) {
  Problems problems;
  std::optional<TrainingLog> log =
      read_training_log(testing::source_dir() + "/tests/fixtures/logs/" + name, problems);
  EXPECT_TRUE(log) << render_problems(problems, OutputFormat::kText);
  return log.value_or(TrainingLog{});
}

TEST(LogSettings, ReadsMegatronLmArgumentDumpAndWorldSizeLine) {
  TrainingLog log = read_fixture("megatron_lm_gpt_oss_20b_8xh200_args.log");
  const LogSettings& s = log.settings;
  EXPECT_TRUE(s.argument_dump);
  ASSERT_TRUE(s.world_size && s.global_batch_size && s.micro_batch_size && s.seq_length);
  // The `using world size:` line comes first and wins; the dump says the same.
  EXPECT_EQ(s.world_size->value, 8);
  EXPECT_EQ(s.world_size->line, 1);
  EXPECT_EQ(s.data_parallel_size->value, 4);
  EXPECT_EQ(s.global_batch_size->value, 128);
  EXPECT_EQ(s.global_batch_size->text, "global_batch_size ............................... 128");
  EXPECT_EQ(s.micro_batch_size->value, 1);
  EXPECT_EQ(s.seq_length->value, 8192);
  EXPECT_EQ(s.hidden_size->value, 2880);
  EXPECT_EQ(s.num_layers->value, 24);
  EXPECT_EQ(s.num_experts->value, 32);
  EXPECT_FALSE(s.global_batch_changed);
  // The steps are read as before.
  EXPECT_EQ(log.steps.size(), 20u);
}

TEST(LogSettings, ReadsTheIterationLinesGlobalBatchWhenThereIsNoDump) {
  TrainingLog log = read_fixture("megatron_bridge_llama3_8b_16xh100.log");
  EXPECT_FALSE(log.settings.argument_dump);
  ASSERT_TRUE(log.settings.global_batch_size);
  EXPECT_EQ(log.settings.global_batch_size->value, 128);
  EXPECT_EQ(log.settings.global_batch_size->line, 2);
  EXPECT_FALSE(log.settings.world_size);
  EXPECT_FALSE(log.settings.seq_length);
}

TEST(LogSettings, NoneIsADenseModelForExpertsAndNotPrintedElsewhere) {
  LogSettings settings;
  bool in_dump = false;
  int n = 0;
  for (std::string_view line :
       {"------------------------ arguments ------------------------",
        "  num_experts ..................................... None",
        "  seq_length ...................................... None",
        "  hidden_size ..................................... 4096",
        "-------------------- end of arguments ---------------------",
        "  num_layers ...................................... 32",
        " [2026-01-01 00:00:00] iteration        1/      20 | global batch size:   128 |",
        " [2026-01-01 00:00:09] iteration        2/      20 | global batch size:   256 |"}) {
    read_log_setting_line(line, ++n, in_dump, settings);
  }
  ASSERT_TRUE(settings.num_experts);
  EXPECT_EQ(settings.num_experts->value, 0);
  EXPECT_FALSE(settings.seq_length);
  EXPECT_EQ(settings.hidden_size->value, 4096);
  EXPECT_FALSE(settings.num_layers);  // after the dump's end
  EXPECT_EQ(settings.global_batch_size->value, 128);
  ASSERT_TRUE(settings.global_batch_changed);
  EXPECT_EQ(settings.global_batch_changed->value, 256);
  EXPECT_EQ(settings.global_batch_changed->line, 8);
}

TEST(LogSettings, SlimePrintsMegatronsDumpFromItsDriver) {
  TrainingLog log = read_fixture("slime_qwen35_122b_flex_32xh200_args.log");
  EXPECT_EQ(log.format, LogFormat::kSlime);
  EXPECT_EQ(log.settings.world_size->value, 32);
  EXPECT_EQ(log.settings.seq_length->value, 4096);  // slime's placeholder
  EXPECT_EQ(log.settings.num_experts->value, 256);
}

TEST(MemoryReport, ReadsEveryRanksLineAndThePeakInGigabytes) {
  TrainingLog log = read_fixture("megatron_lm_gpt_oss_20b_8xh200_args.log");
  ASSERT_EQ(log.memory.size(), 4u);
  EXPECT_EQ(log.memory[1].rank, 4);
  EXPECT_EQ(log.memory[1].after_iterations, 1);
  EXPECT_DOUBLE_EQ(log.memory[1].max_allocated_mib, 104876.80);
  std::optional<MemoryPeak> peak = memory_peak(log.memory);
  ASSERT_TRUE(peak);
  EXPECT_EQ(peak->lines, 4);
  EXPECT_EQ(peak->ranks, 2);
  EXPECT_EQ(peak->allocated_rank, 4);
  EXPECT_NEAR(peak->max_allocated_gb, 105120.10 * 1048576 / 1e9, 1e-9);  // 110.23 GB
  EXPECT_NEAR(peak->max_reserved_gb, 110572.00 * 1048576 / 1e9, 1e-9);
  EXPECT_FALSE(memory_peak({}));
  // The older fixture's one line from rank 0.
  EXPECT_EQ(read_fixture("megatron_lm_gpt_oss_20b_8xh200.log").memory.size(), 1u);
}

TEST(MemoryReport, AFigureThatIsNotANumberIsAProblemNamingTheLine) {
  Problems problems;
  std::optional<TrainingLog> log = parse_training_log(
      " iteration 1/ 20 | elapsed time per iteration (ms): 5000.0 | lm loss: 2.0 |\n"
      "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1.0 | max allocated: lots | "
      "reserved: 2.0 | max reserved: 2.0\n",
      "m.log", problems);
  EXPECT_FALSE(log);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "log.number");
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_EQ(problems[0].field, "max allocated");
  EXPECT_EQ(problems[0].found, "'lots'");
  EXPECT_EQ(problems[0].position.column, 77);
}

}  // namespace
}  // namespace openrecipes
