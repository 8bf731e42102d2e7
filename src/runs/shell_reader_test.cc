// The shell reader on the constructs training commands use: continuations, comments, quoting,
// export, bash arrays and their expansion, command substitutions, redirections, placeholders.
#include "runs/shell_reader.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

std::vector<std::string> texts(const ShellCommand& command) {
  std::vector<std::string> out;
  for (const ShellWord& word : command.words) out.push_back(word.text);
  return out;
}

using Words = std::vector<std::string>;

TEST(ShellReader, ContinuationsJoinLinesAndCommentsDrop) {
  ShellScript script = read_shell_script(
      "# a comment line\n"
      "python3 train.py \\\n"
      "  --lr 1e-5 \\\n"
      "  --seed 42  # the seed\n"
      "echo done\n");
  ASSERT_EQ(script.commands.size(), 2u);
  EXPECT_EQ(texts(script.commands[0]),
            (Words{"python3", "train.py", "--lr", "1e-5", "--seed", "42"}));
  EXPECT_EQ(script.commands[0].line, 2);
  EXPECT_EQ(script.commands[0].words[4].line, 4);
  EXPECT_EQ(texts(script.commands[1]), (Words{"echo", "done"}));
}

TEST(ShellReader, QuotesKeepBlanksAndDropTheQuotes) {
  ShellScript script = read_shell_script(
      R"(run --name 'a b' --path "x y" --empty "" --escaped a\ b --mixed pre"mid"'post' --hash a#b)");
  ASSERT_EQ(script.commands.size(), 1u);
  EXPECT_EQ(texts(script.commands[0]),
            (Words{"run", "--name", "a b", "--path", "x y", "--empty", "", "--escaped", "a b",
                   "--mixed", "premidpost", "--hash", "a#b"}));
}

TEST(ShellReader, SeparatorsEndCommands) {
  ShellScript script = read_shell_script("cd /w && make -j2; echo a | tee b || true & wait");
  ASSERT_EQ(script.commands.size(), 6u);
  EXPECT_EQ(texts(script.commands[1]), (Words{"make", "-j2"}));
  EXPECT_EQ(texts(script.commands[5]), (Words{"wait"}));
}

TEST(ShellReader, ExportsAreTheEnvironment) {
  ShellScript script = read_shell_script(
      "export A=1 B='two words'\n"
      "C=3\n"
      "export C\n"
      "export A=4\n"
      "D=5 run --x\n");
  ASSERT_EQ(script.exports.size(), 4u);
  EXPECT_EQ(script.exports[0].name, "A");
  EXPECT_EQ(script.exports[1].value, "two words");
  EXPECT_EQ(script.exports[2].name, "C");
  EXPECT_EQ(script.exports[2].value, "3");
  EXPECT_EQ(script.exports[3].value, "4");
  EXPECT_EQ(script.exports[3].line, 4);
  // A prefix assignment is the command's own environment, not a shell variable.
  ASSERT_EQ(script.commands.size(), 1u);
  EXPECT_EQ(script.commands[0].assignments,
            (std::vector<std::pair<std::string, std::string>>{{"D", "5"}}));
  EXPECT_FALSE(script.variables.count("D"));
}

TEST(ShellReader, ArraysOverSeveralLinesExpandIntoWords) {
  ShellScript script = read_shell_script(
      "MODEL_ARGS=(\n"
      "  --num-layers 24   # layers\n"
      "  --hidden-size 2880\n"
      "  --window-size '127,0'\n"
      ")\n"
      "MODEL_ARGS+=(--swiglu)\n"
      "python3 train.py ${MODEL_ARGS[@]} --seed 1\n"
      "python3 train.py \"${MODEL_ARGS[@]}\" first=${MODEL_ARGS[0]} all=\"${MODEL_ARGS[*]}\"\n");
  ASSERT_EQ(script.arrays.count("MODEL_ARGS"), 1u);
  EXPECT_EQ(script.arrays.at("MODEL_ARGS").size(), 7u);
  ASSERT_EQ(script.commands.size(), 2u);
  EXPECT_EQ(texts(script.commands[0]),
            (Words{"python3", "train.py", "--num-layers", "24", "--hidden-size", "2880",
                   "--window-size", "127,0", "--swiglu", "--seed", "1"}));
  // An element keeps the line it is written on.
  EXPECT_EQ(script.commands[0].words[2].line, 2);
  EXPECT_EQ(script.commands[0].words[8].line, 6);
  Words quoted = texts(script.commands[1]);
  ASSERT_EQ(quoted.size(), 11u);
  EXPECT_EQ(quoted[9], "first=--num-layers");
  EXPECT_EQ(quoted[10], "all=--num-layers 24 --hidden-size 2880 --window-size 127,0 --swiglu");
}

