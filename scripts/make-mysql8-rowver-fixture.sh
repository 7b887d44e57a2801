#!/usr/bin/env bash
# make-mysql8-rowver-fixture.sh — remake fixtures/mysql8rowver/: InnoDB tablespaces written by a
# real MySQL 9.7.4 server whose tables were altered by ALGORITHM=INSTANT ADD/DROP COLUMN (the
# "row versions" of MySQL 8.0.29 and later), with the server's own answers as the oracle.
#
#   scripts/make-mysql8-rowver-fixture.sh [LAB_DIR]      (LAB_DIR default /tmp/mysql-lab)
#
# Not run by the test suite. What it does, end to end:
#  1. Debian sid's mysql-server-core and mysql-client-core and every library they load (sid's
#     libc6 and its loader included: the machine's own glibc is too old for them) are fetched by
#     the ordinary apt client through a private configuration (its own sources list, package
#     lists and cache under LAB_DIR/apt; nothing system-wide changes) and unpacked with dpkg -x
#     into LAB_DIR/root, once (LAB_DIR/.done). The archive is the one this machine's apt sources
#     name, read at run time by scripts/mariadb-server.sh's archive_uri: no host name is written
#     here.
#  2. mysqld and the mysql client run through sid's own loader (LAB_DIR/root/.../ld-linux),
#     --no-defaults, as root: a new data directory LAB_DIR/data (--initialize-insecure), then the
#     server on the socket LAB_DIR/sock with no network, time zone +00:00.
#  3. The statements below (written to the fixture as statements.sql) run through the client, one
#     file in order; every ALTER says ALGORITHM=INSTANT so the server refuses what it cannot do
#     instantly (the client then stops and so does this script).
#  4. The oracle is taken from the running server: oracle/TABLE.tsv (SELECT * ... ORDER BY the
#     primary key, as `mysql --batch` prints it; of a partitioned table, per partition or
#     subpartition, oracle/TABLE.PARTITION.tsv), oracle/TABLE.sql (SHOW CREATE TABLE),
#     oracle/innodb_tables.tsv and oracle/innodb_columns.tsv (information_schema), oracle/server.tsv.
#  5. SET GLOBAL innodb_fast_shutdown=0 and SHUTDOWN (a slow shutdown: purge and change buffer
#     merge done, every page flushed), then data/rv/*.ibd and the general tablespaces data/SPACE.ibd
#     are packed into rv.tar.gz (rv/TABLE.ibd, SPACE.ibd)
#     and the package's ibd2sdi writes each file's SDI (the server's dictionary entry, with the
#     columns' version_added/version_dropped/physical_pos) into oracle/sdi/TABLE.json.
#     oracle/packages.tsv lists the unpacked packages and their versions.
# The README of the fixture is written by hand.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
LAB=${1:-/tmp/mysql-lab}
OUT=$repo/fixtures/mysql8rowver
TABLES="t1 t2 t3 t4 plain tz g1 g2 gz1"
SPACES="gts gtz" # general tablespaces: a file in the data directory, several tables each
PARTED="ph pr" # partitioned: a file per partition

# mysqld, the mysql client and ibd2sdi need these (checked below with the loader's --list).
PACKAGES="mysql-server-core mysql-client-core libc6 libstdc++6 libgcc-s1 libssl3t64 libicu78
  libzstd1 libprotobuf-lite32t64 zlib1g liblz4-1 libaio1t64 libnuma1 libgoogle-perftools4t64
  libxxhash0 libunwind8 liblzma5 libedit2 libtinfo6 libbsd0 libmd0"

# archive_uri and fetch_packages CACHE SUITE PACKAGES... (private apt configuration, dpkg -x).
# shellcheck source=scripts/mariadb-server.sh
source "$repo/scripts/mariadb-server.sh" functions

die() { echo "make-mysql8-rowver-fixture: $*" >&2; exit 2; }

