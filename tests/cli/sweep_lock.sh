#!/bin/bash
# Two `sweep --resume` on one results file (issue 41, item 8): while another
# process holds the file's lock (flock(1), as a running sweep does), a sweep
# refuses in one line and leaves the file as it was; once released, it
# completes the file with every cell once. A duplicated cell is refused on
# resume, naming it. Deterministic: the helper holds the lock until told.
set -u
fp=$1
tmp=$(mktemp -d)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
command -v flock >/dev/null || { echo "flock(1) (util-linux) is missing: skipped"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
grid=(--models squeezenet1_1 --buffers 128KB --budget 20 --seeds 1,2 --searches ls --proposers none --no-exact)

"$fp" sweep "${grid[@]}" --quiet -o "$tmp/full.jsonl" || bad "sweep exited $?"
[ "$(wc -l <"$tmp/full.jsonl")" -eq 2 ] || bad "want 2 cells: $(cat "$tmp/full.jsonl")"
head -1 "$tmp/full.jsonl" >"$tmp/r.jsonl"
cp "$tmp/r.jsonl" "$tmp/before"

mkfifo "$tmp/go"
flock -x "$tmp/r.jsonl" -c "touch '$tmp/locked'; read _ < '$tmp/go'" &
holder=$!
for _ in $(seq 100); do [ -e "$tmp/locked" ] && break; sleep 0.1; done
[ -e "$tmp/locked" ] || bad "the helper did not take the lock"
"$fp" sweep "${grid[@]}" --resume --quiet -o "$tmp/r.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "r.jsonl: another sweep is writing to it" "$tmp/err" ||
  bad "sweep --resume beside a locked run: status $rc, $(cat "$tmp/err")"
cmp -s "$tmp/r.jsonl" "$tmp/before" || bad "the refused run changed the file"
"$fp" sweep "${grid[@]}" --cell 1 --quiet -o "$tmp/r.jsonl" >"$tmp/out" 2>"$tmp/err" &&
  bad "sweep --cell beside a locked run was not refused"
echo >"$tmp/go"
wait "$holder"
holder=

"$fp" sweep "${grid[@]}" --resume --quiet -o "$tmp/r.jsonl" 2>"$tmp/err" || bad "resume after release: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/r.jsonl")" -eq 2 ] || bad "resumed file: $(cat "$tmp/r.jsonl")"

# Cell 0 twice: --resume refuses, naming the cell and both lines.
cat "$tmp/r.jsonl" <(head -1 "$tmp/r.jsonl") >"$tmp/d.jsonl"
cp "$tmp/d.jsonl" "$tmp/before"
"$fp" sweep "${grid[@]}" --resume --quiet -o "$tmp/d.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q "d.jsonl:3: cell 0 '.*' is also on line 1" "$tmp/err" || bad "a duplicated cell: status $rc, $(cat "$tmp/err")"
cmp -s "$tmp/d.jsonl" "$tmp/before" || bad "the refused resume changed the file"

[ $fail -eq 0 ] && echo "sweep lock checks passed"
exit $fail
