#!/usr/bin/env bash
# mariadb105.sh — a private MariaDB 10.5 server for the lab, and real 10.5 crashes.
#
# Nothing is installed system-wide: scripts/mariadb-server.sh fetches Debian bullseye's 10.5
# packages through a private apt configuration and unpacks them under the lab cache.
#
#   scripts/mariadb105.sh install             fetch and unpack once (cached); print the directory
#                                             of the wrappers (bin/mariadbd, bin/mariadb-install-db)
#   scripts/mariadb105.sh version             print the 10.5 server's version
#   scripts/mariadb105.sh list                list the 10.5 scenarios
#   scripts/mariadb105.sh scenario NAME OUT   make 10.5 scenario NAME under the new directory OUT
#   scripts/mariadb105.sh verdict DIR OUT [OPT...]  as mariadb-lab.sh verdict, with the 10.5 server
#
# The cache: $INNOSCOPE_LAB_DIR (default $TMPDIR or /tmp, then innoscope-lab)/mariadb-10.5-bullseye.
# A scenario directory has the layout of mariadb-lab.sh's (crashed/, server/, server.err,
# verdict.txt, checks.tsv, checksums.tsv, options.txt, workload.sql). The 10.5 release build has
# no innodb_log_checkpoint_now: where a workload asks for a checkpoint ("-- lab:checkpoint"), the
# dirty pages are flushed (innodb_max_dirty_pages_pct=0) until the checkpoint in ib_logfile0
# reaches the LSN of that moment.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/mariadb-lab.sh
source "$HERE/mariadb-lab.sh" functions

SCENARIOS105="dml105 ddl105 instant105 rebuild105 uncommitted105 clean105 fresh105"

die105() { echo "mariadb105: $*" >&2; exit 2; }

# use105: put the 10.5 wrappers first in PATH (scripts/mariadb-server.sh; the client programs
# stay the system's).
use105() { use_server 10.5; }

opts105() {
  case "$1" in
    # A 4 MiB log and a 5 MiB buffer pool: checkpoints and page flushes come often.
    rebuild105|uncommitted105) echo "--innodb-log-file-size=8M --innodb-buffer-pool-size=8M" ;;
    *) echo "--innodb-log-file-size=16M" ;;
  esac
}

