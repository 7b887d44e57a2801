#!/usr/bin/env bash
# walkthrough.sh — make the crash of the README's "My server crashed: what now?" with the real
# server and print what innoscope says about it, for the README (its outputs are these).
#
#   bash scripts/walkthrough.sh [DIR]     DIR (default /tmp/innoscope-walkthrough) is made anew
#
# A MariaDB 10.11 server (64 MiB log) with two tables is killed with SIGKILL while one
# transaction has inserted, updated and deleted 15,500 rows of db.t, another has inserted 17 rows
# into db.u, and a third is XA PREPAREd. Then `diagnose`, `verify` and `recover` run at
# COLUMNS=100 (paths shown as /tmp/crashed and /tmp/recovered), and the server started on the
# copy prints its notes about the transactions.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=mariadb-lab.sh
source "$root/scripts/mariadb-lab.sh" functions
export PATH="$PATH:/usr/local/go/bin"
out=${1:-/tmp/innoscope-walkthrough}
# /tmp/crashed and /tmp/recovered (the README's paths) are removed only when an earlier run made them.
for d in /tmp/crashed /tmp/recovered; do
  if [ -e "$d" ] && ! grep -qx "$d" "$out/made" 2>/dev/null; then
    die "$d exists and was not made by this script: move it away first"
  fi
done
rm -rf "$out"
mkdir -p "$out"
(cd "$root" && go build -o "$out/innoscope" .)
fresh_server "$out" --innodb-log-file-size=64M
s=$out/lab.sock
sql "$s" "CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100), n INT) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, CONCAT('row', seq), seq FROM seq_1_to_20000;
CREATE TABLE db.u (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.u SELECT seq, 'u' FROM seq_1_to_100;"
sql "$s" "XA START 'x'; UPDATE db.u SET v = 'prepared' WHERE id <= 3; XA END 'x'; XA PREPARE 'x';"
# Two sessions hold their transactions open until the kill.
mariadb --no-defaults --unbuffered -S "$s" -uroot -D db >"$out/t1.out" 2>&1 <<'SQL' &
BEGIN;
INSERT INTO t SELECT seq, 'new', seq FROM seq_20001_to_25500;
UPDATE t SET v = 'changed' WHERE id <= 5000;
DELETE FROM t WHERE id BETWEEN 5001 AND 10000;
SELECT 'held';
SELECT SLEEP(3600);
SQL
mariadb --no-defaults --unbuffered -S "$s" -uroot -D db >"$out/t2.out" 2>&1 <<'SQL' &
BEGIN;
INSERT INTO u SELECT seq, 'new' FROM seq_101_to_117;
SELECT 'held';
SELECT SLEEP(3600);
SQL
until grep -q held "$out/t1.out" && grep -q held "$out/t2.out"; do sleep 0.2; done
sleep 3 # the server writes its log buffer once a second: the open transactions' undo is in the log
crash "$out/data"
kill %1 %2 2>/dev/null || true
rm -rf /tmp/crashed /tmp/recovered
printf '%s\n' /tmp/crashed /tmp/recovered >"$out/made"
mv "$out/data" /tmp/crashed
bin=$out/innoscope
run() { echo "    \$ innoscope $*"; COLUMNS=100 "$bin" "$@" 2>&1 | sed 's/^/    /' || true; echo; }
run diagnose /tmp/crashed
run verify /tmp/crashed
run recover /tmp/crashed --into /tmp/recovered
# The judge of diagnose's forecast: the server's own recovery of another copy of the crash.
cp -a /tmp/crashed "$out/own"
start "$out/own" "$out/own.sock" "$out/own.err" --innodb-log-file-size=64M
echo "    the server's own recovery of a copy of /tmp/crashed:"
grep -E 'To recover|rolled back or cleaned' "$out/own.err" | sed 's/^.*\(\[Note\]\)/    \1/'
stop_clean "$out/own" "$out/own.sock"
echo
start /tmp/recovered "$out/copy.sock" "$out/copy.err" --innodb-log-file-size=64M
echo "    server on the copy:"
grep -E 'crash recovery|rolled back|prepared state|ready for connections' "$out/copy.err" | sed 's/^.*\(\[Note\]\)/    \1/'
sql "$out/copy.sock" "XA RECOVER; SELECT COUNT(*) FROM db.t; SELECT COUNT(*) FROM db.u;" | sed 's/^/    /'
stop_clean /tmp/recovered "$out/copy.sock"
