#!/usr/bin/env bash
# bench-undrop.sh — carving a raw image (`innoscope undrop DIR --list --image IMG`: every
# 512-byte aligned offset tried, the checksum of each candidate page computed at every page
# size) against `cat IMG > /dev/null` over the same bytes from the page cache, with the ratio
# of their wall times (median of ROUNDS, default 3) and innoscope's throughput.
#
#   bash scripts/bench-undrop.sh [DIR]    DIR holds the data directory and the images (default
#                                         /tmp/innoscope-bench-undrop)
#
# Two images of SIZE_MB (default 1024) MiB: "dense", the pages of a real data directory
# (mariadb-install-db's: ibdata1 and the mysql schema's .ibd files) repeated back to back, so
# that every page is a candidate whose checksum is computed (the worst case); "random", bytes
# from /dev/urandom (what a filesystem mostly holds: few candidates). The data directory
# carved besides the image is that small one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench-undrop}
size=${SIZE_MB:-1024}
rounds=${ROUNDS:-3}
bash scripts/mariadb-lab.sh install
mkdir -p "$dir"
if [ ! -f "$dir/data/ibdata1" ]; then
	rm -rf "$dir/data"
	mariadb-install-db --no-defaults --datadir="$dir/data" --user=root --auth-root-authentication-method=normal --skip-test-db >/dev/null
fi
if [ ! -f "$dir/dense.img" ] || [ "$(stat -c %s "$dir/dense.img")" -lt $((size << 20)) ]; then
	: >"$dir/dense.img"
	while [ "$(stat -c %s "$dir/dense.img")" -lt $((size << 20)) ]; do
		cat "$dir/data/ibdata1" "$dir"/data/mysql/*.ibd >>"$dir/dense.img"
	done
	truncate -s $((size << 20)) "$dir/dense.img"
fi
[ -f "$dir/random.img" ] && [ "$(stat -c %s "$dir/random.img")" -ge $((size << 20)) ] ||
	dd if=/dev/urandom of="$dir/random.img" bs=1M count="$size" status=none
bin=/tmp/innoscope-bench-undrop-bin
go build -o $bin .
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
for img in dense random; do
	f=$dir/$img.img
	cat "$f" >/dev/null # into the page cache
	c=() u=()
	for _ in $(seq "$rounds"); do
		c+=("$(secs cat "$f")")
		u+=("$(secs $bin undrop "$dir/data" --list --json --image "$f")")
	done
	cm=$(printf '%s\n' "${c[@]}" | median)
	um=$(printf '%s\n' "${u[@]}" | median)
	bytes=$(stat -c %s "$f")
	printf '%-6s %d MiB: cat %.3f s, undrop --list --image %.3f s: ratio %.2f, %.2f GB/s\n' "$img" $((bytes >> 20)) "$cm" "$um" \
		"$(echo "$um / $cm" | bc -l)" "$(echo "$bytes / $um / 1000000000" | bc -l)"
done
