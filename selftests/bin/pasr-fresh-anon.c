// SPDX-License-Identifier: GPL-2.0
/*
 * pasr-fresh-anon MIB [ROUNDS]: maps MIB MiB of fresh anonymous memory
 * ROUNDS times (default 3), writes one word of every page so that the
 * kernel allocates a page of its own (a read fault would map the shared
 * zero page), then reads the whole page back. Fresh anonymous memory must
 * read zero: a page that does not was handed out as "zeroed" without being
 * zeroed, e.g. by init_on_free after PASR left it unrefreshed.
 *
 * Prints "pasr-fresh-anon: round R: N pages, M not zero[ (W words not zero;
 * first at ...)]" per round (W close to M x 511 when whole pages were lost)
 * and exits 1 if any page was not zero, 2 if mmap failed.
 *
 * Freestanding (raw system calls, no libc) so that the initramfs needs no
 * target C library: built by qemu/mkinitramfs.sh with clang.
 */

#include "nolibc.h"

#define SYS_munmap	215
#define SYS_mmap	222

#define PROT_READ	1
#define PROT_WRITE	2
#define MAP_PRIVATE	2
#define MAP_ANONYMOUS	0x20
#define PAGE		4096UL

static int run(int argc, char **argv)
{
	unsigned long mib = argc > 1 ? atou(argv[1]) : 0;
	unsigned long rounds = argc > 2 ? atou(argv[2]) : 3;
	unsigned long bytes = mib << 20, r, p, i, n, bad_total = 0;

	if (!mib || !rounds) {
		puts_("usage: pasr-fresh-anon MIB [ROUNDS]\n");
		return 2;
	}
	for (r = 1; r <= rounds; r++) {
		long a = sys6(SYS_mmap, 0, bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		volatile unsigned long *w;
		unsigned long bad = 0, words = 0, first_off = 0, first_val = 0;

		if (a < 0 && a > -4096) {
			puts_("pasr-fresh-anon: mmap failed\n");
			return 2;
		}
		for (p = 0; p < bytes; p += PAGE) {
			w = (volatile unsigned long *)(a + p);
			w[0] = 0;	/* a write fault: a page of its own */
			for (i = 0, n = 0; i < PAGE / sizeof(*w); i++) {
				if (w[i] && !bad && !n) {
					first_off = p + i * sizeof(*w);
					first_val = w[i];
				}
				n += !!w[i];
			}
			bad += !!n;
			words += n;
		}
		sys6(SYS_munmap, a, bytes, 0, 0, 0, 0);
		puts_("pasr-fresh-anon: round ");
		putu(r, 10);
		puts_(": ");
		putu(bytes / PAGE, 10);
		puts_(" pages, ");
		putu(bad, 10);
		puts_(" not zero");
		if (bad) {
			puts_(" (");
			putu(words, 10);
			puts_(" words not zero; first at offset 0x");
			putu(first_off, 16);
			puts_(": 0x");
			putu(first_val, 16);
			puts_(")");
		}
		puts_("\n");
		bad_total += bad;
	}
	return bad_total ? 1 : 0;
}
