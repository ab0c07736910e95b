#!/bin/sh
# Simulated LPDDR PASR controller (drivers/memory/pasr-sim/) in-guest tests.
# Each test prints one line
#   SELFTEST: <name> PASS|FAIL|SKIP <details>
#
# Command-line knobs (added by the boot scenario):
#   pasr_sim_test.fault=1     break the accounting on purpose (debugfs
#                             pasr/skip_gets) and expect the controller to
#                             detect it on self-refresh entry
#   pasr_sim_test.suspend=0   skip the suspend-to-idle cycle
#   pasr_sim_test.late_alloc=1
#                             only: a suspend during which a noirq callback
#                             after the controller's allocates unseen by
#                             PASR (debugfs pasr/late_alloc); the
#                             self-refresh entry must find it
#   pasr_sim.parc=1           the controller's PARC mode: masked sections
#                             lose their contents while the system runs;
#                             pasr-sim-parc checks that it did
#   pasr_sim.parc_unmask_delay_ms=N
#                             and applies values N ms late: retention must
#                             fail (data lost), or the check cannot fail
#
# Without the fault, the same workload must give zero violations and leave
# the data intact.

RTC=/sys/class/rtc/rtc0/wakealarm

. "$(dirname "$0")/lib/pasr.sh"

# dies: "die 0 mr 0x0 writes 3; die 1 mr 0xfe writes 9"
dies() {
	awk '$1 == "die" { for (i = 3; i < NF; i++) { if ($i == "mr") m = $(i + 1); if ($i == "writes") w = $(i + 1) }
		printf "%sdie %s mr %s writes %s", sep, $2, m, w; sep = "; " }' $SIM/status
}

# positive X: X (e.g. "43.7%" or "12.500") is greater than zero
positive() { echo "$1" | awk '{ exit !($1 + 0 > 0) }'; }

# enter MS: simulated self-refresh for MS ms; prints the new violations
enter() {
	v=$(sr violations)
	echo "$1" >$SIM/self_refresh || { echo -1; return; }
	echo $(($(sr violations) - v))
}

names="kunit status self-refresh retention suspend"
fault="$(arg pasr_sim_test.fault)"
[ "$fault" = 1 ] && names="kunit status self-refresh fault-detect"

