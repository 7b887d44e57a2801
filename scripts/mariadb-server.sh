#!/usr/bin/env bash
# mariadb-server.sh — the MariaDB servers of the lab, by version, without a system-wide change.
#
#   scripts/mariadb-server.sh install VERSION   make VERSION runnable (once: cached); print the
#                                               directory of its wrappers (bin/mariadbd, ...),
#                                               empty for the system's server
#   scripts/mariadb-server.sh version VERSION   print that server's `mariadbd --version`
#   scripts/mariadb-server.sh versions          list the lab's server versions
#   source scripts/mariadb-server.sh functions  define use_server VERSION (put that server's
#                                               wrappers first in PATH) in the calling shell
#
# The versions:
#   10.11  the machine's own mariadb-server (Debian bookworm), installed by apt-get if absent
#   10.5   Debian bullseye's mariadb-server-core-10.5, run with bookworm's loader (libssl1.1
#          unpacked beside it)
#   11.8   Debian trixie's mariadb-server-core and mariadb-client-core and every library they
#          need, run through trixie's own loader (bookworm's glibc is too old for them)
# 10.5 and 11.8 are fetched by the ordinary apt client through a private configuration (its own
# sources list, package lists and cache) and unpacked with dpkg -x under the lab cache
# ($INNOSCOPE_LAB_DIR, default $TMPDIR or /tmp, then innoscope-lab)/mariadb-VERSION-SUITE; a
# second run finds it complete (its .done file) and fetches nothing; runs are serialised by
# flock. The archive is the one this machine's apt sources name (read at run time from
# /etc/apt/sources.list and /etc/apt/sources.list.d/*.list|*.sources): no host name is written here.
# The wrappers take the lab's calls unchanged: mariadbd and mariadb-install-db with
# --no-defaults first, then the version's own paths; 11.8's mariadb client and innochecksum are
# wrapped too (its packages have no mariadb-admin: the system's shuts it down), 10.5 uses the
# system's client programs.
set -euo pipefail

SERVER_VERSIONS="10.11 10.5 11.8"

die_server() { echo "mariadb-server: $*" >&2; exit 2; }

# server_suite VERSION: the Debian suite a version comes from (empty: the machine's own).
server_suite() {
  case "$1" in
    10.11) echo "" ;;
    10.5) echo bullseye ;;
    11.8) echo trixie ;;
    *) die_server "unknown server version '$1' (known: $SERVER_VERSIONS)" ;;
  esac
}

# server_packages VERSION: the packages unpacked for a version.
server_packages() {
  case "$1" in
    10.5) echo "mariadb-server-core-10.5 mariadb-client-core-10.5 libssl1.1" ;;
    11.8) echo "mariadb-server-core mariadb-client-core libc6 libstdc++6 libgcc-s1 libssl3t64 libpcre2-8-0
      libaio1t64 liburing2 libnuma1 libsystemd0 libcrypt1 libedit2 libncurses6 libtinfo6 zlib1g libcap2
      libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1 libbsd0 libmd0 libmariadb3" ;;
  esac
}

# server_opts VERSION SCENARIO: options a version adds to a lab scenario's. 11.8's default
# character set is utf8mb4 (10.11's latin1): the scenarios written for 10.11 (a REDUNDANT table's
# index on VARCHAR(200) fits 767 bytes only in latin1) run in latin1 there, except the defaults
# scenarios, which keep every default of the version.
server_opts() {
  case "$1:$2" in
    11.8:defaults*) ;;
    11.8:*) echo "--character-set-server=latin1 --collation-server=latin1_swedish_ci" ;;
  esac
}

# server_cache VERSION: where a fetched version lives.
server_cache() {
  echo "${INNOSCOPE_LAB_DIR:-${TMPDIR:-/tmp}/innoscope-lab}/mariadb-$1-$(server_suite "$1")"
}

