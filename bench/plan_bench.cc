// Times the planner's search (issue 8: a 100B+ MoE on 1,024 GPUs plans in under 1 s). Models are
// the real configs: DeepSeek-V3 (671B, 256 experts; tests/fixtures/configs) and the catalog's
// Qwen3.5-122B-A10B, on 1,024 H200s; gpt-oss-20b on 8 H200s beside them for scale; DeepSeek-V3
// on 2,520 H200s, a GPU count with many divisors (48), where most of the 285 million meshes break
// a rule that TP, PP and CP alone decide. The *_Alltoall runs try one dispatcher instead of the
// default two (alltoall and flex): the cost of predicting each EP layout with both.
// Run: build/plan_bench [--benchmark_repetitions=5] from the repository root.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "catalog/catalog_loader.h"
#include "plan/catalog_measurements.h"
#include "plan/layout_search.h"

namespace openrecipes {
namespace {

const LoadedCatalog& catalog() {
  static const LoadedCatalog loaded = [] {
    Problems problems;
    std::optional<LoadedCatalog> c = load_catalog(".", problems);
    if (!c) {
      std::fprintf(stderr, "plan_bench: run from the repository root (no catalog here)\n");
      std::exit(1);
    }
    return std::move(*c);
  }();
  return loaded;
}

ModelShape config_shape(const char* path) {
  Problems problems;
  std::optional<ModelShape> shape = model_shape_from_file(path, "", problems);
  if (!shape) {
    std::fprintf(stderr, "plan_bench: cannot read %s\n", path);
    std::exit(1);
  }
  return *shape;
}

void run_search(benchmark::State& state, const ModelShape& model, int gpus,
                std::vector<std::string> dispatchers = SearchOptions{}.dispatchers) {
  ClusterShape cluster = cluster_of(*catalog().catalog.find_gpu("H200"), gpus);
  SearchOptions options;
  options.dispatchers = std::move(dispatchers);
  std::int64_t candidates = 0, fitting = 0, predicted = 0;
  for (auto _ : state) {
    LayoutSearchResult result = search_layouts(model, cluster, PlanWorkload{}, options);
    candidates = result.candidates;
    fitting = result.fitting;
    predicted = result.predicted;
    benchmark::DoNotOptimize(result.ranked.data());
  }
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["fitting"] = static_cast<double>(fitting);
  state.counters["predicted"] = static_cast<double>(predicted);
}

void BM_DeepSeekV3_1024xH200(benchmark::State& state) {
  static const ModelShape model = config_shape("tests/fixtures/configs/deepseek-v3.json");
  run_search(state, model, 1024);
}
void BM_DeepSeekV3_1024xH200_Alltoall(benchmark::State& state) {
  static const ModelShape model = config_shape("tests/fixtures/configs/deepseek-v3.json");
  run_search(state, model, 1024, {"alltoall"});
}
void BM_DeepSeekV3_2520xH200(benchmark::State& state) {
  static const ModelShape model = config_shape("tests/fixtures/configs/deepseek-v3.json");
  run_search(state, model, 2520);
}
void BM_Qwen35_122B_1024xH200(benchmark::State& state) {
  run_search(state, catalog().catalog.find_model("Qwen3.5-122B-A10B")->shape, 1024);
}
void BM_GptOss20B_8xH200(benchmark::State& state) {
  run_search(state, catalog().catalog.find_model("gpt-oss-20b")->shape, 8);
}

BENCHMARK(BM_DeepSeekV3_1024xH200)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeepSeekV3_1024xH200_Alltoall)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeepSeekV3_2520xH200)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Qwen35_122B_1024xH200)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GptOss20B_8xH200)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace openrecipes

BENCHMARK_MAIN();
