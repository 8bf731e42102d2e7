#!/usr/bin/env bash
# A stand-in for Megatron-LM's pretrain_gpt.py in the slurm test: prints Megatron-LM's own
# training-log lines, one per iteration, with the step times and losses of $STAND_IN_STEPS
# (fixtures/step_times.txt), sleeping each step's time. It runs `--train-iters N` iterations
# (cycling through the file's lines); STAND_IN_FAIL_AFTER=K exits 1 after K iterations (a crash),
# STAND_IN_STOP_AFTER=K exits 0 after K (a short log).
set -euo pipefail
iters=""
while [ $# -gt 0 ]; do
  case "$1" in
    --train-iters) iters=$2; shift 2 ;;
    --train-iters=*) iters=${1#*=}; shift ;;
    *) shift ;;
  esac
done
[ -n "$iters" ] || { echo "stand_in_trainer: no --train-iters" >&2; exit 2; }
mapfile -t steps < <(grep -v '^#' "$STAND_IN_STEPS")
echo "> building GPT model ..."
echo "training ..."
for ((i = 1; i <= iters; i++)); do
  read -r ms loss <<<"${steps[$(((i - 1) % ${#steps[@]}))]}"
  sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
  printf ' [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): 1.0 | learning rate: 1.000000E-05 | global batch size:   128 | lm loss: %E | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
    "$(date -u '+%Y-%m-%d %H:%M:%S')" "$i" "$iters" $((i * 128)) "$ms" "$loss"
  if [ "${STAND_IN_FAIL_AFTER:-0}" = "$i" ]; then
    echo "RuntimeError: CUDA error: an illegal memory access was encountered (stand-in crash)" >&2
    exit 1
  fi
  if [ "${STAND_IN_STOP_AFTER:-0}" = "$i" ]; then exit 0; fi
done