mkdir -p "$LAB"
R=$LAB/root
lib=$R/usr/lib/x86_64-linux-gnu
if [ ! -f "$LAB/.done" ]; then
  rm -rf "$LAB/apt" "$LAB/deb" "$R"
  # shellcheck disable=SC2086
  fetch_packages "$LAB" sid $PACKAGES
  [ -x "$lib/ld-linux-x86-64.so.2" ] || die "$lib/ld-linux-x86-64.so.2: sid's loader is missing"
  for b in "$R/usr/sbin/mysqld" "$R/usr/bin/mysql" "$R/usr/bin/ibd2sdi"; do
    listing=$("$lib/ld-linux-x86-64.so.2" --library-path "$lib" --list "$b")
    if echo "$listing" | grep -q 'not found'; then
      echo "$listing" | grep 'not found' >&2
      die "$b: libraries not found (add their packages to PACKAGES)"
    fi
    outside=$(echo "$listing" | grep '=>' | grep -v "=> $lib/" || true)
    [ -z "$outside" ] || { echo "$outside" >&2; die "$b: libraries loaded from outside $R (add their packages to PACKAGES)"; }
  done
  touch "$LAB/.done"
fi
LD=("$lib/ld-linux-x86-64.so.2" --library-path "$lib")
mysqld() { "${LD[@]}" "$R/usr/sbin/mysqld" --no-defaults --user=root --datadir="$LAB/data" \
  --basedir="$R/usr" --lc-messages-dir="$R/usr/share/mysql" --plugin-dir="$R/usr/lib/mysql/plugin" \
  --secure-file-priv=NULL --default-time-zone=+00:00 "$@"; }
mysql() { "${LD[@]}" "$R/usr/bin/mysql" --no-defaults -uroot --socket="$LAB/sock" "$@"; }
"${LD[@]}" "$R/usr/sbin/mysqld" --no-defaults --version | grep -q ' 9\.7\.' || die "the unpacked server is not 9.7"

# 2. A new data directory and the server on it (never under a server still running there).
if [ -f "$LAB/mysqld.pid" ] && kill -0 "$(cat "$LAB/mysqld.pid")" 2>/dev/null; then
  die "a server still runs on $LAB/data (pid $(cat "$LAB/mysqld.pid")): stop it first"
fi
rm -rf "$LAB/data" "$LAB/sock" "$LAB/sock.lock" "$LAB/mysqld.err" "$LAB/init.err" "$LAB/mysqld.pid"
mysqld --initialize-insecure --log-error="$LAB/init.err" || { cat "$LAB/init.err" >&2; die "--initialize-insecure failed"; }
mysqld --socket="$LAB/sock" --skip-networking --mysqlx=OFF --pid-file="$LAB/mysqld.pid" \
  --log-error="$LAB/mysqld.err" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null && wait "$server" || true' EXIT
for _ in $(seq 120); do
  [ -S "$LAB/sock" ] && mysql -e 'SELECT 1' >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$LAB/mysqld.err" >&2; die "the server stopped"; }
  sleep 1
done
mysql -e 'SELECT 1' >/dev/null || { cat "$LAB/mysqld.err" >&2; die "the server did not become ready"; }

# 3. The statements.
rm -rf "$OUT/oracle" "$OUT/rv.tar.gz"
mkdir -p "$OUT/oracle/sdi"
cat >"$OUT/oracle/statements.sql" <<'EOF'
-- Run by scripts/make-mysql8-rowver-fixture.sh, in this order, as one input of the mysql client
-- (connection character set utf8mb4), on a new MySQL 9.7.4 data directory (defaults:
-- ROW_FORMAT=DYNAMIC, innodb_file_per_table=ON, utf8mb4), server time zone +00:00.
CREATE DATABASE rv;

