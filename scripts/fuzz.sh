#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target of the module (each `func FuzzXxx(f *testing.F)` in a
# _test.go file) for FUZZTIME each, one after the other, and prints a summary. `make fuzz
# FUZZTIME=60s` calls it; `make test` runs only the seed corpora (testdata/fuzz/<FuzzXxx>/),
# as every `go test` does.
#
#   FUZZTIME   how long each target runs (default 60s; any `go test -fuzztime` value)
#   FUZZFLAGS  more `go test` flags, e.g. FUZZFLAGS="-parallel 2"
#   GO         the go command (default go)
#
#   scripts/fuzz.sh -list   prints "<package dir> <target>" per target and runs nothing
#
# A failing target leaves its crasher in the package's testdata/fuzz/<FuzzXxx>/ (add it to the
# seed corpus once it is fixed); the script goes on with the other targets and exits 1.
set -euo pipefail

GO="${GO:-go}"
FUZZTIME="${FUZZTIME:-60s}"
FUZZFLAGS="${FUZZFLAGS:-}"
cd "$(dirname "$0")/.."

# targets prints "<package dir> <target>" for every fuzz target, sorted.
targets() {
	grep -rEo --include='*_test.go' --exclude-dir=node_modules --exclude-dir=testdata \
		--exclude-dir=cdk.out --exclude-dir=dist --exclude-dir='.?*' \
		'^func Fuzz[A-Za-z0-9_]*\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\)' . |
		sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|\1 \2|' |
		sort -u
}

if [ "${1:-}" = "-list" ]; then
	targets
	exit 0
fi

list="$(targets)"
if [ -z "$list" ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi
count=$(printf '%s\n' "$list" | wc -l)
echo "fuzz.sh: $count targets, $FUZZTIME each"

failed=0
summary=""
while read -r dir target; do
	echo
	echo "=== $target in ./$dir ($FUZZTIME)"
	start=$(date +%s)
	# shellcheck disable=SC2086 # FUZZFLAGS is a list of flags
	if "$GO" test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" $FUZZFLAGS "./$dir"; then
		result="ok"
	else
		result="FAIL"
		failed=1
	fi
	summary+="$(printf '%-4s  %-28s ./%s  (%ss)' "$result" "$target" "$dir" "$(($(date +%s) - start))")"$'\n'
done <<<"$list"

echo
echo "fuzz.sh summary ($FUZZTIME per target):"
printf '%s' "$summary"
exit "$failed"
