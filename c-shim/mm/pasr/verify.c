// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier: with every CPU stopped, recomputes every section's free
 * bytes from mm's own state (the buddy free lists, the memory blocks, the
 * governor's PageOffline pages) and compares them, and the masks that
 * follow, with the core's. Behind debugfs pasr/verify, and the boot
 * self-test (CONFIG_PASR_SELFTEST).
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/page-flags.h>
#include <linux/pasr.h>
#include <linux/seq_file.h>
#include <linux/stop_machine.h>
#include <linux/string.h>

#include "internal.h"

#ifdef CONFIG_MEMORY_HOTPLUG
/*
 * The verifier's count of offline memory, from the memory blocks: every
 * offline block's range but its memmap_on_memory pages (which hold its
 * memmap).
 */
static int pasr_verify_offline_block(struct memory_block *mem, void *arg)
{
	u64 *offline = arg;
	unsigned long pfn = section_nr_to_pfn(mem->start_section_nr);
	u64 pa, end = PFN_PHYS(pfn) + memory_block_size_bytes();
	u64 next;
	int s;

	if (mem->state != MEM_OFFLINE)
		return 0;
	pa = PFN_PHYS(pfn + (mem->altmap ? mem->altmap->free : 0));
	for (; pa < end; pa = next) {
		s = pasr_vlookup(pa);
		if (s < 0) {
			/* outside the map: on to the next block */
			next = min(end, ALIGN(pa + 1, PAGE_SIZE << MAX_PAGE_ORDER));
			continue;
		}
		next = min(end, pasr_vsects[s].start + pasr_vsects[s].size);
		offline[s] += next - pa;
	}
	return 0;
}

static void pasr_verify_offline(u64 *offline)
{
	for_each_memory_block(offline, pasr_verify_offline_block);
}
#else
static void pasr_verify_offline(u64 *offline)
{
}
#endif

#define PASR_MAX_REPORT		16

static DEFINE_MUTEX(pasr_verify_mutex);
static u64 pasr_actual[PASR_MAX_SECTIONS];
static u64 pasr_offline_bytes[PASR_MAX_SECTIONS];
/* the core's record of each of our sections: its index, count and mask */
static int pasr_core_sect[PASR_MAX_SECTIONS];
static u64 pasr_counted[PASR_MAX_SECTIONS];
static bool pasr_masked[PASR_MAX_SECTIONS];
static struct pasr_mismatch pasr_findings[PASR_MAX_REPORT];

struct pasr_verify_result {
	int sections;
	int mismatches;
	u64 blocks;
	bool reporting;
};

/* The verifier's count of one free max-order block. */
static void pasr_verify_block(struct page *page, struct list_head *list,
			      void *data)
{
	struct pasr_verify_result *res = data;
	int i;

	res->blocks++;
	/* reporting backend: only reported blocks count */
	if (res->reporting && !PageReported(page))
		return;
	i = pasr_vlookup(PFN_PHYS(page_to_pfn(page)));
	if (i >= 0)
		pasr_actual[i] += PAGE_SIZE << MAX_PAGE_ORDER;
}

/*
 * Whether @page is held by the evacuation governor: what alloc_contig_range()
 * handed it, an order-0 page with one reference, marked PageOffline. It
 * holds no data.
 */
static bool pasr_verify_gov_page(struct page *page)
{
	return PageOffline(page) && page_ref_count(page) == 1 &&
	       !PageCompound(page) && !page->mapping;
}

/* The next pfn that may be online after @pfn, which is not. */
static unsigned long pasr_verify_next_online(unsigned long pfn)
{
#ifdef CONFIG_SPARSEMEM
	/* a hole, or offline: a whole memory section */
	return ALIGN(pfn + 1, PAGES_PER_SECTION);
#else
	return pfn + 1;
#endif
}

