# PASR for Linux 6.12 in Rust: build, boot and test pipeline.
# Everything generated goes under build/ (git-ignored). See README.md.
# The logic lives in tools/*.sh and qemu/*.sh.

QEMU_MEM ?= 1G
QEMU_SMP ?= 2
# The DDR layout comes from the device tree (qemu/mkdtb.sh --layout DT_LAYOUT:
# default, none or a layout file); ddr_die= in CMDLINE overrides it.
CMDLINE  ?=
DT_LAYOUT ?= default
KUNIT_ARGS ?= ddr_die=512M@0x40000000 ddr_die=512M@0x60000000
export KUNIT_ARGS

INITRAMFS := build/initramfs/initramfs.cpio.gz
BUSYBOX   := build/deps/busybox-arm64/bin/busybox

.PHONY: all deps tree kernel initramfs host-test kunit scenarios run shell check clean distclean \
	lint series bench check-debug

all: kernel initramfs

deps:
	@tools/deps.sh

tree: deps
	@tools/tree.sh

kernel: tree
	@tools/kernel.sh

# rebuilt only when one of its inputs changed (selftests/ itself: a test added or removed)
$(INITRAMFS): qemu/mkinitramfs.sh qemu/init selftests $(wildcard selftests/*.sh selftests/lib/*.sh) $(BUSYBOX)
	@qemu/mkinitramfs.sh

$(BUSYBOX):
	@tools/deps.sh

initramfs: $(INITRAMFS)

host-test:
	@tools/host-test.sh

kunit: tree
	@tools/kunit.sh

scenarios: kernel initramfs
	@qemu/run-scenarios.sh

run: kernel initramfs
	@dtb="$$(qemu/mkdtb.sh --mem '$(QEMU_MEM)' --smp '$(QEMU_SMP)' --layout '$(DT_LAYOUT)')" && \
	qemu/boot.sh --strict --mem '$(QEMU_MEM)' --smp '$(QEMU_SMP)' --cmdline '$(CMDLINE)' \
		--dtb "$$dtb" --timeout 300 --log build/logs/run.log

shell: kernel initramfs
	@dtb="$$(qemu/mkdtb.sh --mem '$(QEMU_MEM)' --smp '$(QEMU_SMP)' --layout '$(DT_LAYOUT)')" && \
	qemu/boot.sh --interactive --mem '$(QEMU_MEM)' --smp '$(QEMU_SMP)' --cmdline '$(CMDLINE)' \
		--dtb "$$dtb" --timeout 14400 --log build/logs/shell.log

check:
	@tools/check.sh

# debug kernel (KASAN, UBSAN, lockdep, ...: tools/debug.fragment) in build/out/debug,
# booted in the scenarios tagged DEBUG=1; any report fails (see tools/check-debug.sh)
check-debug:
	@tools/check-debug.sh

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
