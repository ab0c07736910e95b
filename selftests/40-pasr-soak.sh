#!/bin/sh
# Retention soak (qemu/scenarios/pasr-sim-soak.conf): with the simulated
# LPDDR controller (drivers/memory/pasr-sim/) and pasr_test.soak=ROUNDS,
#   1. fill about 55% of the free memory (pasr_test.soak_fill=PCT: PCT%)
#      with random data in tmpfs files of 8 MiB, each checksummed (md5);
#   2. churn for ROUNDS rounds: a quarter of the files is checked, deleted and
#      rewritten with new data while simulated self-refresh is entered 3
#      times; then compaction and 2 more entries with the masks settled;
#   3. every entry poisons the unrefreshed sections (pasr-sim's retention
#      check: memory in use there is a violation);
#   4. every file still matches its checksum at the end.
# Passes with 0 checksum mismatches, 0 violations, no page-cache page lost,
# memory really poisoned during the soak (so that a lost page would have been
# seen) and 0 verifier mismatches.

T=pasr-soak
M=/mnt/soak
S=/tmp/soak

. "$(dirname "$0")/lib/pasr.sh"

rounds="$(arg pasr_test.soak)" || { not_run $T "(pasr_test.soak=ROUNDS not given)"; exit 0; }
if [ ! -w $SIM/self_refresh ]; then
	result $T FAIL "(no $SIM/self_refresh: simulated controller not bound)"
	exit 0
fi

FILE_MIB=8

# write I: new random data into file I, then its checksum. (busybox tee and
# head -c move about 1 MiB/s under TCG, so the checksum is not taken from the
# stream; a self-refresh entry that lost the data between the two would count
# a violation, which fails the test too.)
write() {
	dd if=/dev/urandom of=$M/f$1 bs=1M count=$FILE_MIB 2>/dev/null
	md5sum $M/f$1 >$S/f$1.md5
}

# check I: 0 if file I matches its checksum; counts a mismatch otherwise
check() {
	checks=$((checks + 1))
	md5sum -c -s $S/f$1.md5 2>/dev/null && return 0
	echo "checksum mismatch: $M/f$1 ($(md5sum $M/f$1 | cut -d' ' -f1), expected $(cut -d' ' -f1 $S/f$1.md5))"
	bad=$((bad + 1))
	return 1
}

# enter: one simulated self-refresh entry of 10 ms; tracks the masked sections
enter() {
	m=$(sim_total masked)
	[ "$m" -lt "$mmin" ] && mmin=$m
	[ "$m" -gt "$mmax" ] && mmax=$m
	echo 10 >$SIM/self_refresh || serr=$((serr + 1))
}

mkdir -p $M $S && mount -t tmpfs -o size=90% tmpfs $M
e0=$(sr entries) v0=$(sr violations) p0=$(sr poisoned_pages) l0=$(sr data_pages_lost)
fill=$(arg pasr_test.soak_fill) || fill=55
nfiles=$(($(mem_free_mib) * fill / 100 / FILE_MIB))
i=0
while [ $i -lt $nfiles ]; do
	write $i
	i=$((i + 1))
done
checks=0 bad=0 serr=0 mmin=9999 mmax=0 rewritten=0
# reporting backend: the free memory counts (and is masked) once reported;
# it does not steer, so compaction may be needed before a section is free
wait_reported
premask=""
wait_mask || premask="no section masked before the first entry, even after compaction; "
enter
r=0
while [ $r -lt "$rounds" ]; do
	(
		i=$((r % 4))
		while [ $i -lt $nfiles ]; do
			md5sum -c -s $S/f$i.md5 2>/dev/null || echo "churn: $M/f$i corrupted before rewrite" >>$S/churn.err
			rm -f $M/f$i
			write $i
			i=$((i + 4))
		done
	) &
	enter; enter; enter
	wait
	rewritten=$((rewritten + (nfiles - r % 4 + 3) / 4))
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	enter; enter
	r=$((r + 1))
done
cerr=$(cat $S/churn.err 2>/dev/null | wc -l)
i=0
while [ $i -lt $nfiles ]; do
	check $i
	i=$((i + 1))
done
e=$(($(sr entries) - e0))
v=$(($(sr violations) - v0))
p=$(($(sr poisoned_pages) - p0))
l=$(($(sr data_pages_lost) - l0))
rm -rf $M/*
umount $M
vm=$(mismatches)
d="($premask$((nfiles * FILE_MIB)) MiB checksummed in $nfiles files; $rounds churn rounds rewrote $rewritten files ($((rewritten * FILE_MIB)) MiB); $e self-refresh entries with $mmin..$mmax sections masked, $((p / 256)) MiB poisoned; checksum mismatches $((bad + cerr)) of $((checks + rewritten)) checks; violations $v; page-cache pages lost $l; entry errors $serr; verifier mismatches $vm)"
if [ "$bad" = 0 ] && [ "$cerr" = 0 ] && [ "$v" = 0 ] && [ "$l" = 0 ] && [ "$serr" = 0 ] &&
	[ "$e" -ge $((rounds * 5)) ] && [ "$p" -gt 0 ] && [ "$nfiles" -gt 0 ] && [ "$vm" = 0 ]; then
	result $T PASS "$d"
else
	result $T FAIL "$d"
fi
