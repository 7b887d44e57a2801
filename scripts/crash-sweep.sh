#!/usr/bin/env bash
# crash-sweep.sh — a randomized crash-point sweep: innoscope recover against the server's own
# crash recovery, on crashes no hand-written test makes.
#
#   scripts/crash-sweep.sh [--server VERSION] [--ddl-kill] N SEED [OUT]
#
# --ddl-kill: instead of SIGKILL after a random delay, the server is killed by strace at a
# random file operation of its DDL (the Kth rename or unlink it makes once the sessions run, K
# from 1 to 24 by the seed; kill_at.txt says which, strace.out the calls up to it; the delay
# kill is the fallback when the sessions make fewer). The workloads create DATA DIRECTORY
# tables, so the cut lands in renames and drops of files inside and outside the data directory.
#
# VERSION (default 10.11, the machine's): the lab server that makes and judges every crash
# (scripts/mariadb-server.sh versions: 10.11, 11.8; 11.8 keeps all its defaults).
#
# For each crash i in 1..N, with the seed SEED+i (`go run ./internal/sweepgen -seed S` prints
# its workload again): a fresh throw-away MariaDB server (scripts/mariadb-lab.sh's fresh_server:
# --no-defaults, own socket, --skip-networking; the seed picks a 4M..48M redo log, undo
# tablespaces, a small buffer pool, crc32 checksums), two client sessions of random DDL and DML
# (plain, DATA DIRECTORY, partitioned, COMPRESSED/REDUNDANT/COMPACT/DYNAMIC/PAGE_COMPRESSED
# tables; instant and copying ALTERs, TRUNCATE, DROP+CREATE, renames across databases and
# swaps, EXCHANGE PARTITION, ADD PARTITION), SIGKILL after a random delay. Then:
#   A  the server's own crash recovery of a copy (crashed/ and ext-crashed/ stay as SIGKILL
#      left them): did it start, run crash recovery; CHECK TABLE and CHECKSUM TABLE per table
#      (when a small buffer pool stalls that recovery, A is judged again with a larger pool);
#   B  `innoscope diagnose crashed` and `innoscope recover crashed --into B`, then the server
#      on B: it must start with no crash recovery and no [ERROR] line that A did not log, and
#      give A's CHECK TABLE and CHECKSUM TABLE. The source (crashed/, ext-crashed/) is hashed
#      before and after innoscope ran: it must not change.
# Classes: ok; wrong-copy (recover exit 0, the server on B disagrees with A); false-alarm
# (recover exit 1, tables said to fail, where B equals A and every table passes); server-unstable
# (B disagrees with A's first start but equals A restarted: the server's recovery left in memory
# what its files do not hold; kept as a failure to look at); needless-refusal
# (recover exit 2, the server recovered A); both-refuse (fine); other (anything else: recover
# exit 0 on a directory the server refused, a crash of innoscope, a changed source, a harness
# failure). diagnose agrees when it reports an error exactly when the server refused A or a
# table failed CHECK TABLE.
#
# OUT (default /tmp/crash-sweep-SEED) gets summary.tsv (one line per crash) and, for every
# crash not ok/both-refuse, fail-SEED/ (diag-SEED/ when only diagnose disagreed): crashed/,
# ext-crashed/ (seed-SEED is a link to it: the .isl files and the log name that path), the
# options and workload (options.txt, setup.sql, s1.sql, s2.sql, delay_ms.txt, s1.out, s2.out),
# the server logs (before.err, A.err, B.err) with their verdicts (A.txt, B.txt, .checks,
# .checksums) and innoscope's outputs (diagnose.out, recover.out), result.txt. Passing crashes
# are removed. Exit 1 when any crash is wrong-copy, false-alarm, needless-refusal or other.
set -euo pipefail
export SQL_TIMEOUT=${SQL_TIMEOUT:-300} # a stalled server's statement fails, not the sweep

