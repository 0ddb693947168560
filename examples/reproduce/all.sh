#!/bin/bash
# Runs every reproduce script with the same options (--full, --out DIR,
# --bin PATH, --threads T); each writes under DIR/<script name>.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=results
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
for s in table2 table3 table4 table5 fig3 fig5 metaflow dos; do
  "$here/$s.sh" --out "$out/$s" ${args[@]+"${args[@]}"} >/dev/null
done
echo "results in $out" >&2
