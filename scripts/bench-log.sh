#!/usr/bin/env bash
# bench-log.sh — redo log parsing throughput on a real log of >= 256 MiB of records, next to two
# references over the same bytes in the same run, with their ratios:
#   1. whole process: `innoscope log stats` against `cat BYTES | rhash --crc32c` (a cat pipeline
#      into a CRC-32C tool; rhash is installed with apt-get when absent). Three rounds alternate
#      the two; the median wall time of each is compared (and the CPU time, user + sys, which a
#      machine shared with other work disturbs less).
#   2. `innoscope log records` from the checkpoint as a table against the same with --json (the
#      table must stream at least half as fast: a ratio of at most 2), both into /dev/null.
#   3. in-process: Go benchmarks of the scan with statistics against reading the same bytes with
#      8 MiB reads from the page cache and hardware CRC-32C (the strict one, no pipe).
#
#   bash scripts/bench-log.sh [DIR]     DIR caches the generated crash (default /tmp/innoscope-bench)
#
# ROUNDS=N sets the rounds (default 3; the median is taken). BUSY=1 keeps one core busy with
# another process (a shell loop) during the whole-process rounds: the ratio on a loaded machine,
# where innoscope's second core is taken (cat | rhash barely uses one). CALLGRIND=1 also counts the
# instructions of one whole `log stats` process with valgrind --tool=callgrind (stable on a
# loaded machine, where wall times are not; it takes a few minutes).
#
# The log is made by the real server (scripts/mariadb-lab.sh bench-log): 1 GiB ib_logfile0,
# bulk INSERT and UPDATE until 300 MiB of redo are written, then SIGKILL. It is not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench}
bash scripts/mariadb-lab.sh install
command -v rhash >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rhash >/dev/null; }
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash scripts/mariadb-lab.sh bench-log "$dir" 300; }
log=$dir/crashed/ib_logfile0
cat "$dir/bench.txt"
bin=/tmp/innoscope-bench-bin
go build -o $bin .
first=$(od -An -tu8 --endian=big -j8 -N8 "$log" | tr -d ' ')
bytes=$($bin log stats --json --from-lsn "$first" "$log" | sed -n 's/.*"bytes": \([0-9]*\).*/\1/p')
echo "records from the first LSN: $bytes bytes"
# The record bytes: the log has not wrapped, so they run from offset 12288 (the first LSN).
range=$dir/records.bin
# (dd, not tail | head: under pipefail, head closing the pipe fails the script with SIGPIPE.)
[ -f "$range" ] || dd if="$log" of="$range" bs=1M iflag=skip_bytes,count_bytes skip=12288 count="$bytes" status=none
cat "$range" "$log" >/dev/null # warm the page cache for every run alike
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"

# timed CMD...: "wall cpu" seconds of the command (cpu = user + sys of it and its children).
timed() {
  local f
  f=$(mktemp)
  /usr/bin/time -f '%e %U %S' -o "$f" "$@" >/dev/null
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$f"
  rm -f "$f"
}
rounds=${ROUNDS:-3}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
rw=() rc=() iw=() ic=()
busy=
if [ "${BUSY:-}" = 1 ]; then
  sh -c 'while :; do :; done' &
  busy=$!
  trap 'kill $busy 2>/dev/null' EXIT
  echo "one core kept busy by process $busy"
fi
for round in $(seq "$rounds"); do
  read -r w c < <(timed sh -c "cat '$range' | rhash --crc32c - >/dev/null"); rw+=("$w"); rc+=("$c")
  read -r w c < <(timed $bin log stats --from-lsn "$first" "$log"); iw+=("$w"); ic+=("$c")
  printf 'round %d: cat | rhash --crc32c %s s (cpu %s s), innoscope log stats %s s (cpu %s s): ratio %.2f\n' \
    $round "${rw[-1]}" "${rc[-1]}" "${iw[-1]}" "${ic[-1]}" "$(echo "${iw[-1]} / ${rw[-1]}" | bc -l)"
done
mrw=$(printf '%s\n' "${rw[@]}" | median) mrc=$(printf '%s\n' "${rc[@]}" | median)
miw=$(printf '%s\n' "${iw[@]}" | median) mic=$(printf '%s\n' "${ic[@]}" | median)
printf 'median: cat | rhash --crc32c %.2f s (%.0f MB/s), innoscope log stats %.2f s (%.0f MB/s)\n' \
  "$mrw" "$(echo "$bytes / $mrw / 1000000" | bc -l)" "$miw" "$(echo "$bytes / $miw / 1000000" | bc -l)"
printf 'RATIO log stats / (cat | rhash --crc32c), whole process, wall: %.2f (cpu: %.2f)%s\n' \
  "$(echo "$miw / $mrw" | bc -l)" "$(echo "$mic / $mrc" | bc -l)" "${busy:+, one core busy}"
if [ -n "$busy" ]; then
  kill "$busy"
  busy=
fi

tw=() jw=()
for round in $(seq "$rounds"); do
  read -r w _ < <(timed $bin log records "$log"); tw+=("$w")
  read -r w _ < <(timed $bin log records --json "$log"); jw+=("$w")
  printf 'round %d: log records as a table %s s, with --json %s s\n' $round "${tw[-1]}" "${jw[-1]}"
done
printf 'RATIO log records table / --json, wall (median): %.2f\n' \
  "$(echo "$(printf '%s\n' "${tw[@]}" | median) / $(printf '%s\n' "${jw[@]}" | median)" | bc -l)"

out=$(INNOSCOPE_BENCH_LOG=$log go test -run XXX -bench 'BenchmarkLog/(read|stats)' -benchtime 3x -count "$rounds" ./logformat/)
echo "$out" | grep Benchmark
echo "$out" | awk '/read\+crc32c/ {r[++nr] = $3} /stats/ {s[++ns] = $3}
  END { asort(r); asort(s); printf "RATIO in-process scan with statistics / read+CRC-32C (median ns/op): %.2f\n", s[int((ns + 1) / 2)] / r[int((nr + 1) / 2)] }'
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${CALLGRIND:-}" = 1 ] && command -v valgrind >/dev/null; then
  # Go's asynchronous preemption signals upset callgrind; they change no instruction count.
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null $bin log stats --from-lsn "$first" "$log" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *\([0-9,]*\).*/instructions of one `log stats` process (callgrind): \1/p'
fi