TEST(ShellReader, VariablesTheTextDefinesExpandOthersStayAsWritten) {
  ShellScript script = read_shell_script(
      "CKPT=/data/ckpt\n"
      "FLAGS='--a 1 --b 2'\n"
      "run --load $CKPT --save \"${CKPT}/out\" $FLAGS \"$FLAGS\" --data \"$SFT_DATA\" --x "
      "${UNSET:-d}\n");
  ASSERT_EQ(script.commands.size(), 1u);
  EXPECT_EQ(texts(script.commands[0]),
            (Words{"run", "--load", "/data/ckpt", "--save", "/data/ckpt/out", "--a", "1", "--b",
                   "2", "--a 1 --b 2", "--data", "$SFT_DATA", "--x", "d"}));
}

TEST(ShellReader, AnArrayDefinedElsewhereStaysOneOpaqueWord) {
  ShellScript script =
      read_shell_script("source model.sh\npython3 train.py ${MODEL_ARGS[@]} --seed 1\n");
  ASSERT_EQ(script.commands.size(), 2u);
  const ShellCommand& command = script.commands[1];
  ASSERT_EQ(command.words.size(), 5u);
  EXPECT_EQ(command.words[2].text, "${MODEL_ARGS[@]}");
  EXPECT_EQ(command.words[2].opaque_array, "MODEL_ARGS");
  EXPECT_TRUE(command.words[3].opaque_array.empty());
}

TEST(ShellReader, CommandSubstitutionsAreKeptWhole) {
  ShellScript script = read_shell_script(
      "export NCCL_NVLS_ENABLE=$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)\n"
      "run --n $(nproc) --t `date +%s`\n");
  ASSERT_EQ(script.exports.size(), 1u);
  EXPECT_EQ(script.exports[0].value, "$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)");
  ASSERT_EQ(script.commands.size(), 1u);
  EXPECT_EQ(texts(script.commands[0]), (Words{"run", "--n", "$(nproc)", "--t", "`date +%s`"}));
}

TEST(ShellReader, RedirectionsDropAndPlaceholdersStay) {
  ShellScript script = read_shell_script(
      "python3 -m <slime entry module> --async \\\n"
      "  --seed 1 > out.log 2>&1\n"
      "cat <<EOF\n"
      "--not-an-argument 1\n"
      "EOF\n"
      "run --x 1 2> err.log <in.txt\n");
  ASSERT_EQ(script.commands.size(), 3u);
  EXPECT_EQ(texts(script.commands[0]),
            (Words{"python3", "-m", "<slime entry module>", "--async", "--seed", "1"}));
  EXPECT_EQ(texts(script.commands[1]), (Words{"cat"}));
  EXPECT_EQ(texts(script.commands[2]), (Words{"run", "--x", "1"}));
  EXPECT_EQ(script.commands[2].line, 6);
}

TEST(ShellReader, AnUnendedHereDocumentIsNamedAtItsOperator) {
  // The last line has no newline: counting lines read would name line 4, past the end.
  for (const char* text : {"run --a 1\ncat <<EOF\nbody\nmore", "run --a 1\ncat <<EOF\nbody\n"}) {
    ShellScript script = read_shell_script(text);
    ASSERT_EQ(script.warnings.size(), 1u) << text;
    EXPECT_EQ(script.warnings[0].line, 2) << text;
    EXPECT_NE(script.warnings[0].message.find("never ended by a EOF line"), std::string::npos);
  }
}

TEST(ShellReader, UnsetForgetsAndBrokenSyntaxStaysWords) {
  ShellScript script = read_shell_script("A=1\nunset A\nrun $A 'open quote\n");
  ASSERT_EQ(script.commands.size(), 1u);
  EXPECT_EQ(texts(script.commands[0]), (Words{"run", "$A", "open quote\n"}));
}

std::vector<int> warning_lines(const ShellScript& script) {
  std::vector<int> out;
  for (const ShellWarning& warning : script.warnings) out.push_back(warning.line);
  return out;
}

