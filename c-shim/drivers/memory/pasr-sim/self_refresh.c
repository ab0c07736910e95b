// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: self-refresh entry. With every CPU stopped,
 * each unrefreshed section is checked to hold only free max-order blocks
 * (or the evacuation governor's reservations), then loses its contents.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/highmem.h>
#include <linux/kasan.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>

#include "internal.h"

/*
 * Overwrites every byte of @nr pages, as unrefreshed DRAM loses them. One page
 * at a time through a local kmap: with HIGHMEM (32-bit ARM) a free page has no
 * kernel mapping.
 */
static void pasr_sim_poison(struct pasr_sim_entry *e, struct page *page,
			    unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++)
		memset_page(page + i, 0, PASR_SIM_POISON, PAGE_SIZE);
	e->poisoned_pages += nr;
}

/*
 * Free pages are not in the linear map with debug_pagealloc: leave them.
 * KASAN marks free pages inaccessible: this write to them is on purpose, so
 * its report is suppressed; otherwise KASAN would report it and skip the write
 * (and the taint would turn lockdep off for the rest of the boot).
 */
static void pasr_sim_poison_free(struct pasr_sim_entry *e, struct page *page,
				 unsigned long nr)
{
	if (debug_pagealloc_enabled_static())
		return;
	kasan_disable_current();
	pasr_sim_poison(e, page, nr);
	kasan_enable_current();
}

/*
 * Whether a page of a block that should not have been unrefreshed may lose
 * its contents without taking the kernel down: unmapped page cache, i.e. file
 * data that a test can read back. Everything else the kernel uses (slab, page
 * tables, stacks, mapped or anonymous memory...) is spared.
 */
static bool pasr_sim_expendable(struct page *page)
{
	struct folio *folio;

	if (PageReserved(page) || PageSlab(page) || PageTable(page))
		return false;
	folio = page_folio(page);
	return folio_test_lru(folio) && !folio_test_anon(folio) &&
	       folio->mapping && !folio_mapped(folio);
}

/* A block of a masked section that is not a free max-order block. */
static void pasr_sim_lose_used_block(struct pasr_sim_entry *e,
				     struct pasr_sim_die *d, int bit,
				     unsigned long pfn)
{
	unsigned long end = pfn + MAX_ORDER_NR_PAGES;
	struct page *page = pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;

	e->violations++;
	if (e->nfindings < PASR_SIM_MAX_FINDINGS) {
		struct pasr_sim_finding *f = &e->findings[e->nfindings++];

		f->die = d->index;
		f->bit = bit;
		f->pfn = pfn;
		f->valid = !!page;
		f->flags = page ? page->flags : 0;
		f->refcount = page ? page_ref_count(page) : 0;
		f->order = page && PageBuddy(page) ? page_private(page) : -1;
	}
	if (!page)	/* no struct page, no linear map: nothing to touch */
		return;

	while (pfn < end) {
		unsigned long nr = 1;

		page = pfn_to_page(pfn);
		if (PageBuddy(page)) {
			/* A free buddy block (order in page_private). */
			nr = min(1UL << min_t(unsigned long, page_private(page),
					      MAX_PAGE_ORDER), end - pfn);
			pasr_sim_poison_free(e, page, nr);
		} else if (pasr_sim_expendable(page)) {
			pasr_sim_poison(e, page, 1);
			e->data_pages++;
		} else {
			e->spared_pages++;
		}
		pfn += nr;
	}
}

/*
 * Whether @page is one the evacuation governor holds in a reservation: what
 * alloc_contig_range() hands out, an order-0 page with one reference, which
 * the governor marks PageOffline. It holds no data.
 */
static bool pasr_sim_gov_page(struct page *page)
{
	return PageOffline(page) && page_ref_count(page) == 1 &&
	       !PageCompound(page) && !page->mapping;
}

/*
 * A block that holds no data although it is not a free max-order block:
 * every page is free or held by the evacuation governor. Poisons them and
 * returns true if so; false if any page holds something else. Judged from
 * the pages alone, not from the governor's records.
 */
static bool pasr_sim_lose_reserved_block(struct pasr_sim_entry *e,
					 unsigned long pfn)
{
	unsigned long p, end = pfn + MAX_ORDER_NR_PAGES, held = 0;
	struct page *page;

	for (p = pfn; p < end; p++) {
		page = pfn_to_page(p);
		if (PageBuddy(page))
			p += (1UL << min_t(unsigned long, page_private(page),
					   MAX_PAGE_ORDER)) - 1;
		else if (!pasr_sim_gov_page(page))
			return false;
	}
	for (p = pfn; p < end; p++) {
		page = pfn_to_page(p);
		if (PageBuddy(page)) {
			unsigned long nr = min(1UL << min_t(unsigned long,
					       page_private(page), MAX_PAGE_ORDER),
					       end - p);

			pasr_sim_poison_free(e, page, nr);
			p += nr - 1;
		} else {
			pasr_sim_poison(e, page, 1);
			held++;
		}
	}
	e->reserved_pages += held;
	return true;
}

/* Loses [@start, @start + @size), which section @bit of @d holds data of. */
static void pasr_sim_lose_range(struct pasr_sim_entry *e, struct pasr_sim_die *d,
				int bit, u64 start, u64 size)
{
	unsigned long pfn = PHYS_PFN(start), end = PHYS_PFN(start + size);

	for (; pfn < end; pfn += MAX_ORDER_NR_PAGES) {
		struct page *page;

		e->blocks++;
		/*
		 * buddy_order() is private to mm/ (mm/internal.h); it is
		 * page_private() of a PageBuddy page, valid here because every
		 * CPU is stopped, so no zone lock holder can be changing it.
		 */
		if (!pfn_valid(pfn)) {
			page = NULL;
		} else {
			page = pfn_to_online_page(pfn);
			/* Offline memory holds nothing; its memmap is poisoned. */
			if (!page)
				continue;
		}
		if (page && PageBuddy(page) &&
		    page_private(page) == MAX_PAGE_ORDER)
			pasr_sim_poison_free(e, page, MAX_ORDER_NR_PAGES);
		else if (!page || !pasr_sim_lose_reserved_block(e, pfn))
			pasr_sim_lose_used_block(e, d, bit, pfn);
	}
	e->lost_bytes += size;
}