if [ ! -d $SIM ]; then
	if grep -qs 'linux,lpddr-pasr-sim' /proc/device-tree/*/compatible &&
		[ "$(cat $SYS/enabled 2>/dev/null)" = 1 ]; then
		result pasr-sim-probe FAIL "(PASR is on and the DT has a linux,lpddr-pasr-sim node, but no $SIM)"
	else
		for t in $names; do
			not_run pasr-sim-$t "(no simulated PASR controller)"
		done
	fi
	exit 0
fi

# --- kunit: the pasr_sim suite, when the scenario ran KUnit at boot ----------
test_kunit() {
	if [ "$(arg kunit.enable)" != 1 ]; then
		not_run pasr-sim-kunit "(KUnit not run at boot: kunit.enable=1 kunit.filter_glob=pasr_sim)"
		return
	fi
	l="$(dmesg | grep -o '# pasr_sim: pass:.*' | tail -n1)"
	case "$l" in
	"# pasr_sim: pass:"*" fail:0 "*) result pasr-sim-kunit PASS "($l)" ;;
	"") result pasr-sim-kunit FAIL "(no pasr_sim KUnit summary in the kernel log)" ;;
	*) result pasr-sim-kunit FAIL "($l; $(dmesg | grep -c 'not ok .* pasr_sim') failed: see the console)" ;;
	esac
}

# power_table_check: pasr-sim/power_table (every die's power with 0, 1, ...
# sections unrefreshed, which the benchmark prices its ideal with) against the
# IDD6 currents and VDD the driver printed at probe, datasheet figures, not the
# model: all refreshed is IDD6(1) x VDD, none IDD6(1/16) x VDD, half IDD6(1/2)
# x VDD, never more with more unrefreshed; and the full-refresh sum is the
# status's. Prints "ok" or the first mismatch.
power_table_check() {
	dmesg | awk -v table=$SIM/power_table -v full="$(sim_total full_85c_uw)" '
	/pasr-sim: die [0-9]+: .*IDD6 85C/ {
		for (i = 1; i < NF; i++) {
			if ($i == "die" && $(i + 1) ~ /:$/) d = $(i + 1) + 0
			if ($i == "85C") t["85c", d] = $(i + 1)
			if ($i == "45C") t["45c", d] = $(i + 1)
			if ($i == "VDD") uv[d] = $(i + 1)
		}
	}
	function bad(why) { if (!err) err = why }
	END {
		while ((getline l < table) > 0) {
			n = split(l, f, " ")
			if (f[1] != "die")
				continue
			d = f[2]; s = n - 6; rows++
			if (!((f[4], d) in t)) { bad("die " d ": no IDD6 line at probe"); continue }
			split(t[f[4], d], a, "/")
			if (f[6] != a[1] * uv[d] / 1000) bad("die " d " " f[4] ": " f[6] " nW all refreshed, IDD6 gives " a[1] * uv[d] / 1000)
			if (f[n] != a[5] * uv[d] / 1000) bad("die " d " " f[4] ": " f[n] " nW none refreshed, IDD6 gives " a[5] * uv[d] / 1000)
			if (s % 2 == 0 && f[6 + s / 2] != a[2] * uv[d] / 1000) bad("die " d " " f[4] ": " f[6 + s / 2] " nW half refreshed, IDD6 gives " a[2] * uv[d] / 1000)
			for (k = 7; k <= n; k++)
				if (f[k] > f[k - 1]) bad("die " d " " f[4] ": more power with more sections unrefreshed")
			if (f[4] == "85c") sum += f[6]
		}
		if (!rows) bad("no rows in " table)
		if (sum != full * 1000) bad("full refresh: the table sums to " sum " nW, status says " full " uW")
		print err ? err : "ok"
	}'
}

# --- status: mode registers written, power estimate with a saving ----------
test_status() {
	w=$(sim_total writes)
	s85=$(sim_total saving_85c)
	s45=$(sim_total saving_45c)
	pt=$(power_table_check)
	d="($(dies); masked $(sim_total masked) sections; 85C $(sim_total power_85c_uw) of $(sim_total full_85c_uw) uW: saving $s85; 45C $(sim_total power_45c_uw) of $(sim_total full_45c_uw) uW: saving $s45; power_table: $pt)"
	if [ -n "$w" ] && [ "$w" -gt 0 ] && positive "$s85" && positive "$s45" && [ "$pt" = ok ]; then
		result pasr-sim-status PASS "$d"
	else
		result pasr-sim-status FAIL "(writes=$w) $d"
	fi
}

# --- self-refresh: one debugfs entry of 1 s, no violation, energy saved ------
test_self_refresh() {
	e0=$(sr entries)
	n=$(enter 1000)
	e1=$(sr entries)
	uj=$(sr energy_saved_85c_uj)
	d="(entry $e1: $n violations, $(sr self_refresh_ms) ms in self-refresh, saved $uj uJ at 85C, $(sr energy_saved_45c_uj) uJ at 45C)"
	if [ "$e1" = $((e0 + 1)) ] && [ "$n" = 0 ] && positive "$uj"; then
		result pasr-sim-self-refresh PASS "$d"
	else
		result pasr-sim-self-refresh FAIL "$d"
	fi
}

# fill_and_enter [SKIP_GETS]: fill a tmpfs until data lies in sections that
# were masked (with SKIP_GETS: with that many pasr_get() calls dropped, until
# only half of the masked memory can still be free), enter self-refresh with
# the data in place, and read it back. Sets n (violations), bad (1 if the data
# is corrupted), USED, UNMASKED, m0, m1 (masked sections before and after the
# fill) and mb1 (masked bytes after it).
fill_and_enter() {
	mkdir -p /mnt/sim && mount -t tmpfs -o size=95% tmpfs /mnt/sim
	m0=$(sim_total masked)
	if [ -n "$1" ]; then
		free=$(mem_free_mib)
		cap=$((free - $(mib "$(masked)") / 2))
		[ "$cap" -gt $((free * 85 / 100)) ] && cap=$((free * 85 / 100))
		echo "$1" >$DBG/skip_gets
		fill_until_unmasked /mnt/sim "$cap"
		echo 0 >$DBG/skip_gets
	else
		fill_until_unmasked /mnt/sim
	fi
	m1=$(sim_total masked)
	mb1=$(masked)
	n=$(enter 100)
	bad=$(corrupted /mnt/sim/fill.*)
}

cleanup_fill() {
	rm -f /mnt/sim/fill.*
	umount /mnt/sim
	settle "$mb1"
}

# --- retention: memory in use is never lost ---------------------------------
test_retention() {
	fill_and_enter ""
	cleanup_fill
	# the sections whose data was freed may keep unmovable kernel memory
	# (lib/pasr.sh use_until_unmasked): the masks must agree with the
	# free lists (verifier), and freeing must lose nothing
	m2=$(sim_total masked)
	n2=$(enter 100)
	d="(filled ${USED}MiB until data reached two masked sections: masked sections $m0 -> $m1 -> $m2 after freeing; violations $n with the data in place, $n2 after; data corrupted: $bad)"
	ok=0
	[ "$UNMASKED" = 1 ] && [ "$n" = 0 ] && [ "$n2" = 0 ] && [ "$bad" -eq 0 ] &&
		[ "$m2" -ge "$m1" ] && [ "$(mismatches)" = 0 ] && ok=1
	if [ "$(arg pasr_sim.parc_unmask_delay_ms || echo 0)" != 0 ]; then
		# PARC with every value applied late: what the allocator writes
		# into a section unmasked late is lost, or seen in use there
		if [ "$ok" = 0 ]; then
			result pasr-sim-retention PASS "(PARC values applied late: caught) $d"
		else
			result pasr-sim-retention FAIL "(PARC values applied late, but the check held: it cannot fail) $d"
		fi
		return
	fi
	verdict pasr-sim-retention $ok 1024 NO_UNREPORT "$d"
}

# --- parc: in PARC mode, masked sections were lost while running ------------
test_parc() {
	p=$(sr parc_passes) pg=$(sr parc_pages_lost) ms=$(sr parc_last_pass_ms)
	k=$(sr parc_kicks)
	d="($p passes over the masked sections, $k started by a value that masked more, $pg pages overwritten while running, last pass $ms ms)"
	if [ "${p:-0}" -gt 0 ] && [ "${pg:-0}" -gt 0 ] && [ "${k:-0}" -gt 0 ]; then
		result pasr-sim-parc PASS "$d"
	else
		result pasr-sim-parc FAIL "$d"
	fi
}

# --- suspend: one suspend-to-idle cycle is a self-refresh entry -------------
test_suspend() {
	if [ "$(arg pasr_sim_test.suspend)" = 0 ]; then
		not_run pasr-sim-suspend "(pasr_sim_test.suspend=0)"
		return
	fi
	if ! grep -qw freeze /sys/power/state 2>/dev/null || [ ! -w $RTC ]; then
		result pasr-sim-suspend SKIP "(no suspend-to-idle or no RTC wake alarm)"
		return
	fi
	s0=$(sr suspend_entries)
	v0=$(sr violations)
	t0=$(sr self_refresh_ms)
	echo 0 >$RTC
	echo +3 >$RTC
	if ! echo freeze >/sys/power/state; then
		result pasr-sim-suspend FAIL "(echo freeze >/sys/power/state failed)"
		return
	fi
	s1=$(sr suspend_entries)
	v1=$(sr violations)
	t=$(($(sr self_refresh_ms) - t0))
	d="(suspend entries $s0 -> $s1, $((v1 - v0)) violations, ${t} ms suspended, saved $(sr energy_saved_85c_uj) uJ at 85C in total)"
	if [ "$s1" = $((s0 + 1)) ] && [ "$v1" = "$v0" ] && [ "$t" -gt 0 ]; then
		result pasr-sim-suspend PASS "$d"
	else
		result pasr-sim-suspend FAIL "$d"
	fi
}

# --- late-entry: self-refresh is entered after every noirq callback ---------
test_late_entry() {
	if [ ! -w $DBG/late_alloc ] || ! grep -qw freeze /sys/power/state 2>/dev/null || [ ! -w $RTC ]; then
		result pasr-sim-late-entry FAIL "(no $DBG/late_alloc, suspend-to-idle or RTC wake alarm)"
		return
	fi
	m0=$(sim_total masked)
	if [ "$m0" -le 0 ]; then
		result pasr-sim-late-entry FAIL "(nothing masked before the suspend: nothing to find)"
		return
	fi
	s0=$(sr suspend_entries)
	v0=$(sr violations)
	echo 1 >$DBG/late_alloc
	echo 0 >$RTC
	echo +3 >$RTC
	if ! echo freeze >/sys/power/state; then
		result pasr-sim-late-entry FAIL "(echo freeze >/sys/power/state failed)"
		return
	fi
	n=$(cat $DBG/late_alloc)
	s1=$(sr suspend_entries)
	v=$(($(sr violations) - v0))
	d="($m0 sections masked; a noirq callback after the controller's took $n max-order blocks, PASR's gets dropped; suspend entries $s0 -> $s1, $v violations)"
	if [ "$n" -gt 0 ] && [ "$s1" = $((s0 + 1)) ] && [ "$v" -gt 0 ]; then
		result pasr-sim-late-entry PASS "$d"
	else
		result pasr-sim-late-entry FAIL "$d"
	fi
}

# --- fault-detect: dropped pasr_get() calls are caught on self-refresh -------
test_fault_detect() {
	if [ ! -w $DBG/skip_gets ]; then
		result pasr-sim-fault-detect FAIL "(no $DBG/skip_gets: CONFIG_PASR_FAULT_INJECTION off?)"
		return
	fi
	if [ "$(sim_total masked)" -le 0 ]; then
		result pasr-sim-fault-detect FAIL "(nothing masked before the fault: nothing to detect)"
		return
	fi
	fill_and_enter 1000000000
	lost=$(sr data_pages_lost)
	# as DRAM, the simulator loses every byte of a page, not a part: each
	# file page that reads back non-zero must have all 512 words overwritten
	scan=$(/bin/pasr-fresh-anon -f /mnt/sim/fill.* 2>&1)
	set -- $(echo "$scan" | sed -n 's/.*files: [0-9]* pages, \([0-9]*\) not zero (\([0-9]*\) words.*/\1 \2/p')
	lp=${1:-0} lw=${2:-0}
	cleanup_fill
	d="(dropped every pasr_get while filling ${USED}MiB: masked sections $m0 -> $m1; self-refresh found $n violations; $lost page-cache pages overwritten; the file reads back corrupted: $bad, $lp pages with $lw of their $((lp * 512)) words overwritten)"
	if [ "$n" -gt 0 ] && [ "$bad" -eq 1 ] && [ "$lp" -gt 0 ] && [ "$lw" = $((lp * 512)) ]; then
		result pasr-sim-fault-detect PASS "$d"
	else
		result pasr-sim-fault-detect FAIL "$d"
	fi
}

wait_reported # reporting backend: what is free counts once reported
if [ "$(arg pasr_sim.parc_unmask_delay_ms || echo 0)" != 0 ]; then
	# a fault: only the check that must catch it, once the values
	# reached the controller
	wait_mask
	test_retention
	exit 0
fi
if [ "$(arg pasr_sim_test.late_alloc)" = 1 ]; then
	# a fault that ends the boot's accounting: this test alone
	wait_mask
	test_late_entry
	exit 0
fi
test_kunit
test_status
test_self_refresh
if [ "$fault" = 1 ]; then
	test_fault_detect
else
	test_retention
	test_suspend
fi
if [ "$(arg pasr_sim.parc)" = 1 ]; then
	test_parc
fi
