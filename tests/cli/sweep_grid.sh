#!/bin/bash
# fusionplan sweep and sweep-report: the cell list and order, the report
# equals compare's (with a fresh memo per run) on the same grid, --cell lines
# equal the full run's, --resume after a kill in the middle of a cell (and a
# truncated last line) gives the complete file with no duplicate, and bad
# input is one line with exit 2. The MPI run is tests/cli/sweep_mpi.sh.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# The lines without their wall times (always the last members).
strip() { sed -E 's/, "wall_s": .*$//' "$@"; }

grid=(--models mobilenet_v2 --buffers 128KB --budget 150 --seeds 2 --seed 4 --searches ls,rs
      --proposers none,attrib)

# --list: the documented order, seed fastest, then proposer, search.
"$fp" sweep "${grid[@]}" --list >"$tmp/list" || bad "sweep --list exited $?"
cat >"$tmp/want_list" <<'EOF'
0	mobilenet_v2/lbdf/131072/local/none/4
1	mobilenet_v2/lbdf/131072/local/none/5
2	mobilenet_v2/lbdf/131072/local/attrib/4
3	mobilenet_v2/lbdf/131072/local/attrib/5
4	mobilenet_v2/lbdf/131072/random/none/4
5	mobilenet_v2/lbdf/131072/random/none/5
6	mobilenet_v2/lbdf/131072/random/attrib/4
7	mobilenet_v2/lbdf/131072/random/attrib/5
EOF
cmp -s "$tmp/list" "$tmp/want_list" || bad "sweep --list: $(cat "$tmp/list")"

# The full run: one line per cell, in cell order.
"$fp" sweep "${grid[@]}" -o "$tmp/r.jsonl" 2>"$tmp/err" || bad "sweep exited $?: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/r.jsonl")" -eq 8 ] || bad "results have $(wc -l <"$tmp/r.jsonl") lines, expected 8"
[ "$(grep -c '^sweep: \[[1-8]/8\] cell' "$tmp/err")" -eq 8 ] || bad "progress lines: $(cat "$tmp/err")"
sed -E 's/^\{"cell": ([0-9]+), "key": "([^"]*)".*/\1\t\2/' "$tmp/r.jsonl" >"$tmp/cells"
cmp -s "$tmp/cells" "$tmp/want_list" || bad "results are not in cell order: $(cat "$tmp/cells")"
grep -q '"version": "[0-9.]*"' "$tmp/r.jsonl" && grep -q '"graph_hash": "[0-9a-f]\{16\}"' "$tmp/r.jsonl" \
  || bad "lines lack the version or graph hash"

# sweep-report prints what compare prints for the same runs (each with a
# fresh cost memo), wall times aside; the budget curves are identical.
"$fp" sweep-report "$tmp/r.jsonl" --format csv --curves "$tmp/sc" >"$tmp/rep.csv" \
  || bad "sweep-report exited $?"
"$fp" compare --model mobilenet_v2 --buffer 128KB --budget 150 --seeds 2 --seed 4 --search ls,rs \
  --proposer none,attrib --fresh-memo --threads 1 --quiet --format csv --curves "$tmp/cc" >"$tmp/cmp.csv" \
  || bad "compare exited $?"
cut -d, -f1-18 "$tmp/rep.csv" >"$tmp/a"
cut -d, -f1-18 "$tmp/cmp.csv" >"$tmp/b"
[ "$(wc -l <"$tmp/a")" -eq 6 ] && cmp -s "$tmp/a" "$tmp/b" \
  || bad "sweep-report differs from compare: $(diff "$tmp/a" "$tmp/b")"
cmp -s "$tmp/sc.csv" "$tmp/cc.csv" || bad "budget curves differ from compare's"
# With the split gap measured on both sides, too.
"$fp" sweep "${grid[@]}" --split-gap --quiet -o "$tmp/sg.jsonl" || bad "sweep --split-gap exited $?"
"$fp" sweep-report "$tmp/sg.jsonl" --format csv | cut -d, -f1-18 >"$tmp/a_sg" || bad "sweep-report (split gap)"
"$fp" compare --model mobilenet_v2 --buffer 128KB --budget 150 --seeds 2 --seed 4 --search ls,rs \
  --proposer none,attrib --fresh-memo --threads 1 --quiet --format csv --split-gap | cut -d, -f1-18 >"$tmp/b_sg"
cmp -s "$tmp/a_sg" "$tmp/b_sg" && [ "$(cut -d, -f18 "$tmp/a_sg" | grep -c '^1\.[0-9]')" -eq 2 ] \
  || bad "sweep --split-gap differs from compare --split-gap: $(diff "$tmp/a_sg" "$tmp/b_sg")"
