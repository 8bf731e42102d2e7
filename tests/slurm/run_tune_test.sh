#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# `openrecipes tune --slurm` against a real Slurm: a one-node cluster on this machine
# (one_node_cluster.sh), the reference recipe fixtures/tune-reference.yaml, and a fake `torchrun`
# (tune/torchrun) first on the jobs' PATH that runs the layout-dependent stand-in trainer
# (tune/layout_stand_in.sh). The stand-in's speed per layout is a hidden table built here from the
# planner's own first 200 proposals (`tune propose`, deterministic), each keyed by tune/layout_key.sh
# on the Megatron-LM arguments `openrecipes export` writes for it:
#   proposal #0 and every proposal needing at least its memory: out of memory; C, the first
#   proposal after it that needs less: a crash; B, the next such (the first the session can
#   measure): the best, 1.3 x the fastest other; the others: 1.6 x the planner's prediction (so the
#   session must recalibrate); any other layout: half the slowest. (The planner ranks many layouts within a few percent of each other, CP k with k rows
#   per micro-batch alike, so a hidden best further down its order is found only by measuring
#   every near-tie before it: a test of patience, not of the loop.)
# Checks:
#   1. a full run (--max-runs 12 --parallel 1): exit 0; a `failed` event with failure oom for #0's
#      layout and one with crash for C's; no layout ran twice (the crashed one included), the
#      reference arm's excepted; the recipe of the `recipe` event exists under the catalog copy,
#      says `status: verified` and has B's layout (tp, pp, cp, ep, etp, rows_per_microbatch,
#      recompute); `validate` of the copy exits 0; recalibration: |error| of the first `measured`
#      event > |error| of the last, and every `calibration` event with runs >= 2 has a session_mape
#      below the first |error|; the summary names the recipe's path;
#   2. resume after kill -9 (every layout one speed here, so each job runs its 20 steps): the job
#      in flight keeps running, and the same command again logs a `resume` event naming it,
#      submits it no second time and ends it `measured` or `failed`;
#   3. Ctrl-C (SIGINT): exit 130, the tune's job CANCELLED, `cancelled` and `stop` (interrupted)
#      events, and a held job of the same user and a tune-like name left alone;
#   4. a budget of 0.005 GPU-hours: a `stop` event with reason budget, fewer than 8 runs submitted,
#      and none submitted once the finished runs' gpu_hours reach the budget;
#   5. every daemon it started is stopped at the end.
# Every recipe lands in a copy of the catalog under the temporary folder, never in the source tree.
# Usage: run_tune_test.sh OPENRECIPES_BINARY. Exit 77 (skipped) unless run as root.
set -euo pipefail
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: the one-node Slurm cluster runs munged, slurmctld and slurmd as root"
  exit 77
fi
for program in munged slurmctld slurmd sbatch scontrol scancel sinfo squeue python3; do
  if ! command -v "$program" >/dev/null && [ ! -x "/usr/sbin/$program" ]; then
    echo "FAIL: $program not found: install Debian's slurm-wlm, munge and python3 (scripts/install-deps.sh --test)" >&2
    exit 1
  fi
done

