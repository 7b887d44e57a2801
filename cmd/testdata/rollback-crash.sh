#!/usr/bin/env bash
# rollback-crash.sh OUT: a crash killed mid-transaction, for TestRollbackForecast. A fresh
# server (scripts/mariadb-lab.sh's fresh_server) gets a table, then three transactions stay
# open when it is killed: a large one (inserts, updates, deletes), a small one, and an XA
# PREPAREd one; a last committed insert writes their redo to the log. OUT/crashed is the data
# directory as SIGKILL left it; OUT/options.txt the server options.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/mariadb-lab.sh
source "$root/scripts/mariadb-lab.sh" functions
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
d=$out/data s=$out/lab.sock
opts=(--innodb-log-file-size=64M)
printf '%s\n' "${opts[@]}" >"$out/options.txt"
fresh_server "$out" "${opts[@]}"
sql "$s" "CREATE DATABASE db;
  CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(100), b INT) ENGINE=InnoDB;
  INSERT INTO db.t SELECT seq, REPEAT('x', 50), seq FROM seq_1_to_20000;
  CREATE TABLE db.u (id INT PRIMARY KEY, b INT) ENGINE=InnoDB;"
mariadb --no-defaults -S "$s" -uroot -D db -e "BEGIN;
  INSERT INTO t SELECT seq, 'new', seq FROM seq_20001_to_30000;
  UPDATE t SET b = b + 1 WHERE id <= 5000;
  DELETE FROM t WHERE id BETWEEN 6001 AND 6500;
  SELECT SLEEP(600);" >"$out/s1.out" 2>&1 &
mariadb --no-defaults -S "$s" -uroot -D db -e "BEGIN;
  INSERT INTO u SELECT seq, seq FROM seq_1_to_17;
  SELECT SLEEP(600);" >"$out/s2.out" 2>&1 &
sql "$s" "XA START 'x1'; INSERT INTO db.u SELECT seq, seq FROM seq_100_to_106; XA END 'x1'; XA PREPARE 'x1';"
for _ in $(seq 1 1200); do
  n=$(sql "$s" "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(600)%'" -N)
  [ "$n" = 2 ] && break
  sleep 0.1
done
[ "$n" = 2 ] || die "the two open transactions did not reach their SLEEP"
sql "$s" "INSERT INTO db.u VALUES (1000, 1)"
crash "$d"
wait 2>/dev/null || true
mv "$d" "$out/crashed"
