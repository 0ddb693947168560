#!/bin/sh
# The DRAM-, energy- and latency-optimal plans side by side (docs/results/energy.md
# "Objectives"): for each network and buffer, the exact planner under each
# objective on the edge NPU of examples/hw/npu-edge-lpddr4.xml, then every plan's
# DRAM bytes (all ops), energy and latency, and what each optimum loses on the
# other two measures. Prints a markdown table; the CPU seconds of each run are in
# the last three columns (user + system, one thread).
#
#   examples/reproduce/objectives.sh [FUSIONPLAN] > table.md
set -e
FP=${1:-build/fusionplan}
HW=examples/hw/npu-edge-lpddr4.xml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '| network | buffer | plan | DRAM all (MB) | energy (uJ) | latency (us) | groups | CPU s |\n'
printf '|---|---|---|---:|---:|---:|---:|---:|\n'
for net in "resnet18" "mobilenet_v2" "squeezenet1_1" "inception_v3" \
           "bert_base --layers 1 --seq-len 128" "gpt2 --layers 1 --seq-len 256"; do
  for buf in 128KB 256KB 512KB 1MB 2MB; do
    for obj in dram energy latency; do
      # shellcheck disable=SC2086
      if ! /usr/bin/time -f '%U %S' -o "$TMP/t" "$FP" plan --model $net --hw "$HW" --buffer "$buf" \
        --search exact --objective "$obj" --threads 1 --quiet -o "$TMP/$obj.json" > /dev/null 2> "$TMP/err"; then
        printf '| %s | %s | %s-optimal | %s |\n' "${net%% *}" "$buf" "$obj" "$(tail -1 "$TMP/err" | cut -c1-120)"
        continue
      fi
      python3 - "$TMP/$obj.json" "$TMP/t" "${net%% *}" "$buf" "$obj" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u, s = open(sys.argv[2]).read().split()[-2:]
m = d["metrics"]
print("| %s | %s | %s-optimal | %.3f | %.1f | %.1f | %d | %.2f |" % (
    sys.argv[3], sys.argv[4], sys.argv[5], m["dram_all"] / 1e6, m["energy_pj"]["total"] / 1e6,
    m["latency_s"] * 1e6, m["groups"], float(u) + float(s)))
PY
    done
  done
done
