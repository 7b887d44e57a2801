#!/usr/bin/env bash
# bench-pages.sh — checksum-verify a >= 1 GiB tablespace made by the real server, with
# innochecksum and with innoscope, in the same run on the same (page-cached) file.
#
#   bash scripts/bench-pages.sh [DIR [GIB]]   DIR caches the generated directory (default
#   /tmp/innoscope-bench-space), GIB its table size (default 1; a larger file shows how much of
#   the ratio innoscope's fixed start-up cost of some 20 ms takes)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench-space}
gib=${2:-1}
bash scripts/mariadb-lab.sh install
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash scripts/mariadb-lab.sh bench-space "$dir" "$gib"; }
f=$dir/clean/db/big.ibd
size=$(stat -c %s "$f")
go build -o /tmp/innoscope-bench-bin .
cat "$f" >/dev/null # warm the page cache for both tools alike
secs() { # wall-clock seconds of the command
  local s e
  s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
  echo "$e - $s" | bc
}
# Rounds alternate the two tools, so that a change in the machine's speed during the run (a
# shared virtual machine) touches both alike; the best time of each is kept, and every round's
# ratio is printed.
ic=999999 is=999999 ratios=""
for round in 1 2 3 4 5; do
  a=$(secs innochecksum "$f")
  b=$(secs /tmp/innoscope-bench-bin pages --verify --summary "$f")
  ratios="$ratios $(printf '%.2f' "$(echo "$a / $b" | bc -l)")"
  if [ "$(echo "$a < $ic" | bc)" = 1 ]; then ic=$a; fi
  if [ "$(echo "$b < $is" | bc)" = 1 ]; then is=$b; fi
done
echo "file: $f ($size bytes, $((size / 16384)) pages)"
printf 'innochecksum:                      %6.3f s  %7.0f MB/s\n' "$ic" "$(echo "$size / $ic / 1000000" | bc -l)"
printf 'innoscope pages --verify --summary: %6.3f s  %7.0f MB/s\n' "$is" "$(echo "$size / $is / 1000000" | bc -l)"
printf 'speed-up: %.2fx (best against best); per round:%s\n' "$(echo "$ic / $is" | bc -l)" "$ratios"
/tmp/innoscope-bench-bin pages --verify --summary "$f" | tail -1
innochecksum "$f"; echo "innochecksum exit: $?"
