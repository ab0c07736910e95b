// SPDX-License-Identifier: GPL-2.0
/*
 * PASR's two backends, which tell the core of the max-order blocks entering
 * and leaving the buddy allocator's free lists: the allocator hooks
 * (mm/page_alloc.c, CONFIG_PASR_HOOKS), seeded from the free lists with
 * every CPU stopped, and free page reporting, with PASR as its device.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/page_reporting.h>
#include <linux/pasr.h>
#include <linux/scatterlist.h>
#include <linux/stop_machine.h>
#include <linux/workqueue.h>

#include "internal.h"

DEFINE_STATIC_KEY_FALSE(pasr_enabled_key);
DEFINE_STATIC_KEY_FALSE(pasr_reporting_key);

const char *pasr_backend_name __ro_after_init =
	IS_ENABLED(CONFIG_PASR_HOOKS) ? "hooks" : "reporting";

/*
 * --- reporting backend: PASR is the free page reporting device ---
 *
 * Page reporting's worker (mm/page_reporting.c) takes unreported free
 * blocks of at least the reporting order off the free lists, hands them to
 * pasr_report() in process context, and puts them back at the tail of
 * their lists, marked reported. A reported block leaves the free lists
 * only through __del_page_from_free_list(), which clears the mark and, for
 * a max-order block, calls __pasr_unreport() before the block can be used.
 * So the counters hold the reported max-order blocks: memory that holds no
 * data. Only lowering a mask is synchronous.
 */
static DEFINE_MUTEX(pasr_reporting_mutex);
static bool pasr_reporting_registered;	/* under pasr_reporting_mutex */

/* The free max-order block at @page: counted free, or used again. */
static void pasr_put_page_block(struct page *page)
{
	pasr_put(PFN_PHYS(page_to_pfn(page)), PAGE_SIZE << MAX_PAGE_ORDER);
}

static void pasr_get_page_block(struct page *page)
{
	pasr_get(PFN_PHYS(page_to_pfn(page)), PAGE_SIZE << MAX_PAGE_ORDER);
}

static int pasr_report(struct page_reporting_dev_info *prdev,
		       struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;

	/* smaller blocks come if page_reporting.page_reporting_order= asks */
	for_each_sg(sgl, sg, nents, i)
		if (sg->length == PAGE_SIZE << MAX_PAGE_ORDER)
			pasr_put_page_block(sg_page(sg));
	return 0;
}

static struct page_reporting_dev_info pasr_prdev = {
	.report = pasr_report,
	.order = MAX_PAGE_ORDER,
};

void __pasr_unreport(struct page *page)
{
	pasr_get_page_block(page);
}

/* Stops reporting; a report under way is finished (and drained) first. */
static void pasr_reporting_stop(void)
{
	mutex_lock(&pasr_reporting_mutex);
	if (pasr_reporting_registered)
		page_reporting_unregister(&pasr_prdev);
	pasr_reporting_registered = false;
	mutex_unlock(&pasr_reporting_mutex);
}

/*
 * Pauses reporting, for the verifier: the report under way finishes, its
 * blocks drained back to the free lists, and none starts until
 * pasr_reporting_unpause(). Lighter than unregistering: no RCU grace
 * period, no new PAGE_REPORTING_DELAY.
 */
static bool pasr_reporting_paused;	/* under pasr_reporting_mutex */

void pasr_reporting_pause(void)
{
	mutex_lock(&pasr_reporting_mutex);
	if (pasr_reporting_registered) {
		disable_delayed_work_sync(&pasr_prdev.work);
		pasr_reporting_paused = true;
	}
	mutex_unlock(&pasr_reporting_mutex);
}

void pasr_reporting_unpause(void)
{
	mutex_lock(&pasr_reporting_mutex);
	if (pasr_reporting_paused) {
		enable_delayed_work(&pasr_prdev.work);
		pasr_reporting_paused = false;
		/*
		 * Page reporting's request while paused was dropped and left
		 * its state "requested": one run, now, resumes the cycle.
		 */
		if (pasr_reporting_registered)
			schedule_delayed_work(&pasr_prdev.work, 0);
	}
	mutex_unlock(&pasr_reporting_mutex);
}

/* PASR stopped accounting (failure or refusal): no backend calls in. */
void pasr_backend_off(void)
{
	static_branch_disable(&pasr_enabled_key);
	pasr_reporting_stop();
	static_branch_disable(&pasr_reporting_key);
}

