#!/usr/bin/env bash
# bench-log.sh — redo log parsing throughput on a real log of >= 256 MiB of records, next to
# reading the same bytes with CRC-32C (in the same Go process) and `cat` (same run).
#
#   bash scripts/bench-log.sh [DIR]     DIR caches the generated crash (default /tmp/innoscope-bench)
#
# The log is made by the real server (scripts/mariadb-lab.sh bench-log): 1 GiB ib_logfile0,
# bulk INSERT and UPDATE until 300 MiB of redo are written, then SIGKILL. It is not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench}
bash scripts/mariadb-lab.sh install
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash scripts/mariadb-lab.sh bench-log "$dir" 300; }
log=$dir/crashed/ib_logfile0
cat "$dir/bench.txt"
go build -o /tmp/innoscope-bench-bin .
bytes=$(/tmp/innoscope-bench-bin log stats --json --from-lsn "$(od -An -tu8 --endian=big -j8 -N8 "$log" | tr -d ' ')" "$log" \
  | sed -n 's/.*"bytes": \([0-9]*\).*/\1/p')
echo "records from the first LSN: $bytes bytes"
sync; cat "$log" >/dev/null   # warm the page cache for every run alike
start=$(date +%s.%N); cat "$log" >/dev/null; t=$(echo "$(date +%s.%N) - $start" | bc)
echo "cat of the whole $(stat -c %s "$log")-byte file: $(echo "$(stat -c %s "$log") / $t / 1000000" | bc) MB/s"
INNOSCOPE_BENCH_LOG=$log go test -run XXX -bench BenchmarkLog -benchtime 5x -count 3 ./logformat/