# codename: the release codename of this machine (bookworm), from /etc/os-release.
codename() { (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}"); }

# archive_uri: the URI (and its Signed-By keyring, after a tab) of the enabled apt source that
# serves this machine's release suite with component main: one-line .list entries and deb822
# .sources stanzas. No host name is written here: it comes from the machine's configuration.
archive_uri() {
  local rel; rel=$(codename)
  [ -n "$rel" ] || die_server "no VERSION_CODENAME in /etc/os-release"
  local f files=()
  [ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || die_server "no apt sources on this machine"
  local found
  found=$(for f in "${files[@]}"; do
    case "$f" in
      *.sources) awk -v rel="$rel" '
        function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " rel " ") &&
                               (" " comps " ") ~ / main / && enabled != "no") {
                             split(uris, u, " "); print u[1] "\t" key; exit }
                           types = uris = suites = comps = key = enabled = "" }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        { k = tolower($1); sub(/:$/, "", k); $1 = ""; sub(/^ +/, "")
          if (k == "types") types = $0; else if (k == "uris") uris = $0
          else if (k == "suites") suites = $0; else if (k == "components") comps = $0
          else if (k == "signed-by") key = $0; else if (k == "enabled") enabled = tolower($0) }
        END { flush() }' "$f" ;;
      *) awk -v rel="$rel" '
        /^[ \t]*#/ || $1 != "deb" { next }
        { i = 2; key = ""
          if ($2 ~ /^\[/) { while (i <= NF) { o = $i; if (o ~ /signed-by=/) { key = o; sub(/.*signed-by=/, "", key); sub(/\]$/, "", key) }
                                              i++; if (o ~ /\]$/) break } }
          if ($(i+1) == rel) { for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i "\t" key; exit } } }' "$f" ;;
    esac
  done | head -1)
  [ -n "$found" ] || die_server "no enabled apt source for suite '$rel' with component main in ${files[*]}"
  echo "$found"
}