TEST(ShellReader, WellFormedTextHasNoWarnings) {
  EXPECT_TRUE(
      read_shell_script("A=(x\n y)\nrun --a \"b c\" 'd' \\\n  --e $(f) `g`\n").warnings.empty());
}

TEST(ShellReader, UnterminatedQuotesAndArraysAreWarnings) {
  EXPECT_EQ(warning_lines(read_shell_script("run \\\n  --lr \"1e-5 --seed 1\n")),
            std::vector<int>{2});
  EXPECT_EQ(warning_lines(read_shell_script("run\nrun --x 'abc\n")), std::vector<int>{2});
  EXPECT_EQ(warning_lines(read_shell_script("PAR=(--a 1\nrun ${PAR[@]} --lr 1\n")),
            std::vector<int>{1});
  EXPECT_EQ(warning_lines(read_shell_script("run --x $(echo 1\n")), std::vector<int>{1});
  EXPECT_EQ(warning_lines(read_shell_script("run --x ${A\n")), std::vector<int>{1});
}

TEST(ShellReader, BrokenContinuationsAreWarnings) {
  ShellScript blanks = read_shell_script("run \\  \n  --a 1\n");
  ASSERT_EQ(blanks.commands.size(), 2u);  // as bash reads it
  EXPECT_EQ(warning_lines(blanks), (std::vector<int>{1, 2}));
  ShellScript comment = read_shell_script("run \\\n  --a 1 \\\n  # --b 2 \\\n  --c 3\n");
  ASSERT_EQ(comment.commands.size(), 2u);
  EXPECT_EQ(warning_lines(comment), (std::vector<int>{3, 4}));
  EXPECT_TRUE(read_shell_script("# a comment \\\nrun --a 1\n").warnings.empty());
}

TEST(ShellReader, ArraysSplitAndSliceAsBashDoes) {
  ShellScript script = read_shell_script(
      "PAR=(x --a 1 --b 2)\n"
      "run ${PAR[*]} \"${PAR[*]}\" \"${PAR[@]:1}\" ${PAR[@]:3:2}\n");
  ASSERT_EQ(script.commands.size(), 1u);
  EXPECT_EQ(texts(script.commands[0]), (Words{"run", "x", "--a", "1", "--b", "2", "x --a 1 --b 2",
                                              "--a", "1", "--b", "2", "--b", "2"}));
}

TEST(ShellReader, DefaultsAndAnsiCQuotingExpand) {
  ShellScript script = read_shell_script(
      "SET=4\nEMPTY=\n"
      "run ${TP:-1} ${SET:-9} ${EMPTY:-e} ${EMPTY-e} ${SET:+on} ${TP:+on} $'a\\tb' $'\\x41' "
      "${TP:-$X}\n");
  ASSERT_EQ(script.commands.size(), 1u);
  const ShellCommand& command = script.commands[0];
  EXPECT_EQ(texts(command), (Words{"run", "1", "4", "e", "on", "a\tb", "A",
                                   "${TP:-$X}"}));  // empty unquoted: no word
  EXPECT_FALSE(command.words[1].unevaluated);
  EXPECT_TRUE(command.words.back().unevaluated);
}

TEST(ShellReader, UnevaluatedExpansionsAreMarked) {
  ShellScript script = read_shell_script("A=1\nrun $A $((2-1)) $(echo 1) `echo 1` $UNDEFINED x\n");
  ASSERT_EQ(script.commands.size(), 1u);
  std::vector<bool> marked;
  for (const ShellWord& word : script.commands[0].words) marked.push_back(word.unevaluated);
  EXPECT_EQ(marked, (std::vector<bool>{false, false, true, true, true, true, false}));
}

TEST(ShellReader, EachCommandRunsWithTheEnvironmentInEffectThen) {
  ShellScript script =
      read_shell_script("export A=1 B=2\nunset B\nrun --x\nexport C=3\nexport A=4\nrun --y\n");
  ASSERT_EQ(script.commands.size(), 2u);
  ASSERT_EQ(script.commands[0].environment.size(), 1u);
  EXPECT_EQ(script.commands[0].environment.at("A").value, "1");
  EXPECT_EQ(script.commands[1].environment.at("A").value, "4");
  EXPECT_EQ(script.commands[1].environment.at("C").line, 4);
}

}  // namespace
}  // namespace openrecipes