grep -q '<svg' "$tmp/sc.svg" && grep -q 'exact optimum' "$tmp/sc.svg" || bad "no SVG budget curve"
"$fp" sweep-report "$tmp/r.jsonl" >"$tmp/rep.md" || bad "sweep-report md exited $?"
grep -q '^### mobilenet_v2, LBDF, 128 KB buffer, budget 150, seeds 4-5, k 3' "$tmp/rep.md" \
  && grep -q '^| exact | - | 2.279 |' "$tmp/rep.md" && grep -q 'a fresh cost memo; 1 thread\.' "$tmp/rep.md" \
  || bad "sweep-report markdown: $(head -5 "$tmp/rep.md")"

# --cell I gives the full run's line (up to the wall time), in any order
# and split over files; a cell found twice counts once in the report.
: >"$tmp/cells.jsonl"
for i in 7 3 5 1 0 6 2 4; do
  "$fp" sweep "${grid[@]}" --cell $i >>"$tmp/cells.jsonl" || bad "sweep --cell $i exited $?"
done
for i in 0 1 2 3 4 5 6 7; do
  a=$(grep "^{\"cell\": $i," "$tmp/r.jsonl" | strip)
  b=$(grep "^{\"cell\": $i," "$tmp/cells.jsonl" | strip)
  [ -n "$a" ] && [ "$a" = "$b" ] || bad "cell $i: --cell line differs from the full run's"
done
head -3 "$tmp/cells.jsonl" >"$tmp/part1.jsonl"
tail -n +3 "$tmp/cells.jsonl" >"$tmp/part2.jsonl"   # line 3 in both files
"$fp" sweep-report "$tmp/part2.jsonl" "$tmp/part1.jsonl" --format csv >"$tmp/rep2.csv" \
  || bad "sweep-report of two files exited $?"
cut -d, -f1-18 "$tmp/rep2.csv" | cmp -s - "$tmp/a" || bad "report of the --cell lines differs"
# --cell -o appends; with --resume a cell already there is not run again.
"$fp" sweep "${grid[@]}" --cell 2 -o "$tmp/one.jsonl" || bad "--cell -o exited $?"
"$fp" sweep "${grid[@]}" --cell 2 -o "$tmp/one.jsonl" --resume --quiet || bad "--cell --resume exited $?"
[ "$(wc -l <"$tmp/one.jsonl")" -eq 1 ] || bad "--cell --resume ran the cell again"

# An incomplete table is left out, named on stderr, exit 1; the complete
# ones are still written. With no complete table at all: exit 2.
"$fp" sweep --models mobilenet_v2 --buffers 256KB --budget 50 --seeds 1 --searches ls --proposers none \
  --quiet -o "$tmp/other.jsonl" || bad "second table exited $?"
{ head -5 "$tmp/r.jsonl"; cat "$tmp/other.jsonl"; } >"$tmp/inc.jsonl"
"$fp" sweep-report "$tmp/inc.jsonl" >"$tmp/inc.md" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'table left out: random + none seed 5 is missing' "$tmp/err" \
  && [ "$(grep -c '^### ' "$tmp/inc.md")" -eq 1 ] && grep -q '^### mobilenet_v2, LBDF, 256 KB' "$tmp/inc.md" \
  || bad "incomplete table: exit $rc, $(cat "$tmp/err")"
head -5 "$tmp/r.jsonl" >"$tmp/inc.jsonl"
"$fp" sweep-report "$tmp/inc.jsonl" >/dev/null 2>&1
[ $? -eq 2 ] || bad "no complete table: expected exit 2"

# --resume after a kill in the middle of a cell, then a truncated last line
# (a kill while writing): the complete file, equal to an uninterrupted run,
# no duplicate. Cells of about a second keep the kill inside a cell.
slow=(--models mobilenet_v2 --buffers 128KB --budget 3000 --seeds 1-6 --searches rs --proposers none
      --no-exact --quiet)
"$fp" sweep "${slow[@]}" -o "$tmp/ref.jsonl" || bad "reference run exited $?"
"$fp" sweep "${slow[@]}" -o "$tmp/k.jsonl" &
pid=$!
for _ in $(seq 1 2400); do
  [ -s "$tmp/k.jsonl" ] && [ "$(wc -l <"$tmp/k.jsonl")" -ge 2 ] && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