-- t1 (DYNAMIC): ADD last, ADD in the middle, DROP, ADD FIRST, UPDATE/DELETE, ADD, DROP.
CREATE TABLE rv.t1 (id INT PRIMARY KEY, a INT, b VARCHAR(20), c CHAR(4) NULL);
INSERT INTO rv.t1 (id, a, b, c) VALUES (1, 10, 'one', 'c1'), (2, 20, NULL, 'c2'), (3, NULL, 'three', NULL), (4, 40, 'four', 'c4');
ALTER TABLE rv.t1 ADD COLUMN d INT NOT NULL DEFAULT 7, ALGORITHM=INSTANT;
INSERT INTO rv.t1 (id, a, b, c, d) VALUES (5, 50, 'five', 'c5', 55), (6, 60, NULL, NULL, 66);
INSERT INTO rv.t1 (id, a, b, c) VALUES (7, NULL, 'seven', 'c7');
ALTER TABLE rv.t1 ADD COLUMN e VARCHAR(10) DEFAULT 'x' AFTER a, ALGORITHM=INSTANT;
INSERT INTO rv.t1 (id, a, e, b, c, d) VALUES (8, 80, 'e8', 'eight', 'c8', 88), (9, 90, NULL, NULL, 'c9', 99);
INSERT INTO rv.t1 (id, a, b) VALUES (10, 100, 'ten');
ALTER TABLE rv.t1 DROP COLUMN b, ALGORITHM=INSTANT;
INSERT INTO rv.t1 (id, a, e, c, d) VALUES (11, 110, 'e11', 'c11', 111), (12, NULL, NULL, NULL, 12), (13, 130, 'e13', 'c13', 13);
ALTER TABLE rv.t1 ADD COLUMN f TEXT NULL FIRST, ALGORITHM=INSTANT;
INSERT INTO rv.t1 (f, id, a, e, c, d) VALUES ('f14 text', 14, 140, 'e14', 'c14', 141), (NULL, 15, 150, NULL, NULL, 15);
INSERT INTO rv.t1 (f, id, a, e, c, d) VALUES (REPEAT('long text ', 1000), 16, 160, 'e16', 'c16', 16);
UPDATE rv.t1 SET a = a + 100 WHERE id IN (2, 6);
DELETE FROM rv.t1 WHERE id = 3;
ALTER TABLE rv.t1 ADD COLUMN g DATETIME NULL DEFAULT NULL, ALGORITHM=INSTANT;
ALTER TABLE rv.t1 DROP COLUMN c, ALGORITHM=INSTANT;
INSERT INTO rv.t1 (id, a, e, d, f, g) VALUES (17, 170, 'e17', 17, 'f17', '2024-02-29 12:34:56'), (18, NULL, NULL, 18, NULL, NULL);

-- t2 (COMPACT): t1's history, then a row of each version given a longer e, g and the DROP of c
-- in one ALTER, and the DROP of e (a column added instantly).
CREATE TABLE rv.t2 (id INT PRIMARY KEY, a INT, b VARCHAR(20), c CHAR(4) NULL) ROW_FORMAT=COMPACT;
INSERT INTO rv.t2 (id, a, b, c) VALUES (1, 11, 'uno', 'k1'), (2, 21, NULL, 'k2'), (3, NULL, 'tres', NULL), (4, 41, 'cuatro', 'k4');
ALTER TABLE rv.t2 ADD COLUMN d INT NOT NULL DEFAULT 7, ALGORITHM=INSTANT;
INSERT INTO rv.t2 (id, a, b, c, d) VALUES (5, 51, 'cinco', 'k5', 55), (6, 61, NULL, NULL, 66);
INSERT INTO rv.t2 (id, a, b, c) VALUES (7, NULL, 'siete', 'k7');
ALTER TABLE rv.t2 ADD COLUMN e VARCHAR(10) DEFAULT 'x' AFTER a, ALGORITHM=INSTANT;
INSERT INTO rv.t2 (id, a, e, b, c, d) VALUES (8, 81, 'e8', 'ocho', 'k8', 88), (9, 91, NULL, NULL, 'k9', 99);
INSERT INTO rv.t2 (id, a, b) VALUES (10, 101, 'diez');
ALTER TABLE rv.t2 DROP COLUMN b, ALGORITHM=INSTANT;
INSERT INTO rv.t2 (id, a, e, c, d) VALUES (11, 111, 'e11', 'k11', 111), (12, NULL, NULL, NULL, 12), (13, 131, 'e13', 'k13', 13);
ALTER TABLE rv.t2 ADD COLUMN f TEXT NULL FIRST, ALGORITHM=INSTANT;
INSERT INTO rv.t2 (f, id, a, e, c, d) VALUES ('f14 text', 14, 141, 'e14', 'k14', 141), (NULL, 15, 151, NULL, NULL, 15);
INSERT INTO rv.t2 (f, id, a, e, c, d) VALUES (REPEAT('long text ', 1000), 16, 161, 'e16', 'k16', 16);
UPDATE rv.t2 SET a = a + 100 WHERE id IN (2, 6);
UPDATE rv.t2 SET e = 'longer e' WHERE id IN (1, 5, 9, 12);
DELETE FROM rv.t2 WHERE id = 3;
ALTER TABLE rv.t2 ADD COLUMN g DATETIME NULL DEFAULT NULL, DROP COLUMN c, ALGORITHM=INSTANT;
INSERT INTO rv.t2 (id, a, e, d, f, g) VALUES (17, 171, 'e17', 17, 'f17', '2024-02-29 12:34:56'), (18, NULL, NULL, 18, NULL, NULL);
ALTER TABLE rv.t2 DROP COLUMN e, ALGORITHM=INSTANT;
INSERT INTO rv.t2 (id, a, d, f, g) VALUES (19, 191, 19, 'f19', '1999-12-31 23:59:59'), (20, NULL, 20, NULL, NULL);

