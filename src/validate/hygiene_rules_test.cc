// The hygiene rules on the real recipes: each kind of leftover the submission guide asks to leave
// out is caught at its line and column, each allowed form passes, and the bundled catalog (its
// notes, stack texts, URLs, `$(...)` env values and patch file) has none.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/source_text.h"
#include "test_support.h"
#include "validate/hygiene_scan.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;
using testing::describe;
using testing::kBundledRecipes;
using testing::read_source_file;
using testing::replace_all;
using testing::validate_as;

const std::string kGptOss = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
const std::string kQwen = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";

Problems hygiene_only(const Problems& problems) {
  Problems out;
  for (const Problem& p : problems)
    if (p.rule.rfind("hygiene.", 0) == 0) out.push_back(p);
  return out;
}

// The Qwen recipe with one line of its text replaced, validated as itself.
Problems edited(const std::string& from, const std::string& to, const std::string& recipe = kQwen) {
  std::string text = read_source_file(recipe);
  EXPECT_NE(text.find(from), std::string::npos) << from;
  return validate_as(recipe, replace_all(text, from, to));
}

// The 1-based line of the first line of `recipe` after editing that contains `needle`.
int line_of(const std::string& text, const std::string& needle) {
  std::size_t at = text.find(needle);
  return at == std::string::npos ? 0 : SourceText(text).position(at).line;
}

TEST(HygieneRules, TheBundledCatalogHasNone) {
  for (const std::string& path : kBundledRecipes) {
    Problems problems = validate_as(path, read_source_file(path));
    EXPECT_TRUE(hygiene_only(problems).empty()) << path << "\n" << describe(problems);
  }
  // The patch file, scanned as the gpt-oss recipe does.
  EXPECT_TRUE(
      scan_hygiene(read_source_file("patches/attune_gpt_oss_yarn.py"), HygieneText::kCode).empty());
}

TEST(HygieneRules, EveryRuleIdIsListedInTheSchema) {
  std::string schema = read_source_file("schema/recipe.schema.yaml");
  for (HygieneKind kind : {HygieneKind::kPath, HygieneKind::kRegistry, HygieneKind::kScheduler,
                           HygieneKind::kUser, HygieneKind::kAddress, HygieneKind::kHost}) {
    std::string id = std::string(hygiene_rule_id(kind));
    EXPECT_NE(schema.find("{id: " + id + ", rule: "), std::string::npos) << id;
  }
}

struct KindCase {
  std::string name;
  std::string from;   // a line of the Qwen recipe
  std::string to;     // the same line with a leftover in it
  std::string rule;   // the rule that must report it
  std::string found;  // what the problem must say it found
  std::string field;
};

void PrintTo(const KindCase& c, std::ostream* os) { *os << c.name; }

class HygieneKindTest : public ::testing::TestWithParam<KindCase> {};

TEST_P(HygieneKindTest, CaughtAtItsLineAndColumnWithAReplacement) {
  const KindCase& c = GetParam();
  std::string text = replace_all(read_source_file(kQwen), c.from, c.to);
  Problems problems = hygiene_only(validate_as(kQwen, text));
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  const Problem& p = problems[0];
  EXPECT_EQ(p.rule, c.rule);
  EXPECT_EQ(p.found, c.found);
  EXPECT_EQ(p.field, c.field);
  EXPECT_EQ(p.file, kQwen);
  // The position is the found text's own line and column in the file.
  int line = line_of(text, c.to);
  ASSERT_GT(line, 0);
  EXPECT_EQ(p.position.line, line);
  std::string_view source_line = SourceText(text).line(line);
  EXPECT_EQ(source_line.substr(static_cast<std::size_t>(p.position.column) - 1, c.found.size()),
            c.found);
  EXPECT_FALSE(p.expected.empty());
  EXPECT_NE(p.message.find("leave it out"), std::string::npos);
  EXPECT_NE(format_problem_line(p).find(fmt::format(":{}:{}", line, p.position.column)),
            std::string::npos);
}

const std::string kCkptLine = "    --hf-checkpoint \"$HF_CKPT\" \\";
const std::string kRefLine = "    --ref-load \"$TORCH_DIST\" \\";

