// SPDX-License-Identifier: GPL-2.0
/*
 * pasr-kexec KERNEL CMDLINE: loads KERNEL (an arm64 Image) as the crash
 * kernel with kexec_file_load(), without an initramfs, to boot with
 * CMDLINE on the next panic. Needs CONFIG_KEXEC_FILE and memory reserved
 * with crashkernel=. Prints "pasr-kexec: crash kernel loaded (N bytes)" and
 * exits 0, or prints the error and exits 1.
 *
 * Freestanding (raw system calls, no libc), like the other programs here,
 * so that the initramfs needs neither kexec-tools nor a C library.
 */

#include "nolibc.h"

#define SYS_openat		56
#define SYS_close		57
#define SYS_lseek		62
#define SYS_kexec_file_load	294

#define AT_FDCWD		-100
#define SEEK_END		2
#define KEXEC_FILE_ON_CRASH	2
#define KEXEC_FILE_NO_INITRAMFS	4

static int fail(const char *what, long err)
{
	puts_("pasr-kexec: ");
	puts_(what);
	puts_(" failed: errno ");
	putu(-err, 10);
	puts_("\n");
	return 1;
}

static int run(int argc, char **argv)
{
	long fd, size, ret;

	if (argc != 3) {
		puts_("usage: pasr-kexec KERNEL CMDLINE\n");
		return 2;
	}
	fd = sys6(SYS_openat, AT_FDCWD, (long)argv[1], 0, 0, 0, 0);
	if (fd < 0)
		return fail("open", fd);
	size = sys6(SYS_lseek, fd, 0, SEEK_END, 0, 0, 0);
	ret = sys6(SYS_kexec_file_load, fd, -1, len(argv[2]) + 1, (long)argv[2],
		   KEXEC_FILE_ON_CRASH | KEXEC_FILE_NO_INITRAMFS, 0);
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (ret < 0)
		return fail("kexec_file_load", ret);
	puts_("pasr-kexec: crash kernel loaded (");
	putu(size, 10);
	puts_(" bytes)\n");
	return 0;
}
