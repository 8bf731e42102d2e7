#include "measure/stack_versions.h"

#include <fmt/format.h>

#include <map>

#include "base/yaml_scalar.h"

namespace openrecipes {
namespace {

std::string clean(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::size_t start = out.find_first_not_of(' ');
  out = start == std::string::npos ? "" : out.substr(start);
  return out.size() > 200 ? out.substr(0, 200) : out;
}

}  // namespace

std::string stack_versions_program() {
  return R"PY(import importlib, os, platform, subprocess
def show(key, value):
    if value not in (None, ""):
        print(f"{key}: {value}", flush=True)
def load(name):
    try:
        return importlib.import_module(name)
    except Exception:
        return None
def version(module, dist):
    value = getattr(module, "__version__", None)
    if value is None:
        try:
            from importlib import metadata
            value = metadata.version(dist)
        except Exception:
            value = None
    return value
def commit(module):
    try:
        folder = os.path.dirname(os.path.abspath(module.__file__))
        run = subprocess.run(["git", "-C", folder, "rev-parse", "--short=8", "HEAD"], capture_output=True, text=True, timeout=20)
        return run.stdout.strip() if run.returncode == 0 else None
    except Exception:
        return None
show("python", platform.python_version())
torch = load("torch")
if torch:
    show("pytorch", version(torch, "torch"))
    show("cuda", getattr(getattr(torch, "version", None), "cuda", None))
    try:
        nccl = torch.cuda.nccl.version()
        show("nccl", ".".join(map(str, nccl)) if isinstance(nccl, (tuple, list)) else nccl)
    except Exception:
        pass
for name, dist, key in (("transformer_engine", "transformer_engine", "transformer_engine"),
                        ("megatron.core", "megatron-core", "megatron_core"),
                        ("slime", "slime", "slime"),
                        ("megatron.bridge", "megatron-bridge", "megatron_bridge")):
    module = load(name)
    if module:
        show(key, version(module, dist) or "unknown")
        if key in ("megatron_core", "slime"):
            show({"megatron_core": "megatron_lm_commit", "slime": "slime_commit"}[key], commit(module))
)PY";
}

NamedValues parse_stack_versions(std::string_view dump, RunFramework framework) {
  std::map<std::string, std::string> found;
  std::size_t start = 0;
  while (start < dump.size()) {
    std::size_t end = dump.find('\n', start);
    if (end == std::string_view::npos) end = dump.size();
    std::string_view line = dump.substr(start, end - start);
    start = end + 1;
    std::size_t colon = line.find(": ");
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string key(line.substr(0, colon));
    if (key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos) continue;
    std::string value = clean(line.substr(colon + 2));
    if (!value.empty() && value != "unknown") found[key] = value;
  }
  auto get = [&](const std::string& key) -> std::string {
    auto it = found.find(key);
    return it == found.end() ? "" : it->second;
  };
  auto or_not_pinned = [](const std::string& value) {
    return value.empty() ? std::string(kNotPinned) : value;
  };
  std::string megatron_lm =
      or_not_pinned(get("megatron_lm_commit").empty() ? "" : "commit " + get("megatron_lm_commit"));
  if (!get("megatron_core").empty())
    megatron_lm += fmt::format(" (megatron-core {})", get("megatron_core"));
  std::string framework_text;
  switch (framework) {
    case RunFramework::kSlime:
      framework_text = fmt::format("slime {}", or_not_pinned(get("slime")));
      if (!get("slime_commit").empty())
        framework_text += fmt::format(" (THUDM/slime {})", get("slime_commit"));
      break;
    case RunFramework::kBridge:
      framework_text = fmt::format("Megatron-Bridge {}", or_not_pinned(get("megatron_bridge")));
      break;
    case RunFramework::kMegatronLm:
    case RunFramework::kUnknown:  // force_step_count never gives it; Megatron-LM's flag is its own
      framework_text = "Megatron-LM " + (get("megatron_lm_commit").empty()
                                             ? std::string(kNotPinned)
                                             : "commit " + get("megatron_lm_commit"));
      break;
  }
  return {{"framework", framework_text},
          {"megatron_lm", megatron_lm},
          {"transformer_engine", or_not_pinned(get("transformer_engine"))},
          {"pytorch", or_not_pinned(get("pytorch"))},
          {"cuda", or_not_pinned(get("cuda"))},
          {"nccl", or_not_pinned(get("nccl"))},
          {"python", or_not_pinned(get("python"))},
          {"source", "version dump by the measured job's first step (openrecipes measure)"}};
}

std::string stack_block_yaml(const NamedValues& stack) {
  std::string out = "stack:\n";
  for (const auto& [name, value] : stack)
    out += fmt::format("  {}: {}\n", name, yaml_scalar(value));
  return out;
}

}  // namespace openrecipes
