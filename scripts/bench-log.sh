#!/usr/bin/env bash
# bench-log.sh — redo log parsing throughput on a real log of >= 256 MiB of records, next to two
# references over the same bytes in the same run: `cat BYTES | rhash --crc32c` (a cat pipeline into
# a CRC-32C tool), and reading them with CRC-32C inside the same Go process (the strict one:
# 8 MiB reads from the page cache and hardware CRC-32C, no pipe).
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
command -v rhash >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rhash >/dev/null; }
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash scripts/mariadb-lab.sh bench-log "$dir" 300; }
log=$dir/crashed/ib_logfile0
cat "$dir/bench.txt"
go build -o /tmp/innoscope-bench-bin .
bytes=$(/tmp/innoscope-bench-bin log stats --json --from-lsn "$(od -An -tu8 --endian=big -j8 -N8 "$log" | tr -d ' ')" "$log" \
  | sed -n 's/.*"bytes": \([0-9]*\).*/\1/p')
echo "records from the first LSN: $bytes bytes"
# The record bytes: the log has not wrapped, so they run from offset 12288 (the first LSN).
range=$dir/records.bin
[ -f "$range" ] || tail -c +12289 "$log" | head -c "$bytes" >"$range"
cat "$range" >/dev/null # warm the page cache for every run alike
for i in 1 2 3; do
  start=$(date +%s.%N); cat "$range" | rhash --crc32c - >/dev/null; t=$(echo "$(date +%s.%N) - $start" | bc)
  echo "cat | rhash --crc32c over the $bytes record bytes: $(echo "$bytes / $t / 1000000" | bc) MB/s"
done
INNOSCOPE_BENCH_LOG=$log go test -run XXX -bench BenchmarkLog -benchtime 5x -count 3 ./logformat/