INSTANTIATE_TEST_SUITE_P(
    Kinds, HygieneKindTest,
    ::testing::Values(
        KindCase{"LustrePathInRun", kCkptLine,
                 "    --hf-checkpoint /lustre/fsw/team-x/users/jdoe/ckpt \\", "hygiene.path",
                 "/lustre/fsw/team-x/users/jdoe/ckpt", "run"},
        KindCase{"PrivateRegistryInRun", kRefLine,
                 "    --container-image registry.example.com/team-x/private:latest \\",
                 "hygiene.registry", "registry.example.com/team-x/private:latest", "run"},
        KindCase{"AccountInRun", kRefLine, "    --account team-x \\", "hygiene.scheduler", "team-x",
                 "run"},
        KindCase{"PartitionInRun", kRefLine, "    --partition=batch_long \\", "hygiene.scheduler",
                 "batch_long", "run"},
        KindCase{"ShortAccountOnSrun", "  python3 -m <slime entry module> --async \\",
                 "  srun -A team-x --exclusive python3 -m slime.train --async \\",
                 "hygiene.scheduler", "team-x", "run"},
        KindCase{"SbatchDirective", "  export CUDA_DEVICE_MAX_CONNECTIONS=1",
                 "  #SBATCH --reservation=hero-run", "hygiene.scheduler",
                 "#SBATCH --reservation=hero-run", "run"},
        KindCase{"NodeList", kRefLine, "    --nodelist gpu-a[01-04] \\", "hygiene.scheduler",
                 "gpu-a[01-04]", "run"},
        KindCase{"SlurmVariableInEnv", "  TORCHINDUCTOR_COMPILE_THREADS: '1'",
                 "  SLURM_ACCOUNT: team-x", "hygiene.scheduler", "team-x", "env.SLURM_ACCOUNT"},
        KindCase{"HomeFolder", kCkptLine, "    --hf-checkpoint /home/jdoe/qwen \\", "hygiene.user",
                 "/home/jdoe", "run"},
        KindCase{"TildeUser", kCkptLine, "    --hf-checkpoint ~jdoe/qwen \\", "hygiene.user",
                 "~jdoe", "run"},
        KindCase{"MacHomeInNotes", "  deepep: 1.2.1", "  deepep: 1.2.1 built in /Users/jdoe/src",
                 "hygiene.user", "/Users/jdoe", "stack.deepep"},
        KindCase{"Ipv4InEnv", "  TORCHINDUCTOR_COMPILE_THREADS: '1'", "  MASTER_ADDR: 10.1.2.3",
                 "hygiene.address", "10.1.2.3", "env.MASTER_ADDR"},
        KindCase{"Ipv4InStackAddressContext", "  deepep: 1.2.1",
                 "  deepep: 1.2.1 from http://10.0.0.5:8080/wheels", "hygiene.address", "10.0.0.5",
                 "stack.deepep"},
        KindCase{"Ipv6InRun", kRefLine, "    --dist-url tcp://[fd00:1234::17]:29500 \\",
                 "hygiene.address", "fd00:1234::17", "run"},
        KindCase{"InternalHostInRun", kRefLine,
                 "    --rollout-url http://head-0.train.cluster.local:8000 \\", "hygiene.host",
                 "head-0.train.cluster.local", "run"},
        KindCase{"MasterAddrHostInRun", "  export TORCHINDUCTOR_COMPILE_THREADS=1",
                 "  export MASTER_ADDR=gpu-node-017", "hygiene.host", "gpu-node-017", "run"},
        KindCase{"PathOnAFoldedLineOfAStackText", "    gate at TP above the query-group count",
                 "    gate at TP above the query-group count, built in /scratch/team-x/mlm",
                 "hygiene.path", "/scratch/team-x/mlm", "stack.megatron_lm"},
        KindCase{"CorpHostInStack", "  network: 8 GPUs per node, EFA, 3.2 Tb/s RDMA per node",
                 "  network: 8 GPUs per node, EFA via fabric-mgr.corp", "hygiene.host",
                 "fabric-mgr.corp", "stack.network"}),
    [](const auto& param_info) { return param_info.param.name; });

