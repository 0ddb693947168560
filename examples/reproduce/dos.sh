#!/bin/bash
# DOS ("Accelerate DNN Inference by Inter-Operator Parallelism", ICLR 2020
# submission; IOS, MLSys 2021) under the analytic stage latency of a V100's
# roofline (examples/hw/gpu-v100.xml: 15.7 TFLOP/s, 900 GB/s, 5 us a launch):
#  Figure 4: sequential, greedy (wavefront, at most 10 streams) and DOS
#            (r 3, s 8, concurrent and merged stages) on Inception-v3,
#            RandWire, SqueezeNet, NasNet-A when it is built in, and any
#            further networks named on the command line
#            (dos.sh [options] NAME...), batch 1; one SVG per network.
#  Table 2:  Inception-v3 schedules specialised for batch 1, 8 and 16, each
#            run at every batch (fusionplan schedule --evaluate).
# There is no reduced setting: the whole script takes seconds.
# --measured (needs a CUDA build and a GPU): the same with stage latencies
#            timed on the GPU (--latency measured, concurrent stages only),
#            each schedule also run end to end (measured ms beside the
#            predicted); minutes, most of it NasNet-A's search.
set -eu
# Network names and --measured are ours; the other options go to common.sh.
extra=()
pass=()
measured=0
while [ $# -gt 0 ]; do
  case $1 in
    --out | --bin | --threads | --budget | --seeds) pass+=("$1" "${2:-}"); shift ;;
    --measured) measured=1 ;;
    -*) pass+=("$1") ;;
    *) extra+=("$1") ;;
  esac
  shift
done
set -- ${pass[@]+"${pass[@]}"}
. "$(dirname "$0")/common.sh"
hw="$root/examples/hw/gpu-v100.xml"
latency=()
if [ $measured = 1 ]; then
  if ! "$bin" --version | grep -q '^GPU 0:'; then
    echo "dos: --measured needs a CUDA build of fusionplan and a visible GPU ($bin --version lists none)" >&2
    exit 2
  fi
  latency=(--latency measured)
fi
nets=(inception_v3 randwire squeezenet1_0)
if "$bin" schedule --model nasnet_a --part-size 1 >/dev/null 2>&1; then nets+=(nasnet_a); fi
for n in ${extra[@]+"${extra[@]}"}; do
  case " ${nets[*]} " in *" $n "*) ;; *) nets+=("$n") ;; esac
done

# The paper's V100 figures (ms, batch 1; IOS README §4.2.1: sequential,
# greedy, IOS-Both) for the networks it has.
paper() {
  case $1 in
    inception_v3) echo "6.51 | 4.62 | 4.03" ;;
    randwire) echo "8.49 | 6.27 | 6.02" ;;
    nasnet_a) echo "22.95 | 16.78 | 16.04" ;;
    squeezenet*) echo "0.86 | 0.98 | 0.73" ;;
    *) echo "- | - | -" ;;
  esac
}
lat() { sed -n "s/^$1: \([0-9.]*\) ms.*/\1/p" "$2"; }
run_ms() { sed -n "s/^  $1 *predicted .* measured *\([0-9.]*\) ms.*/\1/p" "$2"; }
{
  if [ $measured = 1 ]; then
    echo "| network | units | sequential ms | greedy ms | DOS ms | DOS search s | run end to end: sequential, greedy, DOS ms | paper seq ms | paper greedy ms | paper IOS ms |"
    echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"
  else
    echo "| network | units | sequential ms | greedy ms | DOS ms | greedy speed-up | DOS speed-up | DOS search s | paper seq ms | paper greedy ms | paper IOS ms |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  fi
  for m in "${nets[@]}"; do
    fp schedule --model "$m" --hw "$hw" ${latency[@]+"${latency[@]}"} -o "$out/$m.json" --svg "$out/$m.svg" >"$out/$m.txt"
    s=$(lat sequential "$out/$m.txt") g=$(lat greedy "$out/$m.txt") d=$(lat dos "$out/$m.txt")
    units=$(sed -n 's/.*ops, \([0-9]*\) scheduling units.*/\1/p' "$out/$m.txt")
    t=$(sed -n 's/^DOS:.*search \([0-9.]*\) s$/\1/p' "$out/$m.txt")
    if [ $measured = 1 ]; then
      e="$(run_ms sequential "$out/$m.txt"), $(run_ms greedy "$out/$m.txt"), $(run_ms dos "$out/$m.txt")"
      awk -v m="$m" -v u="$units" -v s="$s" -v g="$g" -v d="$d" -v t="$t" -v e="$e" -v p="$(paper "$m")" \
        'BEGIN { printf "| %s | %s | %.3f | %.3f | %.3f | %s | %s | %s |\n", m, u, s, g, d, t, e, p }'
    else
      awk -v m="$m" -v u="$units" -v s="$s" -v g="$g" -v d="$d" -v t="$t" -v p="$(paper "$m")" \
        'BEGIN { printf "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s |\n", m, u, s, g, d, s / g, s / d, t, p }'
    fi
  done
} >"$out/fig4.md"
cat "$out/fig4.md"

batches=(1 8 16)
for b in "${batches[@]}"; do
  fp schedule --model inception_v3 --hw "$hw" --batch "$b" ${latency[@]+"${latency[@]}"} -o "$out/inception_v3-b$b.json" \
    >"$out/inception_v3-b$b.txt"
done
{
  echo "| run at batch \\ specialised for | 1 | 8 | 16 |"
  echo "|---|---:|---:|---:|"
  for run in "${batches[@]}"; do
    row="| $run"
    for opt in "${batches[@]}"; do
      fp schedule --model inception_v3 --hw "$hw" --batch "$run" ${latency[@]+"${latency[@]}"} \
        --evaluate "$out/inception_v3-b$opt.json" >"$out/eval-$run-$opt.txt"
      row="$row | $(sed -n 's/^evaluated: .* here: \([0-9.]*\) ms.*/\1/p' "$out/eval-$run-$opt.txt")"
    done
    echo "$row |"
  done
} >"$out/table2.md"
cat "$out/table2.md"
to_png
