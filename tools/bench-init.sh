#!/bin/sh
# /init of the 'make bench' initramfs (busybox sh), built by tools/bench.sh.
# Runs the in-kernel benchmark (CONFIG_PASR_BENCH), then a user-space
# workload that fills and frees a tmpfs file, prints 'PASR-BENCH:' lines for
# tools/bench-report.py and powers the machine off.
#
# Kernel command line knobs: bench.loops=N (workload rounds, default 5),
# bench.mib=N (MiB written per round, default 300).
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
for w in $(cat /proc/cmdline); do
	case "$w" in
	bench.loops=*) loops="${w#*=}" ;;
	bench.mib=*) mib="${w#*=}" ;;
	esac
done

B=/sys/kernel/debug/pasr_bench
pasr_state() {
	if [ -r /sys/kernel/mm/pasr/enabled ]; then
		echo "PASR-BENCH: state $1 enabled=$(cat /sys/kernel/mm/pasr/enabled) free_bytes=$(cat /sys/kernel/mm/pasr/free_bytes) masked_bytes=$(cat /sys/kernel/mm/pasr/masked_bytes)"
	fi
}

pasr_state before
if [ -w $B/run ]; then
	if echo run >$B/run; then
		cat $B/run
	else
		echo "PASR-BENCH: error=run-failed"
	fi
else
	echo "PASR-BENCH: error=no-$B/run"
fi
pasr_state after-kernel-bench

# User-space workload: write and delete a tmpfs file. The guest clock is read
# from debugfs in ns (/proc/uptime has 10 ms steps); the host subtracts.
mount -t tmpfs -o size=$((mib + 64))m tmpfs /mnt
i=0
while [ "$i" -lt "$loops" ]; do
	t0=$(cat $B/now_ns)
	dd if=/dev/zero of=/mnt/fill bs=1M count="$mib" 2>/dev/null
	rm -f /mnt/fill
	t1=$(cat $B/now_ns)
	echo "PASR-BENCH: workload round=$i mib=$mib t0=$t0 t1=$t1"
	i=$((i + 1))
done
umount /mnt
pasr_state after-workload

echo "PASR-BENCH: done"
poweroff -f
