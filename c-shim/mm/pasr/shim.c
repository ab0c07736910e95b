// SPDX-License-Identifier: GPL-2.0
/*
 * PASR: the C glue the Rust core (pasr.rs) cannot express in Rust on 6.12:
 * early parameters, the static key of the buddy hooks, and the irq-safe raw
 * spinlock that serialises mask updates.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/bug.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/pasr.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

DEFINE_STATIC_KEY_FALSE(pasr_enabled_key);

/* Taken only when a section enters or leaves "entirely free". */
static DEFINE_RAW_SPINLOCK(pasr_lock);

/*
 * Early parameters are kept as pointers into the early command line copy,
 * which lives until the init sections are freed, long after pasr_init().
 * One more slot than the core accepts lets it name the first extra one.
 */
#define PASR_MAX_ARGS 17

static const char *pasr_die_args[PASR_MAX_ARGS] __initdata;
static unsigned int pasr_ndies __initdata;
static const char *pasr_ilv_args[PASR_MAX_ARGS] __initdata;
static unsigned int pasr_nilvs __initdata;
static bool pasr_off __initdata;

static int __init pasr_add_arg(const char **args, unsigned int *n,
			       const char *val)
{
	if (*n < PASR_MAX_ARGS)
		args[*n] = val ? val : "";
	if (*n < UINT_MAX)
		(*n)++;
	return 0;
}

static int __init pasr_ddr_die_param(char *val)
{
	return pasr_add_arg(pasr_die_args, &pasr_ndies, val);
}
early_param("ddr_die", pasr_ddr_die_param);

static int __init pasr_interleaved_param(char *val)
{
	return pasr_add_arg(pasr_ilv_args, &pasr_nilvs, val);
}
early_param("interleaved", pasr_interleaved_param);

static int __init pasr_param(char *val)
{
	if (val && !strcmp(val, "off")) {
		pasr_off = true;
	} else if (!val || strcmp(val, "on")) {
		pr_err("pasr=%s: expected on or off; PASR disabled\n",
		       val ? val : "");
		pasr_off = true;
	}
	return 0;
}
early_param("pasr", pasr_param);

/*
 * Called by start_kernel() before mm_core_init() frees memblock memory into
 * the buddy allocator, so that every free max-order block is counted.
 */
void __init pasr_init(void)
{
	if (!pasr_ndies && !pasr_nilvs)
		return;
	if (pasr_off) {
		pr_info("disabled by pasr=off\n");
		return;
	}
	if (pasr_rs_init(pasr_die_args, min(pasr_ndies, PASR_MAX_ARGS),
			 pasr_ilv_args, min(pasr_nilvs, PASR_MAX_ARGS),
			 PAGE_SIZE << MAX_PAGE_ORDER))
		return;
	static_branch_enable(&pasr_enabled_key);
	pr_info("enabled\n");
}

static int __init pasr_late_init(void)
{
	if (static_branch_unlikely(&pasr_enabled_key))
		pasr_rs_late_init();
	return 0;
}
late_initcall(pasr_late_init);

unsigned long pasr_shim_lock(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pasr_lock, flags);
	return flags;
}

void pasr_shim_unlock(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&pasr_lock, flags);
}

u64 pasr_shim_now_ns(void)
{
	return ktime_get_mono_fast_ns();
}

void pasr_shim_violation(unsigned int section, int kind, u64 free, u64 delta)
{
	WARN(1, "pasr: section %u: %s of %llu bytes with %llu free; PASR disabled, all memory refreshed\n",
	     section, kind == 1 ? "put" : "get", delta, free);
}

/* For the live KUnit cases: a real max-order block from the buddy allocator. */
struct page *pasr_shim_alloc_block(u64 *paddr)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER);

	if (page)
		*paddr = PFN_PHYS(page_to_pfn(page));
	return page;
}

void pasr_shim_free_block(struct page *page)
{
	__free_pages(page, MAX_PAGE_ORDER);
}

u64 pasr_shim_block_size(void)
{
	return PAGE_SIZE << MAX_PAGE_ORDER;
}
