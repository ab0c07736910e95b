/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little the freestanding test programs of selftests/bin/ need instead
 * of a C library: raw arm64 system calls, printing, and the entry point.
 * A program defines run(argc, argv), whose return value is its exit status.
 */
#ifndef PASR_NOLIBC_H
#define PASR_NOLIBC_H

#define SYS_write	64
#define SYS_exit_group	94

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

static __attribute__((unused)) unsigned long atou(const char *s)
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

static int run(int argc, char **argv);

/* The kernel enters here with sp pointing at argc, then argv[]. */
__attribute__((used)) static void start_c(long *sp)
{
	exit_(run((int)sp[0], (char **)(sp + 1)));
}

asm(".globl _start\n_start:\n\tmov x0, sp\n\tb start_c\n");

#endif /* PASR_NOLIBC_H */
