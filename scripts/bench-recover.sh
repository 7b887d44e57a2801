#!/usr/bin/env bash
# bench-recover.sh — replay a crash whose log changes >= 50,000 pages with innoscope, next to the
# real mariadbd's own crash recovery of a copy of the same directory, in the same run.
#
#   bash scripts/bench-recover.sh [DIR [PAGES]]   DIR caches the generated crash (default
#                                                 /tmp/innoscope-bench-recover), PAGES 60000
#
# mariadbd's recovery time is the wall time from starting it on a copy of the crashed directory
# until it answers a query, minus the same measure on the now recovered, cleanly shut down copy
# (server start-up without recovery). innoscope's is `recover --into` (its JSON gives the copy and
# the replay phases apart). Both copies are then checked: the server starts on innoscope's copy
# without crash recovery and CHECKSUM TABLE equals its own recovery's.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=${1:-/tmp/innoscope-bench-recover}
pages=${2:-60000}
lab=scripts/mariadb-lab.sh
bash $lab install
[ -f "$dir/bench.txt" ] || { rm -rf "$dir"; bash $lab bench-recover "$dir" "$pages"; }
read -r -a opts <<<"$(tr '\n' ' ' <"$dir/options.txt")"
go build -o /tmp/innoscope-bench-bin .
work=$dir/run; rm -rf "$work" "$work.external"; mkdir -p "$work"
find "$dir/crashed" -type f -exec cat {} + >/dev/null # warm the page cache for both alike

# ready_time DATADIR ERRLOG: seconds from starting mariadbd on DATADIR until it answers; stops it.
ready_time() {
  local d=$1 e=$2 s=$work/bench.sock s0 t pid
  s0=$(date +%s.%N)
  mariadbd --no-defaults --datadir="$d" --user=root --socket="$s" --skip-networking \
    --pid-file="$d/bench.pid" --log-error="$e" "${opts[@]}" >/dev/null 2>&1 &
  pid=$!
  until mariadb --no-defaults -S "$s" -uroot -e "select 1" >/dev/null 2>&1; do
    kill -0 $pid 2>/dev/null || { cat "$e" >&2; exit 1; }
    sleep 0.02
  done
  t=$(echo "$(date +%s.%N) - $s0" | bc)
  [ -n "${3:-}" ] && mariadb --no-defaults -S "$s" -uroot -N -e "CHECKSUM TABLE db.t" >"$3"
  mariadb-admin --no-defaults -S "$s" -uroot shutdown
  while kill -0 $pid 2>/dev/null; do sleep 0.1; done
  echo "$t"
}

cp -a "$dir/crashed" "$work/server"
srv=$(ready_time "$work/server" "$work/server.err" "$work/server.checksum")
base=$(ready_time "$work/server" "$work/server-clean.err")
grep -E "Starting crash recovery|To recover|End of log" "$work/server.err" | sed 's/^/mariadbd: /'

s0=$(date +%s.%N)
/tmp/innoscope-bench-bin recover --json "$dir/crashed" --into "$work/copy" >"$work/recover.json"
ins=$(echo "$(date +%s.%N) - $s0" | bc)
python3 - "$work/recover.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r, s = j["result"], j["seconds"]
print(f"innoscope: {r['mtr_count']} mini-transactions, {r['records_applied']} records applied, "
      f"{r['pages_read']} pages read, {r['pages_applied']} pages written in {r['batches']} batches")
print(f"innoscope phases: copy {s['copy']:.2f} s ({j['copy']['bytes']} bytes), replay {s['replay']:.2f} s, log {s['log']:.2f} s")
PY
ready_time "$work/copy" "$work/copy.err" "$work/copy.checksum" >/dev/null
if grep -q "Starting crash recovery" "$work/copy.err"; then echo "FAIL: the server ran crash recovery on innoscope's copy"; exit 1; fi
if ! diff -q "$work/copy.checksum" "$work/server.checksum" >/dev/null; then
  echo "FAIL: CHECKSUM TABLE differs: $(cat "$work/copy.checksum") vs $(cat "$work/server.checksum")"; exit 1
fi
echo "check: the server started on innoscope's copy without crash recovery; CHECKSUM TABLE $(cut -f2 "$work/copy.checksum") equals its own recovery's"
replay=$(python3 -c "import json;print(json.load(open('$work/recover.json'))['seconds']['replay'])")
printf 'mariadbd: start with crash recovery %.2f s, start without %.2f s: recovery %.2f s\n' "$srv" "$base" "$(echo "$srv - $base" | bc)"
printf 'innoscope: recover --into %.2f s in all; replay phase %.2f s\n' "$ins" "$replay"
printf 'ratio innoscope replay / mariadbd recovery: %.2f; innoscope total / mariadbd recovery: %.2f\n' \
  "$(echo "$replay / ($srv - $base)" | bc -l)" "$(echo "$ins / ($srv - $base)" | bc -l)"
