#!/usr/bin/env bash
# bench-pages.sh — checksum-verify a >= 1 GiB tablespace made by the real server, with
# innochecksum and with innoscope, in the same run on the same (page-cached) file.
#
#   bash scripts/bench-pages.sh [DIR]   DIR caches the generated directory (default /tmp/innoscope-bench-space)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench-space}
bash scripts/mariadb-lab.sh install
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash scripts/mariadb-lab.sh bench-space "$dir" 1; }
f=$dir/clean/db/big.ibd
size=$(stat -c %s "$f")
go build -o /tmp/innoscope-bench-bin .
cat "$f" >/dev/null # warm the page cache for both tools alike
best() { # best of 3 wall-clock seconds of the command
  local b=999999 i s e t
  for i in 1 2 3; do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc); if [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
ic=$(best innochecksum "$f")
is=$(best /tmp/innoscope-bench-bin pages --verify --summary "$f")
echo "file: $f ($size bytes, $((size / 16384)) pages)"
printf 'innochecksum:                      %6.3f s  %7.0f MB/s\n' "$ic" "$(echo "$size / $ic / 1000000" | bc -l)"
printf 'innoscope pages --verify --summary: %6.3f s  %7.0f MB/s\n' "$is" "$(echo "$size / $is / 1000000" | bc -l)"
printf 'speed-up: %.2fx\n' "$(echo "$ic / $is" | bc -l)"
/tmp/innoscope-bench-bin pages --verify --summary "$f" | tail -1
innochecksum "$f"; echo "innochecksum exit: $?"
