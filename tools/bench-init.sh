#!/bin/sh
# /init of the 'make bench' initramfs (busybox sh), built by tools/bench.sh.
# Runs the in-kernel benchmark (CONFIG_PASR_BENCH), then a user-space
# workload that fills and frees a tmpfs file, prints 'PASR-BENCH:' lines for
# tools/bench-report.py and powers the machine off.
#
# Kernel command line knobs: bench.loops=N (workload rounds, default 5),
# bench.mib=N (MiB written per round, default 300), bench.part=transitions
# (only the in-kernel transition case: sections forced in and out of
# "entirely free" by one kthread per CPU), bench.power=MODE (the power part:
# off, on, rep-off, rep-on). With PASR on, the allocator boots end with the
# in-kernel latency case.
# A failed benchmark prints a 'PASR-BENCH: ... error=' line, which fails the
# bench on the host.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox --install -s /bin 2>/dev/null

mkdir -p /proc /sys /dev /tmp /mnt
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

echo "PASR-BENCH: init uptime=$(cut -d' ' -f1 /proc/uptime) kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"

loops=5
mib=300
part=""
for w in $(cat /proc/cmdline); do
	case "$w" in
	bench.loops=*) loops="${w#*=}" ;;
	bench.mib=*) mib="${w#*=}" ;;
	bench.part=*) part="${w#*=}" ;;
	esac
done

B=/sys/kernel/debug/pasr_bench

# ---- power-down effectiveness (bench.power=off|on; build/out/bench-power) ----
# The scenario of the governor issue: a workload holds ~50% of memory as
# anonymous memory (the buffer of a dd blocked on a pipe) and reads ~30% of it
# from a disk into block-device page cache (at most what ZONE_NORMAL holds: the
# block device's page cache is not movable), ~75% used in all, then the anonymous memory is freed and the
# system idles for bench.idle seconds. Every second of guest time (while the
# workload runs too), one sample: masked bytes, the ideal and the simulated
# controller's power estimate. The ideal is the number of sections that could
# be entirely free, in bytes: at most the free memory (reservations included)
# in whole sections, and only sections that hold no unmovable memory
# (/sys/kernel/debug/pasr_bench/freeable: entirely free, reserved by the
# governor, or holding only free and movable pages). The governor is on from boot (pasr.governor=1)
# in the 'on' boots, off in the 'off' boots.
# SYS, SIM, meminfo, ideal, section_bytes: the selftests' helpers (tools/bench.sh
# installs selftests/lib/pasr.sh as /lib/pasr.sh)
. /lib/pasr.sh
power_sample() { # power_sample MODE PHASE
	r=0
	[ -r $SYS/governor/stats/reserved_bytes ] && r=$(cat $SYS/governor/stats/reserved_bytes)
	f=$(meminfo MemFree)
	# 'map=UUmF... sections=16 freeable=13': per section F entirely free,
	# R reserved, m free and movable pages only, U unmovable memory
	fl=$(cat $B/freeable 2>/dev/null)
	fr=$(echo "$fl" | sed -n 's/.* freeable=\([0-9]*\).*/\1/p')
	fm=$(echo "$fl" | sed -n 's/^map=\([^ ]*\) .*/\1/p')
	[ -n "$fr" ] || { echo "PASR-BENCH: error=no-$B/freeable"; fr=0; }
	n=$(($(ideal "$r") / section))
	[ "$n" -le "$fr" ] || n=$fr
	i=$((n * section))
	# 'total dies 2 writes N masked M refreshed a/b power_85c_uw X ...' -> key=value
	p=$(awk '$1 == "total" { for (k = 2; k < NF; k += 2) printf " sim_%s=%s", $k, $(k + 1) }' $SIM/status 2>/dev/null)
	echo "PASR-BENCH: power mode=$1 phase=$2 t_ns=$(cat $B/now_ns) masked=$(cat $SYS/masked_bytes) ideal=$i free=$f reserved=$r section=$section freeable=$fr freeable_map=$fm$p"
}
power_run() {
	mode=$1 idle=$2
	if [ ! -r $SIM/status ] || [ "$(cat $SYS/enabled 2>/dev/null)" != 1 ]; then
		echo "PASR-BENCH: error=power-no-sim-or-pasr-off"
		return
	fi
	section=$(section_bytes)
	total=$(meminfo MemTotal)
	anon=$((total * 50 / 100 / 1048576))
	cache=$((total * 30 / 100 / 1048576))
	gov=0
	[ -r $SYS/governor/enabled ] && gov=$(cat $SYS/governor/enabled)
	echo "PASR-BENCH: power-info mode=$mode governor=$gov total=$total section=$section sections=$(cat $SYS/sections) anon_mib=$anon cache_mib=$cache idle_s=$idle"
	# the simulator's power model, per die: 'die 0 temp 85c nw P0 P1 ...' with
	# Pk the power with k sections unrefreshed; the report prices the ideal with it
	[ -r $SIM/power_table ] || echo "PASR-BENCH: error=no-$SIM/power_table"
	awk '$1 == "die" { printf "PASR-BENCH: power-table die=%s temp=%s nw=%s", $2, $4, $6
		for (k = 7; k <= NF; k++) printf "/%s", $k; print "" }' $SIM/power_table 2>/dev/null
	# the sampler: one sample per second of guest time, until /tmp/stop
	rm -f /tmp/stop /tmp/phase
	( while [ ! -e /tmp/stop ]; do power_sample "$mode" "$(cat /tmp/phase 2>/dev/null || echo start)"; sleep 1; done ) &
	sampler=$!
	echo workload >/tmp/phase
	# anonymous memory: dd's buffer, filled from /dev/zero, then held while dd
	# waits to write it into a pipe nobody reads
	# shellcheck disable=SC2216 # on purpose: sleep never reads the pipe
	dd if=/dev/zero bs=${anon}M count=1 2>/dev/null | sleep 100000 &
	holder=$!
	a=0 n=0
	while [ "$a" -lt $((anon * 1048576 * 95 / 100)) ] && [ $n -lt 600 ]; do
		sleep 1
		a=$(meminfo AnonPages)
		n=$((n + 1))
	done
	exec 3</dev/vda
	dd if=/dev/vda of=/dev/null bs=1M count=$cache 2>/dev/null ||
		echo "PASR-BENCH: error=power-cache-read-failed"
	used=$(((total - $(meminfo MemFree)) * 100 / total))
	echo "PASR-BENCH: power-peak mode=$mode used_pct=$used anon=$(meminfo AnonPages) buffers=$(meminfo Buffers) t_ns=$(cat $B/now_ns)"
	# drop to idle: the anonymous memory goes, the page cache stays
	kill $holder
	wait $holder 2>/dev/null
	echo idle >/tmp/phase
	echo "PASR-BENCH: power-idle mode=$mode t_ns=$(cat $B/now_ns)"
	sleep "$idle"
	sleep 1
	touch /tmp/stop
	wait $sampler
	exec 3<&-
	s=""
	[ -r $SYS/governor/stats/evacuated ] &&
		s=" evacuated=$(cat $SYS/governor/stats/evacuated) migrated_pages=$(cat $SYS/governor/stats/migrated_pages) returned=$(cat $SYS/governor/stats/returned) failures=$(cat $SYS/governor/stats/failures)"
	echo "PASR-BENCH: power-end mode=$mode t_ns=$(cat $B/now_ns)$s"
}