// Each allowed form, written where a leftover would be caught, passes.
TEST(HygieneRules, AllowedFormsPass) {
  for (const char* line : {
           "    --hf-checkpoint $CKPT/x \\",
           "    --hf-checkpoint ${HF_CKPT} \\",
           "    --hf-checkpoint \"$HF_CKPT\"/hf \\",
           "    --hf-checkpoint $(pwd)/hf \\",
           "    --hf-checkpoint /home/$USER/hf \\",
           "    --hf-checkpoint ~/hf \\",
           "    --save /tmp/ckpt --log-file /dev/null \\",
           "    --hf-checkpoint /dev/shm/hf \\",
           "    --container-image nvcr.io/nvidia/pytorch:25.01-py3 \\",
           "    --container-image docker.io/slimerl/slime:latest \\",
           "    --container-image slimerl/slime:latest \\",
           "    --container-image ghcr.io/thudm/slime:v0.3.0 \\",
           "    --container-image $IMAGE \\",
           "    --account $SLURM_ACCOUNT --partition \"$PARTITION\" \\",
           "    --account <account> \\",
           "    --account ACCOUNT --partition PARTITION --container-image IMAGE \\",
           "    --dist-url tcp://127.0.0.1:29500 --bind 0.0.0.0 \\",
           "    --dist-url tcp://[::1]:29500 \\",
           "    --master-addr localhost \\",
           "    --master-addr $MASTER_ADDR \\",
           "    --time 01:00:00 --window-size 127,0 \\",
       }) {
    Problems problems = hygiene_only(edited(kRefLine, line));
    EXPECT_TRUE(problems.empty()) << line << "\n" << describe(problems);
  }
  for (const char* line :
       {"  export MASTER_ADDR=$(hostname)", "  mkdir -p $CKPT_DIR && grep -A 3 loss \"$LOG\"",
        "  export MASTER_ADDR=127.0.0.1 SLURM_X=$SLURM_Y"}) {
    Problems problems = hygiene_only(edited("  export TORCHINDUCTOR_COMPILE_THREADS=1", line));
    EXPECT_TRUE(problems.empty()) << line << "\n" << describe(problems);
  }
  // Markup in a text is not a path; a redirection to a site's file is.
  EXPECT_TRUE(scan_hygiene("<script>window.__xss = 1</script> <br/>", HygieneText::kProse).empty());
  EXPECT_EQ(scan_hygiene("train.sh >/lustre/x/log 2>&1", HygieneText::kCommand).size(), 1u);
  EXPECT_TRUE(scan_hygiene("keep = x[~mask]; y = f(~flags)", HygieneText::kCode).empty());
  EXPECT_EQ(scan_hygiene("load(\"~jdoe/w\")", HygieneText::kCode).size(), 1u);
  // A four-part version in a stack text is a version, not an address.
  Problems stack = hygiene_only(edited("  deepep: 1.2.1", "  deepep: 1.2.1 (cuDNN 9.1.0.70)"));
  EXPECT_TRUE(stack.empty()) << describe(stack);
}

TEST(HygieneRules, EveryIssueExampleInOneRunIsCaughtOnItsOwnLine) {
  std::string text = read_source_file(kQwen);
  text = replace_all(text, kCkptLine, "    --hf-checkpoint /lustre/fsw/team-x/users/jdoe/ckpt \\");
  text = replace_all(text, kRefLine,
                     "    --container-image registry.example.com/team-x/private:latest \\\n"
                     "    --account team-x \\");
  Problems problems = hygiene_only(validate_as(kQwen, text));
  ASSERT_EQ(problems.size(), 3u) << describe(problems);
  EXPECT_EQ(problems[0].rule, "hygiene.path");
  EXPECT_EQ(problems[1].rule, "hygiene.registry");
  EXPECT_EQ(problems[2].rule, "hygiene.scheduler");
  EXPECT_EQ(problems[1].position.line + 1, problems[2].position.line);
  EXPECT_EQ(problems[0].position.column, 21);  // after "    --hf-checkpoint "
}

