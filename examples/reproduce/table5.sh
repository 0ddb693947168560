#!/bin/bash
# Table V: rectify rate and search time of GNNE, PG and RG with LS and RS on
# MobileNetV2 under LBDF (128 KB, budget 2,000 plans, as in Table III). Every
# run gets a cold cost memo (--fresh-memo) so that the times compare; the
# rectify rate is measured at the same edge budget k = 3 for every explainer
# (DESIGN §8), with the analytic and random proposers as reference points.
# Reduced (default): budget 100, 1 seed. --full: budget 2000, 10 seeds.
. "$(dirname "$0")/common.sh"
settings 100 1 2000 10
fp compare --model mobilenet_v2 --scheme lbdf --buffer 128KB --search ls,rs \
  --proposer none,gnne,pg,rg,attrib,random --k 3 --budget $budget --seeds $seeds --fresh-memo \
  "${thread_args[@]}" -o "$out/table5.md" --csv "$out/table5.csv" --json "$out/table5.json"
cat "$out/table5.md"
