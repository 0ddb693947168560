#!/bin/bash
# Fig. 5: best DRAM against the number of plans proposed, (a) SqueezeNet
# under BRR with LS, (b) MobileNetV2 under LBDF with LS, (c) VGG16 under LBDF
# with RS, 128 KB buffer, each with the random split and GNNE, PG and RG.
# One run per seed gives the whole curve: the best DRAM after n plans is the
# result of the same search with budget n (see docs/experiments.md).
# Reduced (default): budget 500, 2 seeds. --full: budget 5000, 10 seeds.
. "$(dirname "$0")/common.sh"
settings 500 2 5000 10
run() { # panel model scheme search
  fp compare --model "$2" --scheme "$3" --buffer 128KB --search "$4" --proposer none,gnne,pg,rg \
    --budget $budget --seeds $seeds "${thread_args[@]}" --curves "$out/fig5$1" \
    -o "$out/fig5$1.md"
}
run a squeezenet1_0 brr ls
run b mobilenet_v2 lbdf ls
run c vgg16 lbdf rs
to_png
cat "$out"/fig5?.md
