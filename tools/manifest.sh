#!/bin/bash
# The results a check run must produce. qemu/manifest/RUN.txt (RUN: check,
# debug or arm) lists every result of the run's suites, one a line, sorted:
#   PASS suite/name
#   SKIP suite/name (the reason the check cannot run there)
#   tools/manifest.sh check RUN    compare build/results with the manifest
#   tools/manifest.sh update RUN   write the manifest from build/results, after
#                                  a run that passed (review the diff)
# check records, in the suite 'manifest' (debug-manifest, arm-manifest), one
# PASS when every declared result came as declared, or a FAIL for each
# result missing, each SKIP where a PASS was declared, each PASS where a SKIP
# was declared (the manifest is stale) and each result the manifest does not
# declare. A FAIL result fails its own suite and is not counted again. It
# prints, per suite, the results declared and those that came.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: tools/manifest.sh check|update check|debug|arm"
what="$1" run="$2"
case "$run" in
check) suites="build host series lint kunit scenario selftest" msuite=manifest ;;
debug) suites="debug-build debug-splat debug-scenario debug-selftest debug-kunit" msuite=debug-manifest ;;
arm) suites="arm-build arm-scenario arm-selftest arm-kunit" msuite=arm-manifest ;;
*) die "manifest: unknown run '$run' (check, debug or arm)" ;;
esac
manifest="$REPO/qemu/manifest/$run.txt"

# results: 'STATUS suite/name [details]' of the run's suites
results() {
	local s
	for s in $suites; do
		[ ! -f "$RESULTS/$s.txt" ] || grep -E '^(PASS|FAIL|SKIP) ' "$RESULTS/$s.txt" || true
	done
}

if [ "$what" = update ]; then
	if results | grep -q '^FAIL '; then
		die "manifest: the run has failures; a manifest declares a run that passed"
	fi
	mkdir -p "$(dirname "$manifest")"
	results | awk '$1 == "PASS" { print $1, $2; next } { print }' | LC_ALL=C sort -k2,2 -u >"$manifest"
	log "manifest: $manifest: $(grep -c '^PASS ' "$manifest") PASS, $(grep -c '^SKIP ' "$manifest" || true) SKIP"
	exit 0
fi
[ "$what" = check ] || die "usage: tools/manifest.sh check|update check|debug|arm"
rm -f "$RESULTS/$msuite.txt"
if [ ! -f "$manifest" ]; then
	record_result "$msuite" file FAIL "(no ${manifest#"$REPO/"}: 'tools/manifest.sh update $run' after a run that passed)"
	exit 1
fi

bad=0
report=$(LC_ALL=C join -a1 -a2 -j2 -o '0,1.1,2.1' -e NONE \
	<(LC_ALL=C sort -k2,2 -u "$manifest" | awk 'NF { print $1, $2 }') \
	<(results | awk '{ print $1, $2 }' | LC_ALL=C sort -k2,2 -u))
while read -r id want got; do
	case "$want:$got" in
	PASS:PASS | SKIP:SKIP | *:FAIL) continue ;;
	*:NONE) why="missing (declared $want)" ;;
	NONE:*) why="$got, not in the manifest" ;;
	PASS:SKIP) why="SKIP where a PASS is declared: $(results | awk -v id="$id" '$2 == id' | cut -d' ' -f3- | head -n1)" ;;
	SKIP:PASS) why="PASS where a SKIP is declared: the manifest is stale" ;;
	*) why="declared $want, came $got" ;;
	esac
	record_result "$msuite" "$id" FAIL "($why)"
	bad=$((bad + 1))
done < <(LC_ALL=C sort <<<"$report")

for s in $suites; do
	printf '%-16s declared %4d (%d PASS, %d SKIP); came %4d passed, %4d failed, %4d skipped\n' "$s:" \
		"$(grep -c " $s/" "$manifest" || true)" "$(grep -c "^PASS $s/" "$manifest" || true)" \
		"$(grep -c "^SKIP $s/" "$manifest" || true)" "$(grep -c '^PASS ' "$RESULTS/$s.txt" 2>/dev/null || true)" \
		"$(grep -c '^FAIL ' "$RESULTS/$s.txt" 2>/dev/null || true)" "$(grep -c '^SKIP ' "$RESULTS/$s.txt" 2>/dev/null || true)"
done
if [ "$bad" = 0 ]; then
	record_result "$msuite" "${run}" PASS "(every declared result came as declared: $(wc -l <"$manifest") results)"
else
	log "manifest: $bad result(s) differ from ${manifest#"$REPO/"}"
	exit 1
fi
