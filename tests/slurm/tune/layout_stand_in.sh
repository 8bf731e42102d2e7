#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The stand-in trainer of the slurm tune test, run by the fake torchrun: a Megatron-LM
# pretrain_gpt.py whose speed depends on the layout. It reads --train-iters and the layout key of
# its arguments (layout_key.sh), looks the key up in $TUNE_HIDDEN (lines KEY<TAB>VALUE; VALUE is
# tokens/s per GPU, `oom` or `crash`; `default<TAB>NUMBER` for keys not listed) and prints
# Megatron-LM's training-log lines as stand_in_trainer.sh does, one per iteration, with the step
# time that speed gives at the protocol's figures (global batch 128 x 8,192 tokens on 8 GPUs) and
# the losses of $STAND_IN_STEPS (column 2, cycling), so every layout has the same loss curve.
#   oom:   one iteration, then PyTorch's out-of-memory error on stderr, exit 1;
#   crash: three iterations, then a CUDA illegal memory access on stderr, exit 1.
# Each step sleeps ${STAND_IN_STEP_SLEEP:-0.05} s, not the printed time: the scorer reads the
# printed ms, and the test stays short. With $TUNE_RAN set, it appends the key it ran there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=layout_key.sh
source "$here/layout_key.sh"
iters=""
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --train-iters) j=$((i + 1)); iters=${!j} ;;
    --train-iters=*) iters=${!i#*=} ;;
  esac
done
[ -n "$iters" ] || { echo "layout_stand_in: no --train-iters" >&2; exit 2; }
key=$(layout_key "$@")
value=$(awk -F'\t' -v key="$key" '$1 == key { print $2; found = 1; exit }
  $1 == "default" { fallback = $2 } END { if (!found) print fallback }' "$TUNE_HIDDEN")
[ -n "$value" ] || { echo "layout_stand_in: '$key' is not in $TUNE_HIDDEN and it has no default" >&2; exit 2; }
if [ -n "${TUNE_RAN:-}" ]; then printf '%s\n' "$key" >>"$TUNE_RAN"; fi
case "$value" in
  oom) ms=9000.0 last=1 ;; # a step time for the lines before the failure
  crash) ms=9000.0 last=3 ;;
  *)
    ms=$(awk -v t="$value" 'BEGIN { printf "%.1f", 1000 * 128 * 8192 / (8 * t) }')
    last=0 ;;
esac
mapfile -t steps < <(grep -v '^#' "$STAND_IN_STEPS")
echo "> building GPT model ..."
echo "training ..."
for ((i = 1; i <= iters; i++)); do
  read -r _ loss <<<"${steps[$(((i - 1) % ${#steps[@]}))]}"
  sleep "${STAND_IN_STEP_SLEEP:-0.05}"
  printf ' [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): 1.0 | learning rate: 1.000000E-05 | global batch size:   128 | lm loss: %E | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
    "$(date -u '+%Y-%m-%d %H:%M:%S')" "$i" "$iters" $((i * 128)) "$ms" "$loss"
  if [ "$i" = "$last" ]; then
    # PyTorch's own words (torch.OutOfMemoryError since 2.5; CUDA's error string for a crash).
    if [ "$value" = oom ]; then
      cat >&2 <<'MSG'
Traceback (most recent call last):
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.72 GiB of which 1.23 GiB is free. Including non-PyTorch memory, this process has 138.49 GiB memory in use. Of the allocated memory 131.02 GiB is allocated by PyTorch, and 5.11 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
MSG
    else
      cat >&2 <<'MSG'
Traceback (most recent call last):
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
MSG
    fi
    exit 1
  fi
done
