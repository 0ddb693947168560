#!/bin/bash
# The GSO rule filter's commands: gso-dataset and gso-train round trip on a
# small set (deterministic for the seed with any thread count), optimize
# --filter with the shipped models, bench gso, and one-line errors with exit
# status 2 or 1 on bad input.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# one line on stderr, nothing on stdout, non-zero exit
expect_error() {
  local what=$1 pattern=$2
  shift 2
  if "$@" >"$tmp/o" 2>"$tmp/e"; then
    echo "FAIL: $what is accepted"; fail=1; return
  fi
  if [ "$(wc -l <"$tmp/e")" -ne 1 ] || ! grep -q -- "$pattern" "$tmp/e" || [ -s "$tmp/o" ]; then
    echo "FAIL: $what: expected one line matching '$pattern'"; cat "$tmp/e" "$tmp/o"; fail=1
  fi
}

"$fp" gso-dataset --rules builtin --graphs 60 --train 45 --networks alexnet,inception_e,resnet18 --seed 3 \
  -o "$tmp/d1" >"$tmp/out1" 2>/dev/null || fail=1
"$fp" gso-dataset --rules builtin --graphs 60 --train 45 --networks alexnet,inception_e,resnet18 --seed 3 \
  --threads 2 -o "$tmp/d2" >/dev/null 2>&1 || fail=1
cmp -s "$tmp/d1" "$tmp/d2" || { echo "FAIL: gso-dataset differs with 2 threads"; fail=1; }
grep -q '^gso-dataset: 60 graphs (45 train, 15 test), .* 22 rules' "$tmp/out1" ||
  { echo "FAIL: gso-dataset summary"; cat "$tmp/out1"; fail=1; }

"$fp" gso-train --data "$tmp/d1" --epochs 3 -o "$tmp/w1" >"$tmp/t1" || fail=1
"$fp" gso-train --data "$tmp/d1" --epochs 3 --threads 2 -o "$tmp/w2" >/dev/null || fail=1
cmp -s "$tmp/w1" "$tmp/w2" || { echo "FAIL: gso-train differs with 2 threads"; fail=1; }
grep -q '^conv_relu ' "$tmp/t1" && grep -q '^test graphs 15: mean graph accuracy' "$tmp/t1" ||
  { echo "FAIL: gso-train report"; cat "$tmp/t1"; fail=1; }
"$fp" gso-train --data "$tmp/d1" --kind lr -o "$tmp/wl" >/dev/null || fail=1

# the filter on optimize: the trained file, then the shipped models
"$fp" optimize --rules builtin --model resnet18 --input-size 32 --budget 20 --filter gso --gso-weights "$tmp/w1" >"$tmp/f" || fail=1
grep -q '^filter gso: [0-9]* of 21 rules kept' "$tmp/f" || { echo "FAIL: optimize --filter line"; cat "$tmp/f"; fail=1; }
"$fp" optimize --rules builtin --model resnet18 --input-size 32 --budget 20 --filter gso -o "$tmp/o.json" >"$tmp/f" || fail=1
if ! grep -q '^filter gso: 3 of 21 rules kept (85.7% of the search space removed) in .* ms: conv_relu merge_convs enlarge_conv$' "$tmp/f"; then
  echo "FAIL: shipped gso filter on resnet18"; cat "$tmp/f"; fail=1
fi
grep -q '"rules_searched": \["conv_relu", "merge_convs", "enlarge_conv"\]' "$tmp/o.json" ||
  { echo "FAIL: rules_searched in the JSON"; fail=1; }
# same optimum as without the filter (kernels line)
"$fp" optimize --rules builtin --model resnet18 --input-size 32 --budget 20 >"$tmp/n" || fail=1
[ "$(grep '^kernels' "$tmp/f")" = "$(grep '^kernels' "$tmp/n")" ] || { echo "FAIL: filtered optimum differs"; fail=1; }
"$fp" optimize --rules builtin --model resnet18 --input-size 32 --budget 20 --filter lr >/dev/null || fail=1
"$fp" plan --model resnet18 --input-size 32 --optimize backtrack --optimize-budget 5 --optimize-filter gso --quiet \
  >"$tmp/p" || fail=1
