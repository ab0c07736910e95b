#!/bin/sh
# PASR evacuation governor: effectiveness against the ideal, retention under
# simulated self-refresh, and pressure. Runs only with pasr_test.governor=1
# (the pasr-governor scenario).
#
# Scenario: a workload uses ~75% of memory (tmpfs for anonymous-like memory,
# plus block-device page cache), then the tmpfs part is freed and the system
# idles with the page cache still there. The ideal is the free memory rounded
# down to whole sections: no PASR design could mask more. Masked bytes are
# sampled with the governor off for 10 s, then on, every 2 s of guest time,
# until the governor has evacuated a section, gained over off and reached
# the target (at most 30 s). Then (pasr-governor-retention) the simulated
# controller's self-refresh is entered repeatedly while the governor holds
# reservations, with data in memory: 0 violations, and the data reads back
# intact.
#
# Prints machine-readable rows: GOVBENCH <mode> <t_s> <masked_MiB> <ideal_MiB> <pct>

. "$(dirname "$0")/lib/pasr.sh"

if [ "$(arg pasr_test.governor)" != 1 ]; then
	not_run pasr-governor "(no pasr_test.governor=1)"
	exit 0
fi
if [ ! -d $GOV ] || [ "$(cat $SYS/enabled)" != 1 ]; then
	result pasr-governor FAIL "(no $GOV or PASR off)"
	exit 0
fi

section=$(section_bytes)

# sample MODE SECONDS [STOP]: prints rows every 2 s, leaves the last pct in
# $pct and its time in $ts; with STOP, ends early once pct reaches STOP, is
# above the governor-off figure ($off) and the governor has evacuated a
# section since it was enabled (count in $ev0)
sample() {
	t=0
	while [ $t -le "$2" ]; do
		m=$(cat $SYS/masked_bytes)
		i=$(ideal "$(gov_stat reserved_bytes)") # reservations hold no data
		pct=0
		[ "$i" -gt 0 ] && pct=$((m * 100 / i))
		echo "GOVBENCH $1 $t $(mib $m) $(mib $i) $pct"
		ts=$t
		if [ -n "${3:-}" ] && [ "$pct" -ge "$3" ] && [ "$pct" -gt "$off" ] &&
			[ "$(gov_stat evacuated)" -gt "$ev0" ]; then
			break
		fi
		[ $t -lt "$2" ] && sleep 2
		t=$((t + 2))
	done
}

total=$(meminfo MemTotal)
echo 0 >$GOV/enabled
mkdir -p /mnt/gov && mount -t tmpfs -o size=95% tmpfs /mnt/gov
# workload: ~45% anonymous-like (tmpfs), ~30% page cache (held open)
dd if=/dev/zero of=/mnt/gov/anon bs=1M count=$((total * 45 / 100 / 1048576)) 2>/dev/null
exec 3</dev/vda
dd if=/dev/vda of=/dev/null bs=1M count=$((total * 30 / 100 / 1048576)) 2>/dev/null
used=$(((total - $(meminfo MemFree)) * 100 / total))
rm -f /mnt/gov/anon
v0=$(mismatches)

echo "GOVBENCH # mode t_s masked_MiB ideal_MiB pct_of_ideal (workload peak ${used}% used, section $(mib $section)MiB)"
sample off 10
off=$pct
# The 90% target is issue 6's, on the non-debug kernel. A KASAN kernel (make
# check-debug) has 1/8 of memory as shadow in the unmovable part, so the
# ideal there counts free memory among unmovable pages that no migration can
# empty: it must only evacuate and gain over the governor off.
target=90
kasan && target=$((off + 1))
ev0=$(gov_stat evacuated)
echo 1 >$GOV/enabled
sample on 30 $target
on=$pct
v1=$(mismatches)
d="(masked/ideal: governor off ${off}%, on ${on}% after ${ts}s; evacuated $(gov_stat evacuated), migrated $(gov_stat migrated_pages) pages, failures $(gov_stat failures); mismatches $v0/$v1)"
if kasan; then
	d="$d (KASAN kernel: must beat governor off and evacuate)"
	[ "$(gov_stat evacuated)" -gt 0 ] || target=101
