#!/bin/bash
# Boot the PASR test kernel in QEMU ('virt': arm64, or 32-bit ARM with
# PASR_ARCH=arm) with the test initramfs.
#
# usage: qemu/boot.sh [--mem SIZE] [--smp N] [--cmdline 'ARGS'] [--timeout SECONDS]
#                     [--log FILE] [--dtb FILE] [--kernel IMAGE] [--initrd FILE]
#                     [--interactive] [--strict] [--allow-warn] [--kexec-disk]
#                     [--swap-disk FILE] [--done REGEX]
#
# The console goes to the terminal and to the log file. The exit status is
# non-zero on timeout, on a kernel panic/oops/WARN/BUG or lockdep splat in the
# log, or when the init never printed 'PASR-INIT: done' (not checked with
# --interactive). With --strict, a 'SELFTEST: ... FAIL' line also fails.
# --allow-warn accepts WARN splats (for scenarios that provoke them on purpose).
# --kexec-disk attaches the kernel image itself as a second disk, padded to
# 4 KiB (the one that is not 4 GiB), for the guest to load it with kexec.
# --swap-disk attaches FILE as a writable disk (hibernation's swap), and
# --done REGEX names the line that ends a boot in place of 'PASR-INIT: done'
# (a boot that ends by hibernating).
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

MEM=1G
SMP=2
CMDLINE=""
TIMEOUT=300
LOG="$LOGS/boot.log"
DTB=""
KERNEL="$OUT_QEMU/$KIMAGE"
[ "$PASR_ARCH" = arm64 ] || KERNEL="$OUT_ARM/$KIMAGE"
INITRD="$INITRAMFS"
INTERACTIVE=0
STRICT=0
ALLOW_WARN=0
KEXEC_DISK=0
SWAP_DISK=""
DONE='PASR-INIT: done'

while [ $# -gt 0 ]; do
	case "$1" in
	--mem) MEM="$2"; shift 2 ;;
	--smp) SMP="$2"; shift 2 ;;
	--cmdline) CMDLINE="$2"; shift 2 ;;
	--timeout) TIMEOUT="$2"; shift 2 ;;
	--log) LOG="$2"; shift 2 ;;
	--dtb) DTB="$2"; shift 2 ;;
	--kernel) KERNEL="$2"; shift 2 ;;
	--initrd) INITRD="$2"; shift 2 ;;
	--interactive) INTERACTIVE=1; shift ;;
	--strict) STRICT=1; shift ;;
	--allow-warn) ALLOW_WARN=1; shift ;;
	--kexec-disk) KEXEC_DISK=1; shift ;;
	--swap-disk) SWAP_DISK="$2"; shift 2 ;;
	--done) DONE="$2"; shift 2 ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	*) die "boot: unknown option $1" ;;
	esac
done

[ -f "$KERNEL" ] || die "boot: kernel $KERNEL missing (run 'make kernel')"
[ -f "$INITRD" ] || die "boot: initramfs $INITRD missing (run 'make initramfs')"

# Memory size in MiB, handed to the guest selftests as pasr_test.mem=<MiB>.
mem_mib() {
	local v="$1" n
	n="${v%[KkMmGgTt]}"
	case "$v" in
	*[Gg]) echo $((n * 1024)) ;;
	*[Tt]) echo $((n * 1024 * 1024)) ;;
	*[Kk]) echo $((n / 1024)) ;;
	*) echo "$n" ;; # QEMU's default unit is MiB
	esac
}
MEM_MIB="$(mem_mib "$MEM")"

append="console=ttyAMA0 panic=-1 pasr_test.mem=$MEM_MIB pasr_test.smp=$SMP"
[ "$INTERACTIVE" = 0 ] || append="$append pasr.shell"
[ -z "$CMDLINE" ] || append="$append $CMDLINE"

# A sparse, read-only scratch disk (/dev/vda): block-device page cache for the
# selftests to fill and drop.
DISK="$BUILD/scratch-disk.img"
[ -f "$DISK" ] || truncate -s 4G "$DISK"

qemu=("$QEMU_SYS" -machine "$QEMU_MACHINE" -cpu "$QEMU_CPU" -nographic -net none -no-reboot
	-m "$MEM" -smp "$SMP" -kernel "$KERNEL" -initrd "$INITRD" -append "$append"
	-drive "file=$DISK,format=raw,if=none,id=hd0,readonly=on"
	-device virtio-blk-device,drive=hd0)
[ -z "$DTB" ] || qemu+=(-dtb "$DTB")
if [ "$KEXEC_DISK" = 1 ]; then
	# a disk's size is whole sectors: pad the copy, not the kernel
	kdisk="$KERNEL.kexec-disk"
	if [ ! -f "$kdisk" ] || [ "$KERNEL" -nt "$kdisk" ]; then
		cp "$KERNEL" "$kdisk.tmp" && truncate -s %4096 "$kdisk.tmp" && mv "$kdisk.tmp" "$kdisk"
	fi
	qemu+=(-drive "file=$kdisk,format=raw,if=none,id=hd1,readonly=on"
		-device virtio-blk-device,drive=hd1)
fi
[ -z "$SWAP_DISK" ] ||
	qemu+=(-drive "file=$SWAP_DISK,format=raw,if=none,id=hd2"
		-device virtio-blk-device,drive=hd2)

mkdir -p "$(dirname "$LOG")"
log "boot: ${qemu[*]}"
set +e
if [ "$INTERACTIVE" = 1 ]; then
	# generous limit so a forgotten session still ends
	timeout -k 5 "$TIMEOUT" "${qemu[@]}" 2>&1 | tee "$LOG"
	rc=${PIPESTATUS[0]}
else
	timeout -k 5 "$TIMEOUT" "${qemu[@]}" </dev/null 2>&1 | tee "$LOG"
	rc=${PIPESTATUS[0]}
fi
set -e

status=0
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	log "boot: FAIL: QEMU timed out after ${TIMEOUT}s"
	status=1
elif [ "$rc" != 0 ]; then
	log "boot: FAIL: QEMU exited with status $rc"
	status=1
fi
# Kernel reports that must never appear: the one list of tools/debug-splats.sh
# (also used by make bench and make check-debug).
wopt=()
[ "$ALLOW_WARN" != 1 ] || wopt=(--allow-warn)
if ! "$REPO/tools/debug-splats.sh" ${wopt[@]+"${wopt[@]}"} "$LOG" >&2; then
	log "boot: FAIL: the kernel log has a kernel report (above)"
	status=1
fi
if [ "$INTERACTIVE" = 0 ] && ! grep -qaE -- "$DONE" "$LOG"; then
	log "boot: FAIL: '$DONE' missing from the log"
	status=1
fi
if grep -qaE 'SELFTEST: [^ ]+ FAIL' "$LOG"; then
	log "boot: selftest failures: $(grep -caE 'SELFTEST: [^ ]+ FAIL' "$LOG")"
	[ "$STRICT" = 0 ] || status=1
fi
[ "$status" = 0 ] && log "boot: OK (log: $LOG)"
exit "$status"
