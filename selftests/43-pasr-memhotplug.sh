#!/bin/sh
# Memory hotplug (qemu/scenarios/pasr-memhotplug.conf): arm64 refuses to
# offline boot memory, and QEMU's virt machine cannot hot-plug DIMMs without
# ACPI, so the scenario boots with mem= below QEMU's RAM, inside a PASR die,
# and pasr_test.hot_add=SIZE@START; this test hot-adds that range (debugfs
# pasr/hot_add, CONFIG_PASR_FAULT_INJECTION: add_memory()), then for
# pasr_test.memhotplug=CYCLES cycles:
#   1. onlines the new memory blocks into ZONE_MOVABLE (online_movable);
#   2. fills a tmpfs file with checksummed data (movable allocations go to
#      ZONE_MOVABLE first, so it lands in the new blocks: required, as seen
#      in the sections' free counters);
#   3. offlines the blocks again (their pages migrate out);
#   4. checks: verifier 0 mismatches while online and while offline; every
#      PASR section inside the offline range counted entirely free (offline
#      memory holds no data) and masked; the data still matches its checksum.
# Prints cycles, blocks, MiB, offline/online failures, mismatches.
#
# Then (pasr-memhotplug-governor) the blocks go online once more, the
# evacuation governor reserves sections, at least one of them in the
# hot-added range, and the blocks go offline: the governor must give those
# reservations back (MEM_GOING_OFFLINE) so that offlining each block
# completes within 10 s (30 s on a KASAN kernel), with the verifier at 0
# mismatches and the offline sections counted free and masked.

MEMB=/sys/devices/system/memory
T=pasr-memhotplug

. "$(dirname "$0")/lib/pasr.sh"

cycles="$(arg pasr_test.memhotplug)" || { not_run $T "(pasr_test.memhotplug=CYCLES not given)"; exit 0; }
spec="$(arg pasr_test.hot_add)" || { result $T FAIL "(pasr_test.hot_add=SIZE@START not given)"; exit 0; }
if [ "$(cat /sys/kernel/mm/pasr/enabled 2>/dev/null)" != 1 ]; then
	result $T FAIL "(PASR is not enabled)"
	exit 0
fi
if [ ! -w $DBG/hot_add ] || [ ! -d $MEMB ]; then
	result $T FAIL "(no $DBG/hot_add or $MEMB: CONFIG_PASR_FAULT_INJECTION or CONFIG_MEMORY_HOTPLUG off?)"
	exit 0
fi

bs=$((0x$(cat $MEMB/block_size_bytes)))
before="$(ls -d $MEMB/memory[0-9]* | wc -l)"
hot_add "$spec" || exit 0
blocks=$BLOCKS
nb=$(echo $blocks | wc -w)
if [ "$nb" -eq 0 ]; then
	result $T FAIL "(hot-added $spec but no offline memory block appeared; $before blocks before)"
	exit 0
fi
lo=$(($(echo $blocks | tr ' ' '\n' | sort -n | head -n1) * bs))
hi=$((($(echo $blocks | tr ' ' '\n' | sort -n | tail -n1) + 1) * bs))

# sections entirely inside [lo, hi), from pasr/map
# ("section start end die bit pair free masked transitions masked_ms")
secs="$(grep -v '^#' $DBG/map | while read -r i st en rest; do
	[ $((st)) -ge $lo ] && [ $((en)) -lt $hi ] && echo "$i"; done)"

# offline_exact: 0 if every section of the range counts entirely free and is masked
offline_exact() {
	grep -v '^#' $DBG/map | {
		ok=0
		while read -r i st en die bit pair free m rest; do
			for w in $secs; do
				[ "$w" = "$i" ] || continue
				[ "$free" = $((en - st + 1)) ] && [ "$m" = 1 ] && continue
				echo "section $i: free $free of $((en - st + 1)), masked $m"
				ok=1
			done
		done
		return $ok
	}
}

# used_mib: MiB of the range's sections not counted free (data in them)
used_mib() {
	grep -v '^#' $DBG/map | {
		u=0
		while read -r i st en die bit pair free rest; do
			for w in $secs; do
				[ "$w" = "$i" ] && u=$((u + en - st + 1 - free))
			done
		done
		echo $((u / 1048576))
	}
}

setstate() { # setstate STATE: all new blocks; counts failures in $2
	for b in $blocks; do
		echo "$1" >$MEMB/memory$b/state 2>/dev/null || eval "$2=\$(($2 + 1))"
	done
}

