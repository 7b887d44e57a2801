#!/usr/bin/env bash
# bench-recover.sh — replay a crash whose log changes >= 30,000 pages with innoscope, next to the
# real mariadbd's own crash recovery of a copy of the same directory, in the same run, three
# rounds; the median of each ratio is printed.
#
#   bash scripts/bench-recover.sh [DIR [PAGES]]   DIR caches the generated crash (default
#                                                 /tmp/innoscope-bench-recover), PAGES 30000
#
# The reference is what a DBA does without innoscope: `cp -a` of the crashed directory, then
# mariadbd on the copy from its start until it answers a query (its crash recovery included).
# innoscope's is `recover --into` (its JSON gives the copy and the replay phases apart). Also
# printed: mariadbd's recovery alone (start with recovery minus the start of the recovered,
# cleanly shut down copy). Both copies are then checked: the server starts on innoscope's copy
# without crash recovery and CHECKSUM TABLE equals its own recovery's.
#
# DENSE=1 bash scripts/bench-recover.sh [DIR [MIB]]: the dense-update crash instead (scripts/mariadb-lab.sh bench-recover-dense, default
# DIR /tmp/innoscope-bench-recover-dense, 520 MiB of redo after the checkpoint, hundreds of
# records per page; issue 35's), where the server takes longest.
#
# The server's 4 GiB log (the options keep any checkpoint from intervening) is allocated in
# full; past its end of log it is zero, and the script punches it into a hole once (the server
# and both copies read zeros there all the same) to keep the disk use at what the log holds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
lab=scripts/mariadb-lab.sh
bash $lab install
if [ -n "${DENSE:-}" ]; then
  dir=${1:-/tmp/innoscope-bench-recover-dense}
  [ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash $lab bench-recover-dense "$dir" "${2:-520}"; }
else
  dir=${1:-/tmp/innoscope-bench-recover}
  [ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash $lab bench-recover "$dir" "${2:-30000}"; }
fi
cat "$dir/bench.txt"
read -r -a opts <<<"$(tr '\n' ' ' <"$dir/options.txt")"
# INNOSCOPE_BENCH_BIN: a binary to time instead of this tree's (e.g. an older build);
# INNOSCOPE_BENCH_OLD: one to time against it, alternated (see the end).
bin=${INNOSCOPE_BENCH_BIN:-$dir/innoscope-bin} # beside the crash: not shared with another tree's run
[ -n "${INNOSCOPE_BENCH_BIN:-}" ] || go build -o "$bin" .
log=$dir/crashed/ib_logfile0
end=$($bin log stats --json "$log" | sed -n 's/.*"stop_offset": \([0-9]*\).*/\1/p')
keep=$(((end / 1048576 + 1) * 1048576))
if [ "$(stat -c %s "$log")" -gt "$keep" ] && [ "$(du -k "$log" | cut -f1)" -gt $((keep / 1024 + 4096)) ]; then
  fallocate --punch-hole --offset "$keep" --length $(($(stat -c %s "$log") - keep)) "$log"
fi
work=$dir/run
find "$dir/crashed" -type f -exec cat {} + >/dev/null # warm the page cache for both alike
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"

# ready_time DATADIR ERRLOG [CHECKSUM]: seconds from starting mariadbd on DATADIR until it
# answers; stops it.
ready_time() {
  local d=$1 e=$2 s=$work/bench.sock s0 t pid
  s0=$(date +%s.%N)
  mariadbd --no-defaults --datadir="$d" --user=root --socket="$s" --skip-networking \
    --pid-file="$d/bench.pid" --log-error="$e" "${opts[@]}" >/dev/null 2>&1 &
  pid=$!
  until mariadb --no-defaults -S "$s" -uroot -e "select 1" >/dev/null 2>&1; do
    kill -0 $pid 2>/dev/null || { cat "$e" >&2; exit 1; }
    sleep 0.02
  done
  t=$(echo "$(date +%s.%N) - $s0" | bc)
  [ -n "${3:-}" ] && mariadb --no-defaults -S "$s" -uroot -N -e "CHECKSUM TABLE db.t" >"$3"
  mariadb-admin --no-defaults -S "$s" -uroot shutdown
  while kill -0 $pid 2>/dev/null; do sleep 0.1; done
  echo "$t"
}
# secs OUT CMD...: runs CMD with its output to OUT; prints its wall-clock seconds.
secs() { local s0 out=$1; shift; s0=$(date +%s.%N); "$@" >"$out"; echo "$(date +%s.%N) - $s0" | bc; }
median() { sort -g | sed -n 2p; } # of three

