#!/bin/bash
# Table IV: as Table III with random search: MobileNetV2, VGG16, ResNet-50,
# ResNet-18 and SqueezeNet under BRR and LBDF, 128 KB, budget 2,000 plans.
# Reduced (default): budget 100, 1 seed. --full: budget 2000, 10 seeds.
. "$(dirname "$0")/common.sh"
settings 100 1 2000 10
fp compare --model mobilenet_v2,vgg16,resnet50,resnet18,squeezenet1_0 --scheme brr,lbdf \
  --buffer 128KB --search rs --proposer none,gnne,pg,rg --budget $budget --seeds $seeds \
  --split-gap "${thread_args[@]}" -o "$out/table4.md" --csv "$out/table4.csv" --json "$out/table4.json"
cat "$out/table4.md"