/* The bytes of section @si's online pages the governor holds. */
static u64 pasr_verify_gov_bytes(const struct pasr_vsect *si)
{
	unsigned long pfn = PHYS_PFN(si->start), end = PHYS_PFN(si->start + si->size);
	struct page *page;
	u64 bytes = 0;

	while (pfn < end) {
		page = pfn_to_online_page(pfn);
		if (!page) {
			pfn = pasr_verify_next_online(pfn);
			continue;
		}
		if (PageBuddy(page)) {
			/* every CPU is stopped: the order cannot change */
			pfn += 1UL << min_t(unsigned long, page_private(page),
					    MAX_PAGE_ORDER);
			continue;
		}
		if (pasr_verify_gov_page(page))
			bytes += PAGE_SIZE;
		pfn++;
	}
	return bytes;
}

/*
 * Runs with every CPU stopped, so no allocation or free is half done and the
 * counters cannot move; the zone locks are still taken, one at a time, as
 * the free lists' rules require.
 *
 * The truth comes from mm's own state, never from PASR's records: a section
 * holds free exactly its free max-order blocks (reported ones, with the
 * reporting backend) and the pages the governor holds, plus, at most, its
 * offline memory (pasr_offline_bytes, from the memory blocks): offline
 * memory that was never online is counted used, which is safe. The core's
 * count must lie in that interval, and its masks must follow from it. The
 * sections are the verifier's own, matched with the core's by address, and
 * so are the masks that follow (pasr_vlegal()).
 */
static int pasr_verify_stopped(void *data)
{
	struct pasr_verify_result *res = data;
	struct pasr_section_info si;
	struct pasr_stats st;
	u64 maskable = 0;
	int i, k, n = 0;

	res->reporting = static_key_enabled(&pasr_reporting_key);
	/* masks an irq_work has yet to raise: raise them, to compare exactly */
	pasr_raise_pending();
	pasr_stats_snapshot(&st);
	res->sections = pasr_nvsects;
	memset(pasr_actual, 0, sizeof(pasr_actual));
	pasr_walk_free_blocks(NULL, -1, pasr_verify_block, res);
	/* each of our sections among the core's: the same addresses and bit */
	for (i = 0; i < pasr_nvsects; i++) {
		const struct pasr_vsect *v = &pasr_vsects[i];
		u64 lo = pasr_actual[i], hi;

		pasr_core_sect[i] = -1;
		for (k = 0; pasr_section_snapshot(k, &si); k++)
			if (si.start == v->start && si.size == v->size &&
			    si.bit == v->bit)
				pasr_core_sect[i] = k;
		if (pasr_core_sect[i] < 0 ||
		    !pasr_section_snapshot(pasr_core_sect[i], &si))
			si = (struct pasr_section_info){ .free = U64_MAX };
		pasr_counted[i] = si.free;
		pasr_masked[i] = si.masked;
		lo += pasr_verify_gov_bytes(v);
		hi = lo + pasr_offline_bytes[i];
		pasr_actual[i] = clamp(si.free, lo, hi);
	}
	/* the masks that follow from the truth, die by die */
	for (i = 0; i < pasr_nvsects; i++) {
		const struct pasr_vsect *v = &pasr_vsects[i];
		const struct pasr_vdie *d = &pasr_vdies[v->die];
		bool free = pasr_actual[i] == v->size &&
			    (v->pair < 0 ||
			     pasr_actual[v->pair] == pasr_vsects[v->pair].size);
		bool want;

		if (v->bit == 0)
			maskable = 0;
		if (free)
			maskable |= BIT_ULL(v->bit);
		if (v->bit != d->sections - 1)
			continue;
		/* the die's last section: judge the whole die */
		maskable = st.state == 1 ? pasr_vlegal(d->mode, d->sections, maskable) : 0;
		for (k = i - v->bit; k <= i; k++) {
			want = maskable & BIT_ULL(pasr_vsects[k].bit);
			if (pasr_counted[k] == pasr_actual[k] && pasr_masked[k] == want &&
			    pasr_core_sect[k] >= 0)
				continue;
			if (n < PASR_MAX_REPORT)
				pasr_findings[n] = (struct pasr_mismatch){
					.section = pasr_core_sect[k] >= 0 ?
						   pasr_core_sect[k] : k,
					.counted = pasr_counted[k],
					.actual = pasr_actual[k],
					.masked = pasr_masked[k],
					.expected_masked = want,
				};
			n++;
		}
	}
	/* a section of the core's that is not one of ours */
	for (k = 0; pasr_section_snapshot(k, &si); k++) {
		for (i = 0; i < pasr_nvsects && pasr_core_sect[i] != k; i++)
			;
		if (i < pasr_nvsects)
			continue;
		if (n < PASR_MAX_REPORT)
			pasr_findings[n] = (struct pasr_mismatch){
				.section = k, .counted = si.free,
				.actual = U64_MAX, .masked = si.masked,
			};
		n++;
	}
	res->mismatches = n;
	return 0;
}