/* Registers PASR as the reporting device; PASR gives up if it can't. */
static void __init pasr_reporting_start(void)
{
	int ret;

	mutex_lock(&pasr_reporting_mutex);
	ret = page_reporting_register(&pasr_prdev);
	pasr_reporting_registered = !ret;
	mutex_unlock(&pasr_reporting_mutex);
	if (ret) {
		pr_err("cannot register for free page reporting (%d); PASR disabled, all memory refreshed\n",
		       ret);
		pasr_refresh_all(false);
		pasr_backend_off();
	}
}

/*
 * Calls @fn(page, list, arg) for every block on the max-order free lists,
 * under its zone's lock: of every populated zone, or of @only's only, and of
 * every migratetype, or of @mt's only (@mt < 0: all). @fn may move its block
 * within @list, but only to the head: blocks behind it are still to come.
 */
void pasr_walk_free_blocks(struct zone *only, int mt,
			   pasr_block_fn fn, void *arg)
{
	struct page *page, *next;
	struct list_head *list;
	unsigned long flags;
	struct zone *zone;
	int t;

	for_each_populated_zone(zone) {
		if (only && zone != only)
			continue;
		spin_lock_irqsave(&zone->lock, flags);
		for (t = 0; t < MIGRATE_TYPES; t++) {
			if (mt >= 0 && t != mt)
				continue;
			list = &zone->free_area[MAX_PAGE_ORDER].free_list[t];
			list_for_each_entry_safe(page, next, list, buddy_list)
				fn(page, list, arg);
		}
		spin_unlock_irqrestore(&zone->lock, flags);
	}
}

/* Where the block at @page lies, for the placement rule. */
enum pasr_block_where pasr_block_where(struct page *page)
{
	struct pasr_section_info s;
	int i = pasr_section_of(PFN_PHYS(page_to_pfn(page)));

	if (i < 0 || !pasr_section_snapshot(i, &s))
		return PASR_BLOCK_OUTSIDE;
	return s.free < s.size ? PASR_BLOCK_PARTLY_FREE :
				 PASR_BLOCK_ENTIRELY_FREE;
}

/*
 * Hooks backend: a max-order block leaves a free list (see pasr_kget()).
 * In C, not in the Rust core: it is __preserve_most, a calling convention
 * Rust cannot give a function, and page_to_pfn() is a macro.
 */
void __pasr_kget(struct page *page)
{
	pasr_get_page_block(page);
}

/*
 * Hooks backend: counts the free max-order blocks the buddy allocator holds,
 * with every CPU stopped. The hooks are on already, ignored by the core
 * until now; a CPU stopped here is outside every zone->lock section, so no
 * block is between a free list and its hook: every block freed or allocated
 * before is on the lists as it is now, every one after is counted by the
 * hooks.
 */
static void __init pasr_seed_count(struct page *page, struct list_head *list,
				   void *unused)
{
	pasr_put_page_block(page);
}

/*
 * Once every block is counted: the placement rule (pasr_place() in
 * mm/page_alloc.c) for the whole list. The blocks of partly free sections,
 * and those outside every section, go to the head, so the blocks of
 * entirely free sections end up behind them. (Their order among themselves
 * is reversed, which the allocator does not care about.)
 */
static void __init pasr_seed_place(struct page *page, struct list_head *list,
				   void *unused)
{
	if (pasr_block_where(page) != PASR_BLOCK_ENTIRELY_FREE)
		list_move(&page->buddy_list, list);
}

static int __init pasr_seed_stopped(void *unused)
{
	pasr_set_accounting(true);
	/* count every block first (a section may span two zones), then place */
	pasr_walk_free_blocks(NULL, -1, pasr_seed_count, NULL);
	pasr_walk_free_blocks(NULL, -1, pasr_seed_place, NULL);
	return 0;
}

/* Starts the hooks, or page reporting with @reporting. */
void __init pasr_backend_start(bool reporting)
{
	if (reporting) {
		pasr_backend_name = "reporting";
		static_branch_enable(&pasr_reporting_key);
		/* the first reports come PAGE_REPORTING_DELAY later */
		pasr_reporting_start();
		return;
	}
	pasr_set_accounting(false);
	static_branch_enable(&pasr_enabled_key);
	stop_machine(pasr_seed_stopped, NULL, NULL);
}
