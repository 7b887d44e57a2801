#!/usr/bin/env bash
# bench-logchanges.sh — `innoscope log changes` against `innoscope log stats` over the same
# window of a real crash's log (from its checkpoint to its end), whole process, wall and CPU
# time (user + sys); issue 34 asks for log changes within 3x log stats over a 600 MB window.
#
#   bash scripts/bench-logchanges.sh [DIR [MIB]]   DIR caches the crash (default
#                                                  /tmp/innoscope-bench-changes), MIB of redo
#                                                  written before the kill (default 600)
#
# The crash is the lab's bench-log one (scripts/mariadb-lab.sh bench-log: bulk INSERT and UPDATE
# of 100,000 rows a round until MIB of redo are written, then SIGKILL); the window log changes and
# log stats read is what lies after the checkpoint the server last wrote, which both print.
# ROUNDS=N sets the rounds (default 3; the median is taken).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench-changes}
mib=${2:-600}
bash scripts/mariadb-lab.sh install
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash scripts/mariadb-lab.sh bench-log "$dir" "$mib"; }
cat "$dir/bench.txt"
data=$dir/crashed
bin=/tmp/innoscope-bench-changes-bin
go build -o $bin .
$bin log stats --json "$data" | sed -n 's/.*"\(checkpoint_lsn\|end_lsn\|bytes\)": \([0-9]*\).*/\1 \2/p' | head -3
cat "$data/ib_logfile0" >/dev/null # warm the page cache for every run alike
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
timed() {
  local f
  f=$(mktemp)
  /usr/bin/time -f '%e %U %S' -o "$f" "$@" >/dev/null
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$f"
  rm -f "$f"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
sw=() sc=() cw=() cc=()
for round in $(seq "${ROUNDS:-3}"); do
  read -r w c < <(timed $bin log stats "$data"); sw+=("$w"); sc+=("$c")
  read -r w c < <(timed sh -c "$bin log changes '$data' >/dev/null"); cw+=("$w"); cc+=("$c")
  printf 'round %d: log stats %s s (cpu %s s), log changes %s s (cpu %s s): ratio %.2f\n' \
    "$round" "${sw[-1]}" "${sc[-1]}" "${cw[-1]}" "${cc[-1]}" "$(echo "${cw[-1]} / ${sw[-1]}" | bc -l)"
done
msw=$(printf '%s\n' "${sw[@]}" | median) msc=$(printf '%s\n' "${sc[@]}" | median)
mcw=$(printf '%s\n' "${cw[@]}" | median) mcc=$(printf '%s\n' "${cc[@]}" | median)
printf 'RATIO log changes / log stats, whole process, wall: %.2f (cpu: %.2f); medians %.2f s and %.2f s\n' \
  "$(echo "$mcw / $msw" | bc -l)" "$(echo "$mcc / $msc" | bc -l)" "$mcw" "$msw"
