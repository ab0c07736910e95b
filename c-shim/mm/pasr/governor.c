// SPDX-License-Identifier: GPL-2.0
/*
 * PASR evacuation governor.
 *
 * Accounting alone masks little: the kernel spreads pages over all memory.
 * When memory use is low, the governor empties whole sections by migrating
 * their movable pages elsewhere with alloc_contig_range(), and keeps each
 * emptied section as a reservation: the pages are held by the governor,
 * hold no data, and are counted free for masking. Reservations go back to
 * the allocator through a shrinker under memory pressure, and all at once
 * from the OOM notifier, so PASR never causes an allocation failure or an
 * OOM that the kernel without PASR would not have.
 *
 * Sections with the most free memory are evacuated first. Boot with
 * movablecore= so that unmovable kernel allocations stay out of the
 * sections that can be emptied.
 *
 * Reserved pages are marked PageOffline, as balloon drivers mark the memory
 * they took away: dump tools skip them, and anyone who finds one knows it
 * holds nothing. A reservation never blocks memory offlining: the memory
 * notifier gives back every reservation in a range about to go offline
 * (MEM_GOING_OFFLINE), whose pages then lie free in isolated pageblocks.
 */

#define pr_fmt(fmt) "pasr: governor: " fmt

#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/page-flags.h>
#include <linux/pasr.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "governor.h"
#include "internal.h"

#define PASR_GOV_SECTIONS	256
#define PASR_GOV_BACKOFF	10	/* ticks before retrying a failed section */

/*
 * pasr_gov_lock protects the bitmaps and statistics. It is never held across
 * alloc_contig_range(), which may reclaim and so call our shrinker.
 */
static DEFINE_MUTEX(pasr_gov_lock);
static DECLARE_BITMAP(pasr_reserved, PASR_GOV_SECTIONS);
static DECLARE_BITMAP(pasr_busy, PASR_GOV_SECTIONS);	/* being evacuated */
static u8 pasr_backoff[PASR_GOV_SECTIONS];
static unsigned long pasr_gov_pressure_until;	/* jiffies */

static bool pasr_gov_enabled;
static unsigned int pasr_gov_threshold = 60;	/* % of memory holding data */
static unsigned int pasr_gov_margin = 2;	/* % of memory kept free */
static unsigned int pasr_gov_interval_ms = 500;
static unsigned long pasr_gov_evacuated, pasr_gov_migrated;
static unsigned long pasr_gov_returned, pasr_gov_failures;
static atomic_long_t pasr_gov_reserved_pages = ATOMIC_LONG_INIT(0);

static void pasr_gov_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(pasr_gov_work, pasr_gov_fn);

static int __init pasr_gov_param(char *val)
{
	if (!val || kstrtobool(val, &pasr_gov_enabled))
		pr_err("pasr.governor=%s: expected 0 or 1\n", val ? val : "");
	return 0;
}
early_param("pasr.governor", pasr_gov_param);

/* Memory holding data, in percent: reservations hold none. */
static unsigned int pasr_gov_use(void)
{
	unsigned long total = totalram_pages();
	unsigned long free = global_zone_page_state(NR_FREE_PAGES) +
			     atomic_long_read(&pasr_gov_reserved_pages);

	return total ? 100 - min(free * 100 / total, 100UL) : 100;
}

/*
 * Whether @pages more can be reserved and still leave pasr_gov_margin % of
 * memory free for allocations that cannot wait for the shrinker.
 */
static bool pasr_gov_room(unsigned long pages)
{
	unsigned long free = global_zone_page_state(NR_FREE_PAGES);

	return free > pages + totalram_pages() * pasr_gov_margin / 100;
}

bool pasr_gov_reserved(int section)
{
	return section >= 0 && section < PASR_GOV_SECTIONS &&
	       test_bit(section, pasr_reserved);
}

/*
 * The pfn range of section @i if every max-order block of it is online and
 * in one and the same zone, as alloc_contig_range() needs: no hole, no
 * offline memory (whose struct pages are poisoned), no zone boundary inside.
 * Memory cannot go offline under a caller holding get_online_mems(), or
 * within a reservation, which is given back first.
 */
static bool pasr_gov_range(const struct pasr_section_info *s,
			   unsigned long *start, unsigned long *end)
{
	struct page *first, *last;
	struct zone *zone;
	unsigned long pfn;

	*start = PHYS_PFN(s->start);
	*end = PHYS_PFN(s->start + s->size);
	first = pfn_to_online_page(*start);
	if (!first)
		return false;
	zone = page_zone(first);
	for (pfn = *start; pfn < *end; pfn += MAX_ORDER_NR_PAGES) {
		first = pfn_to_online_page(pfn);
		last = pfn_to_online_page(pfn + MAX_ORDER_NR_PAGES - 1);
		if (!first || !last || page_zone(first) != zone ||
		    page_zone(last) != zone)
			return false;
	}
	return zone_spans_pfn(zone, *start) && zone_spans_pfn(zone, *end - 1);
}

