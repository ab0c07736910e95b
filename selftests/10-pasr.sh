#!/bin/sh
# PASR in-guest selftests. Each test prints one line
#   SELFTEST: <name> PASS|FAIL|SKIP <details>
# and the numbers it judged on, so that a failure says why.
#
# Command-line knobs (added by the boot scenario):
#   pasr_test.expect=on|off   whether PASR must be enabled (default: on iff ddr_die= given)
#   pasr_test.workloads=0     skip the allocation workloads

TRACE=/sys/kernel/tracing

. "$(dirname "$0")/lib/pasr.sh"

layout_given=0
grep -q 'ddr_die=' /proc/cmdline && layout_given=1
grep -qs 'linux,pasr-ddr-layout' /proc/device-tree/*/compatible && layout_given=1
expect="$(arg pasr_test.expect)" || { [ $layout_given = 1 ] && expect=on || expect=off; }

# --- highmem: 32-bit ARM with HIGHMEM masks sections the kernel does not map
# (the simulated controller overwrites them through kmap_local at self-refresh)
test_highmem() {
	hs=$(awk '/zone +HighMem/ { h = 1 } h && /start_pfn/ { print $2; exit }' /proc/zoneinfo)
	if [ -z "$hs" ]; then
		not_run pasr-highmem "(no HighMem zone: $(uname -m))"
		return
	fi
	hb=$((hs * 4096))
	n=0 tot=0
	while read -r i st en die bit pair free m rest; do
		[ "$i" = "#" ] && continue
		[ $((st)) -ge $hb ] || continue
		tot=$((tot + 1))
		[ "$m" = 1 ] && n=$((n + 1))
	done <$DBG/map
	d="($n of $tot sections above HighMem's start $(printf '%#x' $hb) masked)"
	if [ "$n" -ge 1 ]; then
		result pasr-highmem PASS "$d"
	else
		result pasr-highmem FAIL "$d"
	fi
}

# --- state: sysfs ABI and the expected enable state --------------------------
test_state() {
	if [ ! -d $SYS ]; then
		result pasr-state FAIL "(no $SYS)"
		return
	fi
	for f in enabled total_bytes free_bytes masked_bytes dies sections; do
		[ -r $SYS/$f ] || { result pasr-state FAIL "(missing $SYS/$f)"; return; }
	done
	en=$(cat $SYS/enabled)
	want=0
	[ "$expect" = on ] && want=1
	if [ "$en" != "$want" ]; then
		result pasr-state FAIL "(enabled=$en, expected $want)"
		return
	fi
	if [ "$en" = 0 ]; then
		if [ "$(cat $SYS/dies)" = 0 ] && [ "$(cat $SYS/masked_bytes)" = 0 ]; then
			result pasr-state PASS "(disabled, no dies, nothing masked)"
		else
			result pasr-state FAIL "(disabled but dies=$(cat $SYS/dies) masked=$(masked))"
		fi
		return
	fi
	ndies=$(tr ' ' '\n' </proc/cmdline | grep -c '^ddr_die=')
	d=$(cat $SYS/dies)
	tot=$(cat $SYS/total_bytes)
	wait_reported # reporting backend: what is free counts once reported
	m=$(masked)
	if [ "$ndies" -gt 0 ] && [ "$d" != "$ndies" ]; then
		result pasr-state FAIL "(dies=$d, command line has $ndies)"
	elif [ "$m" -le 0 ] || [ "$m" -gt "$tot" ]; then
		result pasr-state FAIL "(masked=$m of $tot after boot)"
	else
		result pasr-state PASS "(dies=$d sections=$(cat $SYS/sections) masked=$(mib $m)MiB of $(mib $tot)MiB)"
	fi
}

# --- verify: the counters match the buddy free lists --------------------------
test_verify() {
	n=$(mismatches)
	if [ "$n" = 0 ]; then
		result "$1" PASS "($(head -n1 $DBG/verify))"
	else
		result "$1" FAIL "(mismatches=$n: $(cat $DBG/verify | tr '\n' ';'))"
	fi
}

# --- alloc: data reaching a masked section unmasks it; freeing masks it again
test_alloc() {
	mkdir -p /mnt/fill && mount -t tmpfs -o size=95% tmpfs /mnt/fill
	wait_reported
	m0=$(masked)
	fill_until_unmasked /mnt/fill
	m1=$(masked)
	v1=$(mismatches)
	rm -f /mnt/fill/fill.*
	umount /mnt/fill
	settle "$m1"
	m2=$(masked)
	v2=$(mismatches)
	d="(used ${USED}MiB: masked $(mib $m0) -> $(mib $m1) -> $(mib $m2) MiB, mismatches $v1/$v2)"
	if [ "$UNMASKED" = 1 ] && [ "$m2" -ge "$m1" ] && [ "$v1" = 0 ] && [ "$v2" = 0 ]; then
		result pasr-alloc PASS "$d"
	else
		result pasr-alloc FAIL "$d"
	fi
}

# --- pagecache: page cache unmasks; dropping it unmasks nothing more, and frees sections
# read_step I: 16 MiB more of the block device into the page cache
read_step() { dd if=/dev/vda of=/dev/null bs=1M count=16 skip=$(($1 * 16)) 2>/dev/null; }

test_pagecache() {
	dev=/dev/vda
	if [ ! -b $dev ]; then
		result pasr-pagecache FAIL "(no $dev: qemu/boot.sh attaches a scratch disk to every boot)"
		return
	fi
	drop_caches
	wait_reported
	m0=$(masked)
	# The last close of a block device drops its page cache: hold it open.
	exec 3<$dev
	use_until_unmasked read_step
	m1=$(masked)
	drop_caches
	settle "$m1"
	m2=$(masked)
	exec 3<&-
	v=$(mismatches)
	d="(read ${USED}MiB: masked $(mib $m0) -> $(mib $m1) -> $(mib $m2) MiB after drop_caches, mismatches $v)"
	if [ "$UNMASKED" = 1 ] && [ "$m2" -ge "$m1" ] && [ "$v" = 0 ]; then
		result pasr-pagecache PASS "$d"
	else
		result pasr-pagecache FAIL "$d"
	fi
}

# --- smp: concurrent allocation and freeing on every CPU ----------------------
test_smp() {
	ncpu=$(grep -c ^processor /proc/cpuinfo)
	if [ "$ncpu" -lt 2 ]; then
		not_run pasr-smp "(1 CPU)"
		return
	fi
	mkdir -p /mnt/smp && mount -t tmpfs -o size=90% tmpfs /mnt/smp
	per=$(($(mem_free_mib) * 30 / 100 / ncpu))
	g0=$(awk '/^gets/ {print $2}' $DBG/stats)
	end=$(($(cut -d. -f1 /proc/uptime) + 8))
	i=0
	while [ $i -lt "$ncpu" ]; do
		(
			mkdir -p /mnt/smp/$i
			while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
				dd if=/dev/zero of=/mnt/smp/$i/fill bs=1M count=$per 2>/dev/null
				rm -f /mnt/smp/$i/fill
			done
		) &
		i=$((i + 1))
	done
	wait
	umount /mnt/smp
	g1=$(awk '/^gets/ {print $2}' $DBG/stats)
	v=$(mismatches)
	d="($ncpu CPUs x ${per}MiB for 8s: $((g1 - g0)) max-order gets, mismatches $v)"
	if [ "$v" = 0 ] && [ "$g1" -gt "$g0" ]; then
		result pasr-smp PASS "$d"
	else
		result pasr-smp FAIL "$d"
	fi
}

# --- trace: the tracepoints exist and fire -----------------------------------
test_trace() {
	for e in pasr:pasr_mask_update pasr:pasr_section_state; do
		if ! grep -qx "$e" $TRACE/available_events; then
			result pasr-trace FAIL "($e not in available_events)"
			return
		fi
	done
	echo >$TRACE/trace
	echo 1 >$TRACE/events/pasr/enable
	mkdir -p /mnt/tr && mount -t tmpfs -o size=90% tmpfs /mnt/tr
	# data reaching a masked section makes its mask change
	fill_until_unmasked /mnt/tr
	rm -f /mnt/tr/fill.*
	umount /mnt/tr
	settle
	echo 0 >$TRACE/events/pasr/enable
	nm=$(grep -c 'pasr_mask_update:' $TRACE/trace)
	ns=$(grep -c 'pasr_section_state:' $TRACE/trace)
	if [ "$nm" -gt 0 ] && [ "$ns" -gt 0 ]; then
		result pasr-trace PASS "(filled ${USED}MiB: $nm mask updates, $ns section events; e.g. $(grep -m1 -o 'pasr_mask_update:.*' $TRACE/trace))"
	else
		result pasr-trace FAIL "(filled ${USED}MiB: $nm mask updates, $ns section events)"
	fi
}

test_state
if [ "$(cat $SYS/enabled 2>/dev/null)" != 1 ]; then
	for t in verify highmem alloc pagecache smp trace verify-end; do
		not_run pasr-$t "(PASR not enabled)"
	done
	exit 0
fi
test_verify pasr-verify
test_highmem
if [ "$(arg pasr_test.workloads)" = 0 ]; then
	for t in alloc pagecache smp trace verify-end; do
		not_run pasr-$t "(pasr_test.workloads=0)"
	done
	exit 0
fi
test_alloc
test_pagecache
test_smp
test_trace
test_verify pasr-verify-end
