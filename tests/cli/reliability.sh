#!/bin/bash
# Issue 18's promises, from the command line: one escaped line per message,
# special output files written through (not replaced), links followed and
# modes kept, output sets all or nothing with their paths checked before
# the work, no truncated file on a write error, capped reads, precise
# reasons, and leftover temporaries cleaned.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$tmp" || exit 1
# Device nodes to write to. As root, private copies of /dev/null and
# /dev/full: a binary that replaced special files (as fusionplan once did)
# must not be able to destroy the system's ones while this test runs.
devnull=/dev/null
devfull=/dev/full
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null \
  && { echo x >"$tmp/null"; } 2>/dev/null; then
  devnull=$tmp/null
  devfull=$tmp/full
fi

# Runs fusionplan; expects exit 2 and exactly one line on stderr containing $needle.
one_line() { # needle, args...
  local needle=$1
  shift
  "$fp" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || bad "fusionplan $*: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "fusionplan $*: stderr is not one line: $(head -c 300 "$tmp/err")"
  grep -qF -- "$needle" "$tmp/err" || bad "fusionplan $*: stderr lacks '$needle': $(head -c 300 "$tmp/err")"
  if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/err"; then bad "fusionplan $*: control characters on stderr"; fi
}

# 2. Messages: user text cannot forge a line or send terminal controls.
one_line 'fake\x1b[31m' plan --buffer $'1\nfusionplan: fake\e[31m'
grep -q '^fusionplan: fake' "$tmp/err" && bad "--buffer value forged a line"
printf '<hardware name="x"><buffer size="lots&#10;fusionplan: everything is fine"/><dram bandwidth="25.6GB/s"/></hardware>' >forge.xml
one_line 'lots\nfusionplan: everything is fine' plan --hw forge.xml
one_line "unknown command 'pl\\nan'" $'pl\nan'
printf '<hardware name="x"><!-- a -- b --><buffer size="1KB"/></hardware>' >comment.xml
one_line 'comment.xml:1: not well-formed XML' plan --hw comment.xml
grep -q '<!--' "$tmp/err" && bad "the comment is echoed: $(cat "$tmp/err")"
printf '<hardware name="\xff\xfe"/>' >bytes.xml
one_line 'bytes.xml:1:' plan --hw bytes.xml
long="$tmp/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})/$(printf 'f%.0s' {1..200})/hw.xml"
one_line 'No such file or directory' plan --hw "$long"

# 8. Precise reasons instead of "empty document".
echo "hello world" >text.xml
one_line 'not XML: the text starts with "hello world"' plan --hw text.xml
echo '{"hardware": {"buffer": "256KB"}}' >hw.json
one_line 'looks like JSON' plan --hw hw.json
one_line 'not XML' plan --hw /etc/passwd
printf '\x00\x00\xfe\xff\x00\x00\x00<' >u32.xml
one_line 'UTF-32' plan --hw u32.xml
# 9. Content after a NUL byte is refused, not ignored.
printf '<hardware name="x"><buffer size="256KB"/><dram bandwidth="25.6GB/s"/></hardware>\0junk' >nul.xml
one_line 'NUL byte' plan --hw nul.xml
# 1. 100,000 attributes: refused by the pre-check (libxml2 alone took 26 s).
{ printf '<hardware name="x"'; for i in $(seq 1 100000); do printf ' a%d="1"' "$i"; done
  printf '><buffer size="1KB"/></hardware>'; } >attrs.xml
one_line 'more than 32 attributes' plan --hw attrs.xml

# 3. -o onto special files: written through, never replaced.
"$fp" plan --model resnet18 --quiet -o "$devnull" --format json >/dev/null 2>&1 || bad "-o $devnull exited $?"
[ -c "$devnull" ] || bad "$devnull is no longer a character device"
"$fp" plan --model resnet18 --quiet -o - --format json 2>/dev/null | head -c 200 | grep -q '"fusionplan-plan"' \
  || bad "-o - does not write the plan to stdout"
mkfifo pipe
cat pipe >from-pipe &
reader=$!
"$fp" plan --model resnet18 --quiet -o pipe --format json >/dev/null 2>&1 || bad "-o FIFO exited $?"
wait $reader
[ -p pipe ] || bad "the FIFO was replaced"
grep -q '"fusionplan-plan"' from-pipe || bad "nothing came through the FIFO"
echo old >target.json
chmod 600 target.json
ln -s target.json link.json
"$fp" plan --model resnet18 --quiet -o link.json >/dev/null 2>&1 || bad "-o symlink exited $?"
[ -L link.json ] || bad "the symbolic link was replaced by a file"
grep -q '"fusionplan-plan"' target.json || bad "the link's target did not get the plan"
[ "$(stat -c %a target.json)" = 600 ] || bad "mode of the replaced file: $(stat -c %a target.json), expected 600"
# A write error names the file and says why.
one_line "cannot write $devfull: no space left on device" plan --model resnet18 --quiet -o "$devfull" --format json

