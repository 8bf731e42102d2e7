#!/usr/bin/env bash
# `openrecipes measure` against a real Slurm: starts a one-node cluster on this machine
# (one_node_cluster.sh, everything under a temporary folder), measures the stand-in recipe
# (fixtures/stand-in-megatron-lm.yaml: stand_in_trainer.sh prints Megatron-LM step lines with the
# step times of fixtures/step_times.txt), and checks
#   - the score, the step-time CV and the window against figures computed here from
#     step_times.txt with awk, not taken from openrecipes;
#   - steps_per_run 20 although the recipe says --train-iters 12 (the protocol's count is forced);
#   - gpu_hours = 8 GPUs x (StartTime to EndTime) as `scontrol show job` reports them;
#   - the stack block from the job's version dump (stand-in PyTorch, TE and megatron-core on
#     PYTHONPATH), with a path and the account taken out, and no cluster, partition, account,
#     node name or temporary path anywhere in what it prints;
#   - the same recipe with `python3 -m <slime entry module>` (the bundled recipes' placeholder) in
#     place of `bash "$STAND_IN"`: refused by the pre-flight before anything is submitted (no job
#     appears in squeue, no script is written), and, filled with --set to stand_in_entry (a
#     Python module that runs the stand-in trainer), measured;
#   - a crashing stand-in (job FAILED) and a short log (job COMPLETED, 12 steps) each give one
#     error naming the job id and the log, exit 1 and no result block;
#   - Ctrl-C (SIGINT) while following cancels the job and says so;
#   - every daemon it started is stopped at the end.
# Usage: run_measure_test.sh OPENRECIPES_BINARY. Exit 77 (skipped) unless run as root.
set -euo pipefail
binary=$1
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: the one-node Slurm cluster runs munged, slurmctld and slurmd as root"
  exit 77
fi
for program in munged slurmctld slurmd sbatch scontrol scancel sinfo; do
  if ! command -v "$program" >/dev/null && [ ! -x "/usr/sbin/$program" ]; then
    echo "FAIL: $program not found: install Debian's slurm-wlm and munge (scripts/install-deps.sh --test)" >&2
    exit 1
  fi
done

# shellcheck source=one_node_cluster.sh
source "$here/one_node_cluster.sh"
work=$(mktemp -d /tmp/openrecipes-slurm-test.XXXXXX)
trap 'stop_cluster; rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

start_cluster "$work/cluster"
started_pids=("${cluster_pids[@]}")
echo "cluster up: daemons ${started_pids[*]}, SLURM_CONF=$SLURM_CONF"

cd "$source_dir"
recipe=tests/slurm/fixtures/stand-in-megatron-lm.yaml
options=(--slurm --no-gpu-request --poll-seconds 0.5 --account acme-research --partition debugq
  --env "STAND_IN=$here/stand_in_trainer.sh" --env "PYTHONPATH=$here/fixtures/python"
  --env PYTHONDONTWRITEBYTECODE=1)
measure() {
  "$binary" measure "$recipe" "${options[@]}" --out "$work/runs" --env "STAND_IN_STEPS=$here/fixtures/step_times.txt" "$@"
}
value() { sed -n "s/^  $1: //p" "$2" | head -n 1; }

