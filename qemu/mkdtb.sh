#!/bin/bash
# Build a device tree for QEMU's 'virt' machine (arm64, or 32-bit ARM with
# PASR_ARCH=arm) with a PASR DDR layout
# node ("linux,lpddr-pasr-sim", "linux,pasr-ddr-layout"), and print its path.
#
# usage: qemu/mkdtb.sh [--mem SIZE] [--smp N] [--layout default|none|FILE]
#
#   1. dump QEMU virt's own DTB for that memory size and CPU count
#      (qemu-system-aarch64 -machine virt,dumpdtb=...);
#   2. decompile it with dtc and add the pasr-ddr node;
#   3. compile it again with dtc.
#
# --layout default  two equal dies splitting the memory at 0x40000000, 8
#                   sections each (1G: 512M dies at 0x40000000 and 0x60000000)
# --layout none     no device tree: prints nothing (boot with QEMU's own)
# --layout FILE     FILE holds the DTS text of the node, e.g.
#                   'pasr-ddr { compatible = ...; die@40000000 { ... }; };'
#                   (a path relative to the repository also works)
#
# DTBs are cached in build/dtb/, keyed by memory size, CPU count, layout text,
# this script and the QEMU version.
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

MEM=1G
SMP=2
LAYOUT=default

while [ $# -gt 0 ]; do
	case "$1" in
	--mem) MEM="$2"; shift 2 ;;
	--smp) SMP="$2"; shift 2 ;;
	--layout) LAYOUT="$2"; shift 2 ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	*) die "mkdtb: unknown option $1" ;;
	esac
done

[ "$LAYOUT" != none ] || exit 0
command -v dtc >/dev/null || die "mkdtb: dtc not found (apt-get install device-tree-compiler)"
command -v "$QEMU_SYS" >/dev/null || die "mkdtb: $QEMU_SYS not found"

# Memory size in MiB (QEMU's -m syntax).
mem_mib() {
	local v="$1" n
	n="${v%[KkMmGgTt]}"
	case "$n" in '' | *[!0-9]*) die "mkdtb: cannot read memory size '$v'" ;; esac
	case "$v" in
	*[Gg]) echo $((n * 1024)) ;;
	*[Tt]) echo $((n * 1024 * 1024)) ;;
	*[Kk]) echo $((n / 1024)) ;;
	*) echo "$n" ;;
	esac
}

RAM_BASE=$((0x40000000)) # QEMU virt

default_layout() {
	local mib sz base1
	mib="$(mem_mib "$MEM")"
	[ "$mib" -ge 64 ] || die "mkdtb: $MEM is too small for two dies of 8 sections of 4 MiB"
	sz=$((mib * 1024 * 1024 / 2))
	base1=$((RAM_BASE + sz))
	cat <<EOF
	pasr-ddr {
		compatible = "linux,lpddr-pasr-sim", "linux,pasr-ddr-layout";
		#address-cells = <2>;
		#size-cells = <2>;

		die@$(printf '%x' "$RAM_BASE") {
			reg = <$(printf '0x%x 0x%x 0x%x 0x%x' $((RAM_BASE >> 32)) $((RAM_BASE & 0xffffffff)) $((sz >> 32)) $((sz & 0xffffffff)))>;
			linux,pasr-sections = <8>;
			linux,pasr-mode = "bank";
		};

		die@$(printf '%x' "$base1") {
			reg = <$(printf '0x%x 0x%x 0x%x 0x%x' $((base1 >> 32)) $((base1 & 0xffffffff)) $((sz >> 32)) $((sz & 0xffffffff)))>;
			linux,pasr-sections = <8>;
			linux,pasr-mode = "bank";
		};
	};
EOF
}

if [ "$LAYOUT" = default ]; then
	node="$(default_layout)"
	name=default
else
	f="$LAYOUT"
	[ -f "$f" ] || [ ! -f "$REPO/$f" ] || f="$REPO/$f"
	[ -f "$f" ] || die "mkdtb: layout file $LAYOUT not found"
	node="$(cat "$f")"
	name="$(basename "$f")"
	name="${name%.*}"
fi

qver="$("$QEMU_SYS" --version | head -n1)"
key="$(printf '%s\n' "$PASR_ARCH" "$MEM" "$SMP" "$node" "$qver" | cat - "$0" | sha256sum | cut -c1-12)"
OUT_DIR="$BUILD/dtb"
out="$OUT_DIR/virt-$PASR_ARCH-$MEM-smp$SMP-$name-$key.dtb"
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$OUT_DIR"
tmp="$(mktemp -d "$OUT_DIR/.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# The same machine options as qemu/boot.sh: they decide what the DTB holds.
if ! "$QEMU_SYS" -machine "$QEMU_MACHINE,dumpdtb=$tmp/virt.dtb" -cpu "$QEMU_CPU" \
	-m "$MEM" -smp "$SMP" -nographic -net none >"$tmp/qemu.log" 2>&1; then
	cat "$tmp/qemu.log" >&2
	die "mkdtb: QEMU could not dump the virt DTB"
fi
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
# dtc merges a second root node into the first. The seeds QEMU put in
# /chosen would be the same at every boot from the cached DTB: drop them.
printf '\n/ {\n%s\n};\n\n&{/chosen} {\n\t/delete-property/ rng-seed;\n\t/delete-property/ kaslr-seed;\n};\n' \
	"$node" >>"$tmp/virt.dts"
if ! dtc -q -I dts -O dtb -o "$tmp/out.dtb" "$tmp/virt.dts" 2>"$tmp/dtc.log"; then
	cat "$tmp/dtc.log" >&2
	die "mkdtb: dtc rejected the layout node ($LAYOUT)"
fi
mv "$tmp/out.dtb" "$out"
cp "$tmp/virt.dts" "${out%.dtb}.dts"
log "mkdtb: $out (mem $MEM, smp $SMP, layout $LAYOUT)"
echo "$out"
