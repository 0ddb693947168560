# Shared by the reproduce scripts: options, the binary, the results folder,
# and PNG copies of the SVG charts where a converter is installed.
#
#   --full        the paper's settings (budget, networks, 10 seeds); slow
#   --out DIR     results folder (default: results/<script name> under the
#                 current directory)
#   --bin PATH    the fusionplan binary (default: $FUSIONPLAN, else
#                 build/fusionplan of this checkout)
#   --threads T   OpenMP threads per search (default: all cores)
#   --budget N, --seeds K
#                 override the budget or the number of seeds of either setting
#   --mpi N       (table2.sh) run the grid through `mpirun -np N fusionplan
#                 sweep --mpi` and `sweep-report` instead of `compare`
#                 (resumable: run it again to finish a killed run; as root,
#                 Open MPI wants OMPI_ALLOW_RUN_AS_ROOT=1 and
#                 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment)
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
name=$(basename "$0" .sh)
full=0
out="results/$name"
bin=${FUSIONPLAN:-$root/build/fusionplan}
threads=0
budget_override=
seeds_override=
mpi=0
while [ $# -gt 0 ]; do
  case $1 in
    --full) full=1 ;;
    --out) out=$2; shift ;;
    --bin) bin=$2; shift ;;
    --threads) threads=$2; shift ;;
    --budget) budget_override=$2; shift ;;
    --seeds) seeds_override=$2; shift ;;
    --mpi) mpi=$2; shift ;;
    -h|--help)
      sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
      exit 0 ;;
    *) echo "$name: unknown option '$1' (use --full, --out DIR, --bin PATH, --threads T, --budget N, --seeds K, --mpi N)" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -x "$bin" ]; then
  echo "$name: no fusionplan binary at $bin (build first: .ci/setup, or pass --bin)" >&2
  exit 2
fi
mkdir -p "$out"
thread_args=()
[ "$threads" = 0 ] || thread_args=(--threads "$threads")

# settings REDUCED_BUDGET REDUCED_SEEDS FULL_BUDGET FULL_SEEDS: sets $budget
# and $seeds from --full and the overrides.
settings() {
  if [ $full = 1 ]; then budget=$3 seeds=$4; else budget=$1 seeds=$2; fi
  [ -z "$budget_override" ] || budget=$budget_override
  [ -z "$seeds_override" ] || seeds=$seeds_override
}

# Runs fusionplan with the given arguments, recording the command line and
# the wall time in $out/commands.txt.
fp() {
  local t0 t1
  echo "fusionplan $*" >>"$out/commands.txt"
  t0=$(date +%s)
  "$bin" "$@"
  t1=$(date +%s)
  echo "  ($((t1 - t0)) s on $(nproc) cores)" >>"$out/commands.txt"
}

# PNG copies of every SVG in $out, when rsvg-convert or ImageMagick is there.
to_png() {
  local svg
  for svg in "$out"/*.svg; do
    [ -e "$svg" ] || continue
    if command -v rsvg-convert >/dev/null; then
      rsvg-convert "$svg" -o "${svg%.svg}.png"
    elif command -v magick >/dev/null; then
      magick "$svg" "${svg%.svg}.png"
    fi
  done
}

: >"$out/commands.txt"
echo "$name: $([ $full = 1 ] && echo full || echo reduced) settings, results in $out" >&2
