#!/bin/bash
# Fig. 3: the share of valid fusion groups, sampled by random search on the
# networks of Table I, as the buffer doubles from 128 KB to 2048 KB, under
# LBDF and BRR (BRR without the squeeze-and-excite networks, as in the
# paper); with it, the best plan's DRAM and the exact optimum at each size.
# Reduced (default): 200 groups per network, budget 200.
# --full: 1000 groups per network, budget 2000.
. "$(dirname "$0")/common.sh"
if [ $full = 1 ]; then samples=1000 budget=2000; else samples=200 budget=200; fi
all=vgg16,squeezenet1_0,mobilenet_v2,mobilenet_v3_small,mobilenet_v3_large,resnet18,resnet101,efficientnet_b0,efficientnet_b3
plain=vgg16,squeezenet1_0,mobilenet_v2,resnet18,resnet101
fp sweep-buffer --models $all --scheme lbdf --from 128KB --to 2048KB --samples $samples \
  --budget $budget "${thread_args[@]}" --svg "$out/fig3-lbdf.svg" -o "$out/fig3-lbdf.md"
fp sweep-buffer --models $plain --scheme brr --from 128KB --to 2048KB --samples $samples \
  --budget $budget "${thread_args[@]}" --svg "$out/fig3-brr.svg" -o "$out/fig3-brr.md"
fp sweep-buffer --models $all --scheme lbdf --from 128KB --to 2048KB --samples $samples \
  --budget $budget "${thread_args[@]}" --format csv -o "$out/fig3-lbdf.csv" --quiet
fp sweep-buffer --models $plain --scheme brr --from 128KB --to 2048KB --samples $samples \
  --budget $budget "${thread_args[@]}" --format csv -o "$out/fig3-brr.csv" --quiet
to_png
cat "$out/fig3-lbdf.md" "$out/fig3-brr.md"
