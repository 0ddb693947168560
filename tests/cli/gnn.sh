#!/bin/bash
# The GNN commands end to end on a small dataset: dataset, train (same bytes
# for 1 and 2 threads), explain with every explainer that needs no extra
# training, the shipped weights as a tree-splitter proposer, and bad weight
# files rejected with one line.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$fp" dataset --scheme lbdf --scale 0.02 --seed 3 -o "$tmp/small.ds" >"$tmp/ds.out" 2>&1 || bad "dataset exited $?"
grep -q '^all ' "$tmp/ds.out" || bad "dataset prints no valid-fraction summary"
for t in 1 2; do
  "$fp" train --dataset "$tmp/small.ds" --scheme lbdf --epochs 2 --seed 1 --threads $t \
    -o "$tmp/gnn-$t.bin" >"$tmp/train-$t.out" 2>&1 || bad "train ($t threads) exited $?"
done
cmp -s "$tmp/gnn-1.bin" "$tmp/gnn-2.bin" || bad "training differs between 1 and 2 threads"
grep -q '^test .*accuracy' "$tmp/train-1.out" || bad "train prints no test accuracy"

w="$src/explain/weights/gnn-lbdf.bin"
for e in saliency occlusion gnne; do
  "$fp" explain --model resnet18 --buffer 64KB --group 4-8 --weights "$w" --explainer $e \
    --dot "$tmp/$e.dot" >"$tmp/$e.out" 2>&1 || bad "explain --explainer $e exited $?"
  grep -q 'p(valid)' "$tmp/$e.out" || bad "explain $e prints no prediction"
  grep -q 'digraph' "$tmp/$e.dot" || bad "explain $e wrote no DOT"
done
"$fp" plan --model resnet18 --buffer 128KB --search local --budget 200 --split tree --proposer saliency \
  --quiet >"$tmp/plan.out" 2>&1 || bad "plan with the saliency proposer exited $?"
grep -q 'tree-saliency' "$tmp/plan.out" || bad "plan summary lacks the explainer splitter"

# GNNExplainer's settings ride on its name; a bad one is one line naming it.
"$fp" explain --model resnet18 --buffer 64KB --group 4-8 --weights "$w" --explainer gnne:epochs=5:patience=2 \
  >"$tmp/gs.out" 2>&1 || bad "explain --explainer gnne:epochs=5:patience=2 exited $?"
grep -q 'p(valid)' "$tmp/gs.out" || bad "explain with gnne settings prints no prediction"
"$fp" plan --model resnet18 --buffer 128KB --search local --budget 50 --split tree \
  --proposer gnne:epochs=0 --quiet >"$tmp/o" 2>"$tmp/e" || bad "plan --proposer gnne:epochs=0 exited $?"
"$fp" plan --model resnet18 --buffer 128KB --search local --budget 50 --split tree \
  --proposer gnne:epoch=5 --quiet >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "unknown parameter 'epoch'" "$tmp/e" \
  && [ ! -s "$tmp/o" ] || bad "plan --proposer gnne:epoch=5: exit $rc, $(cat "$tmp/e")"

# The shipped PGExplainer and RG-Explainer weights load and split.
for e in pg rg; do
  "$fp" split --model mobilenet_v2 --buffer 64KB --group 10-30 --proposer $e >"$tmp/split-$e" 2>&1 \
    || bad "split --proposer $e exited $?: $(tail -n 1 "$tmp/split-$e")"
  grep -q "^proposer  $e" "$tmp/split-$e" || bad "split --proposer $e shows no proposal"
done

# A weight file that is not one, and a GNN trained for the other scheme.
echo "not weights" >"$tmp/bad.bin"
"$fp" explain --model resnet18 --group 4-8 --weights "$tmp/bad.bin" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] || bad "bad weights: $(cat "$tmp/e")"
"$fp" explain --model resnet18 --scheme brr --group 4-8 --weights "$w" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && grep -q 'lbdf' "$tmp/e" || bad "scheme mismatch: $(cat "$tmp/e")"
exit $fail