# 4. Output sets: all or nothing, paths checked before the work.
one_line 'folder /nonexistent does not exist' plan --model resnet18 --search nsga2 --budget 50 -o ok.json --pareto /nonexistent/p.json
[ -e ok.json ] && bad "plan left ok.json after --pareto failed"
one_line 'no space left on device' plan --model resnet18 --search nsga2 --budget 50 --quiet -o ok.json --pareto "$devfull"
[ -e ok.json ] && bad "plan left ok.json after --pareto hit a full device"
one_line 'no space left on device' compare --model resnet18 --buffer 128KB --budget 20 --seeds 1 --search ls \
  --proposer none --no-exact --quiet -o ok.md --csv "$devfull"
[ -e ok.md ] && bad "compare left --output after --csv failed"
one_line 'folder /nonexistent does not exist' compare --model resnet18 --budget 20 --seeds 1 --search ls --proposer none \
  -o ok.md --curves /nonexistent/c
# Checked before the work: without --quiet the progress lines would come first.
one_line 'folder /nonexistent does not exist' sweep-buffer --models resnet18 --from 128KB --to 256KB --budget 20 \
  --samples 20 -o ok.csv --svg /nonexistent/x.svg
[ -e ok.csv ] && bad "sweep-buffer left --output after --svg failed"
for c in dataset train train-explainer; do
  case $c in
    dataset) args=(--scheme lbdf --scale 0.01) ;;
    train) args=(--scheme lbdf --dataset /dev/null) ;;
    train-explainer) args=(--explainer pg --weights /dev/null --dataset /dev/null) ;;
  esac
  one_line 'folder /nonexistent does not exist' "$c" "${args[@]}" -o /nonexistent/x.bin
done

# 5. explain --dot and split --dot on a write error leave no truncated file
# (a file-size limit stands in for a full disk; SIGXFSZ ignored so that the
# write fails instead of killing the process).
w="$src/explain/weights/gnn-lbdf.bin"
# (stderr goes through a pipe: the limit would stop a write to a file too)
( trap '' XFSZ; ulimit -f 0; "$fp" explain --model resnet18 --buffer 64KB --group 4-8 --weights "$w" --dot e.dot \
  2>&1 >/dev/null ) | cat >"$tmp/err"
[ -s e.dot ] && bad "explain --dot left a truncated file"
grep -q 'cannot write e.dot: file too large' "$tmp/err" || bad "explain --dot error: $(cat "$tmp/err")"
( trap '' XFSZ; ulimit -f 1; "$fp" split --model mobilenet_v2 --buffer 64KB --group 10-30 --dot s.dot ) \
  >/dev/null 2>"$tmp/err"
[ -e s.dot ] && bad "split --dot left a truncated file"
ls | grep -q '\.tmp\.' && bad "a temporary was left: $(ls)"

# 6. Unbounded reads are capped or refused at the magic (timeout: the old readers ran out of memory).
for a in "explain --model resnet18 --group 4-8 --weights /dev/zero" \
         "train --scheme lbdf --dataset /dev/zero -o never.bin" \
         "plan --search local --split tree --proposer pg --pg-weights /dev/zero -o never.json"; do
  timeout 60 "$fp" $a >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || bad "$a: exit $rc, expected 2"
  grep -q 'larger than the 64 MiB\|not a fusionplan .*file' "$tmp/err" || bad "$a: $(head -c 200 "$tmp/err")"
done
[ -e never.bin ] || [ -e never.json ] && bad "a refused command wrote its output"

# 7. A hardware file of exactly 16 MiB is read; 16 MiB + 1 byte is not.
doc='<hardware name="x"><buffer size="128KB"/><dram bandwidth="25.6GB/s"/></hardware>'
{ printf '%s' "$doc"; head -c $((16 * 1024 * 1024 - ${#doc})) /dev/zero | tr '\0' ' '; } >cap.xml
[ "$(stat -c %s cap.xml)" -eq 16777216 ] || bad "cap.xml is $(stat -c %s cap.xml) bytes"
"$fp" plan --model resnet18 --hw cap.xml --quiet 2>"$tmp/err" | grep -q '^resnet18 128 KB' \
  || bad "a 16 MiB hardware file is refused: $(cat "$tmp/err")"
printf ' ' >>cap.xml
one_line 'larger than 16 MiB' plan --hw cap.xml

# 10. A temporary left by a killed run is removed by the next write.
( exit 0 ) & dead=$!
wait $dead
touch "plan.json.tmp.$dead.0"
"$fp" plan --model resnet18 --quiet -o plan.json >/dev/null 2>&1 || bad "plan -o plan.json exited $?"
[ -e "plan.json.tmp.$dead.0" ] && bad "the dead run's temporary is still there"

exit $fail