/* Loses what section @bit of @d holds. */
static void pasr_sim_lose_section(struct pasr_sim_entry *e,
				  struct pasr_sim_die *d, int bit)
{
	u64 start, size, bad = e->violations;
	int k = 0;

	while (pasr_sim_section_range(d, bit, &k, &start, &size))
		pasr_sim_lose_range(e, d, bit, start, size);
	if (e->violations != bad)
		e->bad_sections++;
}

/* stop_machine() callback: every other CPU spins with interrupts off. */
int pasr_sim_enter_stopped(void *data)
{
	struct pasr_sim_entry *e = data;
	struct pasr_sim *sim = e->sim;
	int i, b;

	for (i = 0; i < sim->ndies; i++) {
		struct pasr_sim_die *d = &sim->dies[i];
		u64 lost;

		/* The DRAM does what its register says, right or wrong. */
		if (!pasr_sim_decode_mr(d->mode, d->sections, d->mr, &lost))
			e->mr_invalid++;
		d->sr_lost = hweight64(lost);
		d->sr_sections = d->sections;
		for (b = 0; b < d->sections; b++)
			if (lost & BIT_ULL(b))
				pasr_sim_lose_section(e, d, b);
	}
	return 0;
}

static void pasr_sim_report(struct pasr_sim_entry *e)
{
	int i;

	for (i = 0; i < e->nfindings; i++) {
		struct pasr_sim_finding *f = &e->findings[i];
		phys_addr_t pa = PFN_PHYS(f->pfn);

		if (!f->valid)
			pr_err("unrefreshed section %d of die %d: pfn %#lx [mem %pa] has no struct page (not RAM Linux manages); PASR accounting is broken\n",
			       f->bit, f->die, f->pfn, &pa);
		else if (f->order >= 0)
			pr_err("unrefreshed section %d of die %d: pfn %#lx [mem %pa] is free only at order %d, not a free max-order block; PASR accounting is broken, contents lost\n",
			       f->bit, f->die, f->pfn, &pa, f->order);
		else
			pr_err("unrefreshed section %d of die %d: pfn %#lx [mem %pa] is in use (refcount %d, flags %pGp), not a free max-order block; PASR accounting is broken, contents lost\n",
			       f->bit, f->die, f->pfn, &pa, f->refcount, &f->flags);
	}
	if (e->violations > e->nfindings)
		pr_err("... and %llu more blocks in use in unrefreshed sections\n",
		       e->violations - e->nfindings);
	if (e->mr_invalid)
		pr_err("%u dies hold a mode-register value illegal for their PASR mode\n",
		       e->mr_invalid);
}

/* Counts and reports one self-refresh entry; returns its violations. */
long pasr_sim_entered(struct pasr_sim *sim, struct pasr_sim_entry *e,
		      const char *why)
{
	sim->entries++;
	sim->violations += e->violations;
	sim->last_violations = e->violations;
	sim->poisoned_pages += e->poisoned_pages;
	sim->data_pages += e->data_pages;
	sim->spared_pages += e->spared_pages;
	sim->reserved_pages += e->reserved_pages;
	sim->mr_invalid += e->mr_invalid;
	pr_info("self-refresh entry %llu (%s): %llu MiB in unrefreshed sections lost (%llu max-order blocks), %llu violations\n",
		sim->entries, why, e->lost_bytes >> 20, e->blocks,
		e->violations);
	pasr_sim_report(e);
	if (e->violations) {
		pr_err("self-refresh entry %llu: %llu blocks in use in %u unrefreshed sections: %llu page-cache pages overwritten, %llu other pages in use spared\n",
		       sim->entries, e->violations, e->bad_sections,
		       e->data_pages, e->spared_pages);
		WARN_ONCE(1, "pasr-sim: memory in use left unrefreshed: PASR accounting is broken\n");
	}
	return e->violations;
}

/*
 * Runs the self-refresh entry @e with every other CPU stopped, so that no
 * page changes while it is judged. Returns the violations found, or a
 * negative error.
 */
long pasr_sim_run_entry(struct pasr_sim *sim, struct pasr_sim_entry *e,
			const char *why)
{
	long ret;

	lockdep_assert_held(&sim->sr_mutex);
	/* Memory that went online or offline meanwhile would be misjudged. */
	cpus_read_lock();
	get_online_mems();
	ret = stop_machine_cpuslocked(pasr_sim_enter_stopped, e, NULL);
	put_online_mems();
	cpus_read_unlock();
	if (ret) {
		pr_err("self-refresh entry (%s): stop_machine failed: %ld\n",
		       why, ret);
		return ret;
	}
	return pasr_sim_entered(sim, e, why);
}

/*
 * Enters simulated self-refresh: checks and loses every unrefreshed section.
 * Called with sim->sr_mutex held. Returns the violations found, or a
 * negative error.
 */
long pasr_sim_enter(struct pasr_sim *sim, const char *why)
{
	struct pasr_sim_entry *e;
	long ret;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->sim = sim;
	ret = pasr_sim_run_entry(sim, e, why);
	kfree(e);
	return ret;
}