power=""
idle=60
for w in $(cat /proc/cmdline); do
	case "$w" in
	bench.power=*) power="${w#*=}" ;;
	bench.idle=*) idle="${w#*=}" ;;
	esac
done
if [ -n "$power" ]; then
	power_run "$power" "$idle"
	echo "PASR-BENCH: done"
	poweroff -f
fi

pasr_state() {
	if [ -r /sys/kernel/mm/pasr/enabled ]; then
		echo "PASR-BENCH: state $1 enabled=$(cat /sys/kernel/mm/pasr/enabled) free_bytes=$(cat /sys/kernel/mm/pasr/free_bytes) masked_bytes=$(cat /sys/kernel/mm/pasr/masked_bytes)"
	fi
}

# run_kernel_bench CMD: the in-kernel benchmark; the write fails (EIO) if a
# case failed, and the output says which.
run_kernel_bench() {
	if [ ! -w $B/run ]; then
		echo "PASR-BENCH: error=no-$B/run"
		return
	fi
	echo "$1" >$B/run || echo "PASR-BENCH: error=$1-failed"
	cat $B/run
}

if [ "$part" = transitions ]; then
	pasr_state before
	run_kernel_bench transitions
	pasr_state after-transitions
	echo "PASR-BENCH: done"
	poweroff -f
fi

pasr_state before
run_kernel_bench run
pasr_state after-kernel-bench

# User-space workload: write and delete a tmpfs file. The guest clock is read
# from debugfs in ns (/proc/uptime has 10 ms steps); the host subtracts.
mount -t tmpfs -o size=$((mib + 64))m tmpfs /mnt
i=0
while [ "$i" -lt "$loops" ]; do
	t0=$(cat $B/now_ns)
	ok=1
	dd if=/dev/zero of=/mnt/fill bs=1M count="$mib" 2>/dev/null || ok=0
	rm -f /mnt/fill
	t1=$(cat $B/now_ns)
	if [ $ok = 1 ]; then
		echo "PASR-BENCH: workload round=$i mib=$mib t0=$t0 t1=$t1"
	else
		echo "PASR-BENCH: workload round=$i error=dd-failed"
	fi
	i=$((i + 1))
done
umount /mnt
pasr_state after-workload

# with PASR on: the latency from "section entirely free" to "masked"
if [ "$(cat /sys/kernel/mm/pasr/enabled 2>/dev/null)" = 1 ]; then
	run_kernel_bench latency
fi

echo "PASR-BENCH: done"
poweroff -f