# fetch_packages CACHE SUITE PACKAGES...: download the packages of SUITE through a private apt
# configuration under CACHE/apt and unpack them into CACHE/root.
fetch_packages() {
  local cache=$1 suite=$2; shift 2
  mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/deb" "$cache/root"
  local found uri key
  found=$(archive_uri)
  uri=${found%%$'\t'*} key=${found#*$'\t'}
  [ -n "$key" ] || key=/usr/share/keyrings/debian-archive-keyring.gpg
  echo "deb [signed-by=$key] $uri $suite main" >"$cache/apt/sources.list"
  local o=(-o "Dir::Etc::sourcelist=$cache/apt/sources.list" -o "Dir::Etc::sourceparts=-"
           -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache")
  # As root apt fetches as the _apt user, which cannot write into the private cache.
  [ "$(id -u)" = 0 ] && o+=(-o "APT::Sandbox::User=root")
  apt-get "${o[@]}" -qq update >"$cache/apt/update.log" 2>&1 \
    || { cat "$cache/apt/update.log" >&2; die_server "apt-get update of $uri $suite failed"; }
  (cd "$cache/deb" && apt-get "${o[@]}" -qq download "$@") >"$cache/apt/download.log" 2>&1 \
    || { cat "$cache/apt/download.log" >&2; die_server "apt-get download $* ($suite) failed"; }
  local d
  for d in "$cache"/deb/*.deb; do dpkg -x "$d" "$cache/root"; done
}

# wrap OUT EXEC PREFIX: a wrapper OUT that runs EXEC through PREFIX (an environment setting or a
# loader), keeping a leading --no-defaults first and adding the options after PREFIX's own.
# EXTRA (a variable) holds options for after --no-defaults.
wrap() {
  local out=$1 exe=$2 prefix=$3
  cat >"$out" <<EOF
#!/bin/sh
first=; if [ "\${1:-}" = --no-defaults ]; then first=--no-defaults; shift; fi
exec $prefix $exe \$first ${EXTRA:-} "\$@"
EOF
  chmod +x "$out"
}

# install10_5 CACHE: 10.5's binaries with their own libraries first (bookworm's loader).
install10_5() {
  local c=$1 r=$1/root lib=$1/root/usr/lib/x86_64-linux-gnu
  if LD_LIBRARY_PATH=$lib ldd "$r/usr/sbin/mariadbd" | grep -q 'not found'; then
    LD_LIBRARY_PATH=$lib ldd "$r/usr/sbin/mariadbd" | grep 'not found' >&2
    die_server "$r/usr/sbin/mariadbd: libraries not found"
  fi
  EXTRA="--basedir=$r/usr --lc-messages-dir=$r/usr/share/mysql" wrap "$c/bin/mariadbd" "$r/usr/sbin/mariadbd" "env LD_LIBRARY_PATH=$lib"
  EXTRA="--basedir=$r/usr" wrap "$c/bin/mariadb-install-db" "$r/usr/bin/mariadb-install-db" "env LD_LIBRARY_PATH=$lib"
}

# install11_8 CACHE: every 11.8 binary through trixie's loader and libraries. mariadb-install-db
# (a shell script) finds mariadbd and my_print_defaults under its --basedir: CACHE/base holds
# sbin/mariadbd and bin/my_print_defaults wrappers, and share and lib links into the root.
install11_8() {
  local c=$1 r=$1/root lib=$1/root/usr/lib/x86_64-linux-gnu
  local ld="$lib/ld-linux-x86-64.so.2 --library-path $lib"
  [ -x "$lib/ld-linux-x86-64.so.2" ] || die_server "$lib/ld-linux-x86-64.so.2: trixie's loader is missing"
  mkdir -p "$c/base/sbin" "$c/base/bin"
  ln -sfn "$r/usr/share" "$c/base/share"
  ln -sfn "$r/usr/lib" "$c/base/lib"
  wrap "$c/base/sbin/mariadbd" "$r/usr/sbin/mariadbd" "$ld"
  wrap "$c/base/bin/my_print_defaults" "$r/usr/bin/my_print_defaults" "$ld"
  EXTRA="--basedir=$c/base --lc-messages-dir=$r/usr/share/mariadb" wrap "$c/bin/mariadbd" "$r/usr/sbin/mariadbd" "$ld"
  EXTRA="--basedir=$c/base --force" wrap "$c/bin/mariadb-install-db" "$r/usr/bin/mariadb-install-db" "sh"
  local p
  for p in mariadb innochecksum; do
    [ -x "$r/usr/bin/$p" ] || die_server "$r/usr/bin/$p: not in the 11.8 packages"
    wrap "$c/bin/$p" "$r/usr/bin/$p" "$ld"
  done
}

# install_server VERSION: make VERSION runnable once; print its wrappers' directory (empty for
# the system's server).
install_server() {
  local v=$1 suite c
  suite=$(server_suite "$v")
  if [ -z "$suite" ]; then
    if ! command -v mariadbd >/dev/null 2>&1 || ! command -v mariadb-install-db >/dev/null 2>&1 \
      || ! command -v innochecksum >/dev/null 2>&1 || ! command -v mariadb-backup >/dev/null 2>&1 \
      || ! command -v strace >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >&2
      # strace holds a server right after a file operation of a DDL statement (the DDL-cut tests).
      apt-get install -y -qq mariadb-server mariadb-backup strace >/dev/null
    fi
    return 0
  fi
  c=$(server_cache "$v")
  mkdir -p "$c"
  exec 9>"$c/.lock"
  flock 9
  if [ ! -f "$c/.done" ]; then
    rm -rf "$c/apt" "$c/deb" "$c/root" "$c/bin" "$c/base"
    # shellcheck disable=SC2046
    fetch_packages "$c" "$suite" $(server_packages "$v")
    mkdir -p "$c/bin"
    "install${v/./_}" "$c"
    "$c/bin/mariadbd" --no-defaults --version | grep -q " ${v//./\\.}\." || die_server "the unpacked server is not $v"
    touch "$c/.done"
  fi
  exec 9>&-
  echo "$c/bin"
}

# use_server VERSION: put VERSION's wrappers first in PATH (nothing for the system's server).
use_server() {
  local bin; bin=$(install_server "$1")
  if [ -n "$bin" ]; then PATH=$bin:$PATH; export PATH; fi
}

case "${1:-}" in
  install) [ $# -eq 2 ] || die_server "usage: $0 install VERSION"; install_server "$2" ;;
  version) [ $# -eq 2 ] || die_server "usage: $0 version VERSION"; use_server "$2"; mariadbd --no-defaults --version ;;
  versions) echo "$SERVER_VERSIONS" | tr ' ' '\n' ;;
  functions) ;;
  *) sed -n '2,27p' "$0" >&2; exit 2 ;;
esac
