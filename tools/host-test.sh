#!/bin/bash
# Host-side unit tests of the Rust core: cargo test on rust/Cargo.toml
# (if it exists) with the host cargo, target dir build/cargo; then
# tests/faults.rs, on the map with the fault switches (--features faults).
# Records PASS|FAIL host/<crate-binary>/<test> lines in build/results/host.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MANIFEST="$REPO/rust/Cargo.toml"
rm -f "$RESULTS/host.txt"
if [ ! -f "$MANIFEST" ]; then
	record_result host cargo-test FAIL "(no rust/Cargo.toml)"
	die "host-test: no rust/Cargo.toml"
fi
# Prefer the host's cargo (e.g. rustup) over Debian's cargo-web; the kernel
# toolchain is unaffected by this choice.
CARGO="$(command -v cargo || true)"
[ -n "$CARGO" ] || CARGO=/usr/bin/cargo
if [ ! -x "$CARGO" ]; then
	record_result host cargo-test FAIL "(no cargo found: install cargo, or run 'make deps')"
	die "host-test: no cargo found"
fi

log "host-test: $CARGO test --manifest-path rust/Cargo.toml (log: build/logs/host-test.log)"
set +e
CARGO_TARGET_DIR="$BUILD/cargo" "$CARGO" test --manifest-path "$MANIFEST" --offline \
	-- --test-threads="$JOBS" >"$LOGS/host-test.log" 2>&1
rc=$?
# tests/faults.rs: the map with the debug kernel's fault switches (patches/faults)
if [ "$rc" = 0 ]; then
	CARGO_TARGET_DIR="$BUILD/cargo" "$CARGO" test --manifest-path "$MANIFEST" --offline \
		--features faults --test faults >>"$LOGS/host-test.log" 2>&1
	rc=$?
fi
set -e

# Each 'test <name> ... ok|FAILED|ignored' line is one result.
grep -E '^test .* \.\.\. (ok|FAILED|ignored.*)$' "$LOGS/host-test.log" | while IFS= read -r line; do
	t="${line#test }"
	t="${t% ... *}"
	case "$line" in
	*"... ok") record_result host "$t" PASS ;;
	*"... ignored"*) record_result host "$t" SKIP ;;
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
if [ "${npass:-0}" = 0 ]; then
	record_result host cargo-test FAIL "(cargo test ran no test)"
	die "host-test: cargo test ran no test"
fi
log "host-test: ${npass:-0} passed"
