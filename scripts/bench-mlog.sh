#!/usr/bin/env bash
# bench-mlog.sh — MySQL 8.0.30+ redo decoding throughput on the real MySQL 8.0.33 file of
# ../shared/peer-fixtures (block checksums, de-blocking, every MLOG record), looped to >= 256 MiB,
# next to read+CRC-32C of the same bytes, and next to MariaDB 10.8+ decoding of the >= 256 MiB
# real log that scripts/bench-log.sh makes (run here too when it is cached or INNOSCOPE_BENCH_LOG
# names one). Each benchmark runs three times (ROUNDS=N: N times); the ratios of the medians are
# printed, and the decoding against the whole-process reference of bench-log.sh, cat | rhash
# --crc32c, over as many bytes. CALLGRIND=1 also counts the instructions of one MLOG decoding benchmark operation with
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
# The whole-process reference of scripts/bench-log.sh, cat | rhash --crc32c, over a file of as
# many bytes (the fixture concatenated): CRC speed does not depend on the bytes, so its MB/s is
# the pipeline's on the decoded volume. The decoding's MB/s includes its own reads and block CRCs.
command -v rhash >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rhash >/dev/null; }
fx="../shared/peer-fixtures/mysql-8.0.33-docker-sample/#ib_redo10"
looped=$(mktemp)
trap 'rm -f "$looped"' EXIT
for _ in $(seq $(((256 << 20) / $(stat -c %s "$fx") + 1))); do cat "$fx"; done >"$looped"
size=$(stat -c %s "$looped")
cat "$looped" >/dev/null
rates=()
for _ in $(seq "${ROUNDS:-3}"); do
  t=$( { /usr/bin/time -f %e sh -c "cat '$looped' | rhash --crc32c - >/dev/null"; } 2>&1 )
  rates+=("$(echo "$size / $t / 1000000" | bc -l)")
done
rhash_mbs=$(printf '%s\n' "${rates[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
printf 'cat | rhash --crc32c over %d bytes: %.0f MB/s (median)\n' "$size" "$rhash_mbs"
echo "$out" | awk -v r="$rhash_mbs" '/mysql-decode/ {m[++n] = $5} END { if (n) { asort(m); printf "RATIO MySQL MLOG decoding time / cat | rhash --crc32c time for as many bytes (MB/s medians %.0f, %.0f): %.2f\n", m[int((n + 1) / 2)], r, r / m[int((n + 1) / 2)] } }'
rm -f "$looped"
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
