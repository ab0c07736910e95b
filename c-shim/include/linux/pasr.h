/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DRAM Partial Array Self-Refresh (PASR)
 *
 * The PASR core (mm/pasr/, in Rust) counts, for every bank or segment
 * ("section") of every DDR die, the bytes the buddy allocator holds free, and
 * hands each die's controller a refresh mask covering only sections that are
 * entirely free. See Documentation/mm/pasr.rst.
 */
#ifndef _LINUX_PASR_H
#define _LINUX_PASR_H

#include <linux/errno.h>
#include <linux/types.h>

/**
 * typedef pasr_mask_fn - DDR controller callback
 * @value: register value for the die's PASR mode: the section mask for bank-
 *         and segment-selective dies, see Documentation/mm/pasr.rst otherwise
 *         (0: every section refreshed)
 * @cookie: the cookie given at registration
 *
 * Called with the PASR raw spinlock held and interrupts off, often from the
 * buddy allocator under zone->lock, and from panic() with the other CPUs
 * stopped and without that lock. It must not sleep, allocate memory, print,
 * WARN, take any lock but a raw spinlock of its own that nothing else nests
 * in, or call back into PASR; it latches the value (a register write, or a
 * record for a worker of its own). The same value may be handed over more
 * than once. Value 0 comes on unregistration, reboot, power-off, kexec,
 * panic and crash kexec, and when PASR disables itself.
 */
typedef void (*pasr_mask_fn)(u64 value, void *cookie);

/* How a die's controller reads the values: its PASR mode. */
enum pasr_mode {
	PASR_MODE_BANK,		/* bit i: bank i unrefreshed (LPDDR MR16) */
	PASR_MODE_SEGMENT,	/* bit i: segment i unrefreshed (LPDDR MR17) */
	PASR_MODE_SINGLE,	/* single-ended, see Documentation/mm/pasr.rst */
	PASR_MODE_DOUBLE,	/* double-ended, likewise */
};

/* Values take effect later than the callback (a request sent by a worker). */
#define PASR_DIE_LATCHED	0x1
/*
 * Masks also apply while the system runs (LPDDR5 partial-array auto-refresh):
 * a masked section loses its contents at once, so every value must take
 * effect in the callback; refused with PASR_DIE_LATCHED.
 */
#define PASR_DIE_RUNTIME	0x2

/**
 * struct pasr_die_desc - a die as its controller driver knows it
 * @base: physical address of its first byte
 * @size: bytes
 * @sections: banks or segments, 1..64
 * @mode: how the driver reads the values
 * @flags: PASR_DIE_*
 */
struct pasr_die_desc {
	u64 base;
	u64 size;
	u32 sections;
	enum pasr_mode mode;
	u32 flags;
};

#ifdef CONFIG_PASR

/* Allocators other than the buddy allocator: [@paddr, +@size) free, used. */
void pasr_put(phys_addr_t paddr, unsigned long size);
void pasr_get(phys_addr_t paddr, unsigned long size);
/*
 * One callback per die: registering returns -EBUSY while the die has one,
 * -ENODEV if no die starts at @die_base, and hands the die's current value
 * to @fn at once. Unregistering hands it value 0 first (-ENOENT if none).
 */
int pasr_register_mask_function(phys_addr_t die_base, pasr_mask_fn fn,
				void *cookie);
/*
 * The same, for a driver that knows how it reads the values: -EINVAL (and a
 * pr_err naming the die and both descriptions) unless @desc matches the
 * layout PASR uses, so the die stays fully refreshed.
 */
int pasr_register_die(const struct pasr_die_desc *desc, pasr_mask_fn fn,
		      void *cookie);
int pasr_unregister_mask_function(phys_addr_t die_base);
/* The dies of PASR's layout, 0..pasr_die_count() - 1, as PASR reads them. */
int pasr_die_count(void);
bool pasr_die_range(int die, u64 *base, u64 *size);
bool pasr_die_describe(int die, struct pasr_die_desc *desc);
/* kexec: full refresh before the crash kernel boots. */
void pasr_crash_shutdown(void);

#else /* !CONFIG_PASR */

static inline void pasr_put(phys_addr_t paddr, unsigned long size)
{
}

static inline void pasr_get(phys_addr_t paddr, unsigned long size)
{
}

static inline int pasr_register_mask_function(phys_addr_t die_base,
					      pasr_mask_fn fn, void *cookie)
{
	return -ENODEV;
}

static inline int pasr_register_die(const struct pasr_die_desc *desc,
				    pasr_mask_fn fn, void *cookie)
{
	return -ENODEV;
}

static inline int pasr_unregister_mask_function(phys_addr_t die_base)
{
	return -ENODEV;
}

static inline int pasr_die_count(void)
{
	return 0;
}

static inline bool pasr_die_range(int die, u64 *base, u64 *size)
{
	return false;
}

static inline bool pasr_die_describe(int die, struct pasr_die_desc *desc)
{
	return false;
}

static inline void pasr_crash_shutdown(void)
{
}

#endif /* CONFIG_PASR */

#endif /* _LINUX_PASR_H */