fi
if [ "$on" -ge "$target" ] && [ "$v0" = 0 ] && [ "$v1" = 0 ]; then
	result pasr-governor PASS "$d"
else
	result pasr-governor FAIL "$d"
fi

# retention: with the governor running and holding reservations, and data in
# memory, enter the simulated controller's self-refresh repeatedly. Every
# masked section must hold only free blocks or pages the governor holds; any
# other page there is a violation, and the simulator overwrites it (file data
# included), so a broken reservation shows as violations and as a corrupted
# file. Needs the simulated controller (DT_LAYOUT in the scenario).
ENTRIES=6
if [ ! -w $SIM/self_refresh ]; then
	not_run pasr-governor-retention "(no simulated PASR controller: $SIM)"
else
	e0=$(sr entries) v0=$(sr violations) g0=$(sr reserved_pages_lost)
	p0=$(sr poisoned_pages)
	# data: 64 MiB of zeros in tmpfs (memory the governor may migrate)
	dd if=/dev/zero of=/mnt/gov/data bs=1M count=64 2>/dev/null
	k=0 held=0 minres='' maxres=0
	while [ $k -lt $ENTRIES ]; do
		r=$(gov_stat reserved_bytes)
		[ "$r" -gt 0 ] && held=$((held + 1))
		[ -z "$minres" ] || [ "$r" -lt "$minres" ] && minres=$r
		[ "$r" -gt "$maxres" ] && maxres=$r
		echo 100 >$SIM/self_refresh
		# the governor keeps running between entries; every other time,
		# give everything back and evacuate again at once
		if [ $((k % 2)) = 1 ]; then
			echo 1 >$GOV/release
			echo 1 >$GOV/trigger
		else
			sleep 2
		fi
		k=$((k + 1))
	done
	e=$(($(sr entries) - e0)) v=$(($(sr violations) - v0))
	g=$(($(sr reserved_pages_lost) - g0)) p=$(($(sr poisoned_pages) - p0))
	bad=$(corrupted /mnt/gov/data)
	rm -f /mnt/gov/data
	v3=$(mismatches)
	d="(entries $e, violations $v; $held of $ENTRIES entries with reservations held ($(mib ${minres:-0})..$(mib $maxres) MiB); governor pages overwritten $g, pages overwritten in all $p; 64 MiB data file corrupted: $bad; mismatches $v3; evacuated $(gov_stat evacuated), returned $(gov_stat returned))"
	if [ "$e" = $ENTRIES ] && [ "$v" = 0 ] && [ "$held" -gt 0 ] && [ "$g" -gt 0 ] &&
		[ "$bad" = 0 ] && [ "$v3" = 0 ]; then
		result pasr-governor-retention PASS "$d"
	else
		result pasr-governor-retention FAIL "$d"
	fi
fi

# pressure: with sections reserved, allocate 90% of memory; no OOM, and the
# reservations come back. The retention test may have just given everything
# back: wait (up to 30 s) for the governor to reserve again (with the
# reporting backend, the blocks it gave back count as free once reported)
i=0
while [ "$(gov_stat reserved_bytes)" = 0 ] && [ $i -lt 30 ]; do
	echo 1 >$GOV/trigger
	sleep 1
	i=$((i + 1))
done
r0=$(gov_stat returned)
res=$(gov_stat reserved_bytes)
want=$((total * 90 / 100 / 1048576))
got=$(dd if=/dev/zero of=/mnt/gov/big bs=1M count=$want 2>&1 | awk -F+ '/records out/ {print $1; exit}')
r1=$(gov_stat returned)
oom=$(dmesg | grep -c -i 'out of memory')
rm -f /mnt/gov/big
v2=$(mismatches)
d="(reserved $(mib $res)MiB, wrote ${got}/${want}MiB, reservations returned $((r1 - r0)), OOM lines $oom, mismatches $v2)"
if [ "$res" -gt 0 ] && [ "$got" = "$want" ] && [ $((r1 - r0)) -gt 0 ] && [ "$oom" = 0 ] && [ "$v2" = 0 ]; then
	result pasr-governor-pressure PASS "$d"
else
	result pasr-governor-pressure FAIL "$d"
fi
exec 3<&-
umount /mnt/gov
