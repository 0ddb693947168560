#!/bin/bash
# The docs' lists of names are the registry's: the searches of docs/search.md's
# table (those of search/partition/searches.def) and the list
# docs/library.md quotes, read from `plan --help`, which prints the registry.
fp=$1 src=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
help=$("$fp" plan --help) || bad "plan --help exited $?"
table=$(printf '%s\n' "$help" | sed -n '/^searches:/,$p' | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p' | tr '\n' ' ')
docs=$(sed -n 's/^| `\([a-z0-9_]*\)` | .*/\1/p' "$src/docs/search.md" | head -20 | tr '\n' ' ')
[ -n "$table" ] || bad "no searches in plan --help"
# docs/search.md lists layer before greedy (the reference first): compare as sets, then the count.
[ "$(echo $table | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(echo $docs | tr ' ' '\n' | sort | tr '\n' ' ')" ] \
  || bad "docs/search.md lists '$docs', the search table '$table'"
list=$(printf '%s\n' "$help" | sed -n 's/^  --search NAME *\(.*\) (default.*/\1/p')
[ -n "$list" ] || bad "no --search list in plan --help"
tr '\n' ' ' <"$src/docs/library.md" | tr -s ' ' | grep -qF "(use $list)" \
  || bad "docs/library.md does not quote the registry's list '(use $list)'"
exit $fail
