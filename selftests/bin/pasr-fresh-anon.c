// SPDX-License-Identifier: GPL-2.0
/*
 * pasr-fresh-anon MIB [ROUNDS]: maps MIB MiB of fresh anonymous memory
 * ROUNDS times (default 3), writes one word of every page so that the
 * kernel allocates a page of its own (a read fault would map the shared
 * zero page), then reads the whole page back. Fresh anonymous memory must
 * read zero: a page that does not was handed out as "zeroed" without being
 * zeroed, e.g. by init_on_free after PASR left it unrefreshed.
 *
 * pasr-fresh-anon -f FILE...: reads files written with zeros, page by page,
 * instead (the data a test lets the simulated controller destroy).
 *
 * Prints "pasr-fresh-anon: round R: N pages, M not zero[ (W words not zero;
 * first at ...)]" per round, or "pasr-fresh-anon: files: ..." (W close to
 * M x 511 when whole pages were lost, M x 512 when no word was written
 * since), and exits 1 if any page was not zero, 2 on an error.
 *
 * Freestanding (raw system calls, no libc) so that the initramfs needs no
 * target C library: built by qemu/mkinitramfs.sh with clang.
 */

#include "nolibc.h"


#define AT_FDCWD	-100
#define PROT_READ	1
#define PROT_WRITE	2
#define MAP_PRIVATE	2
#define MAP_ANONYMOUS	0x20
#define PAGE		4096UL

/* What one pass found: pages, pages not zero, words not zero, the first. */
struct scan {
	unsigned long pages, bad, words, first_off, first_val;
};

/* Counts the non-zero words of the page at @w, at offset @off of the pass. */
static void scan_page(struct scan *sc, volatile unsigned long *w,
		      unsigned long off)
{
	unsigned long i, n = 0;

	for (i = 0; i < PAGE / sizeof(*w); i++) {
		if (w[i] && !sc->bad && !n) {
			sc->first_off = off + i * sizeof(*w);
			sc->first_val = w[i];
		}
		n += !!w[i];
	}
	sc->pages++;
	sc->bad += !!n;
	sc->words += n;
}

static void report(const char *what, const struct scan *sc)
{
	puts_("pasr-fresh-anon: ");
	puts_(what);
	puts_(": ");
	putu(sc->pages, 10);
	puts_(" pages, ");
	putu(sc->bad, 10);
	puts_(" not zero");
	if (sc->bad) {
		puts_(" (");
		putu(sc->words, 10);
		puts_(" words not zero; first at offset 0x");
		putu(sc->first_off, 16);
		puts_(": 0x");
		putu(sc->first_val, 16);
		puts_(")");
	}
	puts_("\n");
}

static int files(int n, char **paths)
{
	static unsigned long buf[PAGE / sizeof(unsigned long)];
	struct scan sc = { };
	unsigned long off = 0;
	long fd, got;
	int i;

	for (i = 0; i < n; i++) {
		fd = sys6(SYS_openat, AT_FDCWD, (long)paths[i], 0, 0, 0, 0);
		if (fd < 0) {
			puts_("pasr-fresh-anon: cannot open a file\n");
			return 2;
		}
		/* a short read only ends a file: the rest of buf is zero */
		while ((got = sys6(SYS_read, fd, (long)buf, PAGE, 0, 0, 0)) > 0) {
			for (; got < (long)PAGE; got++)
				((char *)buf)[got] = 0;
			scan_page(&sc, buf, off);
			off += PAGE;
		}
		sys6(SYS_close, fd, 0, 0, 0, 0, 0);
		if (got < 0) {
			puts_("pasr-fresh-anon: read failed\n");
			return 2;
		}
	}
	report("files", &sc);
	return sc.bad ? 1 : 0;
}

static int run(int argc, char **argv)
{
	unsigned long mib, rounds, bytes, r, p, bad_total = 0;

	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'f' && !argv[1][2])
		return files(argc - 2, argv + 2);
	mib = argc > 1 ? atou(argv[1]) : 0;
	rounds = argc > 2 ? atou(argv[2]) : 3;
	bytes = mib << 20;
	if (!mib || !rounds) {
		puts_("usage: pasr-fresh-anon MIB [ROUNDS] | -f FILE...\n");
		return 2;
	}
	for (r = 1; r <= rounds; r++) {
		long a = sys6(SYS_mmap, 0, bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct scan sc = { };
		char what[32] = "round ";
		unsigned long i = 6, v = r, d = 1;

		if (a < 0 && a > -4096) {
			puts_("pasr-fresh-anon: mmap failed\n");
			return 2;
		}
		for (p = 0; p < bytes; p += PAGE) {
			volatile unsigned long *w = (volatile unsigned long *)(a + p);

			w[0] = 0;	/* a write fault: a page of its own */
			scan_page(&sc, w, p);
		}
		sys6(SYS_munmap, a, bytes, 0, 0, 0, 0);
		while (d * 10 <= v)
			d *= 10;
		for (; d; d /= 10)
			what[i++] = '0' + v / d % 10;
		what[i] = 0;
		report(what, &sc);
		bad_total += sc.bad;
	}
	return bad_total ? 1 : 0;
}
