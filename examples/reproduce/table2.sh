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
# With --mpi N the grid runs as `sweep` cells on N MPI processes (one
# thread per cell; resumable), then `sweep-report` prints the same tables.
settings 60 1 5000 10
if [ "$mpi" -gt 0 ]; then
  command -v mpirun >/dev/null || { echo "table2: --mpi needs mpirun (Open MPI)" >&2; exit 2; }
  echo "mpirun -np $mpi fusionplan sweep --mpi ..." >>"$out/commands.txt"
  t0=$(date +%s)
  mpirun -np "$mpi" "$bin" sweep --mpi --models efficientnet_b3,resnet152,deeplabv3_mobilenet_v3_large \
    --schemes lbdf --buffers 256KB --searches ls,nsga2,rs --proposers none,gnne,pg,rg \
    --budget $budget --seeds $seeds --population 10 --quiet -o "$out/table2.jsonl" --resume
  echo "  ($(( $(date +%s) - t0 )) s on $mpi processes)" >>"$out/commands.txt"
  fp sweep-report "$out/table2.jsonl" -o "$out/table2.md" --csv "$out/table2.csv" --json "$out/table2.json"
else
  fp compare --model efficientnet_b3,resnet152,deeplabv3_mobilenet_v3_large --scheme lbdf \
    --buffer 256KB --search ls,nsga2,rs --proposer none,gnne,pg,rg --budget $budget --seeds $seeds \
    --population 10 "${thread_args[@]}" -o "$out/table2.md" --csv "$out/table2.csv" \
    --json "$out/table2.json"
fi
cat "$out/table2.md"