r_ref=() r_rec=() r_rep=()
for round in 1 2 3; do
  rm -rf "$work" "$work.external"; mkdir -p "$work"
  sync # the last round's removal and writes are not flushed during this one's timings
  cpt=$(secs /dev/null cp -a "$dir/crashed" "$work/server")
  srv=$(ready_time "$work/server" "$work/server.err" "$work/server.checksum")
  base=$(ready_time "$work/server" "$work/server-clean.err")
  [ $round = 1 ] && grep -E "Starting crash recovery|To recover|End of log" "$work/server.err" | sed 's/^/mariadbd: /'
  rm -rf "$work/server" # the disk space of one copy at a time
  sync
  ins=$(secs "$work/recover.json" $bin recover --json "$dir/crashed" --into "$work/copy")
  [ $round = 1 ] && python3 - "$work/recover.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["result"]
print(f"innoscope: {r['mtr_count']} mini-transactions, {r['records_applied']} records applied, "
      f"{r['pages_read']} pages read, {r['pages_applied']} pages written in {r['batches']} batches")
PY
  phases=$(python3 -c "import json;s=json.load(open('$work/recover.json'))['seconds'];print(s['copy'], s['replay'], s['log'])")
  read -r pcopy prep plog <<<"$phases"
  ready_time "$work/copy" "$work/copy.err" "$work/copy.checksum" >/dev/null
  if grep -q "Starting crash recovery" "$work/copy.err"; then echo "FAIL: the server ran crash recovery on innoscope's copy"; exit 1; fi
  if ! diff -q "$work/copy.checksum" "$work/server.checksum" >/dev/null; then
    echo "FAIL: CHECKSUM TABLE differs: $(cat "$work/copy.checksum") vs $(cat "$work/server.checksum")"; exit 1
  fi
  ref=$(echo "$cpt + $srv" | bc) rec=$(echo "$srv - $base" | bc)
  r_ref+=("$(echo "$ins / $ref" | bc -l)") r_rec+=("$(echo "$ins / $rec" | bc -l)") r_rep+=("$(echo "$prep / $rec" | bc -l)")
  popen=$(echo "$ins - $pcopy - $prep - $plog" | bc)
  printf 'round %d: cp -a %.2f s + mariadbd start to ready %.2f s = %.2f s (recovery alone %.2f s); innoscope recover %.2f s (open and analysis %.2f, copy %.2f, replay %.2f, log %.2f): ratio %.2f\n' \
    $round "$cpt" "$srv" "$ref" "$rec" "$ins" "$popen" "$pcopy" "$prep" "$plog" "${r_ref[-1]}"
done
echo "check: each round, the server started on innoscope's copy without crash recovery; CHECKSUM TABLE $(cut -f2 "$work/copy.checksum") equals its own recovery's"
printf 'RATIO innoscope recover / (cp -a + mariadbd start to ready), median of 3: %.2f\n' "$(printf '%s\n' "${r_ref[@]}" | median)"
printf 'RATIO innoscope recover / mariadbd recovery alone, median of 3: %.2f\n' "$(printf '%s\n' "${r_rec[@]}" | median)"
printf 'RATIO innoscope replay phase / mariadbd recovery alone, median of 3: %.2f\n' "$(printf '%s\n' "${r_rep[@]}" | median)"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
# INNOSCOPE_BENCH_OLD: another binary (e.g. an older build) whose recover is timed against this
# one's, alternated, three rounds each (same run, same load), with the medians.
if [ -n "${INNOSCOPE_BENCH_OLD:-}" ]; then
  a_old=() a_new=()
  for round in 1 2 3; do
    for which in old new; do
      b=$bin; [ $which = old ] && b=$INNOSCOPE_BENCH_OLD
      rm -rf "$work/ab" "$work/ab.external"; sync
      t=$(secs /dev/null "$b" recover --json "$dir/crashed" --into "$work/ab")
      if [ $which = old ]; then a_old+=("$t"); else a_new+=("$t"); fi
    done
    echo "A/B round $round: old ${a_old[-1]} s, new ${a_new[-1]} s (load $(cut -d' ' -f1 /proc/loadavg))"
  done
  printf 'AB recover median of 3: old %.2f s, new %.2f s (load at the end %s)\n' "$(printf '%s\n' "${a_old[@]}" | median)" \
    "$(printf '%s\n' "${a_new[@]}" | median)" "$(cut -d' ' -f1-3 /proc/loadavg)"
fi
rm -rf "$work" "$work.external"
