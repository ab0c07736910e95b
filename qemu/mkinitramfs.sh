#!/bin/bash
# Build build/initramfs/initramfs.cpio.gz (initramfs-arm.cpio.gz with
# PASR_ARCH=arm): busybox-static (arm64, or armhf) as /bin/busybox,
# qemu/init as /init, every selftests/*.sh as /selftests/*.sh, and every
# selftests/bin/*.c (freestanding test programs, no libc) built with clang
# as /bin/<name>.
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

lock "initramfs-$PASR_ARCH"

BB="$DEPS_DIR/busybox-$BB_ARCH/bin/busybox"
[ -x "$BB" ] || die "initramfs: $BB missing (run 'make deps')"
OUT="$INITRAMFS"
root="$INITRAMFS_DIR/root-$PASR_ARCH"

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,selftests}
cp "$BB" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$REPO/qemu/init" "$root/init"
chmod 755 "$root/init"
mkdir -p "$root/selftests/lib"
cp "$REPO"/selftests/lib/*.sh "$root/selftests/lib/"
for t in "$REPO"/selftests/*.sh; do
	[ -f "$t" ] || continue
	cp "$t" "$root/selftests/"
	chmod 755 "$root/selftests/$(basename "$t")"
done
for c in "$REPO"/selftests/bin/*.c; do
	[ -f "$c" ] || continue
	clang "${CLANG_TARGET[@]}" -O2 -Wall -Werror -nostdlib -static -ffreestanding \
		-fno-builtin -fno-stack-protector -fuse-ld=lld \
		-o "$root/bin/$(basename "$c" .c)" "$c" || die "initramfs: cannot build $c"
done
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"

# (the kernel's built-in initramfs already provides /dev/console)
( cd "$root" && { find . -print; } | LC_ALL=C sort | cpio --quiet -o -H newc --owner=0:0 ) >"$OUT.tmp.cpio"
gzip -9n <"$OUT.tmp.cpio" >"$OUT.tmp"
rm -f "$OUT.tmp.cpio"
mv "$OUT.tmp" "$OUT"
log "initramfs: $OUT ($(stat -c %s "$OUT") bytes, $(ls "$root/selftests" | wc -l) selftest(s))"
