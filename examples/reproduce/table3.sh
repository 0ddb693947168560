#!/bin/bash
# Table III: DRAM with local search on MobileNetV2, VGG16, ResNet-50,
# ResNet-18 and SqueezeNet under BRR and LBDF with a 128 KB buffer, the
# random split against GNNE, PG and RG, budget 2,000 plans, K = 10.
# Reduced (default): budget 300, 2 seeds. --full: budget 2000, 10 seeds.
. "$(dirname "$0")/common.sh"
settings 300 2 2000 10
fp compare --model mobilenet_v2,vgg16,resnet50,resnet18,squeezenet1_0 --scheme brr,lbdf \
  --buffer 128KB --search ls --proposer none,gnne,pg,rg --budget $budget --seeds $seeds \
  --population 10 --split-gap "${thread_args[@]}" -o "$out/table3.md" --csv "$out/table3.csv" \
  --json "$out/table3.json"
cat "$out/table3.md"
