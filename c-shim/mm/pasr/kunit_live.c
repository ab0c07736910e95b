// SPDX-License-Identifier: GPL-2.0
/*
 * What the live cases of the KUnit suite (kunit.rs) need from mm: real
 * max-order blocks and the placement rule's view of the free lists. Built
 * only with CONFIG_PASR_KUNIT_TEST.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/gfp.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pasr.h>

#include "internal.h"

/* For the live KUnit cases: a real max-order block from the buddy allocator. */
struct page *pasr_test_alloc_block(u64 *paddr)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER);

	if (page)
		*paddr = PFN_PHYS(page_to_pfn(page));
	return page;
}

void pasr_test_free_block(struct page *page)
{
	__free_pages(page, MAX_PAGE_ORDER);
}

/* For the live KUnit steering case: a max-order block of movable memory. */
struct page *pasr_test_alloc_movable_block(u64 *paddr)
{
	struct page *page = alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN |
					__GFP_NORETRY, MAX_PAGE_ORDER);

	if (page)
		*paddr = PFN_PHYS(page_to_pfn(page));
	return page;
}

/*
 * For the live KUnit steering case: the free max-order blocks of sections
 * that are not entirely free, on the movable free list of the highest zone
 * that has free max-order blocks. A movable max-order allocation takes
 * these first; with steering, before any block of an entirely free section
 * of that list.
 */
static void pasr_count_partly_free(struct page *page, struct list_head *list,
				   void *n)
{
	if (pasr_block_where(page) == PASR_BLOCK_PARTLY_FREE)
		(*(int *)n)++;
}

int pasr_test_partly_free_blocks(void)
{
	struct zone *zone, *top = NULL;
	int n = 0;

	for_each_populated_zone(zone) {
		/* A racy look is enough to pick the zone to count in. */
		if (data_race(zone->free_area[MAX_PAGE_ORDER].nr_free))
			top = zone;
	}
	if (top)
		pasr_walk_free_blocks(top, MIGRATE_MOVABLE,
				      pasr_count_partly_free, &n);
	return n;
}

/* For the live KUnit cases: whether the reporting backend counts. */
bool pasr_test_reporting(void)
{
	return static_key_enabled(&pasr_reporting_key);
}
