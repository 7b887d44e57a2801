#!/usr/bin/env bash
# bench-mlog.sh — MySQL 8.0.30+ redo decoding throughput on the real MySQL 8.0.33 file of
# ../shared/peer-fixtures (block checksums, de-blocking, every MLOG record), looped to >= 256 MiB,
# next to read+CRC-32C of the same bytes, and next to MariaDB 10.8+ decoding of the >= 256 MiB
# real log that scripts/bench-log.sh makes (run here too when it is cached or INNOSCOPE_BENCH_LOG
# names one).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
go test -run XXX -bench 'BenchmarkMLog' -benchtime 5x -count 3 ./logformat/
log=${INNOSCOPE_BENCH_LOG:-/tmp/innoscope-bench/crashed/ib_logfile0}
if [ -f "$log" ]; then
  INNOSCOPE_BENCH_LOG=$log go test -run XXX -bench 'BenchmarkLog/scan' -benchtime 3x -count 3 ./logformat/
else
  echo "no MariaDB benchmark log: run scripts/bench-log.sh first (or set INNOSCOPE_BENCH_LOG)"
fi
