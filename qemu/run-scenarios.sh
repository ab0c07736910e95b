#!/bin/bash
# Run every qemu/scenarios/*.conf (or the ones given as arguments) and record
#   PASS|FAIL scenario/<NAME>      one per scenario (clean boot + EXPECT/REJECT)
#   PASS|FAIL|SKIP selftest/<NAME>/<t>  one per 'SELFTEST: <t> PASS|FAIL|SKIP' guest line
# in build/results/scenario.txt and build/results/selftest.txt.
# Besides NAME MEM SMP CMDLINE TIMEOUT EXPECT REJECT (see default.conf), a
# scenario may set DT_LAYOUT (boot with the DTB of qemu/mkdtb.sh --layout
# DT_LAYOUT: default or a layout file), ALLOW_WARN=1 (boot.sh --allow-warn),
# KEXEC_DISK=1 (boot.sh --kexec-disk: the kernel as a second disk, for kexec),
# HIBERNATE=1 (two boots with a blank 1 GiB swap disk: the first ends by
# hibernating to it, the second, with pasr_test.resume=1, resumes the image;
# the checks read both logs, one after the other),
# WAIVE (the rejections of every scenario, GLOBAL_REJECT below, that a fault
# scenario provokes on purpose) and PANIC=REGEX: the boot ends in a panic on purpose, whose 'Kernel panic'
# line must match REGEX; boot.sh's verdict is replaced by the splat check of
# the log before that line (and QEMU must not time out).
# BACKENDS="hooks reporting" boots a scenario once per PASR backend: as it
# is, then as NAME-reporting with pasr.backend=reporting appended to CMDLINE
# and "hooks backend" read as "reporting backend" in EXPECT (not in the
# debug run, which boots one backend: the first, or the reporting backend
# as NAME-reporting if the scenario says DEBUG_BACKEND=reporting, so that
# scenarios make check boots with the hooks run with the other there).
# A scenario that passed is not booted again while its inputs (kernel,
# initramfs, DT sources, the scenario and these scripts) are unchanged: its
# results are reused and the log says so. PASR_NO_CACHE=1 boots everything.
#
# PASR_DEBUG=1 (make check-debug) boots the debug kernel (build/out/debug,
# tools/debug.fragment: KASAN, UBSAN, lockdep, ...) instead, in the scenarios
# that say DEBUG=1 (or DEBUG=only: debug run only), with
#   - TIMEOUT and the guest's per-selftest timeout (pasr_test.timeout, default
#     300) multiplied by PASR_DEBUG_SLOWDOWN (default 3),
#   - DEBUG_CMDLINE of the scenario appended to CMDLINE (e.g. kunit.enable=1),
#   - every console log checked by tools/debug-splats.sh (any KASAN, UBSAN,
#     lockdep, atomic-sleep, WARN or BUG report fails the scenario and is shown;
#     ALLOW_WARN=1 accepts plain WARN()s only); a scenario that sets
#     DEBUG_SPLAT=REGEX passes only if the checker reports a line matching it
#     (a report provoked on purpose, proving the check works),
#   - the KUnit results in the log (KTAP) counted one per test case,
# and the results in debug-scenario.txt, debug-selftest.txt, debug-kunit.txt.
#
# PASR_ARCH=arm (make check-arm) boots the 32-bit ARM kernel (build/out/arm,
# tools/arm.fragment) with its initramfs, in the scenarios that say ARM=only
# (which the other runs skip), and records arm-scenario, arm-selftest and
# arm-kunit results (KUnit counted as in the debug run).
# Exits non-zero if anything failed.
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