-- t3 (REDUNDANT): two ADDs, one DROP.
CREATE TABLE rv.t3 (id INT PRIMARY KEY, a INT, b VARCHAR(20)) ROW_FORMAT=REDUNDANT;
INSERT INTO rv.t3 (id, a, b) VALUES (1, 1, 'red'), (2, NULL, NULL), (3, 3, 'three');
ALTER TABLE rv.t3 ADD COLUMN c INT NOT NULL DEFAULT 5, ALGORITHM=INSTANT;
INSERT INTO rv.t3 (id, a, b, c) VALUES (4, 4, 'four', 44), (5, NULL, 'five', 5);
INSERT INTO rv.t3 (id, a, b) VALUES (6, 6, NULL);
ALTER TABLE rv.t3 ADD COLUMN d VARCHAR(10) DEFAULT 'dd' AFTER a, ALGORITHM=INSTANT;
INSERT INTO rv.t3 (id, a, d, b, c) VALUES (7, 7, 'd7', 'seven', 77), (8, NULL, NULL, NULL, 8);
INSERT INTO rv.t3 (id, a, b) VALUES (9, 9, 'nine');
ALTER TABLE rv.t3 DROP COLUMN b, ALGORITHM=INSTANT;
INSERT INTO rv.t3 (id, a, d, c) VALUES (10, 10, 'd10', 100), (11, NULL, NULL, 11), (12, 12, 'd12', 12);

-- t4 (DYNAMIC): 3000 rows, an instant ADD of a nullable column (DEFAULT NULL) and of one with a
-- non-NULL default, 3000 rows more; a secondary index; several leaf pages.
SET SESSION cte_max_recursion_depth = 10000;
CREATE TABLE rv.t4 (
  id INT NOT NULL PRIMARY KEY,
  big BIGINT UNSIGNED NOT NULL,
  price DECIMAL(10,2) NULL,
  name VARCHAR(100) NOT NULL,
  day DATE NULL,
  ts TIMESTAMP NULL DEFAULT NULL,
  kind ENUM('alpha', 'beta', 'gamma', 'délta') NOT NULL DEFAULT 'alpha',
  KEY k_big (big)
);
INSERT INTO rv.t4 (id, big, price, name, day, ts, kind)
  WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 3000)
  SELECT n, 18446744073709551615 - n * 6700417, IF(n % 7 = 0, NULL, n * 1.25 - 1000),
         CONCAT(ELT(1 + n % 5, 'Grüße', 'café', '日本語', 'Ωμέγα', 'emoji 😀'), ' #', n, REPEAT('·', n % 40)),
         IF(n % 11 = 0, NULL, DATE '2000-01-01' + INTERVAL n DAY),
         IF(n % 3 = 0, NULL, TIMESTAMP '2020-01-01 00:00:00' + INTERVAL n * 3607 SECOND),
         ELT(1 + n % 4, 'alpha', 'beta', 'gamma', 'délta')
  FROM seq;
ALTER TABLE rv.t4 ADD COLUMN note VARCHAR(30) NULL DEFAULT NULL AFTER name, ADD COLUMN qty INT NOT NULL DEFAULT 42, ALGORITHM=INSTANT;
INSERT INTO rv.t4 (id, big, price, name, note, day, ts, kind, qty)
  WITH RECURSIVE seq (n) AS (SELECT 3001 UNION ALL SELECT n + 1 FROM seq WHERE n < 6000)
  SELECT n, CAST(n AS UNSIGNED) * 3000000000000017, IF(n % 7 = 0, NULL, 99999999.99 - n),
         CONCAT(ELT(1 + n % 5, 'Straße', 'niño', '中文', 'Ελλάδα', 'snow ☃'), ' #', n),
         IF(n % 2 = 0, NULL, CONCAT('nötë ', n)),
         IF(n % 13 = 0, NULL, DATE '1970-01-01' + INTERVAL n DAY),
         IF(n % 5 = 0, NULL, TIMESTAMP '2038-01-01 00:00:00' + INTERVAL n SECOND),
         ELT(1 + n % 4, 'délta', 'gamma', 'beta', 'alpha'), n % 100
  FROM seq;