/* Marks the pages of a reservation PageOffline, or clears the mark. */
static void pasr_gov_mark(unsigned long start, unsigned long end, bool offline)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		if (offline)
			__folio_set_offline(pfn_folio(pfn));
		else
			__folio_clear_offline(pfn_folio(pfn));
	}
}

/*
 * The verifier (verify.c) holds the governor's lock while it compares the
 * counters with the free lists: a reservation is made or given back, with
 * its pasr_put() or pasr_get(), entirely under this lock.
 */
void pasr_gov_hold(void)
{
	mutex_lock(&pasr_gov_lock);
}

void pasr_gov_unhold(void)
{
	mutex_unlock(&pasr_gov_lock);
}

/* Called with pasr_gov_lock held. Returns the pages given back. */
static unsigned long pasr_gov_release(int i)
{
	struct pasr_section_info s;
	unsigned long start, end;

	if (!test_bit(i, pasr_reserved) || !pasr_section_snapshot(i, &s) ||
	    !pasr_gov_range(&s, &start, &end))
		return 0;
	/* Used again before the pages reach the free lists, which put them. */
	pasr_get(s.start, s.size);
	pasr_gov_mark(start, end, false);
	free_contig_range(start, end - start);
	clear_bit(i, pasr_reserved);
	atomic_long_sub(end - start, &pasr_gov_reserved_pages);
	pasr_gov_returned++;
	return end - start;
}

/* Called with pasr_gov_lock held: gives back sections until @nr pages are freed. */
static unsigned long pasr_gov_release_upto(unsigned long nr)
{
	unsigned long freed = 0;
	int i;

	for_each_set_bit(i, pasr_reserved, PASR_GOV_SECTIONS) {
		if (freed >= nr)
			break;
		freed += pasr_gov_release(i);
	}
	return freed;
}

/*
 * Memory is short: stop reserving for a while, and give back sections until
 * @nr pages are freed (all of them for ULONG_MAX). Returns the pages freed.
 */
unsigned long pasr_gov_give_back_pages(unsigned long nr)
{
	unsigned long freed;

	WRITE_ONCE(pasr_gov_pressure_until, jiffies + 10 * HZ);
	mutex_lock(&pasr_gov_lock);
	freed = pasr_gov_release_upto(nr);
	mutex_unlock(&pasr_gov_lock);
	return freed;
}

/* Gives back the reservations that overlap pfns [@lo, @hi). */
void pasr_gov_give_back_range(unsigned long lo, unsigned long hi)
{
	struct pasr_section_info s;
	int i;

	mutex_lock(&pasr_gov_lock);
	for_each_set_bit(i, pasr_reserved, PASR_GOV_SECTIONS) {
		if (pasr_section_snapshot(i, &s) &&
		    PHYS_PFN(s.start) < hi && PHYS_PFN(s.start + s.size) > lo &&
		    pasr_gov_release(i))
			pr_info("section %d given back: [mem %#llx-%#llx] goes offline\n",
				i, s.start, s.start + s.size - 1);
	}
	mutex_unlock(&pasr_gov_lock);
}

/*
 * One evacuation step: reserve the section with the most free memory, if
 * memory use stays below the threshold afterwards and there was no memory
 * pressure lately. Fully free sections go first: held, they cannot become
 * migration targets. Returns true if a section was reserved.
 */