mkdir -p /mnt/hp && mount -t tmpfs -o size=80% tmpfs /mnt/hp
fill=$((hi - lo))
fill=$((fill / 1048576 / 4))
umin=999999 umax=0
onfail=0 offfail=0 bad=0 inexact=0 vmax=0 zone_bad=0 c=0 checks=0
while [ $c -lt "$cycles" ]; do
	setstate online_movable onfail
	for b in $blocks; do
		[ "$(cat $MEMB/memory$b/valid_zones)" = Movable ] || zone_bad=$((zone_bad + 1))
	done
	v=$(mismatches); [ "$v" = 0 ] || vmax=$((vmax + 1))
	dd if=/dev/urandom of=/mnt/hp/f bs=1M count=$fill 2>/dev/null
	md5sum </mnt/hp/f | cut -d' ' -f1 >/tmp/hp.md5
	u=$(used_mib)
	[ "$u" -lt "$umin" ] && umin=$u
	[ "$u" -gt "$umax" ] && umax=$u
	setstate offline offfail
	v=$(mismatches); [ "$v" = 0 ] || { vmax=$((vmax + 1)); echo "verify offline: $(cat $DBG/verify | tr '\n' ';')"; }
	offline_exact || inexact=$((inexact + 1))
	checks=$((checks + 1))
	[ "$(md5sum </mnt/hp/f | cut -d' ' -f1)" = "$(cat /tmp/hp.md5)" ] || bad=$((bad + 1))
	rm -f /mnt/hp/f
	c=$((c + 1))
done
umount /mnt/hp
states="$(for b in $blocks; do cat $MEMB/memory$b/state; done | sort | uniq -c | tr -s ' \n' ' ')"
vend=$(mismatches)
d="($cycles cycles of $nb hot-added blocks [$blocks] of $((bs / 1048576)) MiB ($(printf '%#x-%#x' $lo $((hi - 1)))), PASR sections $(echo $secs | tr ' ' ','); online_movable failures $onfail, not Movable $zone_bad, offline failures $offfail; ${fill}MiB checksummed per cycle, $bad of $checks mismatched, $umin..$umax MiB of it in the hot-added sections when offlining (migrated out); verifier runs with mismatches $vmax, $vend at the end; cycles with offline sections not counted exactly free+masked $inexact; final states:$states)"
if [ "$onfail" = 0 ] && [ "$offfail" = 0 ] && [ "$zone_bad" = 0 ] && [ "$bad" = 0 ] &&
	[ "$vmax" = 0 ] && [ "$vend" = 0 ] && [ "$inexact" = 0 ] && [ -n "$secs" ] && [ "$c" -gt 0 ] && [ "$umin" -gt 0 ]; then
	result $T PASS "$d"
else
	result $T FAIL "$d"
fi

# --- reservations never block offlining ---
G=$SYS/governor
# reserved_in_range: sections of the hot-added range the governor holds
reserved_in_range() {
	grep -v '^#' $DBG/map | while read -r i st en die bit pair free m tr ms res; do
		for w in $secs; do [ "$w" = "$i" ] && [ "$res" = 1 ] && echo "$i"; done
	done | tr '\n' ' '
}
if [ ! -w $G/enabled ]; then
	result $T-governor SKIP "(no $G: CONFIG_PASR_GOVERNOR off)"
	exit 0
fi
onfail=0 offfail=0
setstate online_movable onfail
echo 1 >$G/enabled
i=0 held=""
while [ $i -lt 20 ] && [ -z "$held" ]; do
	echo 1 >$G/trigger
	held=$(reserved_in_range)
	[ -n "$held" ] || sleep 1
	i=$((i + 1))
done
given0=$(dmesg | grep -c 'pasr: governor: section [0-9]* given back: .* goes offline')
# 10 s per block; three times that on a KASAN kernel (make check-debug),
# which runs everything about three times slower
lim=10
kasan && lim=30
t0=$(date +%s)
errs=""
for b in $blocks; do
	tb=$(date +%s)
	if ! e=$(timeout $lim sh -c "echo offline >$MEMB/memory$b/state" 2>&1); then
		offfail=$((offfail + 1))
		errs="$errs block $b after $(($(date +%s) - tb))s: ${e:-timeout};"
	fi
done
t=$(($(date +%s) - t0))
echo 0 >$G/enabled
given=$(($(dmesg | grep -c 'pasr: governor: section [0-9]* given back: .* goes offline') - given0))
v=$(mismatches)
offline_exact >/tmp/hp.exact
ex=$?
states="$(for b in $blocks; do cat $MEMB/memory$b/state; done | sort | uniq -c | tr -s ' \n' ' ')"
d="(governor held sections [${held% }] of the hot-added range; offlining $nb blocks took ${t}s, $offfail failed or timed out ($lim s each)${errs:+:$errs}; $given reservations given back; verifier mismatches $v; offline sections exact: $([ $ex = 0 ] && echo yes || tr '\n' ';' </tmp/hp.exact); online failures $onfail; final states:$states)"
ok=0
if [ -n "$held" ] && [ "$offfail" = 0 ] && [ "$onfail" = 0 ] && [ "$given" -gt 0 ] &&
	[ "$t" -lt $((lim * nb)) ] && [ "$v" = 0 ] && [ $ex = 0 ]; then
	ok=1
fi
# With fault 256 (the governor keeps its reservations in memory going
# offline) only an offlining that fails or times out is caught.
if fault_on 256; then
	ok=0
	[ -n "$held" ] && [ "$offfail" = 0 ] && ok=1
fi
verdict $T-governor $ok 256 GOV_KEEP "$d"
