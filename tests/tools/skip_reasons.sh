#!/bin/sh
# Prints why each skipped test was skipped. ctest shows only "(Skipped)" and
# its --output-on-failure leaves a skipped test's output out, so the build's
# CTestCustom.cmake runs this after every ctest run (CTEST_CUSTOM_POST_TEST)
# over the log of that run. A test that skips prints one line
# starting "skipped: " and exits 77 (tests/CMakeLists.txt); such a line in a
# test's output is its reason. Prints nothing when no test gave one; never
# fails (a post-test command that fails would fail the ctest run).
#
#   tests/tools/skip_reasons.sh BUILD_DIR
# While ctest runs its post-test command the log it is writing is still
# LastTest.log.tmp (renamed to LastTest.log when ctest exits); LastTest.log is
# read when the script is run by hand afterwards.
dir="${1:-.}/Testing/Temporary"
log=$(ls -t "$dir"/LastTest.log.tmp* "$dir"/LastTest.log 2>/dev/null | head -n 1)
[ -n "$log" ] && [ -r "$log" ] || exit 0
awk '
  # "12/99 Test: name" opens a test; its output sits between "Output:" (and
  # a rule) and "<end of output>".
  /^[0-9]+\/[0-9]+ Test: / { name = $3; out = 0; next }
  /^Output:$/ { out = 1; next }
  /^<end of output>$/ { out = 0; next }
  out && /^skipped: / {
    if (!n++) print "Skipped tests, with the reason each gave:"
    print "  " name ": " substr($0, 10)
  }
' "$log"
exit 0
