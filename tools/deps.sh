#!/bin/bash
# Idempotent installer for everything the PASR build needs (Debian 12).
# Does nothing (no apt-get update) when every package is already present.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	# kernel source and build tools
	linux-source-6.12 make bc bison flex libelf-dev libssl-dev cpio kmod patch
	xz-utils git python3 device-tree-compiler libc6-dev
	# LLVM 14 (kernel built with LLVM=1)
	clang lld llvm
	# Debian's Rust toolchain for the kernel, and bindgen
	rustc-web rust-web-src rustfmt-web rust-web-clippy cargo-web bindgen
	# boot/test
	qemu-system-arm gnuplot-nox
	# make lint: checkpatch's spdxcheck.py (ply, git), make htmldocs (sphinx)
	python3-ply python3-git python3-sphinx
)

is_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
for p in "${PKGS[@]}"; do
	is_installed "$p" || missing+=("$p")
done

# An index that fails to download (a mirror in sync, a broken extra
# source) is not fatal: it is retried once, then what can be installed is;
# the set-up fails only on a package it needs and cannot get, by name.
apt_updated=0
apt_update() {
	if [ "$apt_updated" = 0 ]; then
		log "deps: apt-get update"
		if ! apt-get update -qq; then
			log "deps: warning: apt-get update failed; retrying once"
			sleep 5
			apt-get update -qq ||
				log "deps: warning: apt-get update failed again; going on with the indexes there are"
		fi
		apt_updated=1
	fi
}

if [ "${#missing[@]}" -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "deps: missing packages (${missing[*]}); run 'make deps' as root"
	log "deps: installing ${missing[*]}"
	apt_update
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; then
		# one at a time, to name the packages that cannot be had
		for p in "${missing[@]}"; do
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p" ||
				log "deps: could not install $p"
		done
	fi
	for p in "${missing[@]}"; do
		is_installed "$p" || die "deps: package $p could not be installed (see apt-get output above)"
	done
fi

# busybox-static for the initramfs (arm64, or armhf with PASR_ARCH=arm),
# cached under build/deps.
mkdir -p "$DEPS_DIR"
BB="$DEPS_DIR/busybox-$BB_ARCH/bin/busybox"
if [ ! -x "$BB" ]; then
	deb="$(ls "$DEPS_DIR"/busybox-static_*_"$BB_ARCH".deb 2>/dev/null | head -n1 || true)"
	if [ -z "$deb" ]; then
		if ! dpkg --print-foreign-architectures | grep -qx "$BB_ARCH"; then
			[ "$(id -u)" = 0 ] || die "deps: need root to add the $BB_ARCH architecture"
			log "deps: dpkg --add-architecture $BB_ARCH"
			dpkg --add-architecture "$BB_ARCH"
			apt_updated=0
		fi
		( cd "$DEPS_DIR" && apt-get download "busybox-static:$BB_ARCH" >/dev/null 2>&1 ) || {
			apt_update
			( cd "$DEPS_DIR" && apt-get download "busybox-static:$BB_ARCH" ) ||
				die "deps: could not download busybox-static:$BB_ARCH"
		}
		deb="$(ls "$DEPS_DIR"/busybox-static_*_"$BB_ARCH".deb | head -n1)"
	fi
	rm -rf "$DEPS_DIR/busybox-$BB_ARCH"
	dpkg-deb -x "$deb" "$DEPS_DIR/busybox-$BB_ARCH"
	[ -x "$BB" ] || die "deps: $deb does not contain bin/busybox"
	log "deps: busybox-static $BB_ARCH unpacked from $(basename "$deb")"
fi

# Sanity checks on the toolchain the kernel build relies on.
for t in /usr/bin/rustc /usr/bin/rustdoc /usr/bin/bindgen "$LLVM_BIN/clang" "$LLVM_BIN/ld.lld" \
	"/usr/bin/$QEMU_SYS" "$TARBALL"; do
	[ -e "$t" ] || die "deps: $t is missing after installation"
done
[ -d /usr/lib/rustlib/src/rust/library ] || [ -d /usr/lib/rustlib/src/rust/src ] ||
	log "deps: warning: Rust library sources (rust-web-src) not found under /usr/lib/rustlib/src"
exit 0
