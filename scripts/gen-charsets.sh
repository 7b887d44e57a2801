#!/usr/bin/env bash
# gen-charsets.sh — regenerate rows/charset_tables.go from the installed MariaDB server:
# every collation id with its character set and bytes per character, and, for each single-byte
# character set, the Unicode code point the server converts each of its 256 bytes to (what a
# client with the utf8mb4 character set receives; '?' where the server has none).
#
#   bash scripts/gen-charsets.sh
#
# A throw-away server (scripts/mariadb-lab.sh fresh_server) answers; nothing else changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=mariadb-lab.sh
source "$root/scripts/mariadb-lab.sh" functions
export PATH="$PATH:/usr/local/go/bin"
work=$(mktemp -d /tmp/innoscope-charsets-XXXXXX)
trap 'stop_clean "$work/data" "$work/lab.sock" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
fresh_server "$work"
s=$work/lab.sock
q() { mariadb --no-defaults -S "$s" -uroot -N --batch -e "$1"; }
{
  q "SELECT 'C', c.id, c.character_set_name, s.maxlen FROM information_schema.collations c
     JOIN information_schema.character_sets s USING (character_set_name) WHERE c.id IS NOT NULL ORDER BY c.id"
  all=$(printf '%02X' $(seq 0 255))
  q "CREATE DATABASE cs"
  for cs in $(q "SELECT character_set_name FROM information_schema.character_sets
                 WHERE maxlen = 1 AND character_set_name <> 'binary' ORDER BY 1"); do
    q "CREATE TABLE cs.t_$cs (v VARBINARY(256), c VARCHAR(256) CHARACTER SET $cs) ENGINE=InnoDB"
    q "INSERT INTO cs.t_$cs (c) VALUES (_$cs X'$all')"
    q "SELECT 'M', '$cs', HEX(CONVERT(c USING utf32)) FROM cs.t_$cs"
  done
} | go run "$root/internal/charsetgen" >"$root/rows/charset_tables.go"
gofmt -w "$root/rows/charset_tables.go"
echo "wrote rows/charset_tables.go"