n=$(wc -l <"$tmp/k.jsonl")
[ "$n" -ge 2 ] && [ "$n" -lt 6 ] || bad "the kill did not land inside the run ($n lines)"
"$fp" sweep "${slow[@]}" -o "$tmp/k.jsonl" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- '--resume' "$tmp/err" || bad "a second run without --resume was not refused"
"$fp" sweep "${slow[@]}" -o "$tmp/k.jsonl" --resume || bad "--resume exited $?"
[ "$(wc -l <"$tmp/k.jsonl")" -eq 6 ] || bad "resumed file has $(wc -l <"$tmp/k.jsonl") lines"
cmp -s <(strip "$tmp/k.jsonl") <(strip "$tmp/ref.jsonl") || bad "resumed file differs from the uninterrupted run"
# Now half of the last line is lost, as when killed while writing it.
head -n 5 "$tmp/k.jsonl" >"$tmp/t.jsonl"
tail -n 1 "$tmp/k.jsonl" | head -c 200 >>"$tmp/t.jsonl"
"$fp" sweep "${slow[@]}" --cell 0 -o "$tmp/t.jsonl" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'truncated line' "$tmp/err" || bad "--cell appended after a truncated line"
"$fp" sweep-report "$tmp/t.jsonl" >/dev/null 2>"$tmp/err"
grep -q 'last line is truncated' "$tmp/err" || bad "sweep-report did not name the truncated line"
"$fp" sweep "${slow[@]}" -o "$tmp/t.jsonl" --resume || bad "--resume after a truncated line exited $?"
cmp -s <(strip "$tmp/t.jsonl") <(strip "$tmp/ref.jsonl") || bad "truncated line: resumed file differs"
[ "$(cut -d, -f2 "$tmp/t.jsonl" | sort | uniq -d | wc -l)" -eq 0 ] || bad "duplicate cells after resume"

# Two outputs naming one file are refused before anything is written
# (--curves T writes T.csv: with --csv T.csv the tables were lost).
( cd "$tmp" && "$fp" sweep-report r.jsonl --csv dup.csv --curves dup >/dev/null 2>"$tmp/err" )
[ $? -eq 2 ] && grep -q "both name 'dup.csv'" "$tmp/err" && [ ! -e "$tmp/dup.csv" ] && [ ! -e "$tmp/dup.svg" ] \
  || bad "sweep-report --csv dup.csv --curves dup: $(cat "$tmp/err")"

# The journal a killed MPI run leaves (FILE.pending: lines that finished
# before an earlier cell) is written in place by --resume, not redone (the
# lines keep their wall times), its truncated last line is redone, and it is
# removed once the file is complete; a fresh run drops a stale journal.
head -n 2 "$tmp/r.jsonl" >"$tmp/j.jsonl"
{ sed -n 2p "$tmp/r.jsonl"; sed -n 5p "$tmp/r.jsonl"; sed -n 7p "$tmp/r.jsonl"
  sed -n 8p "$tmp/r.jsonl" | head -c 100; } >"$tmp/j.jsonl.pending"
"$fp" sweep "${grid[@]}" -o "$tmp/j.jsonl" --resume 2>"$tmp/err" || bad "--resume with a journal exited $?"
[ "$(grep -c '^sweep: \[' "$tmp/err")" -eq 4 ] || bad "--resume with a journal ran: $(cat "$tmp/err")"
cmp -s <(strip "$tmp/j.jsonl") <(strip "$tmp/r.jsonl") || bad "--resume with a journal differs from the full run"
[ "$(sed -n 5p "$tmp/j.jsonl")" = "$(sed -n 5p "$tmp/r.jsonl")" ] \
  && [ "$(sed -n 7p "$tmp/j.jsonl")" = "$(sed -n 7p "$tmp/r.jsonl")" ] || bad "journal lines were redone"
[ ! -e "$tmp/j.jsonl.pending" ] || bad "the journal outlived the complete file"
sed -n 3p "$tmp/r.jsonl" >"$tmp/s.jsonl.pending"
"$fp" sweep "${grid[@]}" -o "$tmp/s.jsonl" --quiet || bad "fresh run beside a stale journal exited $?"
[ ! -e "$tmp/s.jsonl.pending" ] || bad "a fresh run kept a stale journal"
echo '{"cell": 1, "key": "another grid"}' >"$tmp/o.jsonl.pending"
"$fp" sweep "${grid[@]}" -o "$tmp/o.jsonl" --resume --quiet 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'o.jsonl.pending:1: cell 1' "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] \
  || bad "a journal of another grid: $(cat "$tmp/err")"

# ONNX networks come after the built-in ones; a cell that fails (a corrupt
# file) is a line with the error, the others run, the exit status is 1, and
# sweep-report leaves that table out.
onnx=$2/tests/data/onnx
"$fp" sweep --models resnet18 --onnx "$onnx/tiny.onnx,$onnx/corrupt.onnx" --input-shape 'x=1,3,16,16' \
  --searches ls --proposers none --seeds 1 --budget 30 --quiet -o "$tmp/onnx.jsonl" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q '1 cell failed' "$tmp/err" || bad "sweep with a corrupt ONNX: exit $rc, $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/onnx.jsonl")" -eq 3 ] || bad "onnx results: $(wc -l <"$tmp/onnx.jsonl") lines"
