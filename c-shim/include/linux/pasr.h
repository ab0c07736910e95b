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

#include <linux/types.h>
#include <linux/jump_label.h>
#include <linux/mmzone.h>
#include <linux/pfn.h>

struct page;

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

/*
 * Two backends feed the counters (pasr.backend=, see
 * Documentation/mm/pasr.rst): "hooks", where the buddy allocator tells PASR
 * of every max-order block entering or leaving a free list
 * (pasr_enabled_key), and "reporting", where PASR is the free page
 * reporting device and counts the max-order blocks it was reported
 * (pasr_reporting_key).
 */
DECLARE_STATIC_KEY_FALSE(pasr_enabled_key);
DECLARE_STATIC_KEY_FALSE(pasr_reporting_key);

/* Whether PASR accounts, through either backend (no longer once it failed). */
static inline bool pasr_is_on(void)
{
	return static_key_enabled(&pasr_enabled_key) ||
	       static_key_enabled(&pasr_reporting_key);
}

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
void pasr_crash_shutdown(void);
int pasr_die_count(void);
bool pasr_die_range(int die, u64 *base, u64 *size);

/*
 * Hooks backend: mm/page_alloc.c calls pasr_kput() from __free_one_page()
 * once a block is on a free list, and pasr_kget() where a block leaves one
 * (del_page_from_free_list(), page_del_and_expand()), under zone->lock. Only
 * max-order blocks count, and blocks merge, split and change lists without
 * a call. A hook is a patched-out branch unless this backend runs; the work
 * is out of line and cold: __pasr_kput() (mm/page_alloc.c) counts the block
 * free and applies PASR's placement rule (see pasr_place()), __pasr_kget()
 * counts it used and lowers the masks that relied on it.
 *
 * The out-of-line entry points, __pasr_unreport() below included, are
 * __preserve_most: the caller keeps its registers across the call, so the
 * rare call does not change how the allocator's fast paths, which inline
 * the free-list helpers, use registers. It needs clang 17 or later and is
 * a no-op otherwise; then the mere presence of the call costs a few
 * instructions per allocation even with PASR off (docs/benchmarks.md).
 * Hidden from bindgen, which cannot represent that calling convention
 * (Rust never calls these).
 */
#ifdef __BINDGEN__
#define __pasr_slowpath
#else
#define __pasr_slowpath __preserve_most
#endif

void __cold __pasr_slowpath __pasr_kput(struct page *page, struct zone *zone,
					int migratetype);
void __cold __pasr_slowpath __pasr_kget(struct page *page);
bool pasr_put_block(phys_addr_t paddr, unsigned long size, u64 *start,
		    u64 *size_out);

#ifdef CONFIG_PASR_KUNIT_TEST
/* Lets the KUnit suite show that its steering case fails without the rule. */
extern bool pasr_steering_off;
void pasr_set_steering_off(bool off);

static inline bool pasr_steering_disabled(void)
{
	return READ_ONCE(pasr_steering_off);
}
#else
static inline bool pasr_steering_disabled(void)
{
	return false;
}
#endif

#ifdef CONFIG_PASR_HOOKS
static __always_inline void pasr_kput(struct page *page, struct zone *zone,
				      unsigned int order, int migratetype)
{
	if (static_branch_unlikely(&pasr_enabled_key) &&
	    order == MAX_PAGE_ORDER)
		__pasr_kput(page, zone, migratetype);
}

static __always_inline void pasr_kget(struct page *page, unsigned int order)
{
	if (static_branch_unlikely(&pasr_enabled_key) &&
	    order == MAX_PAGE_ORDER)
		__pasr_kget(page);
}
#else
static inline void pasr_kput(struct page *page, struct zone *zone,
			     unsigned int order, int migratetype)
{
}

static inline void pasr_kget(struct page *page, unsigned int order)
{
}
#endif /* CONFIG_PASR_HOOKS */

/*
 * Reporting backend: a block PASR was reported leaves the free lists.
 * Called by __del_page_from_free_list() in its page_reported() branch,
 * under zone->lock, before the block can be used: the core lowers the
 * masks that relied on it at once.
 */
void __cold __pasr_slowpath __pasr_unreport(struct page *page);

static __always_inline void pasr_unreport(struct page *page,
					  unsigned int order)
{
	if (static_branch_unlikely(&pasr_reporting_key) &&
	    order == MAX_PAGE_ORDER)
		__pasr_unreport(page);
}

/* Implemented in Rust (mm/pasr/pasr.rs) for the C files of mm/pasr/ only. */
int pasr_rs_init(char *const *dies, size_t ndies, char *const *ilvs,
		 size_t nilvs, u64 min_section);
void pasr_rs_late_init(void);
void pasr_rs_shutdown(bool panic);
void pasr_rs_resync(void);
void pasr_rs_set_accounting(bool on);
void pasr_rs_debug_log(void);
void pasr_rs_defer_raise_on(void);
void pasr_rs_raise_pending(void);

