#!/bin/bash
# MetaFlow (Jia et al., SysML 2019) under our analytic roofline cost (V100):
#  Table 3: backtracking (alpha 1.05) against exhaustive search on AlexNet,
#           VGG16, Inception-E (13 nodes) and ResNet-18: same optimum? times.
#  Table 2: FLOPs, bytes moved and kernel launches before and after the
#           optimizer on Inception-v3, SqueezeNet and ResNet-34.
#  Fig. 10: best cost and search time as alpha varies (Inception-v3, split),
#           as fig10.md and the charts fig10-cost.svg and fig10-time.svg.
# Reduced (default): backtracking budget 300, exhaustive budget 50,000.
# --full: backtracking budget 1000, exhaustive budget 500,000.
. "$(dirname "$0")/common.sh"
settings 300 1 1000 1
ebudget=$([ $full = 1 ] && echo 500000 || echo 50000)
hw="$root/examples/hw/gpu-v100.xml"
fp bench subst --models alexnet,vgg16,inception_e13,resnet18 --hw "$hw" --budget "$budget" \
  --enum-budget "$ebudget" >"$out/table3.md"
cat "$out/table3.md"
{
  echo "| network | search | time before (us) | after | GFLOPs before | after | MB before | after | kernels before | after | steps | search s |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for m in inception_v3 squeezenet1_0 resnet34; do
    fp optimize --model "$m" --search split --hw "$hw" --budget "$budget" -o "$out/$m.json" >"$out/$m.txt"
    awk -v m="$m" '
      /^time \(us\)/ {t0=$3; t1=$4} /^GFLOPs/ {f0=$2; f1=$3} /^MB moved/ {b0=$3; b1=$4}
      /^kernels/ {k0=$2; k1=$3} /^applied sequence/ {s=$3}
      /^search:/ {match($0, /search [0-9.]+ s/); st=substr($0, RSTART+7, RLENGTH-9)}
      END {printf "| %s | split | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, t0, t1, f0, f1, b0, b1, k0, k1, s, st}
    ' "$out/$m.txt"
  done
} >"$out/table2.md"
cat "$out/table2.md"
{
  echo "| alpha | time after (us) | graphs expanded | search s |"
  echo "|---:|---:|---:|---:|"
  for a in 1.0 1.01 1.02 1.05 1.1 1.2; do
    fp optimize --model inception_v3 --search split --hw "$hw" --budget "$budget" --alpha "$a" >"$out/alpha-$a.txt"
    awk -v a="$a" '/^time \(us\)/ {t1=$4} /^search:/ {e=$2; match($0, /search [0-9.]+ s/); st=substr($0, RSTART+7, RLENGTH-9)}
      END {printf "| %s | %s | %s | %s |\n", a, t1, e, st}' "$out/alpha-$a.txt"
  done
} >"$out/fig10.md"
cat "$out/fig10.md"
fp chart "$out/fig10.md" --x alpha --y "time after (us)" --title "Inception-v3, split: best cost as alpha varies" \
  -o "$out/fig10-cost.svg" >/dev/null
fp chart "$out/fig10.md" --x alpha --y "search s" --title "Inception-v3, split: search time as alpha varies" \
  -o "$out/fig10-time.svg" >/dev/null
to_png
