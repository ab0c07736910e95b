/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little the freestanding test programs of selftests/bin/ need instead
 * of a C library: raw system calls (arm64, or 32-bit ARM EABI), printing,
 * and the entry point. A program defines run(argc, argv), whose return
 * value is its exit status.
 */
#ifndef PASR_NOLIBC_H
#define PASR_NOLIBC_H

#if defined(__aarch64__)
#define SYS_read		63
#define SYS_write		64
#define SYS_openat		56
#define SYS_close		57
#define SYS_lseek		62
#define SYS_exit_group		94
#define SYS_reboot		142
#define SYS_munmap		215
#define SYS_mmap		222	/* offset in bytes */
#define SYS_kexec_file_load	294

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
#elif defined(__arm__)
#define SYS_read		3
#define SYS_write		4
#define SYS_close		6
#define SYS_lseek		19
#define SYS_reboot		88
#define SYS_munmap		91
#define SYS_mmap		192	/* mmap2: offset in pages; only 0 is used */
#define SYS_exit_group		248
#define SYS_openat		322
#define SYS_kexec_file_load	401

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r7 asm("r7") = n;
	register long r0 asm("r0") = a;
	register long r1 asm("r1") = b;
	register long r2 asm("r2") = c;
	register long r3 asm("r3") = d;
	register long r4 asm("r4") = e;
	register long r5 asm("r5") = f;

	asm volatile("svc 0" : "+r"(r0)
		     : "r"(r7), "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5)
		     : "memory");
	return r0;
}
#else
#error "selftests/bin: arm64 or 32-bit ARM only"
#endif

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

#if defined(__aarch64__)
asm(".globl _start\n_start:\n\tmov x0, sp\n\tb start_c\n");
#else
asm(".globl _start\n_start:\n\tmov r0, sp\n\tb start_c\n");
#endif

#endif /* PASR_NOLIBC_H */
