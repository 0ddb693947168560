#!/bin/bash
# Beyond the paper (issue 17 item 7): how close local search and NSGA-II
# come to the exact optimum with the paper's algorithms, with cost-guided
# edits (--guided), with the greedy plan as a start (--seed-plans greedy),
# with the per-block optimal plan too (--seed-plans greedy,blocks), and
# with both; seeds 1..K at the paper's budget of 5000 plans, one thread.
# Table: the gap to the optimum over fusable ops (%) per seed and its mean.
# Reduced (default): 2 seeds, budget 5000. --full: 5 seeds.
. "$(dirname "$0")/common.sh"
settings 5000 2 5000 5
cases="resnet152:256KB mobilenet_v2:128KB resnet50:256KB efficientnet_b0:256KB inception_v3:256KB squeezenet1_0:128KB"
[ $full = 1 ] || cases="resnet50:256KB mobilenet_v2:128KB squeezenet1_0:128KB"
dram() { grep -o 'DRAM [0-9,]* B fusable' | head -1 | tr -dc 0-9; }
{
  echo "| network | buffer | search | options | gap (%) per seed | mean gap (%) |"
  echo "|---|---|---|---|---|---:|"
  for c in $cases; do
    m=${c%%:*} b=${c##*:}
    # Limits by count, not by the clock: the same stop (or optimum) on any machine.
    opt=$(fp plan --model "$m" --buffer "$b" --search exact --time-limit 0 --max-states 2000000 \
      --max-candidates 200000000 | dram)
    for s in local nsga2; do
      for o in "" "--guided" "--seed-plans greedy" "--seed-plans greedy --guided" \
        "--seed-plans greedy,blocks" "--seed-plans greedy,blocks --guided"; do
        gaps="" sum=0
        for ((k = 1; k <= seeds; k++)); do
          d=$(fp plan --model "$m" --buffer "$b" --search "$s" --budget "$budget" --seed "$k" --threads 1 $o | dram)
          g=$(awk -v d="$d" -v o="$opt" 'BEGIN { printf "%.2f", 100 * (d - o) / o }')
          gaps="$gaps $g" sum=$(awk -v a="$sum" -v g="$g" 'BEGIN { print a + g }')
        done
        echo "| $m | $b | $s | ${o:-paper} |$gaps | $(awk -v a="$sum" -v n="$seeds" 'BEGIN { printf "%.2f", a / n }') |"
      done
    done
  done
} >"$out/guided.md"
cat "$out/guided.md"