static bool pasr_gov_step(void)
{
	unsigned long start, end, pages;
	struct pasr_section_info s, best = { };
	int i, pick = -1, ret;

	if (time_before(jiffies, READ_ONCE(pasr_gov_pressure_until)))
		return false;
	/*
	 * No memory goes offline during a step: pasr_gov_range() reads struct
	 * pages, alloc_contig_range() isolates them, and offlining would fail
	 * on a section being evacuated. It waits and then finds a reservation,
	 * which its notifier gives back.
	 */
	get_online_mems();
	mutex_lock(&pasr_gov_lock);
	for (i = 0; i < PASR_GOV_SECTIONS && pasr_section_snapshot(i, &s); i++) {
		if (pasr_backoff[i]) {
			pasr_backoff[i]--;
			continue;
		}
		if (test_bit(i, pasr_reserved) || test_bit(i, pasr_busy) ||
		    !pasr_gov_range(&s, &start, &end))
			continue;
		if (pick < 0 || s.free > best.free) {
			pick = i;
			best = s;
		}
	}
	if (pick < 0 || pasr_gov_use() >= pasr_gov_threshold ||
	    !pasr_gov_room(PHYS_PFN(best.size))) {
		mutex_unlock(&pasr_gov_lock);
		put_online_mems();
		return false;
	}
	set_bit(pick, pasr_busy);
	mutex_unlock(&pasr_gov_lock);

	pages = PHYS_PFN(best.size - best.free);
	start = PHYS_PFN(best.start);
	end = PHYS_PFN(best.start + best.size);
	/* __GFP_NORETRY is not supported here: -EINVAL */
	ret = alloc_contig_range(start, end, MIGRATE_MOVABLE,
				 GFP_KERNEL | __GFP_NOWARN);

	mutex_lock(&pasr_gov_lock);
	clear_bit(pick, pasr_busy);
	if (ret) {
		pasr_gov_failures++;
		pasr_backoff[pick] = PASR_GOV_BACKOFF;
	} else {
		/* The governor holds every page now: they hold no data. */
		pasr_gov_mark(start, end, true);
		set_bit(pick, pasr_reserved);
		atomic_long_add(end - start, &pasr_gov_reserved_pages);
		pasr_put(best.start, best.size);
		pasr_gov_evacuated++;
		pasr_gov_migrated += pages;
	}
	mutex_unlock(&pasr_gov_lock);
	put_online_mems();
	return !ret;
}

static void pasr_gov_run(unsigned int max_steps)
{
	while (max_steps-- && pasr_gov_use() < pasr_gov_threshold &&
	       pasr_gov_step())
		;
}

static void pasr_gov_fn(struct work_struct *work)
{
	if (!READ_ONCE(pasr_gov_enabled))
		return;
	pasr_gov_run(1);
	schedule_delayed_work(&pasr_gov_work,
			      msecs_to_jiffies(pasr_gov_interval_ms));
}

/* --- what its other files (governor_sysfs.c, governor_notify.c) reach --- */

bool pasr_gov_is_enabled(void)
{
	return READ_ONCE(pasr_gov_enabled);
}

void pasr_gov_set_enabled(bool on)
{
	WRITE_ONCE(pasr_gov_enabled, on);
	if (on) {
		mod_delayed_work(system_wq, &pasr_gov_work, 0);
	} else {
		cancel_delayed_work_sync(&pasr_gov_work);
		pasr_gov_give_back();
	}
}

unsigned int pasr_gov_threshold_percent(void)
{
	return READ_ONCE(pasr_gov_threshold);
}

void pasr_gov_set_threshold(unsigned int percent)
{
	WRITE_ONCE(pasr_gov_threshold, percent);
}

/* Evacuates what the threshold allows, now. */
void pasr_gov_trigger(void)
{
	pasr_gov_run(PASR_GOV_SECTIONS);
}

/* Gives every reservation back. */
void pasr_gov_give_back(void)
{
	mutex_lock(&pasr_gov_lock);
	pasr_gov_release_upto(ULONG_MAX);
	mutex_unlock(&pasr_gov_lock);
}

/* Pages held in reservations, read without the lock. */
unsigned long pasr_gov_reserved_pages_now(void)
{
	return atomic_long_read(&pasr_gov_reserved_pages);
}

/* The counters are read without the lock: each is one word. */
void pasr_gov_read_stats(struct pasr_gov_stats *st)
{
	st->evacuated = READ_ONCE(pasr_gov_evacuated);
	st->migrated_pages = READ_ONCE(pasr_gov_migrated);
	st->returned = READ_ONCE(pasr_gov_returned);
	st->failures = READ_ONCE(pasr_gov_failures);
	st->reserved_bytes = (u64)atomic_long_read(&pasr_gov_reserved_pages)
			     << PAGE_SHIFT;
	st->use_percent = pasr_gov_use();
}

static int __init pasr_gov_init(void)
{
	if (!pasr_is_on())
		return 0;
	if (pasr_gov_notify_init()) {
		pr_err("no shrinker; governor disabled\n");
		return 0;
	}
	pasr_gov_sysfs_init();
	if (pasr_gov_enabled)
		schedule_delayed_work(&pasr_gov_work, 0);
	pr_info("ready (%s, threshold %u%%)\n",
		pasr_gov_enabled ? "on" : "off", pasr_gov_threshold);
	return 0;
}
late_initcall(pasr_gov_init);
