#!/bin/bash
# fusionplan sweep --mpi: `mpirun -np 2` writes the same results file as one
# process, line for line in cell order, up to the wall times, also when it
# resumes a file cut in the middle. Skipped (77) when fusionplan was built
# without MPI, after checking that --mpi then fails with one clear line.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
strip() { sed -E 's/, "wall_s": .*$//' "$@"; }

# The corrupt ONNX file makes 8 cells fail: their lines carry the error under MPI too.
grid=(--models mobilenet_v2,resnet18 --onnx "$2/tests/data/onnx/corrupt.onnx" --buffers 128KB --budget 100
      --seeds 2 --searches ls,rs --proposers none,attrib)

if ! "$fp" --version | grep -q '^MPI sweeps: built'; then
  "$fp" sweep "${grid[@]}" --mpi -o "$tmp/m.jsonl" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] && grep -q 'built without MPI' "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] \
    || { echo "FAIL: --mpi without MPI: exit $rc, $(cat "$tmp/err")"; exit 1; }
  echo "skipped: fusionplan was built without MPI"
  exit 77
fi
command -v mpirun >/dev/null || { echo "FAIL: built with MPI but mpirun is not on PATH"; exit 1; }
# Open MPI refuses to run as root without these (CI runs as root); its own
# allocations at exit are not ours to fix, so no leak check on the MPI runs.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
mpi_env=()
[ "${LF_SANITIZED:-OFF}" = ON ] && mpi_env=(-x ASAN_OPTIONS=detect_leaks=0)
mpi() { mpirun --oversubscribe "${mpi_env[@]}" -np "$@"; }

"$fp" sweep "${grid[@]}" --quiet -o "$tmp/serial.jsonl" 2>/dev/null
[ $? -eq 1 ] || bad "serial run: expected exit 1 (8 failed cells)"
[ "$(wc -l <"$tmp/serial.jsonl")" -eq 24 ] || bad "serial run has $(wc -l <"$tmp/serial.jsonl") lines"
[ "$(grep -c '"error": ' "$tmp/serial.jsonl")" -eq 8 ] || bad "serial run: not 8 failed cells"

mpi 2 "$fp" sweep "${grid[@]}" --quiet --mpi -o "$tmp/mpi.jsonl" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q '8 cells failed' "$tmp/out" || bad "mpirun -np 2: expected exit 1 naming 8 failed cells: $(cat "$tmp/out")"
cmp -s <(strip "$tmp/serial.jsonl") <(strip "$tmp/mpi.jsonl") \
  || bad "mpirun -np 2 differs from the serial run: $(diff <(strip "$tmp/serial.jsonl") <(strip "$tmp/mpi.jsonl") | head -5)"

# Progress comes from rank 0 only, one line per cell.
mpi 2 "$fp" sweep "${grid[@]}" --mpi -o "$tmp/p.jsonl" >"$tmp/out" 2>&1
[ "$(grep -c '^sweep: \[' "$tmp/out")" -eq 24 ] || bad "progress lines: $(cat "$tmp/out")"

# Resume under MPI: the first 5 lines and half of the sixth.
{ head -n 5 "$tmp/serial.jsonl"; sed -n 6p "$tmp/serial.jsonl" | head -c 300; } >"$tmp/r.jsonl"
mpi 2 "$fp" sweep "${grid[@]}" --quiet --mpi -o "$tmp/r.jsonl" --resume >"$tmp/out" 2>&1
[ $? -eq 1 ] || bad "mpirun --resume: expected exit 1 (failed cells): $(cat "$tmp/out")"
cmp -s <(strip "$tmp/serial.jsonl") <(strip "$tmp/r.jsonl") || bad "mpirun --resume differs from the serial run"

# A complete run leaves no journal; a resumed one writes the journal's lines
# (cells that finished before an earlier one when the run was killed) in
# place instead of handing them out again, and removes the journal.
[ ! -e "$tmp/mpi.jsonl.pending" ] || bad "a complete MPI run left its journal"
head -n 3 "$tmp/serial.jsonl" >"$tmp/j.jsonl"
{ sed -n 10p "$tmp/serial.jsonl"; sed -n 20p "$tmp/serial.jsonl"; sed -n 24p "$tmp/serial.jsonl"
  sed -n 12p "$tmp/serial.jsonl" | head -c 80; } >"$tmp/j.jsonl.pending"
mpi 2 "$fp" sweep "${grid[@]}" --mpi -o "$tmp/j.jsonl" --resume >"$tmp/out" 2>&1
[ "$(grep -c '^sweep: \[' "$tmp/out")" -eq 18 ] || bad "mpirun --resume with a journal ran: $(cat "$tmp/out")"
cmp -s <(strip "$tmp/serial.jsonl") <(strip "$tmp/j.jsonl") || bad "mpirun --resume with a journal differs"
for l in 10 20 24; do
  [ "$(sed -n ${l}p "$tmp/j.jsonl")" = "$(sed -n ${l}p "$tmp/serial.jsonl")" ] || bad "journal line $l was redone"
done
[ ! -e "$tmp/j.jsonl.pending" ] || bad "the journal outlived the complete file"

# A run that is refused on rank 0 (the file holds results) stops every rank.
mpi 2 "$fp" sweep "${grid[@]}" --mpi -o "$tmp/mpi.jsonl" >"$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q -- '--resume' "$tmp/out" || bad "mpirun into a full file: exit $rc, $(cat "$tmp/out")"
exit $fail