DEBUG_RUN="${PASR_DEBUG:-0}"
confs=("$@")
if [ "$PASR_ARCH" = arm ]; then
	IMAGE="$OUT_ARM/$KIMAGE"
	S_SCEN=arm-scenario S_SELF=arm-selftest S_KUNIT=arm-kunit
	CACHE="$BUILD/scenario-cache-arm"
	[ "${#confs[@]}" -gt 0 ] ||
		mapfile -t confs < <(grep -lE '^ARM=only$' "$REPO"/qemu/scenarios/*.conf)
elif [ "$DEBUG_RUN" = 1 ]; then
	SLOW="${PASR_DEBUG_SLOWDOWN:-3}"
	IMAGE="$OUT_DEBUG/arch/arm64/boot/Image"
	S_SCEN=debug-scenario S_SELF=debug-selftest S_KUNIT=debug-kunit
	CACHE="$BUILD/scenario-cache-debug"
	[ "${#confs[@]}" -gt 0 ] ||
		mapfile -t confs < <(grep -lE '^DEBUG=(1|only)$' "$REPO"/qemu/scenarios/*.conf)
else
	IMAGE="$OUT_QEMU/arch/arm64/boot/Image"
	S_SCEN=scenario S_SELF=selftest S_KUNIT=""
	CACHE="$BUILD/scenario-cache"
	[ "${#confs[@]}" -gt 0 ] || confs=("$REPO"/qemu/scenarios/*.conf)
fi
fail=0
mkdir -p "$CACHE"
# inputs_key CONF: hash of everything a boot's outcome depends on: the
# kernel, the initramfs, the scenario, and every script and data file of
# qemu/ and tools/ that a boot or its verdict may use, listed rather than
# named (the splat checker, lib.sh, kunit-results.py, the DT layouts...)
inputs_key() {
	{ echo "backend ${2:-}"
	  cat "$IMAGE" "$INITRAMFS" "$1"
	  find "$REPO/qemu" "$REPO/tools" -maxdepth 2 -type f \
		\( -name '*.sh' -o -name '*.py' -o -name '*.dtsi' -o -name '*.samples' -o -name init \) \
		-not -path '*/scenarios/*' | LC_ALL=C sort | xargs cat
	  [ "$DEBUG_RUN" != 1 ] || echo "slowdown $SLOW"; } | sha256sum | cut -d' ' -f1
}
# kunit_results LOG NAME: one $S_KUNIT result per KUnit test case in LOG; 1 if none
kunit_results() {
	local json="$1.kunit.json"
	rm -f "$json" "$1.kunit"
	grep -qa 'TAP version' "$1" || return 1
	( cd "$TREE" && python3 tools/testing/kunit/kunit.py parse --json="$json" "$1" ) \
		>"$1.kunit" 2>&1 || true
	[ -s "$json" ] || return 1
	"$REPO/tools/kunit-results.py" "$json" "$S_KUNIT" "$2" >>"$RESULTS/$S_KUNIT.txt"
}
# one run per scenario and backend: CONF, or CONF|reporting for the variant
runs=()
for conf in "${confs[@]}"; do
	# a name is enough: 'run-scenarios.sh default pasr-panic'
	[ -f "$conf" ] || [ ! -f "$REPO/qemu/scenarios/$conf.conf" ] ||
		conf="$REPO/qemu/scenarios/$conf.conf"
	if [ ! -f "$conf" ]; then
		echo "run-scenarios: no such scenario: $conf" >&2
		fail=1
		continue
	fi
	# the debug run boots one backend: DEBUG_BACKEND=reporting picks the
	# reporting backend there, for scenarios make check boots with the hooks
	# shellcheck disable=SC1090
	if [ "$DEBUG_RUN" = 1 ] &&
		[ "$(DEBUG_BACKEND=""; . "$conf"; echo "$DEBUG_BACKEND")" = reporting ]; then
		runs+=("$conf|reporting")
		continue
	fi
	runs+=("$conf")
	# shellcheck disable=SC1090
	if [ "$DEBUG_RUN" != 1 ] &&
		grep -qw reporting <<<"$(BACKENDS=""; . "$conf"; echo "$BACKENDS")"; then
		runs+=("$conf|reporting")
	fi
done
# Rejected in every scenario: the boot self-test's failure and the simulated
# controller's findings, whatever the scenario's own REJECT says. A fault
# scenario that provokes one declares it: an EXPECT line that names it, or
# WAIVE (one pattern per line, those of this list it accepts).
GLOBAL_REJECT='pasr: self-test: FAIL
pasr-sim: unrefreshed section
PASR accounting is broken
pasr-sim: .*illegal'
# waived RE: whether the scenario accepts the global rejection RE
waived() {
	grep -qxF -- "$1" <<<"$WAIVE" || grep -qE -- "$1" <<<"$EXPECT"
}

# boot_scenario: boot the scenario of run_one (two boots with HIBERNATE=1)
# into $logf; non-zero if a boot failed
boot_scenario() {
	local b=("$REPO/qemu/boot.sh" --mem "$MEM" --smp "$SMP" ${opts[@]+"${opts[@]}"}
		--timeout "$TIMEOUT")
	if [ "$HIBERNATE" != 1 ]; then
		"${b[@]}" --cmdline "$CMDLINE" --log "$logf"
		return
	fi
	local swap="$BUILD/swap-$NAME.img" rc=0
	rm -f "$swap" "$logf".[12]
	truncate -s 1G "$swap"
	"${b[@]}" --swap-disk "$swap" --cmdline "$CMDLINE" --log "$logf.1" \
		--done 'PM: Image saving done' || rc=1
	if [ "$rc" = 0 ]; then
		"${b[@]}" --swap-disk "$swap" --cmdline "$CMDLINE pasr_test.resume=1" \
			--log "$logf.2" || rc=1
	fi
	cat "$logf".[12] >"$logf" 2>/dev/null
	rm -f "$swap"
	return "$rc"
}

# splats_per_kernel LOG: the splat check of every kernel LOG shows (a kexec
# or a crash kernel boots after the first), each up to its own panic, which
# the scenario provokes (its PANIC) or which ends a kernel with no initramfs;
# non-zero if one has a report
splats_per_kernel() {
	local part rc=0
	rm -f "$1".kernel.*
	awk -v out="$1.kernel." '
		/Booting Linux on physical CPU/ { n++; stop = 0 }
		/Kernel panic/ { stop = 1 }
		!stop { print > (out n) }' "$1"
	for part in "$1".kernel.*; do
		[ -s "$part" ] || continue
		"$REPO/tools/debug-splats.sh" "$part" >&2 || rc=1
	done
	return "$rc"
}

# run_one RUN: boot one scenario (CONF or CONF|reporting), record its results;
# non-zero if it failed.
run_one() {
	local run="$1" conf backend rfail=0
	conf="${run%%|*}" backend=""
	[ "$conf" = "$run" ] || backend="${run#*|}"
	NAME="$(basename "$conf" .conf)" MEM=1G SMP=2 CMDLINE="" TIMEOUT=300 EXPECT="" REJECT=""
	DT_LAYOUT="" ALLOW_WARN=0 KEXEC_DISK=0 DEBUG=0 DEBUG_CMDLINE="" DEBUG_SPLAT="" PANIC=""
	BACKENDS="" DEBUG_BACKEND="" ARM="" WAIVE="" HIBERNATE=0
	# shellcheck disable=SC1090
	. "$conf"
	if [ "$ARM" = only ] && [ "$PASR_ARCH" != arm ]; then
		log "scenario $NAME: 32-bit ARM only (make check-arm); skipped"
		return 0
	fi
	if [ "$backend" = reporting ]; then
		NAME="$NAME-reporting"
		CMDLINE="$CMDLINE pasr.backend=reporting"
		EXPECT="${EXPECT//hooks backend/reporting backend}"
	fi
	if [ "$DEBUG_RUN" = 1 ]; then
		logf="$LOGS/debug-$NAME.log"
		# the guest's per-selftest timeout: the last pasr_test.timeout= wins
		gt=300
		for w in $CMDLINE; do case "$w" in pasr_test.timeout=*) gt="${w#*=}" ;; esac; done
		CMDLINE="$CMDLINE${DEBUG_CMDLINE:+ $DEBUG_CMDLINE} pasr_test.timeout=$((gt * SLOW))"
		TIMEOUT=$((TIMEOUT * SLOW))
	elif [ "$PASR_ARCH" = arm ]; then
		logf="$LOGS/arm-$NAME.log"
	else
		if [ "$DEBUG" = only ]; then
			log "scenario $NAME: debug kernel only (make check-debug); skipped"
			return 0
		fi
		logf="$LOGS/scenario-$NAME.log"
	fi
	key="$(inputs_key "$conf" "$backend")"
	if [ "${PASR_NO_CACHE:-0}" != 1 ] && [ -f "$CACHE/$NAME.results" ] &&
		[ "$(cat "$CACHE/$NAME.key" 2>/dev/null)" = "$key" ]; then
		for s in $S_SCEN $S_SELF $S_KUNIT; do
			grep " $s/" "$CACHE/$NAME.results" >>"$RESULTS/$s.txt" || true
		done
		log "scenario $NAME: PASS (inputs unchanged since it passed; not booted again)"
		return 0
	fi
	rm -f "$CACHE/$NAME.key" "$CACHE/$NAME.results"
	log "scenario $NAME: mem=$MEM smp=$SMP cmdline='$CMDLINE'"
	ok=1
	opts=(--kernel "$IMAGE")
	[ "$ALLOW_WARN" != 1 ] || opts+=(--allow-warn)
	[ "$KEXEC_DISK" != 1 ] || opts+=(--kexec-disk)
	if [ -n "$DT_LAYOUT" ]; then
		if dtb="$("$REPO/qemu/mkdtb.sh" --mem "$MEM" --smp "$SMP" --layout "$DT_LAYOUT")"; then
			opts+=(--dtb "$dtb")
		else
			log "scenario $NAME: no DTB for DT_LAYOUT=$DT_LAYOUT"
			ok=0
		fi
	fi
	s0=$(date +%s)
	if ! boot_scenario >"$logf.out" 2>&1; then
		if [ -n "$DEBUG_SPLAT" ] && ! grep -q '^boot: FAIL: QEMU' "$logf.out"; then
			: # the report is provoked on purpose; checked below
		elif [ -n "$PANIC" ] && ! grep -q '^boot: FAIL: QEMU' "$logf.out"; then
			: # the panic is provoked on purpose; checked below
		else
			ok=0
			grep '^boot: FAIL' "$logf.out" >&2 || tail -n 20 "$logf.out" >&2
		fi
	fi
	log "scenario $NAME: booted in $(( $(date +%s) - s0 ))s (timeout ${TIMEOUT}s)"
	if [ -n "$PANIC" ]; then
		if ! grep -qE -- "Kernel panic.*($PANIC)" "$logf"; then
			log "scenario $NAME: the boot was to end in a panic matching '$PANIC'; it did not"
			ok=0
		elif ! splats_per_kernel "$logf"; then
			log "scenario $NAME: a kernel report before a panic provoked on purpose (above)"
			ok=0
		fi
	fi
	# a PANIC scenario's kernels were checked above, each up to its panic
	if [ "$DEBUG_RUN" = 1 ] && [ -z "$PANIC" ]; then
		wopt=()
		[ "$ALLOW_WARN" != 1 ] || wopt=(--allow-warn)
		if [ -z "$DEBUG_SPLAT" ]; then
			"$REPO/tools/debug-splats.sh" ${wopt[@]+"${wopt[@]}"} "$logf" >&2 || ok=0
		elif splats="$("$REPO/tools/debug-splats.sh" ${wopt[@]+"${wopt[@]}"} "$logf")"; then
			log "scenario $NAME: the debug checker found no report, but this boot provokes one ($DEBUG_SPLAT)"
			ok=0
		elif grep -qE -- "$DEBUG_SPLAT" <<<"$splats"; then
			log "scenario $NAME: the debug checker rejects the report provoked on purpose, as it must:"
			printf '%s\n' "$splats" | head -n 8 >&2
		else
			printf '%s\n' "$splats" >&2
			log "scenario $NAME: the debug checker did not show the report provoked on purpose ($DEBUG_SPLAT)"
			ok=0
		fi
	fi
	if [ -n "$S_KUNIT" ]; then
		if ! kunit_results "$logf" "$NAME" &&
			grep -qw 'kunit.enable=1' <<<"$CMDLINE"; then
			record_result "$S_KUNIT" "$NAME/run" FAIL "(KUnit ran at boot, no test case results in the log)"
			rfail=1
		fi
		if grep -s "^FAIL $S_KUNIT/$NAME/" "$RESULTS/$S_KUNIT.txt" >&2; then
			rfail=1
		fi
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
	while IFS= read -r re; do
		waived "$re" && continue
		if hit="$(grep -m1 -E -- "$re" "$logf")"; then
			log "scenario $NAME: rejected in every scenario: $hit"
			ok=0
		fi
	done <<<"$GLOBAL_REJECT"
	if [ "$ok" = 1 ]; then
		record_result "$S_SCEN" "$NAME" PASS
		log "scenario $NAME: PASS"
	else
		record_result "$S_SCEN" "$NAME" FAIL
		log "scenario $NAME: FAIL (console log: $logf)"
		rfail=1
	fi
	# one result per guest selftest line; the verdict is the third word
	while IFS= read -r line; do
		t="$(awk '{print $2}' <<<"$line")"
		st="$(awk '{print $3}' <<<"$line")"
		case "$st" in
		PASS) record_result "$S_SELF" "$NAME/$t" PASS ;;
		FAIL) record_result "$S_SELF" "$NAME/$t" FAIL "$(cut -d' ' -f4- <<<"$line")"; rfail=1
			log "scenario $NAME: $line" ;;
		SKIP) record_result "$S_SELF" "$NAME/$t" SKIP "$(cut -d' ' -f4- <<<"$line")" ;;
		esac
	done < <(grep -aoE 'SELFTEST: [^ ]+ (PASS|FAIL|SKIP).*' "$logf" | tr -d '\r' || true)
	# remember a scenario that passed entirely, with its inputs
	if [ "$ok" = 1 ] && ! grep -qs "^FAIL \($S_SELF\|$S_KUNIT\)/$NAME/" \
		"$RESULTS/$S_SELF.txt" ${S_KUNIT:+"$RESULTS/$S_KUNIT.txt"}; then
		{ grep -h " $S_SCEN/$NAME\$" "$RESULTS/$S_SCEN.txt"
		  grep -hs " $S_SELF/$NAME/" "$RESULTS/$S_SELF.txt"
		  [ -z "$S_KUNIT" ] || grep -hs " $S_KUNIT/$NAME/" "$RESULTS/$S_KUNIT.txt"; } >"$CACHE/$NAME.results" || true
		echo "$key" >"$CACHE/$NAME.key"
	fi
	return "$rfail"
}

# The bad-* scenarios (PASR refusing an input: short, CPU-bound boots) run
# two at a time; every other one alone, as timing matters to its selftests.
pids=()
drain() {
	local p
	for p in ${pids[@]+"${pids[@]}"}; do
		wait "$p" || fail=1
	done
	pids=()
}
for run in ${runs[@]+"${runs[@]}"}; do
	case "$(basename "${run%%|*}")" in
	bad-*)
		run_one "$run" &
		pids+=("$!")
		if [ "${#pids[@]}" -ge 2 ]; then
			wait "${pids[0]}" || fail=1
			pids=("${pids[@]:1}")
		fi
		;;
	*)
		drain
		run_one "$run" || fail=1
		;;
	esac
done
drain
exit "$fail"