# shellcheck source=one_node_cluster.sh
source "$here/one_node_cluster.sh"
# shellcheck source=tune/layout_key.sh
source "$here/tune/layout_key.sh"
work=$(mktemp -d /tmp/openrecipes-tune-test.XXXXXX)
# OPENRECIPES_KEEP_TEST_DIR=1 keeps the folder (state, logs, hidden table) for a look afterwards.
trap 'stop_cluster; if [ -z "${OPENRECIPES_KEEP_TEST_DIR:-}" ]; then rm -rf "$work"; else echo "kept $work"; fi' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The catalog as tests/finalize_cli_test.cc copies it, plus data/ (the planner's published runs).
catalog_copy() {
  mkdir -p "$1"
  cp "$source_dir"/{models,gpus,authors,site}.yaml "$1/"
  cp -R "$source_dir"/{schema,patches,templates,models,rules,recipes,data} "$1/"
}

# The layout key of a recipe's torchrun command: its words after pretrain_gpt.py, split as the
# shell would (python3's shlex; the run's $VARIABLES stay as written, which the key never reads).
run_key() {
  local words=()
  mapfile -d '' -t words < <(python3 - "$1" <<'PY'
import shlex, sys
command, inside, reading = [], False, False
for line in open(sys.argv[1]):
    if line.startswith("run: |"):
        inside = True
    elif inside and line.strip() and not line.startswith(" "):
        break
    elif inside and (reading or line.strip().startswith("torchrun")):
        reading = True
        command.append(line.strip().rstrip("\\"))
        if not line.rstrip().endswith("\\"):
            break
words = shlex.split(" ".join(command))
sys.stdout.write("\0".join(words[words.index("pretrain_gpt.py") + 1:]))
PY
  )
  layout_key "${words[@]}"
}

# A recipe's layout as one line: tp, pp, cp, ep, etp, rows_per_microbatch and recompute (with its
# granularity, method and num_layers lines when it is not null).
layout_fields() {
  awk '/^layout:/ { on = 1; next } on && /^[^ ]/ { exit }
    on && /^  (tp|pp|cp|ep|etp|rows_per_microbatch|recompute):/ { keep = ($1 == "recompute:"); printf "%s ", $0; next }
    on && keep && /^    / { printf "%s ", $0; next } { keep = 0 }' "$1" | tr -s ' '
}

# check_events NAME FILE CODE [ARG...]: runs python3 CODE with `events` (FILE's JSON lines in
# order), `of(kind)` and `args` (ARG...); each string CODE appends to `problems` is one failure.
prelude='import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
args, problems = sys.argv[2:], []
def of(kind): return [e for e in events if e.get("event") == kind]'
check_events() {
  local name=$1 file=$2 code=$3 out line
  shift 3
  if ! out=$(python3 -c "$prelude
$code
print('\n'.join(problems))" "$file" "$@" 2>&1); then
    fail "$name: reading $file failed: $out"
    return
  fi
  while IFS= read -r line; do [ -z "$line" ] || fail "$name: $line"; done <<<"$out"
}
# event_value FILE CODE [ARG...]: what python3 CODE prints about FILE's events (empty on an error).
event_value() {
  local file=$1 code=$2
  shift 2
  python3 -c "$prelude
$code" "$file" "$@" 2>/dev/null || true
}
job_state() { scontrol show job -o "$1" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p'; }
# wait_running FILE: waits (60 s at most) for the first `submitted` event's job to be RUNNING and
# prints its id (nothing if it did not come to run).
wait_running() {
  local job
  for _ in $(seq 1 300); do
    if grep -q '"submitted"' "$1" 2>/dev/null; then
      job=$(event_value "$1" 'print(next((str(e["job"]) for e in of("submitted")), ""))')
      if [ -n "$job" ] && [ "$(job_state "$job")" = RUNNING ]; then
        echo "$job"
        return
      fi
    fi
    sleep 0.2
  done
}
show() {
  echo "--- tune $1 (exit $2) printed:"
  cat "$work/$1.out"
  echo "--- on stderr:"
  cat "$work/$1.err"
}

start_cluster "$work/cluster"
started_pids=("${cluster_pids[@]}")
echo "cluster up: daemons ${started_pids[*]}, SLURM_CONF=$SLURM_CONF"
cd "$work"
root=$work/root
catalog_copy "$root"

# The hidden table, from the planner's first 200 proposals and their export drafts.
"$binary" --root "$root" tune propose --model gpt-oss-20b --gpu H200 --gpus 8 --count 200 --format json >"$work/proposals.json"
mkdir "$work/flags" "$work/drafts"
# One line per proposal (index, memory_gb, predicted, layout, recompute) and its export flags,
# split as the shell would, in flags/INDEX.
python3 - "$work/proposals.json" "$work/flags" >"$work/proposals.tsv" <<'PY'
import json, shlex, sys
for i, p in enumerate(json.load(open(sys.argv[1]))["proposals"]):
    open(f"{sys.argv[2]}/{i}", "w").write("\0".join(shlex.split(p["flags"])))
    print(i, p["memory_gb"], p["predicted_tokens_per_s_per_gpu"], p["layout"], p["recompute"], sep="\t")
PY
[ "$(wc -l <"$work/proposals.tsv")" -ge 8 ] || { echo "FAIL: tune propose gave fewer than 8 proposals" >&2; exit 1; }
: >"$work/keys.tsv"
while IFS=$'\t' read -r i memory predicted _; do
  mapfile -d '' -t flags <"$work/flags/$i"
  "$binary" --root "$root" export "${flags[@]}" --to megatron-lm -o "$work/drafts/$i.yaml" </dev/null
  printf '%s\t%s\t%s\t%s\n' "$i" "$(run_key "$work/drafts/$i.yaml")" "$memory" "$predicted" >>"$work/keys.tsv"
done <"$work/proposals.tsv"
if [ "$(cut -f2 "$work/keys.tsv" | sort | uniq -d | wc -l)" -ne 0 ]; then
  echo "FAIL: two proposals have one layout key:" >&2
  cut -f2 "$work/keys.tsv" | sort | uniq -d >&2
  exit 1
fi
# C and B: the first two proposals after #0 that need less memory than #0 ran out at (the others
# before them the session skips as needing at least that memory).
awk -F'\t' -v out="$work/crash_best.txt" 'NR == 1 { limit = $3 } { key[NR - 1] = $2; memory[NR - 1] = $3; predicted[NR - 1] = $4; n = NR }
  END {
    c = -1; b = -1
    for (j = 1; j < n && b < 0; j++) if (memory[j] < limit) { if (c < 0) c = j; else b = j }
    if (b < 0) { print "FAIL: fewer than two proposals need less than #0'"'"'s memory" > "/dev/stderr"; exit 1 }
    for (j = 0; j < n; j++) {
      if (j == 0 || (j != c && j != b && memory[j] >= limit)) value[j] = "oom"
      else if (j == c) value[j] = "crash"
      else if (j != b) {
        speed = 1.6 * predicted[j]; value[j] = sprintf("%.2f", speed)
        if (speed > top) top = speed
        if (!low || speed < low) low = speed
      }
    }
    value[b] = sprintf("%.2f", 1.3 * top)
    for (j = 0; j < n; j++) printf "%s\t%s\n", key[j], value[j]
    printf "default\t%.2f\n", 0.5 * low
    printf "%d %d\n", c, b > out
  }' "$work/keys.tsv" >"$work/hidden.tsv"
read -r crash_index best_index <"$work/crash_best.txt"
echo "--- the hidden table:"
cat "$work/hidden.tsv"
proposal() { sed -n "$(($1 + 1))p" "$work/proposals.tsv" | cut -f"$2"; }
reference_key=$(run_key "$here/fixtures/tune-reference.yaml")
crash_key=$(sed -n "$((crash_index + 1))p" "$work/keys.tsv" | cut -f2)

common=(--model gpt-oss-20b --gpu H200 --gpus 8 --reference "$here/fixtures/tune-reference.yaml" --author tester
  --slurm --no-gpu-request --poll-seconds 0.5 --partition debugq --account acme-research
  --env NODE_RANK=0 --env MASTER_ADDR=127.0.0.1 --env MASTER_PORT=29500 --env SFT_JSONL=hf://stand-in/rows
  --env SFT_PROMPT_FORMAT=gpt_oss --env TOKENIZER=stand-in-tokenizer --env CHECKPOINT=stand-in-checkpoint
  --env "PATH=$here/tune:$PATH"
  --env "STAND_IN_STEPS=$here/fixtures/step_times.txt" --env PYTHONDONTWRITEBYTECODE=1
  # The stand-in PyTorch, TE and megatron-core of the measure test, so the version dump pins a stack.
  --env "PYTHONPATH=$here/fixtures/python")
# tune_argv NAME ROOT OPTION...: sets argv to a tune into ROOT whose stand-in reads the table
# $table and appends the keys it ran to NAME.ran; tune NAME ROOT OPTION... runs it, stdout and stderr
# in NAME.out and NAME.err. (A background run starts "${argv[@]}" itself, so that $! is openrecipes,
# not a subshell.)
tune_argv() {
  local name=$1 catalog=$2
  shift 2
  argv=("$binary" --root "$catalog" tune "${common[@]}" --env "TUNE_HIDDEN=$table" --env "TUNE_RAN=$work/$name.ran" "$@")
}
tune() {
  tune_argv "$@"
  "${argv[@]}" >"$work/$1.out" 2>"$work/$1.err"
}

# 1. A full run.
table=$work/hidden.tsv
status=0
tune full "$root" --max-runs 12 --parallel 1 --state "$work/state" || status=$?
show full "$status"
[ "$status" -eq 0 ] || fail "full: expected exit 0, found $status"
events=$work/state/tune.jsonl
check_events full "$events" '
for n, failure in ((0, "oom"), (1, "crash")):
    layout, recompute = args[2 * n], args[2 * n + 1]
    if not any(e.get("layout") == layout and e.get("recompute") == recompute and e.get("failure") == failure for e in of("failed")):
        problems.append(f"no failed event with failure {failure} for {layout} recompute {recompute}")
measured = of("measured")
if len(measured) < 2:
    problems.append(f"{len(measured)} measured event(s), expected at least 2")
else:
    first, last = abs(measured[0]["error"]), abs(measured[-1]["error"])
    if not first > last:
        problems.append(f"no recalibration: |error| of the first measured run {first} <= of the last {last}")
    for c in of("calibration"):
        if c["runs"] >= 2 and (c["session_mape"] is None or c["session_mape"] >= first):
            runs, mape = c["runs"], c["session_mape"]
            problems.append(f"calibration at {runs} runs: session_mape {mape} not below {first}")
recipes = of("recipe")
if len(recipes) != 1 or recipes[0].get("status") != "verified":
    problems.append(f"expected one recipe event with status verified, found {recipes}")
' "$(proposal 0 4)" "$(proposal 0 5)" "$(proposal "$crash_index" 4)" "$(proposal "$crash_index" 5)"
# No layout ran twice (the crashed one included); the reference arm may run more than once.
repeated=$(grep -vxF "$reference_key" "$work/full.ran" 2>/dev/null | sort | uniq -d || true)
[ -z "$repeated" ] || fail "full: layouts ran twice: $repeated"
crash_runs=$(grep -cxF "$crash_key" "$work/full.ran" 2>/dev/null || true)
[ "${crash_runs:-0}" -eq 1 ] || fail "full: the crashing layout ran ${crash_runs:-0} times, expected once"
path=$(event_value "$events" 'print(of("recipe")[-1]["path"])')
case "$path" in /*) recipe=$path ;; *) recipe=$root/$path ;; esac
if [ -z "$path" ] || [ "${recipe#"$root"/}" = "$recipe" ] || [ ! -f "$recipe" ]; then
  fail "full: the recipe '$path' is not a file under the catalog copy"
else
  grep -qx 'status: verified' "$recipe" || fail "full: $path does not say status: verified"
  expected=$(layout_fields "$work/drafts/$best_index.yaml")
  [ "$(layout_fields "$recipe")" = "$expected" ] ||
    fail "full: $path has the layout '$(layout_fields "$recipe")', expected the hidden best's '$expected'"
  grep -qF "$path" "$work/full.out" || fail "full: the summary does not name $path"
fi
validate_status=0
"$binary" --root "$root" validate >"$work/validate.txt" 2>&1 || validate_status=$?
[ "$validate_status" -eq 0 ] || { fail "full: validate of the catalog copy exited $validate_status"; cat "$work/validate.txt"; }
if [ -n "$path" ] && [ -e "$source_dir/${path#"$root"/}" ]; then fail "full: $path was written into the source tree"; fi

# 2. Resume after kill -9: the job in flight is followed again, not submitted again. Here and in 3
# every layout runs its 20 steps (one speed for all), so the first job runs long enough to be
# caught running (the hidden table's first layout fails after one step).
table=$work/plain.tsv
printf 'default\t8000\n' >"$table"
catalog_copy "$work/root2"
resume=(--max-runs 3 --parallel 1 --state "$work/state2" --env STAND_IN_STEP_SLEEP=0.4)
tune_argv resume "$work/root2" "${resume[@]}"
"${argv[@]}" >"$work/resume.out" 2>"$work/resume.err" &
tune_pid=$!
job=$(wait_running "$work/state2/tune.jsonl")
kill -9 "$tune_pid" 2>/dev/null || true
wait "$tune_pid" || true
show resume killed
if [ -z "$job" ]; then
  fail "resume: no submitted job was RUNNING within 60 s"
else
  state=$(job_state "$job")
  case "$state" in RUNNING | COMPLETING | COMPLETED) ;; *) fail "resume: job $job is '$state' after kill -9, expected still running" ;; esac
  status=0
  tune resume "$work/root2" "${resume[@]}" || status=$?
  show resume "$status"
  [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || fail "resume: expected exit 0 or 1, found $status"
  check_events resume "$work/state2/tune.jsonl" '
job = args[0]
resumes = [i for i, e in enumerate(events) if e["event"] == "resume" and job in map(str, e.get("in_flight", []))]
if not resumes:
    problems.append(f"no resume event lists job {job} in flight")
submitted = [e for e in of("submitted") if str(e["job"]) == job]
if len(submitted) != 1:
    problems.append(f"job {job} is in {len(submitted)} submitted events, expected 1")
if resumes and not any(e["event"] in ("measured", "failed") and str(e["job"]) == job for e in events[resumes[0]:]):
    problems.append(f"no measured or failed event for job {job} after the resume")
' "$job"
fi

# 3. Ctrl-C: tune cancels its own job, and only it. The other job is held (PENDING): tune's jobs
# take the node --exclusive, so a running one would keep them waiting. It has measure's job name
# and our user, so a tune that cancels by name or user would cancel it too.
catalog_copy "$work/root3"
other=$(sbatch --parsable --hold --no-requeue --job-name=openrecipes-measure --output=/dev/null --wrap 'sleep 120' | cut -d';' -f1)
tune_argv interrupt "$work/root3" --max-runs 8 --parallel 1 --state "$work/state3" --env STAND_IN_STEP_SLEEP=0.5
"${argv[@]}" >"$work/interrupt.out" 2>"$work/interrupt.err" &
tune_pid=$!
job=$(wait_running "$work/state3/tune.jsonl")
kill -INT "$tune_pid" 2>/dev/null || true
status=0
wait "$tune_pid" || status=$?
show interrupt "$status"
[ "$status" -eq 130 ] || fail "interrupt: expected exit 130, found $status"
if [ -z "$job" ]; then
  fail "interrupt: no submitted job was RUNNING within 60 s"
else
  for _ in $(seq 1 50); do
    [ "$(job_state "$job")" = CANCELLED ] && break
    sleep 0.2
  done
  [ "$(job_state "$job")" = CANCELLED ] || fail "interrupt: job $job is $(job_state "$job"), expected CANCELLED"
  check_events interrupt "$work/state3/tune.jsonl" '
if not any(str(e["job"]) == args[0] for e in of("cancelled")):
    problems.append(f"no cancelled event for job {args[0]}")
if not any(e.get("reason") == "interrupted" for e in of("stop")):
    problems.append("no stop event with reason interrupted")
' "$job"
fi
state=$(job_state "$other")
case "$state" in PENDING | RUNNING) ;; *) fail "interrupt: the unrelated job $other is $state, expected PENDING" ;; esac
scancel "$other"

# 4. A budget of 0.005 GPU-hours: less than one run's (measure rounds GPU-hours up to 0.01).
table=$work/hidden.tsv
catalog_copy "$work/root4"
status=0
tune budget "$work/root4" --budget-gpu-hours 0.005 --max-runs 8 --parallel 2 --state "$work/state4" || status=$?
show budget "$status"
[ "$status" -eq 0 ] || [ "$status" -eq 1 ] || fail "budget: expected exit 0 or 1, found $status"
check_events budget "$work/state4/tune.jsonl" '
if not any(e.get("reason") == "budget" for e in of("stop")):
    problems.append("no stop event with reason budget")
submitted = len(of("submitted"))
if submitted >= 8:
    problems.append(f"{submitted} runs submitted, expected fewer than 8")
spent = 0.0
for e in events:
    if e["event"] in ("measured", "failed"):
        spent += e.get("gpu_hours") or 0
    elif e["event"] == "submitted" and spent >= 0.005:
        run = e.get("run")
        problems.append(f"run {run} submitted after {spent} GPU-hours were spent")
'

# 5. The daemons it started are gone.
finish_cluster_test "slurm tune test" "recipe $path; resumed job and interrupted job followed; budget stop"
