#!/usr/bin/env bash
# test.sh — the whole test suite on a fresh machine (what CI runs).
# Installs the real MariaDB server it compares against (Debian packages, via mariadb-lab.sh),
# checks formatting and vet, then runs every test; the lab scenarios are generated fresh by
# the tests themselves (cached under $INNOSCOPE_LAB_DIR, default the temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
bash scripts/mariadb-lab.sh install
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet ./...
go test -count=1 -timeout 60m "$@" ./...