/* Raw properties of one die@ node of a "linux,pasr-ddr-layout" node. */
struct pasr_dt_die {
	const char *name;
	const void *reg;
	int reg_len;
	const void *sections;
	int sections_len;
	const void *mode;
	int mode_len;
	const void *interleave;
	int interleave_len;
};

int pasr_rs_init_dt(const struct pasr_dt_die *dies, size_t n, u32 addr_cells,
		    u32 size_cells, u64 min_section);

/* Snapshots from the Rust core, for sysfs and debugfs (mirrored in pasr.rs). */
struct pasr_section_info {
	u64 start, size, free, puts, gets, transitions, masked_ns;
	s32 die, bit, pair;	/* pair: -1 if none */
	bool masked;
};

struct pasr_die_info {
	u64 base, size, mask, value;
	s32 first_section, sections, mode;
	bool has_callback;
};

struct pasr_stats {
	u64 covered, free, masked, puts, gets;
	u64 out_of_map_calls, out_of_map_bytes, mask_updates;
	s32 state, dies, sections, failed_section, failed_kind;
};

struct pasr_mismatch {
	s32 section;
	u64 counted, actual;
	bool masked, expected_masked;
};

bool pasr_rs_section_info(int section, struct pasr_section_info *out);
bool pasr_rs_die_info(int die, struct pasr_die_info *out);
void pasr_rs_stats(struct pasr_stats *out);
int pasr_rs_lookup(u64 paddr);
int pasr_rs_verify(const u64 *actual, int n, struct pasr_mismatch *out,
		   int max_out);
void pasr_rs_set_skip_gets(u64 n);
void pasr_rs_set_faults(u32 faults);
u32 pasr_rs_faults(void);

/*
 * Test-only faults of the C side (CONFIG_PASR_FAULT_INJECTION), bits of the
 * same mask as the core's (1..16, see rust/mm/pasr/map.rs): each switches a
 * fix off, so that a test can show it fails without it.
 */
#define PASR_FAULT_VERIFY_NO_GOV	32	/* verifier ignores the governor's pages */
#define PASR_FAULT_OFFLINE_BLOCKS	64	/* offline = whole memory blocks */
#define PASR_FAULT_REPORT_NOW		128	/* print at once, maybe under zone->lock */
#define PASR_FAULT_GOV_KEEP		256	/* governor keeps memory going offline */
#define PASR_FAULT_OFFLINE_64		512	/* at most 64 offline ranges, as once */
#define PASR_FAULT_NO_UNREPORT		1024	/* reported blocks leave uncounted */
#define PASR_FAULT_SEED_EARLY		2048	/* seed, then switch the hooks on */

static inline bool pasr_fault(u32 fault)
{
#ifdef CONFIG_PASR_FAULT_INJECTION
	return pasr_rs_faults() & fault;
#else
	return false;
#endif
}

u64 pasr_rs_bench_calls(int dies, int sections, u64 iterations);

/* Sections the governor holds: they hold no data and count as free. */
#ifdef CONFIG_PASR_GOVERNOR
bool pasr_gov_reserved(int section);
void pasr_gov_hold(void);
void pasr_gov_unhold(void);
#else
static inline bool pasr_gov_reserved(int section)
{
	return false;
}

static inline void pasr_gov_hold(void)
{
}

static inline void pasr_gov_unhold(void)
{
}
#endif

/* /sys/kernel/mm/pasr, for the governor (mm/pasr/governor.c). */
extern struct kobject *pasr_kobj;

/* Implemented in C (mm/pasr/runtime.c, kunit_live.c) for the Rust core only. */
void pasr_shim_trace_mask(unsigned int die, u64 old, u64 new);
void pasr_shim_trace_section(unsigned int section, bool free, bool masked);
unsigned long pasr_shim_lock(void);
void pasr_shim_unlock(unsigned long flags);
u64 pasr_shim_now_ns(void);
void pasr_shim_violation(unsigned int section, int kind, u64 free, u64 delta);
void pasr_shim_defer_report(void);
struct page *pasr_shim_alloc_block(u64 *paddr);
void pasr_shim_free_block(struct page *page);
struct page *pasr_shim_alloc_movable_block(u64 *paddr);
int pasr_shim_partly_free_blocks(void);
bool pasr_shim_reporting(void);
u64 pasr_shim_block_size(void);

/* Sections in all at most (the core checks it is its MAX_SECTIONS). */
#define PASR_MAX_SECTIONS	256

/* Per-CPU statistics of the core's put and get calls, per section. */
void pasr_shim_count_call(unsigned int section, bool put);
void pasr_shim_calls(unsigned int section, u64 *puts, u64 *gets);

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

static inline void pasr_crash_shutdown(void)
{
}

static inline void pasr_kput(struct page *page, struct zone *zone,
			     unsigned int order, int migratetype)
{
}

static inline void pasr_kget(struct page *page, unsigned int order)
{
}

static inline void pasr_unreport(struct page *page, unsigned int order)
{
}

#endif /* CONFIG_PASR */

#endif /* _LINUX_PASR_H */
