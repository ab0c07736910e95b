#!/bin/bash
# Host-side unit tests of the Rust core: cargo test on rust/Cargo.toml
# (if it exists) with the host cargo, target dir build/cargo.
# Records PASS|FAIL host/<crate-binary>/<test> lines in build/results/host.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MANIFEST="$REPO/rust/Cargo.toml"
if [ ! -f "$MANIFEST" ]; then
	log "host-test: no rust/Cargo.toml yet, nothing to do"
	exit 0
fi
# Prefer the host's cargo (e.g. rustup) over Debian's cargo-web; the kernel
# toolchain is unaffected by this choice.
CARGO="$(command -v cargo || true)"
[ -n "$CARGO" ] || CARGO=/usr/bin/cargo
[ -x "$CARGO" ] || die "host-test: no cargo found"

log "host-test: $CARGO test --manifest-path rust/Cargo.toml (log: build/logs/host-test.log)"
set +e
CARGO_TARGET_DIR="$BUILD/cargo" "$CARGO" test --manifest-path "$MANIFEST" --offline \
	-- --test-threads="$JOBS" >"$LOGS/host-test.log" 2>&1
rc=$?
set -e

# Each 'test <name> ... ok|FAILED' line is one result.
grep -E '^test .* \.\.\. (ok|FAILED)$' "$LOGS/host-test.log" | while IFS= read -r line; do
	t="${line#test }"
	t="${t% ... *}"
	case "$line" in
	*"... ok") record_result host "$t" PASS ;;
	*) record_result host "$t" FAIL ;;
	esac
done || true
npass=$(grep -c '^PASS' "$RESULTS/host.txt" 2>/dev/null || true)
nfail=$(grep -c '^FAIL' "$RESULTS/host.txt" 2>/dev/null || true)
summary="$(grep -E '^test result:' "$LOGS/host-test.log" || true)"
[ -z "$summary" ] || log "host-test: $summary"
if [ "$rc" != 0 ]; then
	show_log_tail "$LOGS/host-test.log" 60
	[ "${nfail:-0}" != 0 ] || record_result host cargo-test FAIL "(cargo exit $rc)"
	die "host-test: cargo test failed (exit $rc)"
fi
log "host-test: ${npass:-0} passed"
