#!/usr/bin/env bash
# bench-rows.sh — decode a table's rows with innoscope (offline, the cleanly shut down
# directory) and with the real server (SELECT * INTO OUTFILE and mariadb-dump of the table, the
# server running, its buffer pool warm), on the same table of the same machine, best of three
# each; the outputs of rows and INTO OUTFILE are compared. Ratios > 1: innoscope is faster.
# innoscope's peak RSS is printed (its memory is bounded by the pages in flight, not the table).
# Then the deleted rows: the server, restarted without its purge thread
# (innodb_force_recovery=2), deletes every other row and shuts down cleanly; `rows --deleted`
# (the delete-marked records) is timed against `rows` of the same pages (the live half) and
# its output compared with the server's SELECT of those rows before the DELETE.
#
#   bash scripts/bench-rows.sh [ROWS [OUT]]   ROWS (default 2000000) rows of ints, a DECIMAL, a
#   VARCHAR, a DATETIME(6), a DOUBLE and a TEXT; OUT the work directory (default
#   /tmp/innoscope-bench-rows, removed first)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
n=${1:-2000000}
out=${2:-/tmp/innoscope-bench-rows}
bash scripts/mariadb-lab.sh install
# shellcheck source=mariadb-lab.sh
source scripts/mariadb-lab.sh functions
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
go build -o "$out/innoscope" .
fresh_server "$out" --default-time-zone=+00:00 --innodb-buffer-pool-size=1G --secure-file-priv="$out"
sock=$out/lab.sock
sql "$sock" "CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, a BIGINT, d DECIMAL(12,3), v VARCHAR(100),
  ts DATETIME(6), f DOUBLE, x TEXT) CHARACTER SET utf8mb4;
  INSERT INTO db.t SELECT seq, seq * 7919, seq / 7, CONCAT('value ', seq, REPEAT('x', seq % 50)),
  '2024-01-01' + INTERVAL seq SECOND, seq / 3, IF(seq % 10 = 0, NULL, REPEAT('t', seq % 200)) FROM seq_1_to_$n;"
secs() { # wall-clock seconds of the command
  local s e
  s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
  echo "$e - $s" | bc
}
best() { sort -n | head -1; }
outfile() { rm -f "$out/outfile.tsv"; sql "$sock" "SELECT * FROM db.t ORDER BY id INTO OUTFILE '$out/outfile.tsv'"; }
server=$(for r in 1 2 3; do secs outfile; done | best)
dump() { mariadb-dump --no-defaults -S "$sock" -uroot db t >"$out/dump.sql"; }
dumped=$(for r in 1 2 3; do secs dump; done | best)
stop_clean "$out/data" "$sock"
rows() { "$out/innoscope" rows "$out/data" db.t >"$out/rows.tsv"; }
ours=$(for r in 1 2 3; do secs rows; done | best)
rss=$(/usr/bin/time -f %M "$out/innoscope" rows "$out/data" db.t 2>&1 >/dev/null | tail -1)
size=$(stat -c %s "$out/data/db/t.ibd")
echo "table: $n rows, db/t.ibd $size bytes; machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'SELECT * INTO OUTFILE (server): %6.3f s\n' "$server"
printf 'mariadb-dump db t (server):     %6.3f s\n' "$dumped"
printf 'innoscope rows (offline):       %6.3f s, peak RSS %d MiB\n' "$ours" "$((rss / 1024))"
printf 'ratio INTO OUTFILE/innoscope: %.2f\n' "$(echo "$server / $ours" | bc -l)"
printf 'ratio mariadb-dump/innoscope: %.2f\n' "$(echo "$dumped / $ours" | bc -l)"
# INTO OUTFILE writes NULL as \N; --batch (and rows) as NULL: compare after mapping.
if sed 's/\\N/NULL/g' "$out/outfile.tsv" | cmp -s - "$out/rows.tsv"; then echo "outputs: identical (NULL spelled alike)"; else echo "outputs: DIFFER"; exit 1; fi

start "$out/data" "$sock" "$out/deleted.err" --default-time-zone=+00:00 --innodb-buffer-pool-size=1G \
  --secure-file-priv="$out" --innodb-force-recovery=2 || { cat "$out/deleted.err" >&2; exit 1; }
rm -f "$out/deleted-want.tsv"
sql "$sock" "SELECT * FROM db.t WHERE id % 2 = 0 ORDER BY id INTO OUTFILE '$out/deleted-want.tsv';
  DELETE FROM db.t WHERE id % 2 = 0"
stop_clean "$out/data" "$sock"
deleted() { "$out/innoscope" rows --deleted "$out/data" db.t >"$out/deleted.tsv" 2>"$out/deleted.stderr"; }
live() { "$out/innoscope" rows "$out/data" db.t >"$out/live.tsv" 2>"$out/live.stderr"; }
del=$(for r in 1 2 3; do secs deleted; done | best)
half=$(for r in 1 2 3; do secs live; done | best)
echo "deleted rows: $(wc -l <"$out/deleted.tsv") printed by --deleted, $(wc -l <"$out/live.tsv") live; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'innoscope rows --deleted:       %6.3f s\n' "$del"
printf 'innoscope rows (the live half): %6.3f s\n' "$half"
printf 'ratio rows --deleted/rows, same pages: %.2f\n' "$(echo "$del / $half" | bc -l)"
if sed 's/\\N/NULL/g' "$out/deleted-want.tsv" | cmp -s - "$out/deleted.tsv"; then echo "deleted rows: identical to the server's SELECT before the DELETE"; else echo "deleted rows: DIFFER"; exit 1; fi
