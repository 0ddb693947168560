#!/bin/bash
# The README's "Using it" lines run as written (issue 47): every command line
# of the sh blocks of that section, read from README.md itself so the README
# cannot drift from what works, runs in order, each in a bash of its own
# (so a line cannot rely on an earlier cd or export), in a scratch copy of the
# repository root (its entries linked, build/ the tested build, HOME and the
# cache inside it), and must exit 0. A line whose comment holds a bracketed
# "[needs ...]" or "[takes ...]" (a GPU, more than 2 minutes) is listed but
# not run; the README states this rule at the top of the section. Each line
# has a hang guard of $LF_README_LINE_LIMIT s (default 600, five times the
# 2 minutes the README promises on 2 cores): a guard, not a timing check.
# Skipped in sanitizer builds: the lines are examples at Release speed, and
# their code runs under the sanitizers in the other tests.
set -u
fp=$1
src=$2
[ "${LF_SANITIZED:-OFF}" = ON ] && { echo "skipped: sanitizer build (the README's lines run in the Release build)"; exit 77; }
build=$(cd "$(dirname "$fp")" && pwd)
limit=${LF_README_LINE_LIMIT:-600}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The lines: the sh/bash blocks between "## Using it" and the next "## "
# heading; blank and comment lines dropped, a trailing backslash joins the
# next line.
awk '/^## / { u = ($0 ~ /^## Using it/); next }
     u && /^```(sh|bash)[[:space:]]*$/ { b = 1; next }
     b && /^```/ { b = 0; next }
     b {
       line = cont $0; cont = ""
       if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); next }
       sub(/^[[:space:]]+/, "", line)
       if (line != "" && line !~ /^#/) print line
     }' "$src/README.md" >"$tmp/lines"
n=$(wc -l <"$tmp/lines")
[ "$n" -ge 10 ] || bad "found only $n lines under README.md's \"## Using it\" (the section or its sh blocks moved?)"

# The scratch root: the repository's entries linked (examples/, the scripts'
# own paths resolve through the links), build/ the tested build, ../shared
# beside it as in the checkout; output files land in the scratch folder.
mkdir -p "$tmp/repo" "$tmp/home"
for e in "$src"/* "$src"/.ci; do
  name=$(basename "$e")
  [ "$name" = build ] || ln -s "$e" "$tmp/repo/$name"
done
ln -s "$build" "$tmp/repo/build"
[ -e "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$tmp/shared"
# As root, Open MPI's mpirun wants these (the README's mpirun line says so).
mpi_env=()
[ "$(id -u)" -eq 0 ] && mpi_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)

i=0
ran=0
total=0
while IFS= read -r line; do
  i=$((i + 1))
  if printf '%s\n' "$line" | grep -q '#.*\[\(needs\|takes\) '; then
    echo "not run: $line"
    continue
  fi
  t0=$(date +%s)
  (cd "$tmp/repo" && env HOME="$tmp/home" XDG_CACHE_HOME="$tmp/home/.cache" "${mpi_env[@]}" \
     timeout -k 10 "$limit" bash -c "$line") >"$tmp/out.$i" 2>&1 </dev/null
  rc=$?
  t=$(( $(date +%s) - t0 ))
  total=$((total + t))
  ran=$((ran + 1))
  if [ $rc -eq 0 ]; then
    echo "ok ${t} s: $line"
  else
    [ $rc -eq 124 ] && rc="124 (over the ${limit} s guard)"
    bad "exit $rc after ${t} s: $line"
    tail -5 "$tmp/out.$i" | sed 's/^/    /'
  fi
done <"$tmp/lines"
echo "$ran of $n README lines run in ${total} s"
[ $ran -ge 10 ] || bad "only $ran lines run"
exit $fail