// Each finding stands at its own occurrence in the file, not at an earlier one of the same text:
// the `node17` of MASTER_ADDR, not the one echoed the line before; the account `qos` of
// `--qos=qos`, not the option's own letters.
TEST(HygieneRules, AFindingIsPlacedAtItsOwnOccurrenceNotAnEarlierOneOfTheSameText) {
  std::string text = read_source_file(kQwen);
  text = replace_all(text, "  export TORCHINDUCTOR_COMPILE_THREADS=1",
                     "  echo node17\n  export MASTER_ADDR=node17");
  text = replace_all(text, kRefLine, "    --ref-load \"$TORCH_DIST\" --qos=qos \\");
  Problems problems = hygiene_only(validate_as(kQwen, text));
  SourceText source(text);
  int master_line = line_of(text, "export MASTER_ADDR=node17");
  int qos_line = line_of(text, "--qos=qos");
  ASSERT_GT(master_line, 0);
  ASSERT_GT(qos_line, 0);
  bool master_seen = false, qos_seen = false;
  for (const Problem& p : problems) {
    std::string_view line = source.line(p.position.line);
    std::size_t column = static_cast<std::size_t>(p.position.column) - 1;
    if (p.position.line == master_line) {
      master_seen = true;
      EXPECT_EQ(column, line.find("node17")) << describe({p});
    } else if (p.position.line == qos_line) {
      qos_seen = true;
      EXPECT_EQ(column, line.find("=qos") + 1) << describe({p});
    } else {
      ADD_FAILURE() << "a finding away from the edited lines: " << describe({p});
    }
  }
  EXPECT_TRUE(master_seen) << describe(problems);
  EXPECT_TRUE(qos_seen) << describe(problems);
}

TEST(HygieneRules, ShortOptionsCountOnlyAmongSrunsOwn) {
  auto kinds = [](const std::string& text) {
    std::vector<std::string> found;
    for (const HygieneFinding& f : scan_hygiene(text, HygieneText::kCommand))
      found.push_back(text.substr(f.begin, f.end - f.begin));
    return found;
  };
  EXPECT_EQ(kinds("srun -p batch -w node01 python train.py -p 3"),
            (std::vector<std::string>{"batch", "node01"}));
  EXPECT_EQ(kinds("srun --mpi=pmix -Ateam-x \\\n  -M cl2 bash -c 'mkdir -p x'"),
            (std::vector<std::string>{"team-x", "cl2"}));
  EXPECT_TRUE(kinds("mkdir -p out && grep -A 3 x y && sbatch -A \"$ACCOUNT\" job.sh").empty());
}

TEST(HygieneRules, APatchFileIsCheckedAtItsOwnLine) {
  namespace fs = std::filesystem;
  fs::path root = testing::fresh_dir("hygiene_patch_catalog");
  for (const char* part : {"schema", "models", "patches", "recipes", "models.yaml", "gpus.yaml",
                           "authors.yaml", "site.yaml"}) {
    fs::copy(fs::path(testing::source_dir()) / part, root / part, fs::copy_options::recursive);
  }
  Problems load_problems;
  std::optional<LoadedCatalog> loaded = load_catalog(root, load_problems);
  ASSERT_TRUE(loaded) << describe(load_problems);
  // Clean first; then the same file, edited, is scanned afresh (scans are remembered by text).
  EXPECT_TRUE(
      hygiene_only(validate_recipe_file(*loaded, (root / kGptOss).string()).problems).empty());
  {
    std::ofstream patch(root / "patches/attune_gpt_oss_yarn.py", std::ios::app);
    patch << "\nCKPT = \"/lustre/fsw/team-x/ckpt\"  # see http://wiki.internal/x\n";
  }
  RecipeReport report = validate_recipe_file(*loaded, (root / kGptOss).string());
  Problems problems = hygiene_only(report.problems);
  ASSERT_EQ(problems.size(), 2u) << describe(report.problems);
  for (const Problem& p : problems) {
    EXPECT_EQ(p.file, "patches/attune_gpt_oss_yarn.py");
    EXPECT_EQ(p.field, "patches[0]");
    EXPECT_EQ(p.position.line, 17);
  }
  EXPECT_EQ(problems[0].rule, "hygiene.path");
  EXPECT_EQ(problems[0].position.column, 9);
  EXPECT_EQ(problems[1].rule, "hygiene.host");
  fs::remove_all(root);
}