UPDATE rv.t4 SET qty = qty + 1 WHERE id % 1000 = 0;
UPDATE rv.t4 SET note = 'updated' WHERE id IN (10, 3010);
DELETE FROM rv.t4 WHERE id BETWEEN 1500 AND 1509;

-- plain: never altered (a control).
CREATE TABLE rv.plain (id INT PRIMARY KEY, name VARCHAR(20), n INT NULL);
INSERT INTO rv.plain (id, name, n) VALUES (1, 'alpha', 1), (2, 'beta', NULL), (3, 'gämma', 3);

-- ph: PARTITION BY HASH, 3 partitions (a file each), then an instant ADD COLUMN.
CREATE TABLE rv.ph (id INT PRIMARY KEY, v VARCHAR(20), n INT NULL) PARTITION BY HASH(id) PARTITIONS 3;
INSERT INTO rv.ph (id, v, n) WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 30)
  SELECT k, CONCAT('v', k), IF(k % 4 = 0, NULL, k * 3) FROM s;
ALTER TABLE rv.ph ADD COLUMN w INT NOT NULL DEFAULT 9, ALGORITHM=INSTANT;
INSERT INTO rv.ph (id, v, n, w) VALUES (31, 'v31', 31, 1), (32, 'v32', NULL, 2), (33, 'v33', 99, 3);

-- pr: RANGE partitions with HASH subpartitions (a file per subpartition).
CREATE TABLE rv.pr (id INT NOT NULL, d DATE NOT NULL, s VARCHAR(10), PRIMARY KEY (id, d))
  PARTITION BY RANGE (YEAR(d)) SUBPARTITION BY HASH(id) SUBPARTITIONS 2
  (PARTITION p2020 VALUES LESS THAN (2021), PARTITION pmax VALUES LESS THAN MAXVALUE);
INSERT INTO rv.pr VALUES (1, '2020-05-01', 'a'), (2, '2020-06-01', 'b'), (3, '2021-01-01', 'c'), (4, '2022-02-02', NULL),
  (5, '2019-12-31', 'e'), (6, '2023-03-03', 'f');

-- tz: ROW_FORMAT=COMPRESSED (8 KiB compressed pages; its SDI pages are compressed too), 2000
-- rows over several pages, long values stored off page (MySQL's compressed LOB pages).
CREATE TABLE rv.tz (id INT PRIMARY KEY, v VARCHAR(40), n INT NULL, t MEDIUMTEXT NULL) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
INSERT INTO rv.tz (id, v, n, t) WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 2000)
  SELECT k, CONCAT('zip ', k, ' ', REPEAT(CHAR(65 + k % 26), k % 20)), IF(k % 9 = 0, NULL, k * 7),
         IF(k % 100 = 0, REPEAT(CONCAT('off page ', k, ' '), 3000), IF(k % 3 = 0, NULL, CONCAT('short ', k))) FROM s;
UPDATE rv.tz SET n = -n WHERE id % 250 = 0;
DELETE FROM rv.tz WHERE id BETWEEN 700 AND 719;

-- gts: a general tablespace holding g1 and g2 (g2 altered instantly), gtz one of 8 KiB
-- compressed pages holding gz1.
CREATE TABLESPACE gts ADD DATAFILE 'gts.ibd' ENGINE=InnoDB;
CREATE TABLE rv.g1 (id INT PRIMARY KEY, name VARCHAR(30) NOT NULL, KEY k_name (name)) TABLESPACE gts;
INSERT INTO rv.g1 (id, name) WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 800)
  SELECT k, CONCAT('general ', k) FROM s;
