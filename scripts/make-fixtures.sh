#!/usr/bin/env bash
# make-fixtures.sh — regenerate the small real files committed under fixtures/.
#
# fixtures/mariadb-10.11-crash/: the redo log of a real mariadbd killed with SIGKILL after a
# checkpoint (lab scenario "fixture": DML, CREATE and RENAME TABLE), with what the server said
# when it recovered a copy of the same directory:
#   ib_logfile0      the crashed server's redo log, unchanged
#   server-verdict.txt  crash_recovery, checkpoint_lsn, end_lsn, to_recover_pages (scripts/mariadb-lab.sh)
#   server.err       the recovery lines of the server's error log
#   workload.sql     what ran before the crash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/mariadb-lab.sh install
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash scripts/mariadb-lab.sh scenario fixture "$tmp/s"
out=fixtures/mariadb-10.11-crash
rm -rf "$out"; mkdir -p "$out"
cp "$tmp/s/crashed/ib_logfile0" "$tmp/s/workload.sql" "$out/"
cp "$tmp/s/verdict.txt" "$out/server-verdict.txt"
grep -E "Starting|crash recovery|End of log|To recover|MariaDB [0-9]" "$tmp/s/server.err" | sed 's/^[0-9-]* [0-9:]* //' >"$out/server.err"
echo "wrote $out"