// The scan skips a pattern when the text lacks a literal every match of it holds (may_match in
// hygiene_scan.cc); on every bundled recipe and patch, and on a text that hits each pattern (in
// other cases, beside look-alikes), it finds exactly what running every pattern finds.
TEST(HygieneScan, SkippingPatternsByTheirLiteralsFindsWhatEveryPatternFinds) {
  std::vector<std::string> texts;
  for (const std::string& recipe : kBundledRecipes) texts.push_back(read_source_file(recipe));
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(testing::source_dir()) / "patches")) {
    texts.push_back(read_source_file("patches/" + entry.path().filename().string()));
  }
  for (const char* text : {
           "srun -A team-x --Account=x --account team-x --partition=batch --qos high "
           "--reservation=r --nodelist gpu[01-04] --clusters c1 sbatch salloc job.sh",
           "#SBATCH --reservation=hero-run\n  #SBATCH -p batch",
           "SLURM_ACCOUNT=team-x SBATCH_PARTITION=p SALLOC_QOS=q SRUN_X=y slurm_account=x",
           "cp /home/jdoe/x /Users/jdoe/y ~jdoe/z ~/ok /HOME/x",
           "--container-image registry.example.com/team-x/private:latest --image=quay.io/x/y:1",
           "docker pull my.registry.io:5000/team/img:tag; podman  pull x.y/z@sha256:"
           "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef docker://h.io/a:b",
           "MASTER_ADDR=gpu-node-017 --master-addr node1 --master_addr n2 --rdzv-endpoint h:1 "
           "--rdzv_endpoint h2:2",
           "http://head-0.train.cluster.local:8000 fabric-mgr.CORP wiki.Internal x.lan y.intranet "
           "z.home.arpa box.localdomain a.LOCAL.b notlocal local.",
           "10.1.2.3 10.0.0.5:8080 1.2.3.4.5 v1.2.3.4 999.1.1.1 1.2.3 0.02 3.1.4 1..2.3.4 "
           "12.34.56.78/24 a1.2.3.4",
           "tcp://[fd00:1234::17]:29500 [::1] 01:00:00 fe80::1:2:3 a:b:c",
           "train.sh >/lustre/x/log 2>&1; ls /scratch/team-x /tmp/ok \"/data/set\"",
       }) {
    texts.emplace_back(text);
  }
  ASSERT_GT(texts.size(), 11u);
  const std::size_t written = texts.size() - 11;
  // Each word and each pair of neighbouring words on its own too, so that no finding of one
  // pattern rides on another's literal elsewhere in the same text.
  for (std::size_t i = written; i < written + 11; ++i) {
    std::vector<std::string> words;
    std::istringstream split(texts[i]);
    for (std::string word; split >> word;) words.push_back(word);
    for (std::size_t w = 0; w < words.size(); ++w) {
      texts.push_back(words[w]);
      if (w + 1 < words.size()) texts.push_back(words[w] + " " + words[w + 1]);
    }
  }
  for (const std::string& text : texts) {
    for (HygieneText kind :
         {HygieneText::kCommand, HygieneText::kProse, HygieneText::kVersions, HygieneText::kCode}) {
      std::vector<HygieneFinding> skipping = scan_hygiene(text, kind);
      std::vector<HygieneFinding> every = scan_hygiene_every_pattern(text, kind);
      ASSERT_EQ(skipping.size(), every.size()) << text;
      for (std::size_t i = 0; i < every.size(); ++i) {
        EXPECT_EQ(skipping[i].kind, every[i].kind) << text;
        EXPECT_EQ(skipping[i].begin, every[i].begin) << text;
        EXPECT_EQ(skipping[i].end, every[i].end) << text;
      }
    }
  }
  // Each text written above holds findings: the comparison is not of empty lists.
  for (std::size_t i = written; i < written + 11; ++i) {
    EXPECT_FALSE(scan_hygiene(texts[i], HygieneText::kCommand).empty()) << texts[i];
  }
}

}  // namespace
}  // namespace openrecipes
