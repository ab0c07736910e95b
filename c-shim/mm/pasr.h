/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PASR's hooks in the buddy allocator (mm/page_alloc.c), internal to mm.
 * The driver and allocator API is in include/linux/pasr.h.
 */
#ifndef _MM_PASR_H
#define _MM_PASR_H

#include <linux/jump_label.h>
#include <linux/mmzone.h>
#include <linux/types.h>

struct page;

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
 */
#ifdef __BINDGEN__
/* bindgen, for the Rust core, cannot represent that calling convention */
#define __pasr_slowpath
#else
#define __pasr_slowpath __preserve_most
#endif

void __cold __pasr_slowpath __pasr_kput(struct page *page, struct zone *zone,
					int migratetype);
void __cold __pasr_slowpath __pasr_kget(struct page *page);
bool pasr_block_freed(phys_addr_t paddr, unsigned long size, u64 *start,
		      u64 *size_out);

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

#else /* !CONFIG_PASR */

static inline bool pasr_is_on(void)
{
	return false;
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

#endif /* _MM_PASR_H */
