#!/bin/bash
# Run every qemu/scenarios/*.conf (or the ones given as arguments) and record
#   PASS|FAIL scenario/<NAME>      one per scenario (clean boot + EXPECT/REJECT)
#   PASS|FAIL selftest/<NAME>/<t>  one per 'SELFTEST: <t> PASS|FAIL' guest line
# in build/results/scenario.txt and build/results/selftest.txt.
# Besides NAME MEM SMP CMDLINE TIMEOUT EXPECT REJECT (see default.conf), a
# scenario may set DT_LAYOUT (boot with the DTB of qemu/mkdtb.sh --layout
# DT_LAYOUT: default or a layout file) and ALLOW_WARN=1 (boot.sh --allow-warn).
# A scenario that passed is not booted again while its inputs (kernel,
# initramfs, DT sources, the scenario and these scripts) are unchanged: its
# results are reused and the log says so. PASR_NO_CACHE=1 boots everything.
# Exits non-zero if anything failed.
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

confs=("$@")
[ "${#confs[@]}" -gt 0 ] || confs=("$REPO"/qemu/scenarios/*.conf)
fail=0
CACHE="$BUILD/scenario-cache"
mkdir -p "$CACHE"
inputs_key() { # inputs_key CONF: hash of everything a boot's outcome depends on
	cat "$OUT_QEMU/arch/arm64/boot/Image" "$INITRAMFS_DIR/initramfs.cpio.gz" "$1" \
		"$REPO/qemu/boot.sh" "$REPO/qemu/run-scenarios.sh" "$REPO/qemu/mkdtb.sh" \
		"$REPO"/qemu/dt/* 2>/dev/null | sha256sum | cut -d' ' -f1
}
for conf in "${confs[@]}"; do
	[ -f "$conf" ] || continue
	NAME="$(basename "$conf" .conf)" MEM=1G SMP=2 CMDLINE="" TIMEOUT=300 EXPECT="" REJECT=""
	DT_LAYOUT="" ALLOW_WARN=0
	# shellcheck disable=SC1090
	. "$conf"
	logf="$LOGS/scenario-$NAME.log"
	key="$(inputs_key "$conf")"
	if [ "${PASR_NO_CACHE:-0}" != 1 ] && [ -f "$CACHE/$NAME.results" ] &&
		[ "$(cat "$CACHE/$NAME.key" 2>/dev/null)" = "$key" ]; then
		grep ' scenario/' "$CACHE/$NAME.results" >>"$RESULTS/scenario.txt" || true
		grep ' selftest/' "$CACHE/$NAME.results" >>"$RESULTS/selftest.txt" || true
		log "scenario $NAME: PASS (inputs unchanged since it passed; not booted again)"
		continue
	fi
	rm -f "$CACHE/$NAME.key" "$CACHE/$NAME.results"
	log "scenario $NAME: mem=$MEM smp=$SMP cmdline='$CMDLINE'"
	ok=1
	opts=()
	[ "$ALLOW_WARN" != 1 ] || opts+=(--allow-warn)
	if [ -n "$DT_LAYOUT" ]; then
		if dtb="$("$REPO/qemu/mkdtb.sh" --mem "$MEM" --smp "$SMP" --layout "$DT_LAYOUT")"; then
			opts+=(--dtb "$dtb")
		else
			log "scenario $NAME: no DTB for DT_LAYOUT=$DT_LAYOUT"
			ok=0
		fi
	fi
	if ! "$REPO/qemu/boot.sh" --mem "$MEM" --smp "$SMP" --cmdline "$CMDLINE" ${opts[@]+"${opts[@]}"} \
		--timeout "$TIMEOUT" --log "$logf" >"$logf.out" 2>&1; then
		ok=0
		grep '^boot: FAIL' "$logf.out" >&2 || tail -n 20 "$logf.out" >&2
	fi
	while IFS= read -r re; do
		[ -n "$re" ] || continue
		if ! grep -qE -- "$re" "$logf"; then
			log "scenario $NAME: expected pattern not found: $re"
			ok=0
		fi
	done <<<"$EXPECT"
	while IFS= read -r re; do
		[ -n "$re" ] || continue
		if hit="$(grep -m1 -E -- "$re" "$logf")"; then
			log "scenario $NAME: rejected pattern found: $hit"
			ok=0
		fi
	done <<<"$REJECT"
	if [ "$ok" = 1 ]; then
		record_result scenario "$NAME" PASS
		log "scenario $NAME: PASS"
	else
		record_result scenario "$NAME" FAIL
		log "scenario $NAME: FAIL (console log: $logf)"
		fail=1
	fi
	# one result per guest selftest line (SKIP lines are not counted)
	while IFS= read -r line; do
		t="$(awk '{print $2}' <<<"$line")"
		st="$(awk '{print $3}' <<<"$line")"
		case "$st" in
		PASS) record_result selftest "$NAME/$t" PASS ;;
		FAIL) record_result selftest "$NAME/$t" FAIL "$(cut -d' ' -f4- <<<"$line")"; fail=1
			log "scenario $NAME: $line" ;;
		esac
	done < <(grep -aoE 'SELFTEST: [^ ]+ (PASS|FAIL|SKIP).*' "$logf" | tr -d '\r' || true)
	# remember a scenario that passed entirely, with its inputs
	if [ "$ok" = 1 ] && ! grep -q "^FAIL selftest/$NAME/" "$RESULTS/selftest.txt" 2>/dev/null; then
		{ grep -h " scenario/$NAME\$" "$RESULTS/scenario.txt"
		  grep -h " selftest/$NAME/" "$RESULTS/selftest.txt" 2>/dev/null; } >"$CACHE/$NAME.results" || true
		echo "$key" >"$CACHE/$NAME.key"
	fi
done
exit "$fail"