# 1. A measured run.
status=0
measure >"$work/out.txt" 2>"$work/err.txt" || status=$?
echo "--- measure (exit $status) printed:"
cat "$work/out.txt"
echo "--- on stderr:"
cat "$work/err.txt"
job=$(sed -n 's/^openrecipes measure: submitted job \([0-9]*\).*/\1/p' "$work/err.txt")
if [ "$status" -ne 0 ] || [ -z "$job" ]; then
  echo "FAIL: measure exited $status${job:+ (job $job)}; cluster logs:" >&2
  tail -n 30 "$work"/cluster/log/*.log >&2 || true
  exit 1
fi

# Expected figures from the stand-in's own step times: window = iterations 6-20 (steps 5-19).
read -r expected_score expected_cv < <(grep -v '^#' "$here/fixtures/step_times.txt" | awk '
  NR >= 6 && NR <= 20 { s = $1 / 1000; n++; sum += s; sq += s * s }
  END {
    mean = sum / n; sd = sqrt((sq - n * mean * mean) / (n - 1))
    printf "%.6f %.6f\n", 15 * 128 * 8192 / (sum * 8), 100 * sd / mean
  }')
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.0051 && d > -0.0051) }'; }
score=$(value tokens_per_s_per_gpu "$work/out.txt")
cv=$(value step_time_cv_percent "$work/out.txt")
close "${score:-0}" "$expected_score" || fail "tokens_per_s_per_gpu: expected $expected_score, found $score"
close "${cv:-0}" "$expected_cv" || fail "step_time_cv_percent: expected $expected_cv, found $cv"
[ "$(value window "$work/out.txt")" = "[5, 19]" ] || fail "window: expected [5, 19]"
[ "$(value window_tokens "$work/out.txt")" = 15728640 ] || fail "window_tokens: expected 15728640"
[ "$(value steps_per_run "$work/out.txt")" = 20 ] || fail "steps_per_run: expected 20 (the protocol's, not the recipe's 12)"

# GPU-hours from Slurm's own times.
show=$(scontrol show job -o "$job")
start=$(sed -n 's/.* StartTime=\([^ ]*\).*/\1/p' <<<"$show")
end=$(sed -n 's/.* EndTime=\([^ ]*\).*/\1/p' <<<"$show")
seconds=$(($(date -d "$end" +%s) - $(date -d "$start" +%s)))
expected_hours=$(awk -v s="$seconds" 'BEGIN { h = 8 * s / 3600; c = int(h * 100); if (c < h * 100 - 1e-9) c++; printf "%.2f", c / 100 }')
[ "$(value gpu_hours "$work/out.txt")" = "$expected_hours" ] ||
  fail "gpu_hours: expected $expected_hours (8 GPUs x $seconds s, StartTime $start to EndTime $end)"
grep -q "^# job $job: 1 x 8 GPUs, Slurm StartTime $start to EndTime $end: $seconds s$" "$work/out.txt" ||
  fail "no '# job $job ... StartTime $start to EndTime $end: $seconds s' line"
[ "$(value gpu_hours_note "$work/out.txt")" = "GPUs x (scheduler admission to finish), including startup" ] ||
  fail "gpu_hours_note"

