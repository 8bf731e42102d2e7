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

expect 1 "no-such.yaml" tests/slurm/fixtures/no-such.yaml --slurm
expect 1 "expected mapping" tests/slurm/fixtures/step_times.txt --slurm
expect 2 "--env NOEQUALS: expected NAME=VALUE" "$recipe" --slurm --env NOEQUALS
expect 1 "1BAD is not a shell variable name" "$recipe" --slurm --env 1BAD=x
expect 2 "give --slurm" "$recipe"
CASE_PATH=/nonexistent expect 1 "Slurm's commands are not on PATH" "$recipe" --slurm --out "$work/runs"
# --format json: the same problems as one JSON array on stderr.
expect 1 '"rule": "measure.env"' "$recipe" --slurm --format json --env 1BAD=x
CASE_PATH=/nonexistent expect 1 '"file": "sbatch"' "$recipe" --slurm --format json --out "$work/runs"
expect 2 "--format: xml not in" "$recipe" --slurm --format xml

script=$("$binary" measure "$recipe" --slurm --dry-run --no-gpu-request --out /scratch/runs 2>/dev/null)
for line in "#SBATCH --nodes=1" "#SBATCH --output=/scratch/runs/slurm-%j.log" "--train-iters 20 --log-interval 1"; do
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