grep -q '^filter gso: 3 of 21 rules kept' "$tmp/p" || { echo "FAIL: plan --optimize-filter"; cat "$tmp/p"; fail=1; }

"$fp" bench gso --models alexnet --no-search --repeat 1 --rules builtin >"$tmp/b" || fail=1
grep -q '^| alexnet | 20 | [0-9.]* | [0-9.]* | 2 | 2 | 2 | 21 | 0\.000 | 0\.000 |$' "$tmp/b" || { echo "FAIL: bench gso row"; cat "$tmp/b"; fail=1; }

# bad input
expect_error "gso-train without --data" "--data FILE is required" "$fp" gso-train -o "$tmp/x"
expect_error "gso-train without -o" "-o FILE is required" "$fp" gso-train --data "$tmp/d1"
expect_error "gso-train on a missing file" "$tmp/missing" "$fp" gso-train --data "$tmp/missing" -o "$tmp/x"
expect_error "gso-train on a weight file" "not a fusionplan GSO dataset" "$fp" gso-train --data "$tmp/w1" -o "$tmp/x"
expect_error "gso-train --kind" "unknown --kind 'svm'" "$fp" gso-train --data "$tmp/d1" --kind svm -o "$tmp/x"
expect_error "gso-train --dropout 2" "--dropout" "$fp" gso-train --data "$tmp/d1" --dropout 2 -o "$tmp/x"
expect_error "gso-dataset without -o" "-o FILE is required" "$fp" gso-dataset --graphs 5
expect_error "gso-dataset --graphs 0" "--graphs" "$fp" gso-dataset --graphs 0 -o "$tmp/x"
expect_error "gso-dataset --train > --graphs" "--train" "$fp" gso-dataset --graphs 5 --train 9 -o "$tmp/x"
expect_error "gso-dataset unknown network" "nonet" "$fp" gso-dataset --rules builtin --graphs 5 --networks nonet -o "$tmp/x"
[ -e "$tmp/x" ] && { echo "FAIL: a failed command left an output file"; fail=1; }
expect_error "optimize --filter bogus" "unknown --filter 'bogus'" "$fp" optimize --model alexnet --filter bogus
expect_error "optimize --gso-weights without --filter" "needs --filter" "$fp" optimize --model alexnet --gso-weights "$tmp/w1"
expect_error "a dataset as weights" "not a fusionplan GSO weight file" "$fp" optimize --model alexnet --filter gso --gso-weights "$tmp/d1"
expect_error "LR weights for --filter gso" "holds lr models" "$fp" optimize --model alexnet --filter gso --gso-weights "$tmp/wl"
head -c 300 "$tmp/w1" >"$tmp/short"
expect_error "truncated weights" "short" "$fp" optimize --model alexnet --filter gso --gso-weights "$tmp/short"
expect_error "plan --optimize-filter alone" "needs --optimize" "$fp" plan --model alexnet --optimize-filter gso
FUSIONPLAN_WEIGHTS_DIR="$tmp" expect_error "no shipped weights" "gso-gcn-generated.bin not found" "$fp" optimize --model alexnet --filter gso
# GSO's Figure 7 setting: OCGGS's exact searches on ResNet blocks keep the optimum with the filter.
"$fp" bench gso --models resnet_blocks:2,resnet_blocks:4 --search dpp --repeat 1 --taso-file "$src/../shared/data/taso/graph_subst.pb" >"$tmp/fig7" 2>&1 || fail=1
[ "$(grep -c '^| resnet_blocks:[24] | .* | yes / yes |$' "$tmp/fig7")" = 2 ] ||
  { echo "FAIL: bench gso on resnet_blocks with dpp"; cat "$tmp/fig7"; fail=1; }
expect_error "bench gso resnet_blocks:0" "blocks must be 1 to 64" "$fp" bench gso --models resnet_blocks:0
exit $fail
