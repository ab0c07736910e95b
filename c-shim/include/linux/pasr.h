/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DRAM Partial Array Self-Refresh (PASR): the interface of DDR controller
 * drivers, and of allocators other than the buddy allocator. What the calls
 * return and what a callback may do: Documentation/mm/pasr.rst.
 */
#ifndef _LINUX_PASR_H
#define _LINUX_PASR_H

#include <linux/errno.h>
#include <linux/types.h>

/*
 * Hands a die's controller its register value (0: all refreshed). Called
 * with a raw spinlock held and interrupts off, from the page allocator and
 * from panic(): it latches the value, and must not sleep, allocate, print,
 * take a lock but a raw spinlock of its own, or call into PASR.
 */
typedef void (*pasr_mask_fn)(u64 value, void *cookie);

/* How a controller reads the values. */
enum pasr_mode {
	PASR_MODE_BANK,		/* bit i: bank i unrefreshed (LPDDR MR16) */
	PASR_MODE_SEGMENT,	/* bit i: segment i unrefreshed (LPDDR MR17) */
	PASR_MODE_SINGLE,	/* single-ended */
	PASR_MODE_DOUBLE,	/* double-ended */
};

#define PASR_DIE_LATCHED	0x1	/* values take effect after the callback */
#define PASR_DIE_RUNTIME	0x2	/* masks apply while running (LPDDR5 PARC) */

/* A die as its controller driver reads it. */
struct pasr_die_desc {
	u64 base;		/* physical address of its first byte */
	u64 size;		/* bytes */
	u32 sections;		/* banks or segments, 1..64 */
	enum pasr_mode mode;
	u32 flags;		/* PASR_DIE_* */
};

#ifdef CONFIG_PASR
/* [@paddr, +@size) of an allocator other than the buddy: free, used. */
void pasr_put(phys_addr_t paddr, unsigned long size);
void pasr_get(phys_addr_t paddr, unsigned long size);
/* One callback per die; the die stays fully refreshed without one. */
int pasr_register_die(const struct pasr_die_desc *desc, pasr_mask_fn fn,
		      void *cookie);
int pasr_register_mask_function(phys_addr_t die_base, pasr_mask_fn fn,
				void *cookie);
int pasr_unregister_mask_function(phys_addr_t die_base);
/* The dies of PASR's layout, 0..pasr_die_count() - 1, as PASR reads them. */
int pasr_die_count(void);
bool pasr_die_range(int die, u64 *base, u64 *size);
bool pasr_die_describe(int die, struct pasr_die_desc *desc);
/* kexec: full refresh before the crash kernel boots. */
void pasr_crash_shutdown(void);
#else
static inline void pasr_put(phys_addr_t paddr, unsigned long size) { }
static inline void pasr_get(phys_addr_t paddr, unsigned long size) { }
static inline int pasr_register_die(const struct pasr_die_desc *desc,
				    pasr_mask_fn fn, void *cookie)
{ return -ENODEV; }
static inline int pasr_register_mask_function(phys_addr_t die_base,
					      pasr_mask_fn fn, void *cookie)
{ return -ENODEV; }
static inline int pasr_unregister_mask_function(phys_addr_t die_base)
{ return -ENODEV; }
static inline int pasr_die_count(void) { return 0; }
static inline bool pasr_die_range(int die, u64 *base, u64 *size)
{ return false; }
static inline bool pasr_die_describe(int die, struct pasr_die_desc *desc)
{ return false; }
static inline void pasr_crash_shutdown(void) { }
#endif /* CONFIG_PASR */

#endif /* _LINUX_PASR_H */
