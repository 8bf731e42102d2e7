#!/usr/bin/env bash
# `openrecipes measure` on bad input, without a cluster: each case is one clear message on stderr,
# the documented exit status (1 problems, 2 usage), nothing on stdout and never a crash; and
# --dry-run prints the script without needing Slurm.
# Usage: measure_bad_input_test.sh OPENRECIPES_BINARY
set -uo pipefail
binary=$1
cd "$(dirname "$0")/../.."
recipe=tests/slurm/fixtures/stand-in-megatron-lm.yaml
work=$(mktemp -d /tmp/openrecipes-measure-bad.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

# expect EXIT PATTERN ARGS...: measure ARGS exits EXIT and says PATTERN on stderr.
expect() {
  local exit=$1 pattern=$2
  shift 2
  local status=0
  PATH=${CASE_PATH:-$PATH} "$binary" measure "$@" >"$work/out" 2>"$work/err" || status=$?
  if [ "$status" -ne "$exit" ] || ! grep -q -- "$pattern" "$work/err" || [ -s "$work/out" ]; then
    echo "FAIL: measure $*: expected exit $exit and '$pattern'; got exit $status:" >&2
    cat "$work/err" "$work/out" >&2
    failures=$((failures + 1))
  fi
}

# The stand-in recipe's run reads $STAND_IN: the pre-flight refuses it unset (below), so the other
# cases set it.
stand_in=(--env STAND_IN=tests/slurm/stand_in_trainer.sh)
expect 1 "no-such.yaml" tests/slurm/fixtures/no-such.yaml --slurm
expect 1 "expected mapping" tests/slurm/fixtures/step_times.txt --slurm
expect 2 "--env NOEQUALS: expected NAME=VALUE" "$recipe" --slurm --env NOEQUALS
expect 1 "1BAD is not a shell variable name" "$recipe" --slurm --env 1BAD=x
expect 2 "give --slurm" "$recipe"
CASE_PATH=/nonexistent expect 1 "Slurm's commands are not on PATH" "$recipe" --slurm --out "$work/runs" "${stand_in[@]}"
# --format json: the same problems as one JSON array on stderr.
expect 1 '"rule": "measure.env"' "$recipe" --slurm --format json --env 1BAD=x
CASE_PATH=/nonexistent expect 1 '"file": "sbatch"' "$recipe" --slurm --format json --out "$work/runs" "${stand_in[@]}"
expect 2 "--format: expected one of text, json, found 'xml'" "$recipe" --slurm --format xml

# The pre-flight (docs/measure.md): every problem at once, nothing written, even with --dry-run.
expect 1 "run: the run reads \$STAND_IN and nothing sets it" "$recipe" --slurm --dry-run
bundled=recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml
expect 1 "attune-tp1-pp2-ep4.yaml:136:14: run: the placeholder <slime entry module> is not filled" "$bundled" --slurm --dry-run
expect 1 "run: the run reads \$SFT_DATA and nothing sets it" "$bundled" --slurm --dry-run
expect 2 "--set train_async: expected NAME=VALUE" "$bundled" --slurm --dry-run --set train_async
expect 1 "--account: holds a control character.*found x.nsrun rm -rf /tmp/important)" "$recipe" --slurm \
  "${stand_in[@]}" --out "$work/control" --account $'x\nsrun rm -rf /tmp/important'
expect 1 '"rule": "measure.control"' "$recipe" --slurm --format json "${stand_in[@]}" --out "$work/control" --partition $'a\tb'
expect 1 "--time: is not a Slurm time limit" "$recipe" --slurm --dry-run "${stand_in[@]}" --time 2h
if [ -e "$work/control" ]; then
  echo "FAIL: a refused measure wrote $work/control" >&2
  failures=$((failures + 1))
fi
# A filled bundled recipe passes (SFT_DATA names no local file: the rows are not checked, a note).
dry=$("$binary" measure "$bundled" --slurm --dry-run --set 'slime entry module=train_async' \
  --env HF_CKPT=/ckpt/hf --env TORCH_DIST=/ckpt/dist --env SFT_DATA=hf://datasets/x --format json 2>"$work/err")
if ! grep -q '"script": "#!/bin/bash' <<<"$dry" || ! grep -qF 'python3 -m train_async --async' <<<"$dry" ||
  ! grep -q '"rows not checked' <<<"$dry"; then
  echo "FAIL: --dry-run --format json of the filled bundled recipe:" >&2
  cat "$work/err" >&2
  head -c 600 <<<"$dry" >&2
  failures=$((failures + 1))
fi

script=$("$binary" measure "$recipe" --slurm --dry-run --no-gpu-request --out /scratch/runs "${stand_in[@]}" \
  --time 1:30:00 --qos high --reservation maint --exclude 'gpu-[01-02]' --nodelist gpu-07 \
  --sbatch-arg=--constraint=h200 --container-image nvcr.io#nvidia/pytorch:25.01-py3 \
  --container-mounts "/data:/data:ro,/it's:/x" --env "HF_HOME=it's here" 2>/dev/null)
for line in "#SBATCH --nodes=1" "#SBATCH --output=/scratch/runs/slurm-%j.log" "--train-iters 20 --log-interval 1" \
  "#SBATCH --time=1:30:00" "#SBATCH --qos=high" "#SBATCH --reservation=maint" "#SBATCH --exclude=gpu-[01-02]" \
  "#SBATCH --nodelist=gpu-07" "#SBATCH --constraint=h200" "export HF_HOME='it'\''s here'" \
  "--container-image='nvcr.io#nvidia/pytorch:25.01-py3' --container-mounts='/data:/data:ro,/it'\''s:/x'"; do
  if ! grep -qF -- "$line" <<<"$script"; then
    echo "FAIL: --dry-run script lacks '$line'" >&2
    failures=$((failures + 1))
  fi
done
if grep -q -- "--gpus-per-node" <<<"$script"; then
  echo "FAIL: --no-gpu-request still asks for GPUs" >&2
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "measure bad input: all checks passed"
exit $((failures > 0))
