// SPDX-License-Identifier: GPL-2.0
/*
 * pasr-kexec crash|exec KERNEL CMDLINE: loads KERNEL (an arm64 Image) with
 * kexec_file_load(), without an initramfs, to boot with CMDLINE:
 *   crash  as the crash kernel, booted on the next panic (needs memory
 *          reserved with crashkernel=); prints "pasr-kexec: crash kernel
 *          loaded (N bytes)" and exits 0;
 *   exec   at once: reboot(LINUX_REBOOT_CMD_KEXEC), which runs the reboot
 *          notifiers and shuts the devices down first; it only returns on
 *          an error.
 * Needs CONFIG_KEXEC_FILE. On an error it prints it and exits 1.
 *
 * Freestanding (raw system calls, no libc), like the other programs here,
 * so that the initramfs needs neither kexec-tools nor a C library.
 */

#include "nolibc.h"


#define AT_FDCWD		-100
#define SEEK_END		2
#define KEXEC_FILE_ON_CRASH	2
#define KEXEC_FILE_NO_INITRAMFS	4
#define REBOOT_MAGIC1		0xfee1deadL
#define REBOOT_MAGIC2		672274793L
#define REBOOT_CMD_KEXEC	0x45584543L

static int fail(const char *what, long err)
{
	puts_("pasr-kexec: ");
	puts_(what);
	puts_(" failed: errno ");
	putu(-err, 10);
	puts_("\n");
	return 1;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static int run(int argc, char **argv)
{
	long fd, size, ret, crash;

	if (argc != 4 || (!same(argv[1], "crash") && !same(argv[1], "exec"))) {
		puts_("usage: pasr-kexec crash|exec KERNEL CMDLINE\n");
		return 2;
	}
	crash = same(argv[1], "crash");
	fd = sys6(SYS_openat, AT_FDCWD, (long)argv[2], 0, 0, 0, 0);
	if (fd < 0)
		return fail("open", fd);
	size = sys6(SYS_lseek, fd, 0, SEEK_END, 0, 0, 0);
	ret = sys6(SYS_kexec_file_load, fd, -1, len(argv[3]) + 1, (long)argv[3],
		   (crash ? KEXEC_FILE_ON_CRASH : 0) | KEXEC_FILE_NO_INITRAMFS, 0);
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (ret < 0)
		return fail("kexec_file_load", ret);
	puts_(crash ? "pasr-kexec: crash kernel loaded (" : "pasr-kexec: kernel loaded (");
	putu(size, 10);
	puts_(" bytes)\n");
	if (crash)
		return 0;
	ret = sys6(SYS_reboot, REBOOT_MAGIC1, REBOOT_MAGIC2, REBOOT_CMD_KEXEC, 0, 0, 0);
	return fail("reboot(LINUX_REBOOT_CMD_KEXEC)", ret);
}