if [ "${1:-}" = --server ]; then export LAB_SERVER=${2:?--server needs a version}; shift 2; fi
DDL_KILL=0
if [ "${1:-}" = --ddl-kill ]; then DDL_KILL=1; shift; command -v strace >/dev/null || { echo "--ddl-kill needs strace" >&2; exit 2; }; fi
[ $# -ge 2 ] || { sed -n '2,44p' "$0" >&2; exit 2; }
N=$1 SEED=$2 OUT=${3:-/tmp/crash-sweep-$2}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=mariadb-lab.sh
source "$root/scripts/mariadb-lab.sh" functions # LAB_SERVER's programs first in PATH
echo "crash sweep with $(mariadbd --no-defaults --version | sed 's/.*Ver //; s/ .*//')"
export PATH="$PATH:/usr/local/go/bin"

mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
(cd "$root" && go build -o "$OUT/bin/innoscope" . && go build -o "$OUT/bin/sweepgen" ./internal/sweepgen)
INNOSCOPE=$OUT/bin/innoscope

# hash_tree DIR...: every entry's type, size, mode, mtime and link target, and every file's
# sha256 (what must not change while innoscope reads the source).
hash_tree() {
  local d
  for d in "$@"; do
    (cd "$d" && find . -printf '%p %y %s %m %T@ %l\n' | LC_ALL=C sort &&
      find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
  done
}

# kill_servers DIR: SIGKILL every server whose pid file lies under DIR (left by a failed step).
kill_servers() {
  local f pid
  for f in $(find "$1" -name lab.pid 2>/dev/null); do
    pid=$(cat "$f" 2>/dev/null) || continue
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}

# kv FILE KEY: the value of KEY= in a verdict file (empty when absent).
kv() { sed -n "s/^$2=//p" "$1" 2>/dev/null | head -1; }

# errors_only_in B.err A.err: the [ERROR] messages of B (timestamps cut) that A did not log.
# B's DATA DIRECTORY files are in the copy's external directory (W/B.external/N/), A's in W/ext/
# (W: the crash's directory), so B's messages name those paths as A's: a stale .isl that the
# server's own recovery keeps too gives one message in both, not two.
errors_only_in() {
  local w; w=$(dirname "$1")
  comm -23 <(sed -n 's/^.*\[ERROR\] //p' "$1" | sed "s#$w/B\.external/[0-9]*/#$w/ext/#g" | LC_ALL=C sort -u) \
    <(sed -n 's/^.*\[ERROR\] //p' "$2" 2>/dev/null | LC_ALL=C sort -u)
}

# differs B REF: why the server's verdict on the copy B (B.txt, B.err, B.checks, B.checksums)
# disagrees with the reference REF (the server's own recovery); nothing when it agrees.
differs() {
  local started cr
  started=$(kv "$1.txt" started) cr=$(kv "$1.txt" crash_recovery)
  if [ -n "$(kv "$1.txt" harness)" ] || [ -z "$started" ]; then echo "the server on B did not answer"
  elif [ "$started" != 1 ]; then echo "the server refused B"
  elif [ "$cr" != 0 ]; then echo "the server ran crash recovery on B"
  elif [ -n "$(errors_only_in "$1.err" "$2.err")" ]; then echo "B: $(errors_only_in "$1.err" "$2.err" | head -1)"
  elif ! cmp -s "$2.checks" "$1.checks"; then echo "CHECK TABLE differs"
  elif ! cmp -s "$2.checksums" "$1.checksums"; then echo "CHECKSUM TABLE differs"
  fi
}

# crash_run SEED: one crash in OUT/seed-SEED; writes result.txt there (key=value).
crash_run() {
  local seed=$1 w=$OUT/seed-$1
  local -a opts
  mkdir -p "$w/ext"
  "$OUT/bin/sweepgen" -seed "$seed" -ext "$w/ext" -out "$w"
  mapfile -t opts <"$w/options.txt"
  fresh_server "$w" "${opts[@]}"
  local s=$w/lab.sock
  mariadb --no-defaults -S "$s" -uroot -D mysql <"$w/setup.sql"
  local pid st="" k
  pid=$(cat "$w/data/lab.pid")
  if [ "$DDL_KILL" = 1 ]; then
    k=$((seed * 7919 % 24 + 1))
    echo "$k" >"$w/kill_at.txt"
    strace -f -qq -p "$pid" -e trace=rename,unlink -e "inject=rename,unlink:signal=KILL:when=$k" -o "$w/strace.out" &
    st=$!
    for _ in $(seq 1 100); do # every thread traced
      ! grep -q 'TracerPid:[[:space:]]0$' /proc/"$pid"/task/*/status 2>/dev/null && break
      sleep 0.05
    done
  fi
  mariadb --no-defaults -S "$s" -uroot -D db1 --force <"$w/s1.sql" >"$w/s1.out" 2>&1 &
  local p1=$!
  mariadb --no-defaults -S "$s" -uroot -D db1 --force <"$w/s2.sql" >"$w/s2.out" 2>&1 &
  local p2=$!
  if [ "$DDL_KILL" = 1 ]; then
    # killed by strace at its Kth call, else the delay kill (at least 30 s of sessions)
    local waited=0 limit
    limit=$(awk '{printf "%d", $1 / 50 + 600}' "$w/delay_ms.txt")
    while [ "$waited" -lt "$limit" ]; do
      case "$(ps -o stat= -p "$pid" 2>/dev/null)" in "" | Z*) break ;; esac
      sleep 0.05
      waited=$((waited + 1))
    done
    if case "$(ps -o stat= -p "$pid" 2>/dev/null)" in "" | Z*) false ;; *) true ;; esac; then
      echo "fallback (fewer than $k renames and unlinks)" >>"$w/kill_at.txt"
      kill "$st" 2>/dev/null || true
      crash "$w/data"
    else
      wait "$pid" 2>/dev/null || true
      rm -f "$w/data/lab.pid"
    fi
    kill "$st" 2>/dev/null || true
    wait "$st" 2>/dev/null || true
  else
    sleep "$(awk '{printf "%.3f", $1 / 1000}' "$w/delay_ms.txt")"
    crash "$w/data"
  fi
  kill "$p1" "$p2" 2>/dev/null || true
  wait "$p1" "$p2" 2>/dev/null || true

  mv "$w/data" "$w/crashed"
  mv "$w/ext" "$w/ext-crashed"
  hash_tree "$w/crashed" "$w/ext-crashed" >"$w/hash-before"

  # A: the server's own recovery of a copy; the .isl files and the log name $w/ext, so that
  # path leads to a copy of the external directory while the server runs.
  cp -a --sparse=always "$w/crashed" "$w/A"
  cp -a --sparse=always "$w/ext-crashed" "$w/ext-A"
  ln -s ext-A "$w/ext"
  (verdict_of "$w/A" "$w/A" "${opts[@]}") >"$w/A.harness" 2>&1 || echo "harness=verdict-failed" >>"$w/A.txt"
  kill_servers "$w/A"
  # A small buffer pool can stall the server's own recovery ("Could not free any blocks in the
  # buffer pool"): the judge is then silent, not wrong. Judge again on a fresh copy with a pool
  # large enough; the recovered data does not depend on the pool size. B gets the same options.
  local a_retry=0
  if grep -q "Could not free any blocks in the buffer pool" "$w/A.err" 2>/dev/null &&
    { [ "$(kv "$w/A.txt" started)" != 1 ] || [ "$(kv "$w/A.txt" stalled)" = 1 ]; }; then
    a_retry=1
    mv "$w/A.err" "$w/A.stalled.err"
    rm -rf "$w/A" "$w/ext-A" "$w/A.txt"
    cp -a --sparse=always "$w/crashed" "$w/A"
    cp -a --sparse=always "$w/ext-crashed" "$w/ext-A"
    opts+=(--innodb-buffer-pool-size=256M)
    (verdict_of "$w/A" "$w/A" "${opts[@]}") >"$w/A.harness" 2>&1 || echo "harness=verdict-failed" >>"$w/A.txt"
    kill_servers "$w/A"
  fi
  rm "$w/ext" && ln -s ext-crashed "$w/ext"

  # B: innoscope on the frozen source, then the server on its copy.
  local diag=0 rec=0
  timeout 600 "$INNOSCOPE" diagnose "$w/crashed" >"$w/diagnose.out" 2>&1 || diag=$?
  timeout 600 "$INNOSCOPE" recover "$w/crashed" --into "$w/B" >"$w/recover.out" 2>&1 || rec=$?
  hash_tree "$w/crashed" "$w/ext-crashed" >"$w/hash-after"
  local source_same=1
  cmp -s "$w/hash-before" "$w/hash-after" || source_same=0
  # recover exits 1 when it made the copy but tables will fail on it (--fail-on error): judged
  # like 0.
  local made=0
  if [ "$rec" = 0 ] || [ "$rec" = 1 ]; then made=1; fi
  if [ "$made" = 1 ]; then
    (verdict_of "$w/B" "$w/B" "${opts[@]}") >"$w/B.harness" 2>&1 || echo "harness=verdict-failed" >>"$w/B.txt"
    kill_servers "$w/B"
  fi

  local a_started a_cr a_ok b_started="" b_cr="" class why="" agree
  a_started=$(kv "$w/A.txt" started) a_cr=$(kv "$w/A.txt" crash_recovery) a_ok=$(kv "$w/A.txt" tables_ok)
  if [ -n "$(kv "$w/A.txt" harness)" ] || [ -z "$a_started" ]; then
    class=other why="the server's verdict on A could not be read (see A.harness)"
  elif [ "$made" = 1 ] && [ "$a_started" = 1 ]; then
    b_started=$(kv "$w/B.txt" started) b_cr=$(kv "$w/B.txt" crash_recovery)
    why=$(differs "$w/B" "$w/A")
    if [ -z "$why" ]; then class=ok; else class=wrong-copy; fi
    # recover exit 1 says tables will fail on the copy: where every table of A passed CHECK
    # TABLE and B equals A, that is a false alarm.
    if [ "$class" = ok ] && [ "$rec" = 1 ] && [ "$a_ok" = 1 ]; then
      class=false-alarm why="recover exit 1 (tables will fail on the copy), but every table passes CHECK TABLE on A and on B: $(grep -v '^$' "$w/recover.out" | tail -1)"
    fi
    # The server's own recovery can hold in memory what its files do not (seed 3029: a table the
    # DDL log renamed works on the first start, its tablespace opened by crash recovery, and is
    # "missing" after a restart). A copy that equals A after a restart is classed apart: the
    # server's first start differs from its own durable state.
    if [ "$class" = wrong-copy ]; then
      rm "$w/ext" && ln -s ext-A "$w/ext"
      (verdict_of "$w/A" "$w/A2" "${opts[@]}") >"$w/A2.harness" 2>&1 || echo "harness=verdict-failed" >>"$w/A2.txt"
      kill_servers "$w/A"
      rm "$w/ext" && ln -s ext-crashed "$w/ext"
      if [ "$(kv "$w/A2.txt" started)" = 1 ] && [ "$(kv "$w/A2.txt" crash_recovery)" = 0 ] &&
        [ -z "$(differs "$w/B" "$w/A2")" ]; then
        class=server-unstable why="A's first start differs from A restarted, which B equals: $why"
      fi
    fi
  elif [ "$made" = 1 ]; then
    class=other why="recover exit $rec (a copy) where the server refused A"
  elif [ "$rec" = 2 ] && [ "$a_started" = 1 ]; then
    class=needless-refusal why="$(grep -v '^$' "$w/recover.out" | tail -1)"
  elif [ "$rec" = 2 ]; then
    class=both-refuse
  else
    class=other why="recover exit $rec: $(tail -1 "$w/recover.out")"
  fi
  if [ "$source_same" != 1 ]; then class=other why="the source changed while innoscope ran"; fi
  # diagnose agrees when it reports an error exactly when the server refused A or CHECK TABLE failed.
  local server_bad=0
  if [ "$a_started" != 1 ] || [ "$a_ok" != 1 ]; then server_bad=1; fi
  if { [ "$diag" = 1 ] && [ "$server_bad" = 1 ]; } || { [ "$diag" = 0 ] && [ "$server_bad" = 0 ]; }; then
    agree=yes
  else
    agree=no
  fi
  {
    echo "seed=$seed"; echo "class=$class"; echo "why=${why//$'\n'/ }"
    echo "options=$(tr '\n' ' ' <"$w/options.txt")"; echo "delay_ms=$(cat "$w/delay_ms.txt")"
    echo "a_started=$a_started"; echo "a_crash_recovery=$a_cr"; echo "a_tables_ok=$a_ok"
    echo "a_retried_with_larger_buffer_pool=$a_retry"
    [ -f "$w/kill_at.txt" ] && echo "ddl_kill_at=$(tr '\n' ' ' <"$w/kill_at.txt")"
    echo "recover_exit=$rec"; echo "b_started=$b_started"; echo "b_crash_recovery=$b_cr"
    echo "diagnose_exit=$diag"; echo "diagnose_agrees=$agree"; echo "source_unchanged=$source_same"
  } >"$w/result.txt"
}

printf 'seed\tclass\tserver_A\trecover\tserver_B\tdiagnose\tagrees\twhy\n' >"$OUT/summary.tsv"
declare -A count=()
bad=0
for i in $(seq 1 "$N"); do
  seed=$((SEED + i)) w=$OUT/seed-$((SEED + i)) t0=$SECONDS
  rm -rf "$w" "$OUT/fail-$seed" "$OUT/diag-$seed"
  (crash_run "$seed") >"$OUT/run.log" 2>&1 || true
  kill_servers "$w"
  if [ ! -f "$w/result.txt" ]; then
    mkdir -p "$w"
    { echo "seed=$seed"; echo "class=other"; echo "why=harness: $(tail -1 "$OUT/run.log")"; } >"$w/result.txt"
  fi
  cp "$OUT/run.log" "$w/run.log"
  class=$(kv "$w/result.txt" class) why=$(kv "$w/result.txt" why) agree=$(kv "$w/result.txt" diagnose_agrees)
  count[$class]=$((${count[$class]:-0} + 1))
  [ "$agree" = no ] && count[diagnose-disagrees]=$((${count[diagnose-disagrees]:-0} + 1))
  a="$(kv "$w/result.txt" a_started)/$(kv "$w/result.txt" a_crash_recovery)/$(kv "$w/result.txt" a_tables_ok)"
  printf '%s\t%s\tstarted/recovery/tables_ok=%s\texit=%s\t%s\texit=%s\t%s\t%s\n' "$seed" "$class" "$a" \
    "$(kv "$w/result.txt" recover_exit)" "$(kv "$w/result.txt" b_started)/$(kv "$w/result.txt" b_crash_recovery)" \
    "$(kv "$w/result.txt" diagnose_exit)" "$agree" "$why" >>"$OUT/summary.tsv"
  echo "crash $i/$N seed=$seed class=$class recover=$(kv "$w/result.txt" recover_exit) diagnose=$(kv "$w/result.txt" diagnose_exit) agrees=$agree${DDL_KILL:+$( [ "$DDL_KILL" = 1 ] && echo " kill_at=$(kv "$w/result.txt" ddl_kill_at)")} ($((SECONDS - t0))s)${why:+: $why}"
  # The copies are not kept (innoscope and the server remake them from crashed/).
  rm -rf "$w/A" "$w/B" "$w/B.external" "$w/ext-A" "$w/ext"
  case "$class" in
    ok | both-refuse)
      if [ "$agree" = no ]; then mv "$w" "$OUT/diag-$seed" && ln -s "diag-$seed" "$w"; else rm -rf "$w"; fi ;;
    *) bad=1; mv "$w" "$OUT/fail-$seed" && ln -s "fail-$seed" "$w" ;;
  esac
  [ -d "$OUT/seed-$seed/ext-crashed" ] && ln -s ext-crashed "$OUT/seed-$seed/ext"
done
rm -f "$OUT/run.log"
echo
printf '%-20s %s\n' class crashes
for c in ok wrong-copy server-unstable false-alarm needless-refusal both-refuse other diagnose-disagrees; do
  printf '%-20s %s\n' "$c" "${count[$c]:-0}"
done | tee "$OUT/counts.txt"
exit "$bad"