workload105() {
  case "$1" in
    dml105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t1 (id INT PRIMARY KEY, v VARCHAR(200), n INT) ENGINE=InnoDB;
CREATE TABLE db.t2 (id INT PRIMARY KEY, v VARCHAR(200), KEY(v)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
INSERT INTO db.t1 SELECT seq, REPEAT(CHAR(65 + seq % 26), 100), seq FROM seq_1_to_3000;
INSERT INTO db.t2 SELECT seq, CONCAT('row', seq) FROM seq_1_to_1000;
-- lab:checkpoint
INSERT INTO db.t1 SELECT seq, REPEAT('n', 150), seq FROM seq_3001_to_6000;
UPDATE db.t1 SET n = n * 2, v = REPEAT('u', 120) WHERE id % 3 = 0;
DELETE FROM db.t1 WHERE id % 7 = 0;
UPDATE db.t2 SET v = CONCAT('upd', id) WHERE id % 2 = 0;
DELETE FROM db.t2 WHERE id > 900;
EOF
    ;;
    ddl105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.keep (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
CREATE TABLE db.old_name (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
CREATE TABLE db.doomed (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO db.keep SELECT seq, 'k' FROM seq_1_to_500;
INSERT INTO db.old_name SELECT seq, 'o' FROM seq_1_to_500;
INSERT INTO db.doomed SELECT seq FROM seq_1_to_100;
-- lab:checkpoint
CREATE TABLE db.fresh (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
INSERT INTO db.fresh SELECT seq, 'f' FROM seq_1_to_300;
RENAME TABLE db.old_name TO db.new_name;
DROP TABLE db.doomed;
INSERT INTO db.keep SELECT seq, 'k2' FROM seq_501_to_800;
INSERT INTO db.new_name SELECT seq, 'n' FROM seq_501_to_3000;
EOF
    ;;
    instant105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(50), b INT) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, CONCAT('a', seq), seq FROM seq_1_to_2000;
-- lab:checkpoint
ALTER TABLE db.t ADD COLUMN c INT NOT NULL DEFAULT 42, ALGORITHM=INSTANT;
ALTER TABLE db.t ADD COLUMN d VARCHAR(20) DEFAULT 'dflt' FIRST, ALGORITHM=INSTANT;
INSERT INTO db.t (id, a, b, c, d) SELECT seq, 'new', seq, seq, 'dd' FROM seq_2001_to_3000;
UPDATE db.t SET c = 7 WHERE id % 10 = 0;
EOF
    ;;
    rebuild105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100), KEY(v)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, CONCAT('v', seq) FROM seq_1_to_20000;
-- lab:checkpoint
ALTER TABLE db.t FORCE;
INSERT INTO db.t SELECT seq, 'after' FROM seq_20001_to_22000;
EOF
    ;;
    uncommitted105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, REPEAT('a', 150) FROM seq_1_to_20000;
-- lab:checkpoint
UPDATE db.t SET v = REPEAT('c', 150) WHERE id % 2 = 0;
EOF
    ;;
    clean105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, 'c' FROM seq_1_to_2000;
RENAME TABLE db.t TO db.t2;
EOF
    ;;
    fresh105) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, 'c' FROM seq_1_to_2000;
-- lab:checkpoint
UPDATE db.t SET v = 'fresh' WHERE id % 3 = 0;
EOF
    ;;
    *) die105 "unknown scenario '$1' (known: $SCENARIOS105)" ;;
  esac
}

# checkpoint105 DATADIR SOCK: flush every dirty page until the checkpoint in ib_logfile0 (the
# larger LSN of the 10.5 checkpoint blocks at 512 and 1536) reaches the current LSN.
checkpoint105() {
  local d=$1 s=$2 lsn i a b
  lsn=$(sql "$s" "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" -N | cut -f2)
  sql "$s" "SET GLOBAL innodb_max_dirty_pages_pct_lwm=0.001, GLOBAL innodb_max_dirty_pages_pct=0"
  for i in $(seq 1 600); do
    a=$(be64 "$d/ib_logfile0" 520) b=$(be64 "$d/ib_logfile0" 1544)
    [ "$a" -ge "$lsn" ] || [ "$b" -ge "$lsn" ] && break
    sleep 0.1
  done
  sql "$s" "SET GLOBAL innodb_max_dirty_pages_pct=90, GLOBAL innodb_max_dirty_pages_pct_lwm=0"
  [ "$a" -ge "$lsn" ] || [ "$b" -ge "$lsn" ] || die105 "no checkpoint reached LSN $lsn (checkpoints $a, $b)"
}

scenario105() {
  local name=$1 out=$2
  [ -e "$out" ] && die105 "$out exists; give a new directory"
  case " $SCENARIOS105 " in *" $name "*) ;; *) die105 "unknown scenario '$name' (known: $SCENARIOS105)" ;; esac
  use105
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  local d=$out/data s=$out/lab.sock
  # shellcheck disable=SC2207
  local opts=($(opts105 "$name"))
  printf '%s\n' "${opts[@]}" >"$out/options.txt"
  workload105 "$name" >"$out/workload.sql"
  mariadbd --no-defaults --version >"$out/version.txt"
  fresh_server "$out" "${opts[@]}"
  local rest
  if grep -q '^-- lab:checkpoint' "$out/workload.sql"; then
    sql "$s" "$(sed '/^-- lab:checkpoint/,$d' "$out/workload.sql")"
    checkpoint105 "$d" "$s"
    rest=$(sed '1,/^-- lab:checkpoint/d' "$out/workload.sql")
  else
    rest=$(cat "$out/workload.sql")
  fi
  if [ "$name" = fresh105 ]; then
    # A log just created by 10.5 (ib_logfile0 removed after a clean shutdown): one checkpoint
    # block written, the other never (all zero), as in every new 10.5 log; then work and a kill.
    stop_clean "$d" "$s"
    rm "$d/ib_logfile0"
    start "$d" "$s" "$out/fresh.err" "${opts[@]}" || { cat "$out/fresh.err" >&2; die105 "restart failed"; }
    grep -q "New log file created" "$out/fresh.err" || die105 "10.5 did not create a new log"
  fi
  if [ "$name" = uncommitted105 ]; then
    # The UPDATE runs in a transaction left open (the client sleeps) when the server is killed.
    sql "$s" "BEGIN; $rest SELECT SLEEP(3600);" >/dev/null 2>&1 &
    local i n=0
    for i in $(seq 1 600); do
      n=$(sql "$s" "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP%'" -N)
      [ "$n" -gt 0 ] && break
      sleep 0.1
    done
    [ "$n" -gt 0 ] || die105 "the uncommitted UPDATE did not finish"
  else
    sql "$s" "$rest"
  fi
  # Make the last statements' log durable (a commit writes the log up to its end).
  [ "$name" = uncommitted105 ] || sql "$s" "CREATE TABLE mysql.lab_sync (id INT) ENGINE=InnoDB; DROP TABLE mysql.lab_sync"
  if [ "$name" = clean105 ]; then stop_clean "$d" "$s"; else crash "$d"; fi
  wait 2>/dev/null || true
  cp -a "$d" "$out/crashed"
  # The server's own verdict: recover in place, then a clean shutdown.
  start "$d" "$s" "$out/server.err" "${opts[@]}" || { cat "$out/server.err" >&2; die105 "recovery failed"; }
  checksums "$s" >"$out/checksums.tsv"
  check_tables "$s" "$out/server.err" >"$out/checks.tsv"
  stop_clean "$d" "$s"
  mv "$d" "$out/server"
  verdict105 "$out/server.err" >"$out/verdict.txt"
}

# verdict105 ERRLOG: verdict (mariadb-lab.sh) with what 10.5 prints instead of "End of log at
# LSN=": the LSN it starts with ("10.5.N started; log sequence number L"), and instead of "To
# recover: N pages": the pages of its last batch ("Starting final batch to recover N pages").
verdict105() {
  verdict "$1" | grep -v '^\(end_lsn\|to_recover_pages\)='
  echo "end_lsn=$(grep -o 'started; log sequence number [0-9]*' "$1" | tail -1 | sed 's/.* //')"
  echo "to_recover_pages=$(grep -o 'final batch to recover [0-9]* pages' "$1" | tail -1 | sed 's/[^0-9]//g')"
}

case "${1:-}" in
  install) install_server 10.5 ;;
  version) use105; mariadbd --no-defaults --version ;;
  list) echo "$SCENARIOS105" | tr ' ' '\n' ;;
  scenario) [ $# -eq 3 ] || die105 "usage: $0 scenario NAME OUT"; scenario105 "$2" "$3" ;;
  verdict) [ $# -ge 3 ] || die105 "usage: $0 verdict DIR OUT [MARIADBD-OPTIONS...]"
    use105; verdict_of "${@:2}"
    verdict105 "$3.err" >"$3.v105"; grep -v '^\(crash_recovery\|checkpoint_lsn\|end_lsn\|to_recover_pages\)=' "$3.txt" >>"$3.v105"
    mv "$3.v105" "$3.txt" ;;
  *) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
