#!/usr/bin/env bash
# bench-mlog.sh — MySQL 8.0.30+ redo decoding throughput on the real MySQL 8.0.33 file of
# ../shared/peer-fixtures (block checksums, de-blocking, every MLOG record), looped to >= 256 MiB,
# next to read+CRC-32C of the same bytes, and next to MariaDB 10.8+ decoding of the >= 256 MiB
# real log that scripts/bench-log.sh makes (run here too when it is cached or INNOSCOPE_BENCH_LOG
# names one). Each benchmark runs three times (ROUNDS=N: N times); the ratios of the medians are
# printed. CALLGRIND=1 also counts the instructions of one MLOG decoding benchmark operation with
# valgrind --tool=callgrind (stable on a loaded machine, where times are not).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
# ratio A B TEXT: the median ns/op of benchmark lines matching A over those matching B.
ratio() {
  awk -v a="$1" -v b="$2" -v text="$3" '$1 ~ a {x[++nx] = $3} $1 ~ b {y[++ny] = $3}
    END { if (nx == 0 || ny == 0) exit; asort(x); asort(y); printf "RATIO %s (median ns/op): %.2f\n", text, x[int((nx + 1) / 2)] / y[int((ny + 1) / 2)] }'
}
out=$(go test -run XXX -bench 'BenchmarkMLog' -benchtime 5x -count "${ROUNDS:-3}" ./logformat/)
echo "$out" | grep Benchmark
echo "$out" | ratio 'mysql-decode' 'mysql-read' 'MySQL MLOG decoding / read+CRC-32C of the same bytes'
log=${INNOSCOPE_BENCH_LOG:-/tmp/innoscope-bench/crashed/ib_logfile0}
if [ -f "$log" ]; then
  out2=$(INNOSCOPE_BENCH_LOG=$log go test -run XXX -bench 'BenchmarkLog/(scan|read)' -benchtime 3x -count "${ROUNDS:-3}" ./logformat/)
  echo "$out2" | grep Benchmark
  echo "$out2" | ratio 'BenchmarkLog/scan' 'read\\+crc32c' 'MariaDB 10.8+ scan / read+CRC-32C of the same bytes'
  printf '%s\n%s\n' "$out" "$out2" | awk '/mysql-decode/ {m[++nm] = $5} /BenchmarkLog\/scan/ {s[++ns] = $5}
    END { if (nm && ns) { asort(m); asort(s); printf "RATIO MySQL MLOG decoding MB/s / MariaDB scan MB/s (medians): %.2f\n", m[int((nm + 1) / 2)] / s[int((ns + 1) / 2)] } }'
else
  echo "no MariaDB benchmark log: run scripts/bench-log.sh first (or set INNOSCOPE_BENCH_LOG)"
fi
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${CALLGRIND:-}" = 1 ] && command -v valgrind >/dev/null; then
  t=$(mktemp)
  go test -c -o "$t" ./logformat/
  # Go's asynchronous preemption signals upset callgrind; they change no instruction count.
  (cd logformat && GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$t" -test.run XXX \
    -test.bench 'BenchmarkMLog/mysql-decode' -test.benchtime 1x 2>&1 >/dev/null) |
    sed -n 's/.*I *refs: *\([0-9,]*\).*/instructions of one MLOG decoding operation and its setup (callgrind): \1/p'
  rm -f "$t"
fi
