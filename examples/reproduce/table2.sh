#!/bin/bash
# Table II: DRAM and maximum buffer usage on EfficientNet-B3, ResNet-152 and
# DeepLabV3+MobileNetV3 under LBDF with a 256 KB buffer: LS, NSGA-II and RS,
# each with the random split and with GNNE, PG and RG guiding the tree
# splitter, at the paper's budget of 5,000 plans with population K = 10.
# Reduced (default): budget 60, 1 seed. --full: budget 5000, 10 seeds.
# GNNExplainer optimizes a mask per group (100 Adam steps through the GNN),
# and random search meets thousands of distinct invalid groups, so RS + GNNE
# dominates the run time (390 s for 5,000 plans on EfficientNet-B3 on 2 cores,
# about 9 minutes per seed for the three networks).
. "$(dirname "$0")/common.sh"
settings 60 1 5000 10
fp compare --model efficientnet_b3,resnet152,deeplabv3_mobilenet_v3_large --scheme lbdf \
  --buffer 256KB --search ls,nsga2,rs --proposer none,gnne,pg,rg --budget $budget --seeds $seeds \
  --population 10 "${thread_args[@]}" -o "$out/table2.md" --csv "$out/table2.csv" \
  --json "$out/table2.json"
cat "$out/table2.md"
