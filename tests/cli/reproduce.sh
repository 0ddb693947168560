#!/bin/bash
# The reproduce scripts of examples/reproduce run to completion at their
# default (reduced) settings and leave their tables, CSV, JSON and charts.
# Skipped in sanitizer builds: the scripts are long runs of code the other
# tests already cover there.
set -u
fp=$1
src=$2
[ "${LF_SANITIZED:-OFF}" = ON ] && { echo "skipped: sanitizer build"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# JSON checks: tests/tools/json_check (C over jansson); without it the test
# runs its other checks and then exits 77 (skipped), saying why.
jc=${LF_JSON_CHECK:-}
json_skip=""
[ -n "$jc" ] || json_skip="JSON checks need tests/tools/json_check, built only when jansson (libjansson-dev) is found"

for s in table2 table3 table4 table5 fig3 fig5 metaflow; do
  t0=$(date +%s)
  bash "$src/examples/reproduce/$s.sh" --bin "$fp" --out "$tmp/$s" >"$tmp/$s.out" 2>"$tmp/$s.err" \
    || bad "$s.sh exited $?: $(tail -3 "$tmp/$s.err")"
  echo "$s: $(( $(date +%s) - t0 )) s"
  grep -q "^fusionplan " "$tmp/$s/commands.txt" || bad "$s.sh recorded no command"
done

# MetaFlow's Figure 10: one row per alpha, both charts with one line
[ "$(grep -c '^| 1\.' "$tmp/metaflow/fig10.md")" -eq 6 ] || bad "metaflow fig10.md rows"
for c in fig10-cost fig10-time; do
  [ "$(grep -o '<polyline' "$tmp/metaflow/$c.svg" 2>/dev/null | wc -l)" = 1 ] || bad "metaflow $c.svg"
done

# One table per network (and scheme): 3 in Table II, 10 in Tables III and IV.
tables() { grep -c '^### ' "$1"; }
[ "$(tables "$tmp/table2/table2.md")" -eq 3 ] || bad "table2: $(tables "$tmp/table2/table2.md") tables"
[ "$(tables "$tmp/table3/table3.md")" -eq 10 ] || bad "table3: $(tables "$tmp/table3/table3.md") tables"
[ "$(tables "$tmp/table4/table4.md")" -eq 10 ] || bad "table4: $(tables "$tmp/table4/table4.md") tables"
[ "$(tables "$tmp/table5/table5.md")" -eq 1 ] || bad "table5: $(tables "$tmp/table5/table5.md") tables"
# Table II: 3 searches x 4 splitters and the optimum, per network.
[ "$(grep -c ',exact,' "$tmp/table2/table2.csv")" -eq 3 ] || bad "table2.csv optimum rows"
[ "$(grep -c ',local,none,' "$tmp/table2/table2.csv")" -eq 3 ] || bad "table2.csv LS rows"
# Table II through `sweep` on 2 MPI processes and `sweep-report`: the same
# figures as compare's (every column but the wall time), when built with MPI.
if "$fp" --version | grep -q '^MPI sweeps: built' && command -v mpirun >/dev/null; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
    bash "$src/examples/reproduce/table2.sh" --bin "$fp" --out "$tmp/t2mpi" --mpi 2 >"$tmp/t2mpi.out" \
    2>"$tmp/t2mpi.err" || bad "table2.sh --mpi 2 exited $?: $(tail -3 "$tmp/t2mpi.err")"
  cmp -s <(cut -d, -f1-18 "$tmp/table2/table2.csv") <(cut -d, -f1-18 "$tmp/t2mpi/table2.csv") \
    || bad "table2.sh --mpi 2 differs from compare: $(diff <(cut -d, -f1-18 "$tmp/table2/table2.csv") <(cut -d, -f1-18 "$tmp/t2mpi/table2.csv") | head -4)"
fi
if [ -n "$jc" ]; then
  for f in table2/table2 table3/table3 table4/table4 table5/table5; do
    "$jc" parse "$tmp/$f.json" || bad "$f.json is not JSON"
  done
  [ "$("$jc" length "$tmp/table2/table2.json" .)" -eq 3 ] || bad "table2.json: not 3 tables"
fi
for svg in fig5/fig5a.svg fig5/fig5b.svg fig5/fig5c.svg fig3/fig3-lbdf.svg fig3/fig3-brr.svg; do
  grep -q '^<svg' "$tmp/$svg" 2>/dev/null || bad "no chart $svg"
done
grep -q 'plans proposed' "$tmp/fig5/fig5b.svg" || bad "fig5b has no x axis title"
[ "$(wc -l <"$tmp/fig5/fig5a.csv")" -gt 100 ] || bad "fig5a.csv is short"
if [ $fail -eq 0 ] && [ -n "$json_skip" ]; then echo "skipped: $json_skip"; exit 77; fi
exit $fail
