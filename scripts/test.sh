#!/usr/bin/env bash
# test.sh — the whole test suite on a fresh machine (what CI runs).
# Installs the real MariaDB server it compares against (Debian packages, via mariadb-lab.sh),
# checks formatting and vet, then runs every test (cmd/'s through scripts/test-queue.sh); the
# lab scenarios are generated fresh by the tests themselves (cached under $INNOSCOPE_LAB_DIR,
# default the temporary directory). Arguments (e.g. -run X) go to one plain `go test ./...`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
bash scripts/mariadb-lab.sh install
# The lab's other servers, MariaDB 11.8 and 10.5: Debian packages fetched through a private apt
# configuration and unpacked under the lab cache, once (scripts/mariadb-server.sh; the tests would
# install them on first use too). INNOSCOPE_NO_118=1 / INNOSCOPE_NO_105=1 skip them.
[ "${INNOSCOPE_NO_118:-}" = 1 ] || bash scripts/mariadb-server.sh install 11.8 >/dev/null
[ "${INNOSCOPE_NO_105:-}" = 1 ] || bash scripts/mariadb-server.sh install 10.5 >/dev/null
# Headless Chromium renders `innoscope report`'s HTML in TestReportInChromium (skipped without it).
if ! command -v chromium >/dev/null 2>&1; then
  { export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
    || echo "test.sh: chromium could not be installed: TestReportInChromium will skip" >&2
fi
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet ./...
if [ $# -gt 0 ]; then exec go test -count=1 -timeout 60m "$@" ./...; fi
# cmd/'s tests start real servers one after another; scripts/test-queue.sh runs them as a queue
# of files, INNOSCOPE_TEST_JOBS (default: the CPUs) at a time, while go test runs the other
# packages beside them.
others=$(mktemp "${TMPDIR:-/tmp}/innoscope-others-XXXXXX")
trap 'rm -f "$others"' EXIT
go test -count=1 -timeout 60m $(go list ./... | grep -vx 'innoscope/cmd') >"$others" 2>&1 &
pid=$!
rc=0
bash scripts/test-queue.sh cmd "${INNOSCOPE_TEST_JOBS:-$(nproc)}" || rc=1
wait "$pid" || rc=1
cat "$others"
exit $rc
