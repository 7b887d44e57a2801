#!/usr/bin/env bash
# mariadb-lab.sh — throw-away MariaDB servers that make real crashed data directories.
#
# Every server runs with --no-defaults, its own socket, --skip-networking, and is stopped by pid.
# LAB_SERVER (default 10.11, the system's) picks the server version of every command: 11.8 (or
# 10.5) is fetched and run through its wrappers by scripts/mariadb-server.sh, the same scenarios
# and verdicts with that server.
#
#   scripts/mariadb-lab.sh install              install the server (LAB_SERVER; the system's 10.11:
#                                               mariadb-server, mariadb-backup by apt-get if absent)
#   scripts/mariadb-lab.sh list                 list the scenarios
#   scripts/mariadb-lab.sh scenario NAME OUT    make scenario NAME under the new directory OUT
#   scripts/mariadb-lab.sh verdict DIR OUT [OPT...]  start mariadbd on DIR (a disposable copy), write
#                                               its error log to OUT.err, its verdict to OUT.txt,
#                                               CHECK TABLE to OUT.checks, CHECKSUM TABLE to OUT.checksums,
#                                               the InnoDB dictionary's tables to OUT.systables
#   scripts/mariadb-lab.sh bench-log OUT MIB    a crashed directory whose redo log holds >= MIB MiB
#                                               of records written since the log was created
#   scripts/mariadb-lab.sh bench-space OUT GIB  a cleanly shut down directory with a table file of
#                                               >= GIB GiB (OUT/clean/db/big.ibd)
#   scripts/mariadb-lab.sh bench-recover OUT PAGES  a crashed directory (OUT/crashed) whose log
#                                               changes >= PAGES pages after its checkpoint
#   scripts/mariadb-lab.sh bench-recover-dense OUT MIB  a crashed directory (OUT/crashed): a
#                                               2,000,000-row table with a secondary index updated a
#                                               third at a time until >= MIB MiB of redo follow its
#                                               checkpoint
#   source scripts/mariadb-lab.sh functions     define the functions (start, crash, verdict_of,
#                                               fresh_server, ...) in the calling shell (crash-sweep.sh),
#                                               LAB_SERVER's programs first in PATH
#
# A scenario directory OUT holds:
#   crashed/        the data directory exactly as SIGKILL left it (what innoscope reads)
#   ext/            for DATA DIRECTORY scenarios: a link to ext-crashed/, the external directory as
#                   SIGKILL left it (what crashed/'s .isl files name); ext-server/ is the server's
#                   recovered copy of it (what server/ belongs with); likewise undo/, sys/, redo/
#                   (the layout scenario's undo, system and log file directories)
#   server/         the data directory after the server's own crash recovery and a clean shutdown
#   server.err      the error log of that recovery run
#   verdict.txt     key=value lines read off server.err: crash_recovery (0|1), checkpoint_lsn,
#                   end_lsn, to_recover_pages (empty when the server printed none)
#                   (dblwr_page0: killed as it was about to write page 0 of ibdata1, whose new
#                   image is in the doublewrite buffer, newer than the checkpoint)
#   later/          (dml only) server/ after more committed work: datafiles newer than crashed/'s log
#   checksums.tsv   CHECKSUM TABLE of every user table after the server's recovery (table<TAB>checksum)
#   checks.tsv      CHECK TABLE of every user table after the server's recovery (table<TAB>verdict)
#   sys_tablespaces.tsv  information_schema.INNODB_SYS_TABLESPACES of the live server before the
#                   crash: SPACE, NAME, FLAG, PAGE_SIZE, FILENAME
#   sys_tables.tsv  INNODB_SYS_TABLES of the live server before the crash: NAME, TABLE_ID, SPACE
#   sys_indexes.tsv INNODB_SYS_INDEXES likewise: TABLE_ID, INDEX_ID, NAME, TYPE, N_FIELDS, PAGE_NO, SPACE
#   facts.tsv       where the workload asks for it: table name, column count before instant ALTER
#   options.txt     the extra mariadbd options the scenario used (one per line)
#   workload.sql    the SQL that ran before the crash
set -euo pipefail
# shellcheck source=scripts/mariadb-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/mariadb-server.sh" functions

SCENARIOS="dml ddl alter_force data_directory instant undo wrapped clean compressed pages64k layout encrypted fixture formats_default formats_crc32 formats_4k formats_64k compressed_new compressed_new_4k ddl_churn tmp_partition tmp_partition_create tmp_partition_dd rename_dd_db rename_dd_same inplace_part inplace_part_index create_part_frm dblwr_page0 defaults"

die() { echo "mariadb-lab: $*" >&2; exit 2; }

# opts_for NAME: extra server options of a scenario (used at install and at every start): its
# own and the server version's (server_opts).
opts_for() { echo "$(scenario_opts "$1") $(server_opts "${LAB_SERVER:-10.11}" "$1")"; }

scenario_opts() {
  case "$1" in
    undo) echo "--innodb-undo-tablespaces=3 --innodb-undo-log-truncate=ON --innodb-max-undo-log-size=10M --innodb-log-file-size=64M" ;;
    wrapped|fixture) echo "--innodb-log-file-size=4M" ;;
    formats_crc32) echo "--innodb-checksum-algorithm=crc32" ;;
    compressed) echo "--innodb-checksum-algorithm=crc32 --innodb-page-size=4k --innodb-log-file-size=16M" ;;
    # @OUT@ is the scenario directory: undo, system and log files each in a directory of their own.
    pages64k) echo "--innodb-page-size=64k --innodb-log-file-size=16M" ;;
    encrypted) echo "--plugin-load-add=file_key_management --file-key-management-filename=@OUT@/keys.txt --innodb-log-file-size=16M" ;;
    layout) echo "--innodb-undo-tablespaces=2 --innodb-undo-directory=@OUT@/undo --innodb-data-home-dir=@OUT@/sys --innodb-data-file-path=ibdata1:12M;ibdata2:12M:autoextend --innodb-log-group-home-dir=@OUT@/redo --innodb-log-file-size=16M" ;;
    formats_4k) echo "--innodb-page-size=4k" ;;
    # A log large enough that no checkpoint (adaptive flushing starts at 10% of it) comes
    # between the CREATE TABLEs and the crash: their page 0 stays blank in crashed/.
    compressed_new) echo "--innodb-log-file-size=64M" ;;
    compressed_new_4k) echo "--innodb-checksum-algorithm=crc32 --innodb-page-size=4k --innodb-log-file-size=64M" ;;
    formats_64k) echo "--innodb-page-size=64k" ;;
    # Synchronous page writes (pwrite from I/O threads, not io_uring) so that killat.so sees them.
    dblwr_page0) echo "--innodb-log-file-size=16M --innodb-use-native-aio=0" ;;
    bench) echo "--innodb-log-file-size=1G --innodb-buffer-pool-size=2G" ;;
    bench_recover) echo "--innodb-log-file-size=4G --innodb-buffer-pool-size=4G --innodb-adaptive-flushing=OFF --innodb-max-dirty-pages-pct=99 --innodb-io-capacity=100" ;;
    defaults) ;;
    # dml's crash must leave its changes after the checkpoint: the server flushes and checkpoints
    # early once the log since the checkpoint passes innodb_adaptive_flushing_lwm (10%: 1.6 MiB
    # of this log; dml writes 3.5 MiB), and on a loaded machine the seconds before the kill were
    # enough for a checkpoint after the last write (run r1 of 0566d5e; every 11.8 dml crash
    # before): 70%, its maximum, keeps the page cleaner idle.
    dml|rename_dd_same) echo "--innodb-log-file-size=16M --innodb-adaptive-flushing-lwm=70" ;;
    *) echo "--innodb-log-file-size=16M" ;;
  esac
}

