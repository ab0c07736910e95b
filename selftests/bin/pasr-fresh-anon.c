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

#define SYS_write	64
#define SYS_munmap	215
#define SYS_mmap	222
#define SYS_exit_group	94

#define PROT_READ	1
#define PROT_WRITE	2
#define MAP_PRIVATE	2
#define MAP_ANONYMOUS	0x20
#define PAGE		4096UL

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 asm("x8") = n;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;
	register long x3 asm("x3") = d;
	register long x4 asm("x4") = e;
	register long x5 asm("x5") = f;

	asm volatile("svc 0" : "+r"(x0)
		     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
		     : "memory");
	return x0;
}

static unsigned long len(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void puts_(const char *s)
{
	sys6(SYS_write, 1, (long)s, len(s), 0, 0, 0);
}

static void putu(unsigned long v, int base)
{
	char b[24];
	int i = sizeof(b) - 1;

	b[i] = 0;
	do {
		b[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	puts_(b + i);
}

static unsigned long atou(const char *s)
{
	unsigned long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

static __attribute__((noreturn)) void exit_(int code)
{
	sys6(SYS_exit_group, code, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

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

/* The kernel enters here with sp pointing at argc, then argv[]. */
__attribute__((used)) static void start_c(long *sp)
{
	exit_(run((int)sp[0], (char **)(sp + 1)));
}

asm(".globl _start\n_start:\n\tmov x0, sp\n\tb start_c\n");