CREATE TABLE rv.g2 (id INT PRIMARY KEY, a INT NULL, b VARCHAR(10)) TABLESPACE gts ROW_FORMAT=COMPACT;
INSERT INTO rv.g2 VALUES (1, 1, 'one'), (2, NULL, 'two'), (3, 3, NULL);
ALTER TABLE rv.g2 ADD COLUMN c INT NOT NULL DEFAULT 3 AFTER id, ALGORITHM=INSTANT;
INSERT INTO rv.g2 VALUES (4, 44, 4, 'four');
CREATE TABLESPACE gtz ADD DATAFILE 'gtz.ibd' FILE_BLOCK_SIZE = 8192 ENGINE=InnoDB;
CREATE TABLE rv.gz1 (id INT PRIMARY KEY, v VARCHAR(20)) TABLESPACE gtz ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
INSERT INTO rv.gz1 (id, v) WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 500)
  SELECT k, CONCAT('gz ', k) FROM s;
EOF
mysql --default-character-set=utf8mb4 <"$OUT/oracle/statements.sql" || die "a statement failed (above)"

# 4. The oracle, from the running server.
for t in $TABLES $PARTED; do
  case " $PARTED " in *" $t "*) ;; *) mysql --batch -e "SELECT * FROM rv.$t ORDER BY id" >"$OUT/oracle/$t.tsv" ;; esac
  mysql --batch --raw --skip-column-names -e "SHOW CREATE TABLE rv.$t" | sed "1s/^$t\t//" >"$OUT/oracle/$t.sql"
  echo ';' >>"$OUT/oracle/$t.sql"
  sed -i -z 's/\n;\n$/;\n/' "$OUT/oracle/$t.sql"
done
# A partitioned table: each partition's (or subpartition's) rows, oracle/TABLE.PARTITION.tsv.
for t in $PARTED; do
  mysql --batch --skip-column-names -e "SELECT IFNULL(SUBPARTITION_NAME, PARTITION_NAME) FROM information_schema.PARTITIONS
    WHERE TABLE_SCHEMA = 'rv' AND TABLE_NAME = '$t' ORDER BY PARTITION_ORDINAL_POSITION, SUBPARTITION_ORDINAL_POSITION" |
    while read -r p; do
      mysql --batch -e "SELECT * FROM rv.$t PARTITION ($p) ORDER BY 1, 2" >"$OUT/oracle/$t.$p.tsv"
    done
done
mysql --batch -e "SELECT NAME, SPACE, ROW_FORMAT, INSTANT_COLS, TOTAL_ROW_VERSIONS FROM information_schema.INNODB_TABLES WHERE NAME LIKE 'rv/%' ORDER BY NAME" >"$OUT/oracle/innodb_tables.tsv"
mysql --batch -e "SELECT t.NAME, c.* FROM information_schema.INNODB_COLUMNS c JOIN information_schema.INNODB_TABLES t USING (TABLE_ID) WHERE t.NAME LIKE 'rv/%' ORDER BY t.NAME, c.POS" >"$OUT/oracle/innodb_columns.tsv"
mysql --batch -e "SELECT VERSION() AS version, @@version_comment AS version_comment, @@innodb_page_size AS innodb_page_size, @@innodb_default_row_format AS innodb_default_row_format, @@character_set_server AS character_set_server, @@collation_server AS collation_server, @@time_zone AS time_zone, @@sql_mode AS sql_mode" >"$OUT/oracle/server.tsv"

# 5. A slow shutdown, then the files.
mysql -e 'SET GLOBAL innodb_fast_shutdown=0; SHUTDOWN;'
wait "$server" || true
trap - EXIT
grep -q 'Shutdown complete' "$LAB/mysqld.err" || { cat "$LAB/mysqld.err" >&2; die "no clean shutdown"; }
# shellcheck disable=SC2046
(cd "$LAB/data" && tar --sort=name --owner=0 --group=0 --numeric-owner -cf - rv/*.ibd $(printf '%s.ibd ' $SPACES)) | gzip -9n >"$OUT/rv.tar.gz"
for f in "$LAB"/data/rv/*.ibd $(printf "$LAB/data/%s.ibd " $SPACES); do
  t=$(basename "$f" .ibd)
  "${LD[@]}" "$R/usr/bin/ibd2sdi" "$f" >"$OUT/oracle/sdi/$t.json"
done
for d in "$LAB"/deb/*.deb; do
  printf '%s\t%s\n' "$(dpkg-deb -f "$d" Package)" "$(dpkg-deb -f "$d" Version)"
done | sort >"$OUT/oracle/packages.tsv"
ls -l "$LAB/data/rv" "$OUT/rv.tar.gz"
echo "wrote $OUT"