# start DATADIR SOCK ERRLOG OPTS...: start mariadbd in the background and wait until it answers.
start() {
  local d=$1 s=$2 e=$3; shift 3
  mariadbd --no-defaults --datadir="$d" --user=root --socket="$s" --skip-networking \
    --pid-file="$d/lab.pid" --log-error="$e" --innodb-fast-shutdown=1 "$@" >/dev/null 2>&1 &
  local i
  for i in $(seq 1 600); do
    if mariadb --no-defaults -S "$s" -uroot -e "select 1" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 $! 2>/dev/null; then return 1; fi
    sleep 0.1
  done
  cat "$e" >&2
  die "mariadbd did not answer on $s"
}

# Unqualified seq_M_to_N tables (the SEQUENCE engine) need a current database: use mysql.
# SQL_TIMEOUT (seconds; unset or 0: none) bounds each statement: a server whose small buffer
# pool stalls it ("Could not free any blocks in the buffer pool") never answers.
sql() { timeout "${SQL_TIMEOUT:-0}" mariadb --no-defaults -S "$1" -uroot -D mysql -e "$2" "${@:3}"; }

# stop_clean DATADIR SOCK: normal shutdown, wait for the pid to go.
stop_clean() {
  local pid; pid=$(cat "$1/lab.pid")
  mariadb-admin --no-defaults -S "$2" -uroot shutdown
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}

# crash DATADIR: SIGKILL the server by pid and wait for it to go.
crash() {
  local pid; pid=$(cat "$1/lab.pid")
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true   # reaps our child quietly (no "Killed" job notice)
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$1/lab.pid"
}

# workload NAME OUT: print the SQL run before the crash (after a forced checkpoint where it matters).
workload() {
  local ext=$2/ext
  case "$1" in
    dml) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t1 (id INT PRIMARY KEY, v VARCHAR(200), n INT) ENGINE=InnoDB;
CREATE TABLE db.t2 (id INT PRIMARY KEY, v VARCHAR(200), KEY(v)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
INSERT INTO db.t1 SELECT seq, REPEAT(CHAR(65 + seq % 26), 100), seq FROM seq_1_to_3000;
INSERT INTO db.t2 SELECT seq, CONCAT('row', seq) FROM seq_1_to_1000;
SET GLOBAL innodb_log_checkpoint_now=1;
INSERT INTO db.t1 SELECT seq, REPEAT('n', 150), seq FROM seq_3001_to_6000;
UPDATE db.t1 SET n = n * 2, v = REPEAT('u', 120) WHERE id % 3 = 0;
DELETE FROM db.t1 WHERE id % 7 = 0;
UPDATE db.t2 SET v = CONCAT('upd', id) WHERE id % 2 = 0;
DELETE FROM db.t2 WHERE id > 900;
SET GLOBAL innodb_max_purge_lag_wait=0;
INSERT INTO db.t1 VALUES (100000, 'commit: makes purge''s buffered log durable', 0);
EOF
    ;;
    undo) workload dml "$2"; cat <<'EOF'
CREATE TABLE db.big (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
INSERT INTO db.big SELECT seq, REPEAT('a', 200) FROM seq_1_to_60000;
BEGIN;
UPDATE db.big SET v = REPEAT('b', 200);
UPDATE db.big SET v = REPEAT('c', 200);
COMMIT;
EOF
    ;;
    ddl) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.keep (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
CREATE TABLE db.old_name (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
CREATE TABLE db.doomed (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO db.keep SELECT seq, 'k' FROM seq_1_to_500;
INSERT INTO db.old_name SELECT seq, 'o' FROM seq_1_to_500;
INSERT INTO db.doomed SELECT seq FROM seq_1_to_100;
SET GLOBAL innodb_log_checkpoint_now=1;
CREATE TABLE db.fresh (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
INSERT INTO db.fresh SELECT seq, 'f' FROM seq_1_to_300;
RENAME TABLE db.old_name TO db.new_name;
DROP TABLE db.doomed;
INSERT INTO db.keep SELECT seq, 'k2' FROM seq_501_to_800;
EOF
    ;;
    alter_force) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100), KEY(v)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, CONCAT('v', seq) FROM seq_1_to_5000;
SET GLOBAL innodb_log_checkpoint_now=1;
ALTER TABLE db.t FORCE;
INSERT INTO db.t SELECT seq, 'after' FROM seq_5001_to_5500;
EOF
    ;;
    data_directory) cat <<EOF
CREATE DATABASE db;
CREATE TABLE db.local (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.remote (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
INSERT INTO db.local SELECT seq, 'l' FROM seq_1_to_1000;
INSERT INTO db.remote SELECT seq, 'r' FROM seq_1_to_1000;
SET GLOBAL innodb_log_checkpoint_now=1;
INSERT INTO db.remote SELECT seq, REPEAT('x', 90) FROM seq_1001_to_4000;
UPDATE db.local SET v = 'changed' WHERE id < 500;
EOF
    ;;
    instant) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(50), b INT) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, CONCAT('a', seq), seq FROM seq_1_to_2000;
SET GLOBAL innodb_log_checkpoint_now=1;
ALTER TABLE db.t ADD COLUMN c INT NOT NULL DEFAULT 42, ALGORITHM=INSTANT;
ALTER TABLE db.t ADD COLUMN d VARCHAR(20) DEFAULT 'dflt' FIRST, ALGORITHM=INSTANT;
INSERT INTO db.t (id, a, b, c, d) SELECT seq, 'new', seq, seq, 'dd' FROM seq_2001_to_3000;
UPDATE db.t SET c = 7 WHERE id % 10 = 0;
EOF
    ;;
    wrapped) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(255)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, REPEAT('w', 200) FROM seq_1_to_20000;
