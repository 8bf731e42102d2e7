# shellcheck shell=bash
# Sourced by layout_stand_in.sh and run_tune_test.sh. layout_key WORD... prints one canonical key of
# the layout that Megatron-LM arguments set, e.g.
#   tp=1 pp=2 vpp=1 cp=1 ep=4 etp=1 mbs=1 recompute=none dispatcher=alltoall
# so that the same layout gives the same key whether tune's draft or `openrecipes export` wrote
# the arguments (either form, `--flag value` or `--flag=value`, in any order). Absent flags take
# Megatron-LM's defaults (megatron/training/arguments.py): sizes 1, no recompute, the allgather
# dispatcher. The placement flags, when given, follow vpp with their values as written, and
# --sequence-parallel adds sp=1 at the end; a flag given twice counts once, the last (argparse).
layout_key() {
  local tp=1 pp=1 vpp=1 cp=1 ep=1 etp=1 mbs=1 dispatcher=allgather sp=""
  local granularity="" method="" layers="" modules=""
  local pipeline_layout="" first="" last="" embedding="" loss=""
  local flag value
  while [ $# -gt 0 ]; do
    flag=$1
    shift
    value=""
    case "$flag" in
      --*=*) value=${flag#*=}; flag=${flag%%=*} ;;
    esac
    # A flag that takes a value and was given as `--flag value`: take the next word.
    case "$flag" in
      --tensor-model-parallel-size | --pipeline-model-parallel-size | \
        --num-virtual-stages-per-pipeline-rank | --pipeline-model-parallel-layout | \
        --decoder-first-pipeline-num-layers | --decoder-last-pipeline-num-layers | \
        --context-parallel-size | --expert-model-parallel-size | --expert-tensor-parallel-size | \
        --micro-batch-size | --recompute-granularity | --recompute-method | --recompute-num-layers | \
        --moe-token-dispatcher-type)
        if [ -z "$value" ] && [ $# -gt 0 ]; then value=$1; shift; fi ;;
      --recompute-modules)
        # nargs='*': every word up to the next flag.
        while [ -z "$value" ] && [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do
          modules+="${modules:+,}$1"
          shift
        done
        [ -n "$value" ] && modules=${value// /,} ;;
    esac
    case "$flag" in
      --tensor-model-parallel-size) tp=$value ;;
      --pipeline-model-parallel-size) pp=$value ;;
      --num-virtual-stages-per-pipeline-rank) vpp=$value ;;
      --pipeline-model-parallel-layout) pipeline_layout=" pipeline_layout=$value" ;;
      --decoder-first-pipeline-num-layers) first=" first_stage_layers=$value" ;;
      --decoder-last-pipeline-num-layers) last=" last_stage_layers=$value" ;;
      --account-for-embedding-in-pipeline-split) embedding=" account_for_embedding" ;;
      --account-for-loss-in-pipeline-split) loss=" account_for_loss" ;;
      --context-parallel-size) cp=$value ;;
      --expert-model-parallel-size) ep=$value ;;
      --expert-tensor-parallel-size) etp=$value ;;
      --micro-batch-size) mbs=$value ;;
      --recompute-granularity) granularity=$value ;;
      --recompute-activations) granularity=selective ;; # Megatron-LM's older spelling of selective
      --recompute-method) method=$value ;;
      --recompute-num-layers) layers=$value ;;
      --moe-token-dispatcher-type) dispatcher=$value ;;
      --sequence-parallel) sp=" sp=1" ;;
    esac
  done
  # none, selective[:modules], full:method:layers (a part left out when not given).
  local recompute=${granularity:-none}
  if [ "$recompute" = selective ] && [ -n "$modules" ]; then recompute+=":$modules"; fi
  if [ "$recompute" = full ]; then recompute+="${method:+:$method}${layers:+:$layers}"; fi
  printf 'tp=%s pp=%s vpp=%s%s cp=%s ep=%s etp=%s mbs=%s recompute=%s dispatcher=%s%s\n' \
    "$tp" "$pp" "$vpp" "$pipeline_layout$first$last$embedding$loss" "$cp" "$ep" "$etp" "$mbs" "$recompute" "$dispatcher" "$sp"
}
