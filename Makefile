# PASR for Linux 6.12 in Rust: build, boot and test pipeline.
# Everything generated goes under build/ (git-ignored). See README.md.
# The logic lives in tools/*.sh and qemu/*.sh.

# make run boots what the 'default' scenario of make check boots
# (qemu/scenarios/default.conf: 1G, 2 CPUs, the default DT layout, no extra
# command line); QEMU_MEM, QEMU_SMP, CMDLINE and DT_LAYOUT (default, none or a
# layout file for qemu/mkdtb.sh) override it. ddr_die= in CMDLINE overrides
# the DT layout.
QEMU_MEM ?=
QEMU_SMP ?=
CMDLINE  ?=
DT_LAYOUT ?=
RUN_VARS = QEMU_MEM='$(QEMU_MEM)' QEMU_SMP='$(QEMU_SMP)' CMDLINE='$(CMDLINE)' DT_LAYOUT='$(DT_LAYOUT)'
KUNIT_ARGS ?= ddr_die=512M@0x40000000 ddr_die=512M@0x60000000
export KUNIT_ARGS

INITRAMFS := build/initramfs/initramfs.cpio.gz
BUSYBOX   := build/deps/busybox-arm64/bin/busybox
INITRAMFS_ARM := build/initramfs/initramfs-arm.cpio.gz
BUSYBOX_ARM   := build/deps/busybox-armhf/bin/busybox

.PHONY: all deps tree kernel initramfs host-test kunit scenarios run shell check clean distclean \
	lint series bench check-debug check-arm initramfs-arm

all: kernel initramfs

deps:
	@tools/deps.sh

tree: deps
	@tools/tree.sh

kernel: tree
	@tools/kernel.sh

# rebuilt only when one of its inputs changed (selftests/ itself: a test added or removed)
$(INITRAMFS): qemu/mkinitramfs.sh qemu/init selftests $(wildcard selftests/*.sh selftests/lib/*.sh selftests/bin/*.[ch]) $(BUSYBOX)
	@qemu/mkinitramfs.sh

$(BUSYBOX):
	@tools/deps.sh

initramfs: $(INITRAMFS)

# the same for 32-bit ARM (make check-arm), with armhf busybox
$(INITRAMFS_ARM): qemu/mkinitramfs.sh tools/lib.sh qemu/init selftests $(wildcard selftests/*.sh selftests/lib/*.sh selftests/bin/*.[ch]) $(BUSYBOX_ARM)
	@PASR_ARCH=arm qemu/mkinitramfs.sh

$(BUSYBOX_ARM):
	@PASR_ARCH=arm tools/deps.sh

initramfs-arm: $(INITRAMFS_ARM)

host-test:
	@tools/host-test.sh

kunit: tree
	@tools/kunit.sh

scenarios: kernel initramfs
	@qemu/run-scenarios.sh

run: kernel initramfs
	@$(RUN_VARS) qemu/run.sh

shell: kernel initramfs
	@$(RUN_VARS) qemu/run.sh --shell

check:
	@tools/check.sh

# debug kernel (KASAN, UBSAN, lockdep, ...: tools/debug.fragment) in build/out/debug,
# booted in the scenarios tagged DEBUG=1; any report fails (see tools/check-debug.sh)
check-debug:
	@tools/check-debug.sh

# 32-bit ARM (ARMv7, LPAE, HIGHMEM) kernel in build/out/arm, booted in
# qemu-system-arm in the scenarios tagged ARM=only (see tools/check-arm.sh)
check-arm:
	@tools/check-arm.sh

# checkpatch, rustfmt, clippy, rustdoc, htmldocs; clippy and rustdoc reuse the last
# 'make kernel' build (no kernel build here: it would race with other runs)
lint: tree
	@tools/lint.sh

# the submission series, with a cover letter, in build/series/
series: tree
	@tools/series.sh

# non-debug kernels, PASR benchmarks in QEMU: report, CSV and PNG in build/bench/
# (not part of 'make check'; see docs/benchmarks.md)
bench: tree
	@tools/bench.sh

clean:
	rm -rf build/out build/results

distclean:
	rm -rf build