grep -q '^{"cell": 1, "key": "[^"]*/tiny.onnx/lbdf/262144/local/none/1", "model": "[^"]*/tiny.onnx", "onnx": true, "graph_hash": "[0-9a-f]\{16\}"' \
  "$tmp/onnx.jsonl" || bad "the ONNX cell's line: $(sed -n 2p "$tmp/onnx.jsonl" | cut -c1-200)"
grep -q '"input_shape": "x=1,3,16,16"' "$tmp/onnx.jsonl" || bad "the ONNX cell does not record its input shape"
sed -n 3p "$tmp/onnx.jsonl" | grep -q '"error": "[^"]*corrupt.onnx: not a valid ONNX model' \
  || bad "the failed cell's line: $(sed -n 3p "$tmp/onnx.jsonl")"
"$fp" sweep-report "$tmp/onnx.jsonl" >"$tmp/onnx.md" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(grep -c '^### ' "$tmp/onnx.md")" -eq 2 ] && grep -q 'corrupt.onnx.*table left out' "$tmp/err" \
  || bad "sweep-report with a failed cell: $(cat "$tmp/err")"
# --onnx alone runs only the files.
[ "$("$fp" sweep --onnx "$onnx/tiny.onnx" --searches ls --proposers none --seeds 1 --list | wc -l)" -eq 1 ] \
  || bad "--onnx alone should run only the ONNX file"

# A grid file gives the same cells as the flags.
cat >"$tmp/grid.json" <<'EOF'
{"models": ["mobilenet_v2"], "buffers": ["128KB"], "searches": ["ls", "rs"],
 "proposers": ["none", "attrib"], "seeds": {"first": 4, "count": 2}, "budget": 150}
EOF
"$fp" sweep --grid "$tmp/grid.json" --list | cmp -s - "$tmp/want_list" || bad "grid file --list"
"$fp" sweep --grid "$tmp/grid.json" --cell 6 | strip | cmp -s - <(grep '^{"cell": 6,' "$tmp/r.jsonl" | strip) \
  || bad "grid file cell 6 differs"

# Bad input: one line, exit 2, no results file.
expect_usage() {
  "$fp" sweep "$@" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || bad "sweep $* exited $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "sweep $*: error is not one line: $(cat "$tmp/err")"
  [ ! -e "$tmp/never.jsonl" ] || bad "sweep $* wrote a results file"
}
expect_usage --models nosuchnet -o "$tmp/never.jsonl"
expect_usage --searches dfs -o "$tmp/never.jsonl"
expect_usage --proposers oracle -o "$tmp/never.jsonl"
expect_usage --buffers 12XB -o "$tmp/never.jsonl"
expect_usage --seeds 3-1 -o "$tmp/never.jsonl"
expect_usage --seeds 0 -o "$tmp/never.jsonl"
expect_usage "${grid[@]}"
expect_usage "${grid[@]}" --cell 8
expect_usage "${grid[@]}" --cell 0 --resume
expect_usage "${grid[@]}" --list --mpi
echo '{"model": ["resnet18"]}' >"$tmp/bad.json"
expect_usage --grid "$tmp/bad.json" -o "$tmp/never.jsonl"
expect_usage --grid "$tmp/nosuch.json" -o "$tmp/never.jsonl"
expect_usage --onnx "$tmp/nosuch.onnx" -o "$tmp/never.jsonl"
expect_usage --onnx "$onnx/tiny.onnx" --input-shape 'x=1,3,a' -o "$tmp/never.jsonl"
# Results of another grid are not resumed into.
"$fp" sweep --models mobilenet_v2 --buffers 128KB --budget 150 --seeds 3 --seed 4 --searches ls,rs \
  --proposers none,attrib -o "$tmp/r.jsonl" --resume 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'another grid' "$tmp/err" || bad "resume into another grid's file: $(cat "$tmp/err")"
# sweep-report: a malformed line before the last names the file and line.
{ head -2 "$tmp/r.jsonl"; echo '{"cell": 2,'; tail -1 "$tmp/r.jsonl"; } >"$tmp/mal.jsonl"
"$fp" sweep-report "$tmp/mal.jsonl" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'mal.jsonl:3:' "$tmp/err" || bad "malformed line: $(cat "$tmp/err")"
"$fp" sweep-report >/dev/null 2>&1
[ $? -eq 2 ] || bad "sweep-report without a file"
"$fp" sweep-report "$tmp/nosuch.jsonl" >/dev/null 2>&1
[ $? -eq 2 ] || bad "sweep-report of a missing file"

"$fp" sweep --help | grep -q -- '--resume' || bad "sweep --help"
exit $fail