# The stack, from the job's first step.
python_version=$(python3 -c 'import platform; print(platform.python_version())' 2>/dev/null || echo "not pinned")
commit=$(git -C "$here/fixtures/python/megatron/core" rev-parse --short=8 HEAD 2>/dev/null || true)
expect_stack() { [ "$(value "$1" "$work/out.txt" | tr -d '"')" = "$2" ] || fail "stack $1: expected '$2', found '$(value "$1" "$work/out.txt")'"; }
if [ -n "$commit" ]; then
  expect_stack framework "Megatron-LM commit $commit"
  expect_stack megatron_lm "commit $commit (megatron-core 0.16.0rc0)"
else
  expect_stack framework "Megatron-LM not pinned"
  expect_stack megatron_lm "not pinned (megatron-core 0.16.0rc0)"
fi
expect_stack pytorch "2.11.0+standin"
expect_stack cuda "12.9"
expect_stack nccl "2.28.9"
expect_stack transformer_engine "2.10.0 (built in <path> for <account>)"
expect_stack python "$python_version"

# Nothing internal in what it prints for the recipe.
for secret in "$work" /tmp acme-research debugq openrecipes-test "$(hostname -s)"; do
  if grep -qwF -- "$secret" "$work/out.txt"; then fail "the printed blocks hold '$secret'"; fi
done
grep -q -- "--train-iters 20 --log-interval 1" "$work/runs/measure.sbatch" || fail "the script does not run 20 iterations"
grep -q -- "--account=acme-research" "$work/runs/measure.sbatch" || fail "the script does not pass --account"

# 1b. A placeholder: refused before submission; filled, it runs.
placeholder_recipe="$work/stand-in-placeholder.yaml"
sed 's|^  bash "\$STAND_IN" \\$|  python3 -m <slime entry module> \\|' "$recipe" >"$placeholder_recipe"
grep -q '^  python3 -m <slime entry module> \\$' "$placeholder_recipe" || fail "the placeholder recipe was not made"
jobs_before=$(squeue -h -t all -o %i | sort | tr '\n' ' ')
status=0
"$binary" measure "$placeholder_recipe" "${options[@]}" --out "$work/refused" \
  --env "STAND_IN_STEPS=$here/fixtures/step_times.txt" >"$work/refused.out" 2>"$work/refused.err" || status=$?
echo "--- placeholder unfilled (exit $status):"
cat "$work/refused.err"
[ "$status" -eq 1 ] || fail "placeholder: expected exit 1, found $status"
grep -q "stand-in-placeholder.yaml:[0-9]*:14: run: the placeholder <slime entry module> is not filled" "$work/refused.err" ||
  fail "placeholder: no problem naming the placeholder and its line"
if grep -q "submitted job" "$work/refused.err"; then fail "placeholder: a job was submitted"; fi
[ "$(squeue -h -t all -o %i | sort | tr '\n' ' ')" = "$jobs_before" ] || fail "placeholder: a job appeared in squeue"
if [ -e "$work/refused" ]; then fail "placeholder: measure wrote $work/refused"; fi
status=0
"$binary" measure "$placeholder_recipe" "${options[@]}" --out "$work/filled" --set 'slime entry module=stand_in_entry' \
  --env "STAND_IN_STEPS=$here/fixtures/step_times.txt" >"$work/filled.out" 2>"$work/filled.err" || status=$?
echo "--- placeholder filled (exit $status):"
cat "$work/filled.err"
[ "$status" -eq 0 ] || fail "filled: expected exit 0, found $status"
grep -qxF 'python3 -m stand_in_entry \' "$work/filled/measure.sbatch" || fail "filled: the script does not run stand_in_entry"
[ "$(value window_tokens "$work/filled.out")" = 15728640 ] || fail "filled: window_tokens: expected 15728640"
[ "$(value steps_per_run "$work/filled.out")" = 20 ] || fail "filled: steps_per_run: expected 20"

# 2. A crashing run: FAILED, named with its log; no result block.
expect_failure() {
  local name=$1 pattern=$2
  shift 2
  local status=0
  measure "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
  echo "--- $name (exit $status):"
  cat "$work/$name.err"
  local id
  id=$(sed -n 's/^openrecipes measure: submitted job \([0-9]*\).*/\1/p' "$work/$name.err")
  [ "$status" -eq 1 ] || fail "$name: expected exit 1, found $status"
  grep -q "^openrecipes measure: job $id.*$pattern.*$work/runs/slurm-$id.log" "$work/$name.err" ||
    fail "$name: no error naming job $id, '$pattern' and its log"
  if grep -q "result:" "$work/$name.out"; then fail "$name: printed a result block"; fi
}
expect_failure crash "ended FAILED, exit code 1:0: no result" --env STAND_IN_FAIL_AFTER=8
expect_failure short "window steps missing\|stops after" --env STAND_IN_STOP_AFTER=12

# 3. Ctrl-C while following: the job is cancelled.
printf '5000 1.0\n' >"$work/slow_steps.txt"
"$binary" measure "$recipe" "${options[@]}" --out "$work/runs" --env STAND_IN_STEPS="$work/slow_steps.txt" >"$work/cancel.out" 2>"$work/cancel.err" &
measure_pid=$!
for _ in $(seq 1 100); do
  grep -q "submitted job" "$work/cancel.err" && squeue -h -t RUNNING -o %i | grep -q . && break
  sleep 0.2
done
kill -INT "$measure_pid"
status=0
wait "$measure_pid" || status=$?
cat "$work/cancel.err"
cancelled=$(sed -n 's/^openrecipes measure: submitted job \([0-9]*\).*/\1/p' "$work/cancel.err")
[ "$status" -ne 0 ] || fail "cancel: expected a non-zero exit"
grep -q "^openrecipes measure: cancelled job $cancelled$" "$work/cancel.err" || fail "cancel: no 'cancelled job $cancelled'"
for _ in $(seq 1 50); do
  scontrol show job -o "$cancelled" | grep -q "JobState=CANCELLED" && break
  sleep 0.2
done
scontrol show job -o "$cancelled" | grep -q "JobState=CANCELLED" || fail "cancel: job $cancelled is not CANCELLED"

# 4. The daemons it started are gone.
finish_cluster_test "slurm measure test" "job $job: score $score, CV $cv, gpu_hours $expected_hours over $seconds s"