UPDATE db.t SET v = REPEAT('x', 200);
EOF
    ;;
    compressed) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.zip (id INT PRIMARY KEY, v VARCHAR(200), KEY(v)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=2;
CREATE TABLE db.pc (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE db.red (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
INSERT INTO db.zip SELECT seq, REPEAT(CHAR(97 + seq % 26), 120) FROM seq_1_to_2000;
INSERT INTO db.pc SELECT seq, REPEAT('p', 180) FROM seq_1_to_2000;
INSERT INTO db.red SELECT seq, REPEAT('r', 100) FROM seq_1_to_1000;
SET GLOBAL innodb_log_checkpoint_now=1;
INSERT INTO db.zip SELECT seq, REPEAT('z', 150) FROM seq_2001_to_3000;
UPDATE db.zip SET v = REPEAT('u', 100) WHERE id % 3 = 0;
DELETE FROM db.zip WHERE id % 7 = 0;
INSERT INTO db.pc SELECT seq, REPEAT('q', 150) FROM seq_2001_to_3000;
UPDATE db.pc SET v = 'short' WHERE id % 5 = 0;
UPDATE db.red SET v = REPEAT('s', 50) WHERE id % 2 = 0;
DELETE FROM db.red WHERE id > 900;
INSERT INTO db.red VALUES (5000, 'commit');
EOF
    ;;
    layout | pages64k) workload dml "$2" ;;
    encrypted) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.secret (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ENCRYPTED=YES;
CREATE TABLE db.plain (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
INSERT INTO db.secret SELECT seq, REPEAT('s', 150) FROM seq_1_to_2000;
INSERT INTO db.plain SELECT seq, REPEAT('p', 150) FROM seq_1_to_2000;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db.secret SET v = REPEAT('t', 150) WHERE id % 3 = 0;
UPDATE db.plain SET v = REPEAT('q', 150) WHERE id % 3 = 0;
EOF
    ;;
    fixture) cat <<'EOF'
CREATE DATABASE shop;
CREATE TABLE shop.orders (id INT PRIMARY KEY, customer VARCHAR(40), total DECIMAL(10,2)) ENGINE=InnoDB;
INSERT INTO shop.orders SELECT seq, CONCAT('customer', seq % 50), seq * 1.5 FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
INSERT INTO shop.orders SELECT seq, 'late', 9.99 FROM seq_501_to_700;
UPDATE shop.orders SET total = total + 1 WHERE id % 10 = 0;
DELETE FROM shop.orders WHERE id % 13 = 0;
CREATE TABLE shop.audit (id INT PRIMARY KEY) ENGINE=InnoDB;
RENAME TABLE shop.audit TO shop.audit_log;
INSERT INTO shop.audit_log SELECT seq FROM seq_1_to_50;
EOF
    ;;
    formats_*) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.dyn (id INT PRIMARY KEY, v VARCHAR(200), KEY(v)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE db.red (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
CREATE TABLE db.pc (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE db.inst (id INT PRIMARY KEY, a VARCHAR(40), b INT) ENGINE=InnoDB;
INSERT INTO db.dyn SELECT seq, REPEAT(CHAR(65 + seq % 26), 150) FROM seq_1_to_3000;
INSERT INTO db.red SELECT seq, REPEAT('r', 100) FROM seq_1_to_2000;
INSERT INTO db.pc SELECT seq, REPEAT('p', 180) FROM seq_1_to_3000;
INSERT INTO db.inst SELECT seq, CONCAT('a', seq), seq FROM seq_1_to_3000;
-- lab:facts
ALTER TABLE db.inst ADD COLUMN c INT NOT NULL DEFAULT 42, ALGORITHM=INSTANT;
INSERT INTO db.inst (id, a, b, c) SELECT seq, 'new', seq, 7 FROM seq_3001_to_3100;
EOF
      # ROW_FORMAT=COMPRESSED needs innodb_page_size <= 16k and a non-full_crc32-only setting.
      if [ "$1" != formats_64k ]; then cat <<'EOF'
CREATE TABLE db.zip (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=2;
INSERT INTO db.zip SELECT seq, REPEAT(CHAR(97 + seq % 26), 120) FROM seq_1_to_2000;
EOF
      fi
    ;;
    ddl_churn) cat <<EOF
CREATE DATABASE db;
CREATE DATABASE db2;
CREATE TABLE db.pt (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB
  PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (2000));
CREATE TABLE db.px (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.ph (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 2;
CREATE TABLE db.a (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.b (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.ra (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
CREATE TABLE db.rb (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
CREATE TABLE db.c (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.again (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.mover (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
INSERT INTO db.pt SELECT seq, 'pt' FROM seq_1_to_1999;
INSERT INTO db.px SELECT seq, 'px' FROM seq_1_to_900;
INSERT INTO db.ph SELECT seq, 'ph' FROM seq_1_to_1000;
INSERT INTO db.a SELECT seq, 'a' FROM seq_1_to_300;
INSERT INTO db.b SELECT seq, 'b' FROM seq_1_to_400;
INSERT INTO db.ra SELECT seq, 'ra' FROM seq_1_to_300;
INSERT INTO db.rb SELECT seq, 'rb' FROM seq_1_to_400;
INSERT INTO db.c SELECT seq, 'c' FROM seq_1_to_500;
INSERT INTO db.again SELECT seq, 'old' FROM seq_1_to_200;
INSERT INTO db.mover SELECT seq, 'm' FROM seq_1_to_300;
CREATE TABLE db.big (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
INSERT INTO db.big SELECT seq, REPEAT('b', 150) FROM seq_1_to_200000;
SET GLOBAL innodb_log_checkpoint_now=1;
ALTER TABLE db.pt EXCHANGE PARTITION p0 WITH TABLE db.px;
ALTER TABLE db.ph ADD PARTITION PARTITIONS 1;
ALTER TABLE db.c ADD COLUMN n INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
ALTER TABLE db.c DROP COLUMN n, ALGORITHM=COPY;
RENAME TABLE db.a TO db.tmp, db.b TO db.a, db.tmp TO db.b;
RENAME TABLE db.ra TO db.rtmp, db.rb TO db.ra, db.rtmp TO db.rb;
DROP TABLE db.again;
CREATE TABLE db.again (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.again SELECT seq, 'new' FROM seq_1_to_100;
RENAME TABLE db.mover TO db2.mover;
ALTER TABLE db2.mover FORCE;
UPDATE db.pt SET v = 'late' WHERE id % 100 = 0;
CREATE TABLE db.npt (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB
  PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (2000));
CREATE TABLE db.nph (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 2;
CREATE TABLE db.npx (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.na (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.nb (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
CREATE TABLE db.nra (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
CREATE TABLE db.nrb (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
CREATE TABLE db.nc (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.npt SELECT seq, 'npt' FROM seq_1_to_1500;
INSERT INTO db.npx SELECT seq, 'npx' FROM seq_1_to_600;
INSERT INTO db.nph SELECT seq, 'nph' FROM seq_1_to_700;
INSERT INTO db.na SELECT seq, 'na' FROM seq_1_to_100;
INSERT INTO db.nb SELECT seq, 'nb' FROM seq_1_to_200;
INSERT INTO db.nra SELECT seq, 'nra' FROM seq_1_to_100;
INSERT INTO db.nrb SELECT seq, 'nrb' FROM seq_1_to_200;
INSERT INTO db.nc SELECT seq, 'nc' FROM seq_1_to_300;
ALTER TABLE db.npt EXCHANGE PARTITION p0 WITH TABLE db.npx;
RENAME TABLE db.na TO db.ntmp, db.nb TO db.na, db.ntmp TO db.nb;
RENAME TABLE db.nra TO db.nrtmp, db.nrb TO db.nra, db.nrtmp TO db.nrb;
ALTER TABLE db.nc ADD COLUMN n INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
ALTER TABLE db.nc DROP COLUMN n, ALGORITHM=COPY;
ALTER TABLE db.npt ADD PARTITION (PARTITION p2 VALUES LESS THAN (3000));
ALTER TABLE db.nph ADD PARTITION PARTITIONS 1;
UPDATE db.a SET v = 'after' WHERE id < 50;
UPDATE db.rb SET v = 'after' WHERE id < 50;
INSERT INTO db2.mover SELECT seq, 'late' FROM seq_301_to_400;
EOF
    ;;
    # Every default of the server (no option: 11.8's utf8mb4, 3 undo tablespaces, its default log
    # size), its column types (UUID, INET4, INET6; on 11.8 VECTOR with a vector index), DML and
    # DDL after the checkpoint.
    defaults) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t1 (id INT PRIMARY KEY, v VARCHAR(200), n INT, KEY(v)) ENGINE=InnoDB;
CREATE TABLE db.types (id INT PRIMARY KEY, u UUID, a INET4, b INET6, s VARCHAR(40)) ENGINE=InnoDB;
CREATE TABLE db.old (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
INSERT INTO db.t1 SELECT seq, REPEAT(_utf8mb4 X'C3A9', 1 + seq % 150), seq FROM seq_1_to_3000;
INSERT INTO db.types SELECT seq, UUID(), CONCAT('10.0.', seq DIV 256, '.', seq % 256), CONCAT('2001:db8::', HEX(seq)), CONCAT(_utf8mb4 X'C3BC', seq) FROM seq_1_to_2000;
INSERT INTO db.old SELECT seq, 'o' FROM seq_1_to_500;
EOF
      [ "${LAB_SERVER:-10.11}" = 11.8 ] && cat <<'EOF'
CREATE TABLE db.vec (id INT PRIMARY KEY, e VECTOR(4) NOT NULL, VECTOR INDEX (e)) ENGINE=InnoDB;
INSERT INTO db.vec SELECT seq, VEC_FromText(CONCAT('[', seq, ',', seq / 2, ',1,', seq % 7, ']')) FROM seq_1_to_500;
EOF
      cat <<'EOF'
SET GLOBAL innodb_log_checkpoint_now=1;
INSERT INTO db.t1 SELECT seq, REPEAT(_utf8mb4 X'C39F', seq % 100), seq FROM seq_3001_to_5000;
UPDATE db.t1 SET n = n * 2 WHERE id % 3 = 0;
DELETE FROM db.t1 WHERE id % 11 = 0;
UPDATE db.types SET u = UUID(), a = '192.168.0.1' WHERE id % 4 = 0;
INSERT INTO db.types SELECT seq, UUID(), NULL, '::1', 'new' FROM seq_2001_to_2500;
ALTER TABLE db.types ADD COLUMN z INT NOT NULL DEFAULT 5, ALGORITHM=INSTANT;
RENAME TABLE db.old TO db.renamed;
DROP TABLE db.renamed;
CREATE TABLE db.again (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
INSERT INTO db.again SELECT seq, 'a' FROM seq_1_to_300;
EOF
      [ "${LAB_SERVER:-10.11}" = 11.8 ] && cat <<'EOF'
INSERT INTO db.vec SELECT seq, VEC_FromText(CONCAT('[', seq, ',0,0,', seq % 5, ']')) FROM seq_501_to_800;
DELETE FROM db.vec WHERE id % 9 = 0;
EOF
      true
    ;;
    clean) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, 'c' FROM seq_1_to_2000;
EOF
    ;;
    # db.z: KEY_BLOCK_SIZE=8, or 2 with 4 KiB pages (at most the page size); db.zb: ZBLOB pages.
    compressed_new*) local kbs=8; [ "$1" = compressed_new_4k ] && kbs=2
      cat <<EOF
CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, 'before' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
CREATE TABLE db.z (id INT PRIMARY KEY, v VARCHAR(200), KEY(v)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=$kbs;
INSERT INTO db.z SELECT seq, REPEAT(CHAR(97 + seq % 26), 120) FROM seq_1_to_2000;
CREATE TABLE db.zd (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED;
CREATE TABLE db.z4 (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4;
CREATE TABLE db.z2 (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=2;
CREATE TABLE db.z1 (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=1;
CREATE TABLE db.pc (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE db.red (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
INSERT INTO db.zd SELECT seq, REPEAT(CHAR(97 + seq % 26), 120) FROM seq_1_to_500;
INSERT INTO db.z4 SELECT seq, REPEAT(CHAR(97 + seq % 26), 120) FROM seq_1_to_500;
INSERT INTO db.z2 SELECT seq, REPEAT(CHAR(97 + seq % 26), 120) FROM seq_1_to_500;
INSERT INTO db.z1 SELECT seq, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_500;
INSERT INTO db.pc SELECT seq, REPEAT('p', 180) FROM seq_1_to_500;
INSERT INTO db.red SELECT seq, REPEAT('r', 100) FROM seq_1_to_500;
CREATE TABLE db.zb (id INT PRIMARY KEY, b LONGBLOB, t TEXT) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4;
INSERT INTO db.zb SELECT seq, REPEAT(MD5(seq), 600), REPEAT(CHAR(65 + seq % 26), 3000) FROM seq_1_to_60;
UPDATE db.zb SET b = REPEAT(MD5(id + 1), 700) WHERE id % 3 = 0;
DELETE FROM db.zb WHERE id % 7 = 0;
EOF
    ;;
    # The server kills itself in the ALTER (see scenario): after the file of the new p1 has
    # taken its name and before the rename's transaction commits (tmp_partition), or right after
    # it created the file ph#P#p1#TMP#.ibd (tmp_partition_create); tmp_partition_dd: after the
    # rename of DATA DIRECTORY partition pr#P#p1a#TMP# (REORGANIZE PARTITION).
    tmp_partition_dd) cat <<EOF
CREATE DATABASE db;
CREATE TABLE db.pr (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB PARTITION BY RANGE (id) (
  PARTITION p0 VALUES LESS THAN (1000) DATA DIRECTORY='$ext', PARTITION p1 VALUES LESS THAN (2000) DATA DIRECTORY='$ext',
  PARTITION p2 VALUES LESS THAN MAXVALUE DATA DIRECTORY='$ext');
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.pr SELECT seq, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_3000;
INSERT INTO db.t SELECT seq, 't' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db.pr SET v = 'late' WHERE id % 10 = 0;
EOF
    ;;
    # rename_dd_db: a DATA DIRECTORY table renamed to another database and on within one RENAME
    # TABLE; the server dies right after the second file rename (uncommitted). The server keeps
    # the file in its directory under the new table's name (ext/db2/x.ibd, ext/db2/y.ibd, then
    # ext/db2/z.ibd): crash-sweep seed 10026, where innoscope's rollback put it under ext/db/.
    rename_dd_db) cat <<EOF
CREATE DATABASE db;
CREATE DATABASE db2;
CREATE TABLE db2.x (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db2.x SELECT seq, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_2000;
INSERT INTO db.t SELECT seq, 't' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db2.x SET v = 'late' WHERE id % 10 = 0;
EOF
    ;;
    # rename_dd_same: a DATA DIRECTORY table renamed to another database under the same name
    # after a checkpoint, then killed (the scenario's last step). The server keeps the file and
    # writes no link for the new name, and the log names no file of the table: after its
    # recovery the table cannot be opened (crash-sweep seed 12721).
    rename_dd_same) cat <<EOF
CREATE DATABASE db;
CREATE DATABASE db2;
CREATE TABLE db.x (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$ext';
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.x SELECT seq, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_2000;
INSERT INTO db.t SELECT seq, 't' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
EOF
    ;;
    # inplace_part: an instant ADD COLUMN of a partitioned table, the server killed right after
    # the DDL log marked the ALTER "inplace" (phase 3), before InnoDB committed it: the DDL
    # recovery installs the new .frm anyway (crash-sweep seed 10121). inplace_part_index: the
    # same with an in-place ADD INDEX (crash-sweep seed 13704).
    inplace_part|inplace_part_index) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.p (id INT PRIMARY KEY, a INT, v VARCHAR(100), KEY(a)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 3;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.p SELECT seq, seq % 50, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_2000;
INSERT INTO db.t SELECT seq, 't' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db.p SET v = 'late' WHERE id % 10 = 0;
EOF
    ;;
    # create_part_frm: CREATE TABLE ... LIKE of a partitioned table, the server killed right after
    # it created the new table's .frm (empty): the DDL recovery cannot drop the table through the
    # partition engine and leaves the .frm (crash-sweep seed 11550).
    create_part_frm) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.p (id INT PRIMARY KEY, a INT, v VARCHAR(100)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 2;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.p SELECT seq, seq % 50, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_1000;
INSERT INTO db.t SELECT seq, 't' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db.p SET v = 'late' WHERE id % 10 = 0;
EOF
    ;;
    # The UPDATE's undo log grows the system tablespace (innodb_undo_tablespaces=0): page 0 of
    # ibdata1 changes after the checkpoint; the scenario then kills the server at its write.
    dblwr_page0) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.t1 (id INT PRIMARY KEY, v VARCHAR(200), n INT) ENGINE=InnoDB;
CREATE TABLE db.t2 (id INT PRIMARY KEY, v VARCHAR(200), KEY(v)) ENGINE=InnoDB;
INSERT INTO db.t1 SELECT seq, REPEAT(CHAR(65 + seq % 26), 100), seq FROM seq_1_to_3000;
INSERT INTO db.t2 SELECT seq, CONCAT('row', seq) FROM seq_1_to_1000;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db.t1 SET n = n * 2, v = REPEAT('u', 120);
INSERT INTO db.t2 SELECT seq, CONCAT('late', seq) FROM seq_1001_to_1500;
EOF
    ;;
    tmp_partition*) cat <<'EOF'
CREATE DATABASE db;
CREATE TABLE db.ph (id INT PRIMARY KEY, v VARCHAR(100), KEY(v)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 3;
CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db.ph SELECT seq, REPEAT(CHAR(97 + seq % 26), 60) FROM seq_1_to_3000;
INSERT INTO db.t SELECT seq, 't' FROM seq_1_to_500;
SET GLOBAL innodb_log_checkpoint_now=1;
UPDATE db.ph SET v = 'late' WHERE id % 10 = 0;
EOF
    ;;
    *) die "unknown scenario '$1' (known: $SCENARIOS)" ;;
  esac
}

# kill_at OUT: build OUT/killat.so, an LD_PRELOAD library that kills the process with SIGKILL
# right before it writes page 0 of ibdata1 (offset 0) once the file $LAB_KILL_PAGE0_ARM exists
# (the page is then in the doublewrite buffer, newer than the checkpoint, and not yet in place),
# right after it renamed a file whose old name has "#TMP#" and whose new name ends with
# $LAB_KILL_AFTER_RENAME_TO (any old name with $LAB_KILL_ANY_RENAME set), right after it wrote
# the one-byte phase $LAB_KILL_AFTER_DDL_PHASE of an entry of ddl_recovery.log once the file
# $LAB_KILL_DDL_ARM exists, or created a file whose name ends with $LAB_KILL_AFTER_CREATE: a
# crash at an exact point between a file operation and the commit of its transaction (InnoDB
# logs FILE_RENAME or FILE_CREATE and writes the log before the file operation, and commits after).
kill_at() {
  command -v cc >/dev/null 2>&1 || { export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq gcc >/dev/null; }
  cat >"$1/killat.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int ends(const char *s, const char *env) {
  const char *w = getenv(env);
  size_t n = w ? strlen(w) : 0, m = strlen(s);
  return n && m >= n && !strcmp(s + m - n, w);
}
static int page0_of_ibdata1(int fd, off_t off) {
  const char *arm = getenv("LAB_KILL_PAGE0_ARM");
  if (off != 0 || !arm || access(arm, F_OK) != 0) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 8) return 0;
  path[n] = 0;
  return !strcmp(path + n - 8, "/ibdata1");
}
static int ddl_phase(int fd, const void *buf, size_t count) {
  const char *want = getenv("LAB_KILL_AFTER_DDL_PHASE");
  const char *arm = getenv("LAB_KILL_DDL_ARM");
  if (!want || count != 1 || ((const unsigned char *)buf)[0] != atoi(want) || !arm || access(arm, F_OK) != 0) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 16) return 0;
  path[n] = 0;
  return !strcmp(path + n - 16, "ddl_recovery.log");
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off_t off) {
  static ssize_t (*next)(int, const void *, size_t, off_t);
  if (!next) next = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
  if (page0_of_ibdata1(fd, off)) kill(getpid(), SIGKILL);
  ssize_t r = next(fd, buf, count, off);
  if (ddl_phase(fd, buf, count)) { fdatasync(fd); kill(getpid(), SIGKILL); }
  return r;
}
ssize_t pwrite(int fd, const void *buf, size_t count, off_t off) {
  static ssize_t (*next)(int, const void *, size_t, off_t);
  if (!next) next = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  if (page0_of_ibdata1(fd, off)) kill(getpid(), SIGKILL);
  ssize_t r = next(fd, buf, count, off);
  if (ddl_phase(fd, buf, count)) { fdatasync(fd); kill(getpid(), SIGKILL); }
  return r;
}
int rename(const char *from, const char *to) {
  static int (*next)(const char *, const char *);
  if (!next) next = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  int r = next(from, to);
  if (r == 0 && (strstr(from, "#TMP#") || getenv("LAB_KILL_ANY_RENAME")) && ends(to, "LAB_KILL_AFTER_RENAME_TO")) kill(getpid(), SIGKILL);
  return r;
}
static int opened(const char *p, int flags, int fd) {
  if (fd >= 0 && (flags & O_CREAT) && ends(p, "LAB_KILL_AFTER_CREATE")) kill(getpid(), SIGKILL);
  return fd;
}
int open(const char *p, int flags, ...) {
  static int (*next)(const char *, int, ...);
  if (!next) next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
  va_list a; va_start(a, flags);
  int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(a, int) : 0;
  va_end(a);
  return opened(p, flags, next(p, flags, mode));
}
int open64(const char *p, int flags, ...) {
  static int (*next)(const char *, int, ...);
  if (!next) next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
  va_list a; va_start(a, flags);
  int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(a, int) : 0;
  va_end(a);
  return opened(p, flags, next(p, flags, mode));
}
EOF
  cc -shared -fPIC -o "$1/killat.so" "$1/killat.c" -ldl
}

# be64 FILE OFFSET: the big-endian 64-bit integer at OFFSET.
be64() { echo $((16#$(od -An -tx1 -j"$2" -N8 "$1" | tr -d ' \n'))); }

# be32 FILE OFFSET: the big-endian 32-bit integer at OFFSET.
be32() { echo $((16#$(od -An -tx1 -j"$2" -N4 "$1" | tr -d ' \n'))); }

# dblwr_holds_page0 DATADIR: whether the doublewrite buffer of DATADIR/ibdata1 (16 KiB pages:
# pages 64..191) holds a copy of page 0 of the system tablespace not older than the checkpoint.
dblwr_holds_page0() {
  local f=$1/ibdata1 cp i off; cp=$(log_checkpoint "$1")
  for i in $(seq 64 191); do
    off=$((i * 16384))
    [ "$(be32 "$f" $((off + 34)))" = 0 ] && [ "$(be32 "$f" $((off + 4)))" = 0 ] \
      && [ "$(be64 "$f" $((off + 16)))" -ge "$cp" ] && return 0
  done
  return 1
}

# ring_pass DATADIR LSN: which pass through the ring of ib_logfile0 the byte at LSN is on.
ring_pass() {
  local f=$1/ib_logfile0
  echo $(( ($2 - $(be64 "$f" 8)) / ($(stat -c %s "$f") - 12288) ))
}

# log_checkpoint DATADIR: the larger LSN of the two checkpoint blocks (the one recovery uses).
log_checkpoint() {
  local a b
  a=$(be64 "$1/ib_logfile0" 4096) b=$(be64 "$1/ib_logfile0" 8192)
  if [ "$a" -gt "$b" ]; then echo "$a"; else echo "$b"; fi
}

# wrap_until_straddle DATADIR SOCK OUT: update rows until the log from the last checkpoint to
# the current LSN crosses the physical end of the ring file, then crash. Every UPDATE commits
# durably, so the log on disk reaches at least the last LSN read; a checkpoint can still land
# between that read and the kill, so the crashed file is checked and the run repeated if needed.
wrap_until_straddle() {
  local d=$1 s=$2 out=$3 try i lsn
  for try in 1 2 3 4 5 6; do
    for i in $(seq 1 400); do
      sql "$s" "UPDATE db.t SET v = REPEAT(CHAR(97 + $i % 26), 200) WHERE id % 5 = $i % 5"
      lsn=$(sql "$s" "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" -N | cut -f2)
      [ "$(ring_pass "$d" "$lsn")" != "$(ring_pass "$d" "$(log_checkpoint "$d")")" ] && break
    done
    crash "$d"
    [ "$(ring_pass "$d" "$lsn")" != "$(ring_pass "$d" "$(log_checkpoint "$d")")" ] && return 0
    # shellcheck disable=SC2046
    start "$d" "$s" "$out/retry$try.err" $(opts_for wrapped) || die "restart failed, see $out/retry$try.err"
  done
  die "could not crash with the log straddling the end of the ring"
}

# verdict_of DIR OUT OPTS...: start the server on DIR (a disposable copy: recovery writes to it),
# record its error log in OUT.err and its verdict in OUT.txt (started=0 if it refused), stop it.
verdict_of() {
  local d=$1 out=$2 s; shift 2
  s=$(mktemp -u /tmp/innoscope-lab-XXXXXX.sock)
  rm -f "$out.err"
  if start "$d" "$s" "$out.err" "$@"; then
    check_tables "$s" "$out.err" >"$out.checks"
    checksums "$s" >"$out.checksums"
    # The tables the server's InnoDB dictionary holds (a table whose .frm is gone is not in
    # CHECK TABLE's list, nor SQL's).
    sql "$s" "SELECT NAME FROM information_schema.INNODB_SYS_TABLES WHERE NAME LIKE '%/%' ORDER BY 1" -N >"$out.systables" 2>/dev/null || true
    local stalled=0
    grep -q "statement failed: exit 124" "$out.checks" "$out.checksums" && stalled=1
    { echo "started=1"; verdict "$out.err"
      echo "tables_checked=$(grep -c . "$out.checks" || true)"
      if grep -qv $'\tOK$' "$out.checks"; then echo "tables_ok=0"; else echo "tables_ok=1"; fi
      echo "stalled=$stalled"
      echo "errors=$(grep -c '\[ERROR\]' "$out.err" || true)"; } >"$out.txt"
    if [ "$stalled" = 1 ]; then
      kill -9 "$(cat "$d/lab.pid")" 2>/dev/null || true # it answers no shutdown either
    else
      stop_clean "$d" "$s"
    fi
  else
    { echo "started=0"; verdict "$out.err"; echo "errors=$(grep -c '\[ERROR\]' "$out.err" || true)"; } >"$out.txt"
  fi
}

# stalled RC [PREFIX]: a line saying a statement timed out (SQL_TIMEOUT) when RC is timeout's 124;
# nothing for another failure (the client printed the server's error).
stalled() { if [ "$1" = 124 ]; then echo "${2:-}statement failed: exit 124"; fi; }

# check_tables SOCK [ERRLOG]: CHECK TABLE of every InnoDB user table the server knows of (from
# its .frm files too, so a table whose tablespace is gone shows up as an error): table<TAB>worst
# message. A table the server's error log ERRLOG says has another number of indexes in InnoDB
# than in its .frm is an error too: the server warns of it once, to the statement that opens
# the table first, which need not be CHECK TABLE (crash-sweep seed 13704).
check_tables() {
  local t bad
  for t in $(sql "$1" "SELECT CONCAT(table_schema,'.',table_name) FROM information_schema.tables
      WHERE table_schema NOT IN ('mysql','sys','performance_schema','information_schema')
      AND (engine='InnoDB' OR engine IS NULL) ORDER BY 1" -N 2>/dev/null); do
    bad=""
    if [ -n "${2:-}" ] && grep -qE "Table ${t%%.*}/${t#*.}(#P#[^ ]*)? contains [0-9]+ indexes inside InnoDB, which is different" "$2" 2>/dev/null; then
      bad="error: InnoDB's indexes differ from the .frm's (the server's error log)"
    fi
    { sql "$1" "CHECK TABLE $t" -N 2>&1 || stalled "$?"; } | awk -F'\t' -v t="$t" -v logged="$bad" '
      NF >= 4 { if ($4 != "OK" || $3 == "error") bad = $3 ": " $4 } NF < 4 { bad = $0 }
      END { if (bad == "") bad = logged; print t "\t" (bad == "" ? "OK" : bad) }'
  done
}

# verdict ERRLOG: the server's own statements about recovery, as key=value lines.
verdict() {
  local e=$1 cp end rec cr=0
  grep -q "Starting crash recovery from checkpoint LSN=" "$e" && cr=1
  cp=$(grep -o "Starting crash recovery from checkpoint LSN=[0-9]*" "$e" | head -1 | sed 's/.*=//') || true
  end=$(grep -o "End of log at LSN=[0-9]*" "$e" | head -1 | sed 's/.*=//') || true
  rec=$(grep -o "To recover: [0-9]* pages" "$e" | head -1 | sed 's/[^0-9]//g') || true
  echo "crash_recovery=$cr"
  echo "checkpoint_lsn=$cp"
  echo "end_lsn=$end"
  echo "to_recover_pages=$rec"
}

# checksums SOCK: CHECKSUM TABLE of every InnoDB user table, sorted.
checksums() {
  local t
  for t in $(sql "$1" "SELECT CONCAT(table_schema,'.',table_name) FROM information_schema.tables
      WHERE engine='InnoDB' AND table_schema NOT IN ('mysql','sys','performance_schema','information_schema')
      ORDER BY 1" -N); do
    { sql "$1" "CHECKSUM TABLE $t" -N || stalled "$?" "$t	"; } | awk -F'\t' '{print $1"\t"$2}'
  done
}

# fresh_server OUT OPTS...: install a new data directory OUT/data and start mariadbd on it with
# the socket OUT/lab.sock (its error log is OUT/before.err).
# mariadb-install-db itself sometimes dies (signal 11 while it creates the sys schema, a MariaDB
# bug): the half-made data directory is removed and the install tried again, up to 3 times.
# Each install has a temporary directory of its own (TMPDIR, the server's default tmpdir): lab
# servers run side by side, and two bootstraps in one /tmp collide ("Could not remove temporary
# table /tmp/#sql-temptable", 11.8 sweep seed 10603).
fresh_server() {
  local out=$1 d=$1/data try; shift
  mkdir -p "$out/tmp"
  for try in 1 2 3; do
    if TMPDIR="$out/tmp" mariadb-install-db --no-defaults --datadir="$d" --user=root --auth-root-authentication-method=normal \
      --skip-test-db "$@" >"$out/install.log" 2>&1; then break; fi
    cp "$out/install.log" "$out/install-failed$try.log"
    rm -rf "$d"
    [ "$try" = 3 ] && { cat "$out/install.log" >&2; die "install-db failed 3 times (logs: $out/install-failed*.log)"; }
  done
  start "$d" "$out/lab.sock" "$out/before.err" "$@" || { cat "$out/before.err" >&2; die "mariadbd did not start"; }
}

scenario() {
  local name=$1 out=$2
  [ -e "$out" ] && die "$out exists; give a new directory"
  case " $SCENARIOS " in *" $name "*) ;; *) die "unknown scenario '$name' (known: $SCENARIOS)" ;; esac
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  local d=$out/data s=$out/lab.sock
  # shellcheck disable=SC2207
  local opts=($(opts_for "$name" | sed "s|@OUT@|$out|g"))
  printf '%s\n' "${opts[@]}" >"$out/options.txt"
  mkdir -p "$out/ext" "$out/undo" "$out/sys" "$out/redo"
  # The key file of the file_key_management plugin (used where the options name it).
  echo "1;$(printf '%064x' 1)" >"$out/keys.txt"
  workload "$name" "$out" >"$out/workload.sql"
  case $name in
    tmp_partition) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_AFTER_RENAME_TO='#P#p1.ibd' fresh_server "$out" "${opts[@]}" ;;
    tmp_partition_create) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_AFTER_CREATE='#P#p1#TMP#.ibd' fresh_server "$out" "${opts[@]}" ;;
    dblwr_page0) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_PAGE0_ARM=$out/arm fresh_server "$out" "${opts[@]}" ;;
    tmp_partition_dd) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_AFTER_RENAME_TO='#P#p1a.ibd' fresh_server "$out" "${opts[@]}" ;;
    inplace_part|inplace_part_index) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_AFTER_DDL_PHASE=3 LAB_KILL_DDL_ARM=$out/arm fresh_server "$out" "${opts[@]}" ;;
    create_part_frm) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_AFTER_CREATE='/db/pl.frm' fresh_server "$out" "${opts[@]}" ;;
    rename_dd_db) kill_at "$out"
      LD_PRELOAD=$out/killat.so LAB_KILL_ANY_RENAME=1 LAB_KILL_AFTER_RENAME_TO='/db2/z.ibd' fresh_server "$out" "${opts[@]}" ;;
    *) fresh_server "$out" "${opts[@]}" ;;
  esac
  # The workload runs in two parts around an optional "-- lab:facts" line, where the live server's
  # column counts are recorded (facts.tsv: table, columns) before any instant ALTER changes them.
  sql "$s" "$(sed '/^-- lab:facts/,$d' "$out/workload.sql")"
  if grep -q '^-- lab:facts' "$out/workload.sql"; then
    sql "$s" "SELECT t.NAME, COUNT(*) FROM information_schema.INNODB_SYS_TABLES t
      JOIN information_schema.INNODB_SYS_COLUMNS c USING (TABLE_ID) WHERE t.NAME LIKE 'db/%'
      GROUP BY t.NAME ORDER BY 1" -N >"$out/facts.tsv"
    sql "$s" "$(sed '1,/^-- lab:facts/d' "$out/workload.sql")"
  fi
  # What the live server knows about its tablespaces, just before the crash.
  sql "$s" "SELECT SPACE, NAME, FLAG, PAGE_SIZE, FILENAME FROM information_schema.INNODB_SYS_TABLESPACES
    ORDER BY SPACE" -N >"$out/sys_tablespaces.tsv"
  sql "$s" "SELECT NAME, TABLE_ID, SPACE FROM information_schema.INNODB_SYS_TABLES ORDER BY NAME" -N >"$out/sys_tables.tsv"
  sql "$s" "SELECT TABLE_ID, INDEX_ID, NAME, TYPE, N_FIELDS, PAGE_NO, SPACE FROM information_schema.INNODB_SYS_INDEXES
    ORDER BY TABLE_ID, INDEX_ID" -N >"$out/sys_indexes.tsv"
  if [ "$name" = undo ]; then
    # Purge truncates the oversized undo tablespace (logged as EXTENDED TRIM_PAGES); wait for it.
    local i; for i in $(seq 1 300); do grep -q "Truncated " "$out/before.err" && break; sleep 0.1; done
    grep -q "Truncated " "$out/before.err" || die "no undo tablespace was truncated"
  fi
  if [ "$name" = ddl_churn ]; then
    # The crash hits a copying ALTER TABLE in the middle: its #sql-alter file exists (created
    # after the checkpoint) and ddl_recovery.log holds the entries that drop it after recovery.
    sql "$s" "ALTER TABLE db.big ADD COLUMN z INT NOT NULL DEFAULT 1, ALGORITHM=COPY" >/dev/null 2>&1 &
    local i; for i in $(seq 1 500); do compgen -G "$d/db/#sql-alter*.ibd" >/dev/null && break; sleep 0.02; done
    compgen -G "$d/db/#sql-alter*.ibd" >/dev/null || die "the copying ALTER TABLE was not caught"
    sleep 0.3
    compgen -G "$d/db/#sql-alter*.ibd" >/dev/null || die "the copying ALTER TABLE ended before the crash"
  fi
  if [ "${name#tmp_partition}" != "$name" ]; then
    # ADD PARTITION of a HASH table creates every partition anew as a #TMP# file (each in a
    # transaction of its own), copies the rows, then per partition drops the old file and renames
    # the #TMP# one. tmp_partition: the server dies right after renaming p1#TMP# to p1
    # (uncommitted), with p2#TMP# still to rename; tmp_partition_create: right after it created
    # the empty file p1#TMP# (uncommitted), with p0#TMP# made.
    local pid alter="ALTER TABLE db.ph ADD PARTITION PARTITIONS 1"; pid=$(cat "$d/lab.pid")
    [ "$name" = tmp_partition_dd ] && alter="ALTER TABLE db.pr REORGANIZE PARTITION p1 INTO (
      PARTITION p1a VALUES LESS THAN (1500) DATA DIRECTORY='$out/ext',
      PARTITION p1b VALUES LESS THAN (2000) DATA DIRECTORY='$out/ext')"
    sql "$s" "$alter" >/dev/null 2>&1 && die "the ALTER TABLE was not cut"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$d/lab.pid"
    if [ "$name" = tmp_partition ]; then
      [ -f "$d/db/ph#P#p1.ibd" ] && [ ! -e "$d/db/ph#P#p1#TMP#.ibd" ] && [ -f "$d/db/ph#P#p2#TMP#.ibd" ] ||
        die "the crash did not come after the rename of ph#P#p1#TMP#: $(ls "$d/db")"
    elif [ "$name" = tmp_partition_dd ]; then
      [ -f "$out/ext/db/pr#P#p1a.ibd" ] && [ -f "$out/ext/db/pr#P#p1b#TMP#.ibd" ] ||
        die "the crash did not come after the rename of pr#P#p1a#TMP#: $(ls "$out/ext/db")"
    else
      [ -f "$d/db/ph#P#p0#TMP#.ibd" ] && [ -f "$d/db/ph#P#p1#TMP#.ibd" ] && [ ! -e "$d/db/ph#P#p2#TMP#.ibd" ] ||
        die "the crash did not come after the creation of ph#P#p1#TMP#: $(ls "$d/db")"
    fi
  elif [ "$name" = inplace_part ] || [ "$name" = inplace_part_index ]; then
    local pid alter="ALTER TABLE db.p ADD COLUMN c1 INT NOT NULL DEFAULT 41 FIRST, ALGORITHM=INSTANT"
    [ "$name" = inplace_part_index ] && alter="ALTER TABLE db.p ADD INDEX iv (v(20)), ALGORITHM=INPLACE"
    pid=$(cat "$d/lab.pid")
    touch "$out/arm"
    sql "$s" "$alter" >/dev/null 2>&1 && die "the ALTER TABLE was not cut"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$d/lab.pid" "$out/arm"
    compgen -G "$d/db/#sql-alter*.frm" >/dev/null || die "the crash came before or after the new .frm: $(ls "$d/db")"
  elif [ "$name" = create_part_frm ]; then
    local pid; pid=$(cat "$d/lab.pid")
    sql "$s" "CREATE TABLE db.pl LIKE db.p" >/dev/null 2>&1 && die "the CREATE TABLE was not cut"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$d/lab.pid"
    [ -f "$d/db/pl.frm" ] && [ ! -s "$d/db/pl.frm" ] || die "the crash did not leave an empty pl.frm: $(ls -l "$d/db")"
  elif [ "$name" = rename_dd_db ]; then
    local pid; pid=$(cat "$d/lab.pid")
    sql "$s" "RENAME TABLE db2.x TO db.y, db.y TO db2.z" >/dev/null 2>&1 && die "the RENAME TABLE was not cut"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$d/lab.pid"
    [ -f "$out/ext/db2/z.ibd" ] && [ ! -e "$out/ext/db2/x.ibd" ] ||
      die "the crash did not come after the rename to db2/z.ibd: $(ls -R "$out/ext")"
  elif [ "$name" = rename_dd_same ]; then
    # CHECKSUM TABLE of the table as the live server has it, under its new name (for a copy
    # that repairs the table); then the RENAME and a change for crash recovery, and the kill.
    sql "$s" "CHECKSUM TABLE db.x" -N | awk -F'\t' '{sub(/^db\./, "db2.", $1); print $1"\t"$2}' >"$out/renamed_checksum.tsv"
    sql "$s" "RENAME TABLE db.x TO db2.x; UPDATE db.t SET v = 'late' WHERE id % 10 = 0"
    crash "$d"
    [ -f "$out/ext/db/x.ibd" ] && [ -f "$d/db2/x.frm" ] && [ ! -e "$d/db2/x.isl" ] ||
      die "the RENAME did not leave db2/x.frm, no db2/x.isl and ext/db/x.ibd: $(ls "$d/db" "$d/db2" "$out/ext/db")"
  elif [ "$name" = dblwr_page0 ]; then
    # A checkpoint flushes every dirty page through the doublewrite buffer; killat.so kills the
    # server as it is about to write page 0 of ibdata1 in place.
    local pid; pid=$(cat "$d/lab.pid")
    touch "$out/arm"
    sql "$s" "SET GLOBAL innodb_log_checkpoint_now=1" >/dev/null 2>&1 && die "the server was not killed at its write of page 0"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$d/lab.pid" "$out/arm"
    dblwr_holds_page0 "$d" || die "the doublewrite buffer holds no copy of page 0 newer than the checkpoint"
  elif [ "$name" = wrapped ]; then wrap_until_straddle "$d" "$s" "$out"
  elif [ "$name" = clean ] || [ "${name#formats_}" != "$name" ]; then stop_clean "$d" "$s"
  else crash "$d"; fi
  cp -a "$d" "$out/crashed"
  # Files outside the data directory (DATA DIRECTORY tables under OUT/ext, named by absolute
  # paths in the .isl files and the redo log; undo, system and log files under OUT/undo, sys,
  # redo) are frozen as X-crashed; the server recovers a copy through X -> X-server, and X points
  # back at the frozen files afterwards, so crashed/ and the X-crashed stay as SIGKILL left them.
  local x external=()
  for x in ext undo sys redo; do
    if [ -n "$(ls -A "$out/$x")" ]; then
      external+=("$x")
      mv "$out/$x" "$out/$x-crashed"
      cp -a "$out/$x-crashed" "$out/$x-server"
      ln -s "$x-server" "$out/$x"
    else
      rmdir "$out/$x"
    fi
  done
  # The server's own verdict: recover the original location in place (DATA DIRECTORY paths in the
  # redo log are absolute and point there), then shut down cleanly.
  start "$d" "$s" "$out/server.err" "${opts[@]}" || { cat "$out/server.err" >&2; die "recovery failed"; }
  checksums "$s" >"$out/checksums.tsv"
  check_tables "$s" "$out/server.err" >"$out/checks.tsv"
  stop_clean "$d" "$s"
  mv "$d" "$out/server"
  verdict "$out/server.err" >"$out/verdict.txt"
  for x in "${external[@]}"; do rm "$out/$x" && ln -s "$x-crashed" "$out/$x"; done
  if [ "$name" = dml ]; then
    # later/: the same server after more committed work and a checkpoint, so its datafiles are
    # newer than crashed/ib_logfile0 (as when an old log is restored beside newer files).
    cp -a "$out/server" "$d"
    start "$d" "$s" "$out/later.err" "${opts[@]}" || { cat "$out/later.err" >&2; die "restart failed"; }
    sql "$s" "UPDATE db.t1 SET n = n + 1; SET GLOBAL innodb_log_checkpoint_now=1"
    stop_clean "$d" "$s"
    mv "$d" "$out/later"
  fi
}

bench_log() {
  local out=$1 mib=$2
  [ -e "$out" ] && die "$out exists; give a new directory"
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  local d=$out/data s=$out/lab.sock
  # shellcheck disable=SC2207
  local opts=($(opts_for bench))
  fresh_server "$out" "${opts[@]}"
  sql "$s" "CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(255), b INT, KEY(b)) ENGINE=InnoDB"
  local lsn0 lsn i=0
  lsn0=$(sql "$s" "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" -N | cut -f2)
  while :; do
    lsn=$(sql "$s" "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" -N | cut -f2)
    [ $((lsn - lsn0)) -ge $((mib * 1048576)) ] && break
    sql "$s" "INSERT INTO db.t SELECT seq + $i * 100000, REPEAT(CHAR(65 + seq % 26), 200), seq
              FROM seq_1_to_100000; UPDATE db.t SET b = b + 1 WHERE id > $i * 100000"
    i=$((i + 1))
  done
  crash "$d"
  mv "$d" "$out/crashed"
  echo "redo bytes written: $((lsn - lsn0))" >"$out/bench.txt"
}

bench_space() {
  local out=$1 gib=$2
  [ -e "$out" ] && die "$out exists; give a new directory"
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  local d=$out/data s=$out/lab.sock i=0
  # shellcheck disable=SC2207
  local opts=($(opts_for bench))
  fresh_server "$out" "${opts[@]}"
  sql "$s" "CREATE DATABASE db; CREATE TABLE db.big (id INT PRIMARY KEY, a VARCHAR(255), b VARCHAR(255), KEY(a)) ENGINE=InnoDB"
  while [ "$(stat -c %s "$d/db/big.ibd")" -lt $((gib * 1073741824)) ]; do
    sql "$s" "INSERT INTO db.big SELECT seq + $i * 200000, MD5(seq + $i), REPEAT(CHAR(65 + seq % 26), 200)
              FROM seq_1_to_200000"
    i=$((i + 1))
  done
  stop_clean "$d" "$s"
  mv "$d" "$out/clean"
  stat -c '%n %s' "$out/clean/db/big.ibd" >"$out/bench.txt"
}

# bench_recover_table OUT ROWS KEYS: the bench-recover server (its options in OUT/options.txt)
# with db.t of ROWS rows (KEYS: more of its CREATE TABLE, e.g. ", KEY(b)"), then a checkpoint.
bench_recover_table() {
  local out=$1 rows=$2 keys=$3 s=$1/lab.sock i step=200000
  # shellcheck disable=SC2207
  local opts=($(opts_for bench_recover))
  printf '%s\n' "${opts[@]}" >"$out/options.txt"
  fresh_server "$out" "${opts[@]}"
  sql "$s" "CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(255), b INT$keys) ENGINE=InnoDB"
  for ((i = 0; i < rows; i += step)); do
    sql "$s" "INSERT INTO db.t SELECT seq, REPEAT(CHAR(65 + seq % 26), 200), seq FROM seq_$((i + 1))_to_$((i + step))"
  done
  sql "$s" "SET GLOBAL innodb_log_checkpoint_now=1"
}

# bench_recover OUT PAGES: a table of about PAGES leaf pages, a checkpoint, then an UPDATE of
# every row (every leaf page changes after the checkpoint, with its undo log), then SIGKILL. The
# log and the buffer pool are large enough that no checkpoint or flush intervenes.
bench_recover() {
  local out=$1 pages=$2
  [ -e "$out" ] && die "$out exists; give a new directory"
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  local d=$out/data s=$out/lab.sock i rows=$(($2 * 60)) step=200000
  bench_recover_table "$out" $rows ""
  for ((i = 0; i < rows; i += step)); do
    sql "$s" "UPDATE db.t SET b = b + 1 WHERE id BETWEEN $((i + 1)) AND $((i + step))"
  done
  crash "$d"
  mv "$d" "$out/crashed"
  echo "rows=$rows" >"$out/bench.txt"
}

# bench_recover_dense OUT MIB: the dense-update crash of issue 35: a 2,000,000-row table with a
# secondary index, a checkpoint, then UPDATEs of a third of the rows at a time (the secondary
# index changes with each) until >= MIB MiB of redo lie after the checkpoint, and SIGKILL: every
# page of the table is changed by hundreds of records.
bench_recover_dense() {
  local out=$1 mib=$2
  [ -e "$out" ] && die "$out exists; give a new directory"
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  local d=$out/data s=$out/lab.sock rows=2000000 lsn0 lsn round=0
  bench_recover_table "$out" $rows ", KEY(b)"
  lsn0=$(sql "$s" "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" -N | cut -f2)
  while :; do
    lsn=$(sql "$s" "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" -N | cut -f2)
    [ $((lsn - lsn0)) -ge $((mib * 1048576)) ] && break
    sql "$s" "UPDATE db.t SET b = b + 1 WHERE id % 3 = $((round % 3))"
    round=$((round + 1))
  done
  crash "$d"
  mv "$d" "$out/crashed"
  echo "rows=$rows updates of a third: $round; redo bytes after the checkpoint: $((lsn - lsn0))" >"$out/bench.txt"
}

# Every command runs LAB_SERVER's programs; so do the functions a caller sources (another server
# than the system's only: the system's needs no install check).
case "${1:-}" in
  install | list) ;;
  functions) [ "${LAB_SERVER:-10.11}" = 10.11 ] || use_server "$LAB_SERVER" ;;
  *) use_server "${LAB_SERVER:-10.11}" ;;
esac
case "${1:-}" in
  install) install_server "${LAB_SERVER:-10.11}" >/dev/null ;;
  list) echo "$SCENARIOS" | tr ' ' '\n' ;;
  scenario) [ $# -eq 3 ] || die "usage: $0 scenario NAME OUT"; scenario "$2" "$3" ;;
  verdict) [ $# -ge 3 ] || die "usage: $0 verdict DIR OUT [MARIADBD-OPTIONS...]"; verdict_of "${@:2}" ;;
  bench-space) [ $# -eq 3 ] || die "usage: $0 bench-space OUT GIB"; bench_space "$2" "$3" ;;
  bench-log) [ $# -eq 3 ] || die "usage: $0 bench-log OUT MIB"; bench_log "$2" "$3" ;;
  bench-recover) [ $# -eq 3 ] || die "usage: $0 bench-recover OUT PAGES"; bench_recover "$2" "$3" ;;
  bench-recover-dense) [ $# -eq 3 ] || die "usage: $0 bench-recover-dense OUT MIB"; bench_recover_dense "$2" "$3" ;;
  # `source scripts/mariadb-lab.sh functions` defines the functions above and runs nothing.
  functions) ;;
  *) sed -n '2,30p' "$0" >&2; exit 2 ;;
esac