/* Returns the number of mismatches, or a negative error. */
static int pasr_verify(struct pasr_verify_result *res)
{
	int ret;

	memset(res, 0, sizeof(*res));
	if (pasr_vlayout_bad || !pasr_nvsects)
		return -ENODATA;
	mutex_lock(&pasr_verify_mutex);
	/*
	 * Reporting backend: the blocks of a report are counted before they
	 * are back on the free lists; let the report under way finish.
	 */
	pasr_reporting_pause();
	/*
	 * Hold off memory hotplug too: it changes the memory blocks; and the
	 * governor, whose reservations change with their pasr_put()/pasr_get()
	 * under its lock (taken after the hotplug lock, as its memory notifier
	 * does): between its pasr_get() and the last page's mark, the count
	 * and the marks disagree.
	 */
	cpus_read_lock();
	get_online_mems();
	pasr_gov_hold();
	memset(pasr_offline_bytes, 0, sizeof(pasr_offline_bytes));
	pasr_verify_offline(pasr_offline_bytes);
	ret = stop_machine_cpuslocked(pasr_verify_stopped, res, NULL);
	pasr_gov_unhold();
	put_online_mems();
	cpus_read_unlock();
	pasr_reporting_unpause();
	mutex_unlock(&pasr_verify_mutex);
	return ret ? ret : res->mismatches;
}

static void pasr_print_findings(struct seq_file *m, int n)
{
	int i;

	for (i = 0; i < min(n, PASR_MAX_REPORT); i++) {
		struct pasr_mismatch *f = &pasr_findings[i];

		if (m)
			seq_printf(m, "mismatch section %d counted %llu actual %llu masked %d expected %d\n",
				   f->section, f->counted, f->actual,
				   f->masked, f->expected_masked);
		else
			pr_err("verify: section %d counted %llu actual %llu masked %d expected %d\n",
			       f->section, f->counted, f->actual,
			       f->masked, f->expected_masked);
	}
}

static int pasr_verify_show(struct seq_file *m, void *v)
{
	struct pasr_verify_result res;
	int ret = pasr_verify(&res);

	if (ret < 0)
		return ret;
	seq_printf(m, "sections %d blocks %llu mismatches %d\n",
		   res.sections, res.blocks, res.mismatches);
	pasr_print_findings(m, res.mismatches);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_verify);

void __init pasr_verify_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("verify", 0400, dir, NULL, &pasr_verify_fops);
}

#ifdef CONFIG_PASR_SELFTEST
/* After the late initcalls: boot-time allocations have settled. */
static int __init pasr_selftest(void)
{
	struct pasr_verify_result res;
	int ret;

	if (!pasr_is_on()) {
		pr_info("self-test: skipped, PASR is not enabled\n");
		return 0;
	}
	ret = pasr_verify(&res);
	if (ret == 0) {
		pr_info("self-test: PASS (%d sections, %llu free max-order blocks, 0 mismatches)\n",
			res.sections, res.blocks);
	} else {
		pr_err("self-test: FAIL (%d mismatches)\n", ret);
		pasr_print_findings(NULL, ret);
	}
	return 0;
}
late_initcall_sync(pasr_selftest);
#endif
