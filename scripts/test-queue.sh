#!/usr/bin/env bash
# test-queue.sh — runs one package's tests as a queue of units, JOBS at a time (what test.sh does
# for cmd/, whose tests start real servers one after another and would leave a core idle).
#
#   scripts/test-queue.sh PKGDIR [JOBS]
#
# A unit is one _test.go file's Test/Fuzz/Example functions, run by the package's test binary
# (built once) in a process of its own, with the package directory as its working directory, as
# `go test` runs it. The heaviest files (HEAVY, by the times of earlier runs) start first, so the
# queue does not end on one long unit; the others follow in name order. Each unit's output is
# kept; the failed units' outputs are printed at the end. Exit 1 when any unit failed.
# JOBS defaults to the number of CPUs; QUEUE_LIST=1 prints the units and runs nothing. Tests in different units must not share anything but
# the lab cache (internal/lab locks each scenario while it is made).
set -euo pipefail
pkg=${1:?usage: test-queue.sh PKGDIR [JOBS]}
jobs=${2:-$(nproc)}
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/innoscope-queue-XXXXXX")
trap 'rm -rf "$work"' EXIT

HEAVY="recover_lab_test.go adopt_lab_test.go adopt_servers_lab_test.go report_lab_test.go diagnose_lab_test.go ddlcut_alter_lab_test.go
sweep2206_lab_test.go sweep_ddlundo_lab_test.go sweep_zip_lab_test.go rows_asof_lab_test.go
diagroot_lab_test.go salvage_lab_test.go rows_lab_test.go rows_deleted_lab_test.go
salvage_log_lab_test.go paths_lab_test.go upgrade105_lab_test.go sweep_instant_lab_test.go"

# units: HEAVY first (those that exist), then every other test file, each with its functions.
files=$(
  for f in $HEAVY; do if [ -f "$pkg/$f" ]; then echo "$f"; fi; done
  (cd "$pkg" && ls -- *_test.go) | grep -vxF -f <(printf '%s\n' $HEAVY) || true
)
for f in $files; do
  names=$(sed -n 's/^func \(\(Test\|Fuzz\|Example\)[A-Za-z0-9_]*\)(.*/\1/p' "$pkg/$f" | paste -sd'|' -)
  if [ -n "$names" ]; then printf '%s %s\n' "$f" "$names"; fi
done >"$work/units"
if [ -n "${QUEUE_LIST:-}" ]; then cat "$work/units"; exit 0; fi
go test -c -o "$work/pkg.test" "./$pkg"

run_unit() {
  local f=$1 names=$2 start rc=0
  start=$(date +%s)
  (cd "$root/$pkg" && "$work/pkg.test" -test.count=1 -test.timeout=30m -test.run "^($names)\$") \
    >"$work/$f.log" 2>&1 || rc=$?
  local secs=$(($(date +%s) - start))
  if [ $rc -eq 0 ]; then
    printf 'ok    %-44s %4ds\n' "$f" "$secs"
  else
    printf 'FAIL  %-44s %4ds (exit %d)\n' "$f" "$secs" "$rc"
    echo "$f" >>"$work/failed"
  fi
}
export -f run_unit
export root pkg work

start=$(date +%s)
xargs -P "$jobs" -L 1 bash -c 'run_unit "$@"' _ <"$work/units"
n=$(wc -l <"$work/units")
if [ -s "$work/failed" ]; then
  while read -r f; do
    echo "=== output of $pkg/$f"
    cat "$work/$f.log"
  done <"$work/failed"
  echo "FAIL  $pkg: $(wc -l <"$work/failed") of $n units failed ($(($(date +%s) - start))s, $jobs at a time)"
  exit 1
fi
echo "ok    $pkg: $n units passed ($(($(date +%s) - start))s, $jobs at a time)"
