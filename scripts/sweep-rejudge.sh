#!/usr/bin/env bash
# sweep-rejudge.sh FAILDIR [WORK] — judge a crash the sweep kept (fail-SEED/) again with the
# current build: diagnose and recover its crashed/ into B, start the real server on B and compare
# with the server's own recovery (A) the sweep recorded. Exit 0 when B is judged as the sweep
# would call ok, 1 otherwise.
#
# The kept crash names its external directory by absolute path (the .isl files and the log), so
# the evidence is first copied to WORK (default /tmp/sweep-rejudge) and, in a private mount
# namespace (unshare -m, needs root), the copy is mounted over the original path: nothing the
# run writes reaches FAILDIR.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
fail=$(readlink -f "$1") work=${2:-/tmp/sweep-rejudge}
if [ -z "${SWEEP_REJUDGE_NS:-}" ]; then
  mkdir -p "$work/bin"
  (cd "$root" && PATH="$PATH:/usr/local/go/bin" go build -o "$work/bin/innoscope" .)
  rm -rf "${work:?}/$(basename "$fail")"
  cp -a --sparse=always "$fail" "$work/"
  exec unshare -m --propagation private env SWEEP_REJUDGE_NS=1 "$0" "$@"
fi
mount --bind "$work/$(basename "$fail")" "$fail"
# shellcheck source=mariadb-lab.sh
source "$root/scripts/mariadb-lab.sh" functions
set +e
w=$(dirname "$fail")/seed-${fail##*-}
[ -e "$w" ] || w=$fail
mapfile -t opts <"$w/options.txt"
grep -q "a_retried_with_larger_buffer_pool=1" "$w/result.txt" 2>/dev/null && opts+=(--innodb-buffer-pool-size=256M)
rm -rf "$w/B" "$w/B.external" "$w/B.txt" "$w/B.err" "$w/B.checks" "$w/B.checksums"
"$work/bin/innoscope" diagnose "$w/crashed" >"$w/diagnose.out" 2>&1; echo "diagnose exit $?"
"$work/bin/innoscope" recover "$w/crashed" --into "$w/B" >"$w/recover.out" 2>&1; rc=$?
echo "recover exit $rc"
# Exit 1: the copy is made and tables will fail on it (recover says which); judged like 0.
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then tail -3 "$w/recover.out"; exit 1; fi
(verdict_of "$w/B" "$w/B" "${opts[@]}") >"$w/B.harness" 2>&1
for f in $(find "$w/B" -name lab.pid); do kill -9 "$(cat "$f")" 2>/dev/null; done
grep -E "^(started|crash_recovery|tables_ok|errors)=" "$w/B.txt" | tr '\n' ' '; echo
extra=$(comm -23 <(sed -n 's/^.*\[ERROR\] //p' "$w/B.err" | sed "s#$w/B.external/[0-9]*/#$w/ext/#g" | LC_ALL=C sort -u) \
  <(sed -n 's/^.*\[ERROR\] //p' "$w/A.err" | LC_ALL=C sort -u))
ok=1
[ "$(grep -c '^started=1' "$w/B.txt")" = 1 ] && [ "$(grep -c '^crash_recovery=0' "$w/B.txt")" = 1 ] || ok=0
if [ -n "$extra" ]; then echo "errors only on B:"; echo "$extra"; ok=0; fi
cmp -s "$w/A.checks" "$w/B.checks" || { echo "CHECK TABLE differs:"; diff "$w/A.checks" "$w/B.checks"; ok=0; }
cmp -s "$w/A.checksums" "$w/B.checksums" || { echo "CHECKSUM TABLE differs:"; diff "$w/A.checksums" "$w/B.checksums"; ok=0; }
if [ "$ok" = 1 ]; then echo "ok"; exit 0; fi
echo "wrong copy"; exit 1
