// SPDX-License-Identifier: GPL-2.0
/*
 * PASR benchmark (CONFIG_PASR_BENCH, test kernels only).
 *
 * Writing "run" to /sys/kernel/debug/pasr_bench/run times, on the calling
 * CPU:
 *
 *  - alloc_pages() + __free_pages() pairs of order 0, 3 (both served by the
 *    per-cpu lists, which never reach the PASR hooks) and MAX_PAGE_ORDER
 *    (every pair goes through the buddy free lists, so through pasr_kget()
 *    and pasr_kput()), one pair at a time and, for MAX_PAGE_ORDER, also in
 *    batches;
 *  - with PASR, pasr_put() + pasr_get() pairs of max-order blocks on private
 *    maps of 1 to 256 sections, through pasr_bench_calls() in the Rust
 *    core; the live map is not touched.
 *
 * Writing "transitions" times, with PASR, the locked path instead: sections
 * entering and leaving "entirely free", where the masks are recomputed, the
 * controller callbacks run and the buddy hook steers the section's blocks.
 * Since steering, alloc_pages() hardly ever takes a block of an entirely
 * free section, so this is forced: one kthread per online CPU, all at once,
 * each takes max-order blocks of an entirely free section off the free list
 * and puts them back, as free page reporting does (__isolate_free_page() and
 * __putback_isolated_page() under zone->lock, through the same hooks as
 * alloc_pages() and __free_pages()). Every take is a section leaving
 * "entirely free", every put-back one entering it. The same loop with one
 * block of the section held throughout ("pinned") makes no transition: the
 * difference is the cost of the transitions. Dies without a controller get
 * a callback that stores the value, as a driver would, and counts the calls.
 * With the reporting backend (pasr.backend=reporting), the put-back is page
 * reporting's: pasr_put() as the report callback does it, then the block
 * back on its list marked reported, so that each take lowers the masks
 * through pasr_unreport() under zone->lock.
 *
 * /sys/kernel/debug/pasr_bench/freeable tells, per section, whether it could
 * be emptied: it holds no unmovable memory (the power part's ideal).
 *
 * Writing "latency" times, with PASR, how long a section that becomes
 * entirely free waits for its mask (see bench_latency()).
 *
 * Writing any command returns -EIO if a case failed (ENOMEM, no entirely
 * free section, ...); the output then holds an "error=" line.
 *
 * Reading the file returns the results of the last run as "PASR-BENCH:"
 * lines of key=value pairs, one per round, which tools/bench.sh parses.
 * /sys/kernel/debug/pasr_bench/now_ns reads ktime_get_ns(), a precise clock
 * for timing user-space workloads.
 *
 * The file builds without CONFIG_PASR too, so that the allocator can be
 * timed on a kernel built without PASR, for comparison.
 */

#define pr_fmt(fmt) "pasr_bench: " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/pasr.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "../internal.h"
#include "../page_reporting.h"
#include "internal.h"

#define BENCH_ROUNDS		5
#define BENCH_MAX_BATCH		32
#define BENCH_CALL_ITERS	200000ULL

struct bench_alloc_case {
	unsigned int order;
	unsigned int batch;
	unsigned int iters;	/* alloc+free pairs per round */
};

static const struct bench_alloc_case bench_alloc_cases[] = {
	{ 0, 1, 200000 },
	{ 3, 1, 100000 },
	{ MAX_PAGE_ORDER, 1, 4000 },
	{ MAX_PAGE_ORDER, BENCH_MAX_BATCH, 4000 },
};

static DEFINE_MUTEX(bench_mutex);
static char bench_out[16384];
static struct seq_buf bench_buf;
static struct page *bench_pages[BENCH_MAX_BATCH];
static bool bench_failed;

#define bench_error(fmt, ...)						\
do {									\
	bench_failed = true;						\
	seq_buf_printf(&bench_buf, "PASR-BENCH: " fmt, ##__VA_ARGS__);	\
} while (0)

#ifdef CONFIG_PASR
/* "on"/"off": hooks kernel; "rep-on"/"rep-off": without CONFIG_PASR_HOOKS */
static const char *bench_pasr_state(void)
{
	if (static_key_enabled(&pasr_reporting_key))
		return IS_ENABLED(CONFIG_PASR_HOOKS) ? "on-reporting" : "rep-on";
	if (static_key_enabled(&pasr_enabled_key))
		return "on";
	return IS_ENABLED(CONFIG_PASR_HOOKS) ? "off" : "rep-off";
}

static void bench_calls_snapshot(u64 *calls, u64 *updates)
{
	struct pasr_stats st;

	pasr_stats_snapshot(&st);
	*calls = st.puts + st.gets;
	*updates = st.mask_updates;
}
#else
/* "absent": no PASR, PAGE_REPORTING as distributions have it; "bare": neither */
static const char *bench_pasr_state(void)
{
	return IS_ENABLED(CONFIG_PAGE_REPORTING) ? "absent" : "bare";
}

static void bench_calls_snapshot(u64 *calls, u64 *updates)
{
	*calls = 0;
	*updates = 0;
}
#endif

/* Returns the ns taken by @c->iters alloc+free pairs, or 0 on failure. */
static u64 bench_alloc_round(const struct bench_alloc_case *c,
			     unsigned int iters)
{
	unsigned int i, j, n;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (i = 0; i < iters; i += n) {
		n = min(c->batch, iters - i);
		for (j = 0; j < n; j++) {
			bench_pages[j] = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
						     c->order);
			if (!bench_pages[j])
				break;
		}
		if (j < n) {
			while (j--)
				__free_pages(bench_pages[j], c->order);
			return 0;
		}
		for (j = 0; j < n; j++)
			__free_pages(bench_pages[j], c->order);
	}
	t1 = ktime_get_ns();
	return t1 - t0;
}

static void bench_alloc(const struct bench_alloc_case *c)
{
	u64 ns, calls0, calls1, upd0, upd1;
	int r;

	/* Warm up: fill the per-cpu lists, settle the migratetypes. */
	if (!bench_alloc_round(c, max(c->iters / 10, c->batch))) {
		bench_error("alloc order=%u batch=%u error=ENOMEM\n",
			    c->order, c->batch);
		return;
	}
	for (r = 0; r < BENCH_ROUNDS; r++) {
		cond_resched();
		bench_calls_snapshot(&calls0, &upd0);
		ns = bench_alloc_round(c, c->iters);
		bench_calls_snapshot(&calls1, &upd1);
		if (!ns) {
			bench_error("alloc order=%u batch=%u round=%d error=ENOMEM\n",
				    c->order, c->batch, r);
			return;
		}
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: alloc order=%u batch=%u round=%d iters=%u ns=%llu hook_calls=%llu mask_updates=%llu\n",
			       c->order, c->batch, r, c->iters, ns,
			       calls1 - calls0, upd1 - upd0);
	}
}

#ifdef CONFIG_PASR
struct bench_call_case {
	int dies;
	int sections_per_die;
};

/* 1 die x 8, 8 dies x 8, and the largest map: 16 dies x 16 sections. */
static const struct bench_call_case bench_call_cases[] = {
	{ 1, 8 },
	{ 8, 8 },
	{ 16, 16 },
};

static void bench_calls(const struct bench_call_case *c)
{
	u64 ns;
	int r;

	/* Warm up; 0 means the core refused the layout. */
	if (!pasr_bench_calls(c->dies, c->sections_per_die,
			      BENCH_CALL_ITERS / 10)) {
		bench_error("calls dies=%d sections=%d error=refused\n",
			    c->dies, c->dies * c->sections_per_die);
		return;
	}
	for (r = 0; r < BENCH_ROUNDS; r++) {
		cond_resched();
		ns = pasr_bench_calls(c->dies, c->sections_per_die,
				      BENCH_CALL_ITERS);
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: calls dies=%d sections=%d round=%d pairs=%llu ns=%llu\n",
			       c->dies, c->dies * c->sections_per_die, r,
			       BENCH_CALL_ITERS, ns);
	}
}

/*
 * Transitions: one kthread per online CPU takes max-order blocks of an
 * entirely free section off the free list and puts them back.
 */
#define BENCH_TRANS_CYCLES	1000	/* take + put-back per thread and round */
#define BENCH_TRANS_MAX_DIES	16
#define BENCH_TRANS_WAIT_NS	(30ULL * NSEC_PER_SEC)

struct bench_trans_thread {
	unsigned long pfn;	/* first pfn of the thread's section */
	unsigned long blocks;	/* max-order blocks in it */
	unsigned long first;	/* first block cycled (1 when block 0 is pinned) */
	unsigned long skipped;	/* blocks found in use, passed over */
	int err;
};

/* Used under bench_mutex only. */
static struct bench_trans_thread bench_trans_threads[NR_CPUS];
static struct task_struct *bench_trans_tasks[NR_CPUS];
static struct page *bench_trans_pinned[NR_CPUS];
static struct pasr_section_info bench_trans_secs[NR_CPUS];
static DECLARE_COMPLETION(bench_trans_start);
static DECLARE_COMPLETION(bench_trans_done);
static atomic_t bench_trans_running;
static atomic64_t bench_trans_callbacks;
static u64 bench_trans_value[BENCH_TRANS_MAX_DIES];

/* The controller callback of dies that have none: a "register" write. */
static void bench_trans_mask_fn(u64 value, void *cookie)
{
	WRITE_ONCE(*(u64 *)cookie, value);
	atomic64_inc(&bench_trans_callbacks);
}

/* Takes the free max-order block at @page off its free list, or fails. */
static bool bench_trans_take(struct page *page)
{
	struct zone *zone = page_zone(page);
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&zone->lock, flags);
	ok = PageBuddy(page) && buddy_order(page) == MAX_PAGE_ORDER &&
	     __isolate_free_page(page, MAX_PAGE_ORDER);
	spin_unlock_irqrestore(&zone->lock, flags);
	return ok;
}

/* Puts a block taken by bench_trans_take() back, marked @reported or not. */
static void bench_trans_put_back(struct page *page, bool reported)
{
	struct zone *zone = page_zone(page);
	unsigned long flags;

	spin_lock_irqsave(&zone->lock, flags);
	__putback_isolated_page(page, MAX_PAGE_ORDER,
				get_pageblock_migratetype(page));
	if (reported && PageBuddy(page) && buddy_order(page) == MAX_PAGE_ORDER)
		__SetPageReported(page);
	spin_unlock_irqrestore(&zone->lock, flags);
}

/* Whether this run of "transitions" uses the reporting backend's paths. */
static bool bench_trans_reporting;

/*
 * Gives back a block taken by bench_trans_take(). With the hooks backend,
 * the put-back is the hook. With the reporting backend, what page
 * reporting does with an isolated block: the report callback's work
 * (pasr_put(), outside zone->lock), then the put-back, marked reported, so
 * that the next take goes through pasr_unreport().
 */
static void bench_trans_give(struct page *page)
{
	if (bench_trans_reporting)
		pasr_put(PFN_PHYS(page_to_pfn(page)),
			 PAGE_SIZE << MAX_PAGE_ORDER);
	bench_trans_put_back(page, bench_trans_reporting);
}

static int bench_trans_fn(void *data)
{
	struct bench_trans_thread *t = data;
	unsigned long n = t->blocks - t->first, k = 0, miss = 0;
	unsigned int done = 0;
	struct page *page;

	wait_for_completion(&bench_trans_start);
	while (done < BENCH_TRANS_CYCLES) {
		page = pfn_to_page(t->pfn +
				   ((t->first + k) << MAX_PAGE_ORDER));
		k = (k + 1) % n;
		if (!bench_trans_take(page)) {
			/* in use (another thread, an allocation): next one */
			t->skipped++;
			if (++miss > n) {
				t->err = -EBUSY;
				break;
			}
			continue;
		}
		miss = 0;
		bench_trans_give(page);
		done++;
		cond_resched();
	}
	if (atomic_dec_and_test(&bench_trans_running))
		complete(&bench_trans_done);
	return 0;
}

/* Gives the dies without a controller a callback that stores the value. */
static void bench_register(bool *registered)
{
	struct pasr_die_info die;
	int d;

	for (d = 0; d < BENCH_TRANS_MAX_DIES && pasr_die_snapshot(d, &die); d++)
		if (!die.has_callback)
			registered[d] = !pasr_register_mask_function(die.base,
					bench_trans_mask_fn, &bench_trans_value[d]);
}

static void bench_unregister(const bool *registered)
{
	struct pasr_die_info die;
	int d;

	for (d = 0; d < BENCH_TRANS_MAX_DIES; d++)
		if (registered[d] && pasr_die_snapshot(d, &die))
			pasr_unregister_mask_function(die.base);
}

/*
 * Up to @max entirely free sections whose max-order blocks are all on the
 * free lists of one zone; returns how many were found.
 */
static int bench_trans_sections(struct pasr_section_info *out, int max)
{
	struct pasr_section_info s;
	unsigned long pfn, end;
	struct zone *zone;
	struct page *page;
	int i, n = 0;

	for (i = 0; n < max && pasr_section_snapshot(i, &s); i++) {
		/* two blocks at least: one is held in the pinned mode */
		if (s.free != s.size ||
		    s.size < 2 * (PAGE_SIZE << MAX_PAGE_ORDER))
			continue;
		pfn = PHYS_PFN(s.start);
		end = PHYS_PFN(s.start + s.size);
		page = pfn_to_online_page(pfn);
		if (!page)
			continue;
		zone = page_zone(page);
		for (; pfn < end; pfn += MAX_ORDER_NR_PAGES) {
			page = pfn_to_online_page(pfn);
			if (!page || page_zone(page) != zone ||
			    !PageBuddy(page) ||
			    buddy_order_unsafe(page) != MAX_PAGE_ORDER)
				break;
		}
		if (pfn >= end)
			out[n++] = s;
	}
	return n;
}

/*
 * One round: @nthreads threads on the first @nthreads online CPUs, on
 * distinct sections when there are enough of them. With @pinned, block 0 of
 * each section is held throughout, so that no section becomes entirely
 * free. Returns false (and prints an error) on failure.
 */
static bool bench_trans_round(const char *mode, bool pinned,
			      unsigned int nthreads, int round,
			      const struct pasr_section_info *secs, int nsecs)
{
	struct task_struct **tasks = bench_trans_tasks;
	u64 t0, t1, calls0, calls1, upd0, upd1, cb0, cb1;
	unsigned long skipped = 0;
	unsigned int i, started = 0;
	int cpu, err = 0;

	reinit_completion(&bench_trans_start);
	reinit_completion(&bench_trans_done);
	atomic_set(&bench_trans_running, nthreads);
	memset(bench_trans_pinned, 0, sizeof(bench_trans_pinned));
	i = 0;
	for_each_online_cpu(cpu) {
		struct bench_trans_thread *t = &bench_trans_threads[i];
		const struct pasr_section_info *s = &secs[i % nsecs];

		if (i == nthreads)
			break;
		*t = (struct bench_trans_thread) {
			.pfn = PHYS_PFN(s->start),
			.blocks = s->size >> (PAGE_SHIFT + MAX_PAGE_ORDER),
			.first = pinned ? 1 : 0,
		};
		if (pinned && i < nsecs) {
			bench_trans_pinned[i] = pfn_to_page(t->pfn);
			if (!bench_trans_take(bench_trans_pinned[i])) {
				bench_trans_pinned[i] = NULL;
				err = -EBUSY;
			}
		}
		tasks[i] = kthread_create_on_cpu(bench_trans_fn, t, cpu,
						 "pasr_bench/%u");
		if (IS_ERR(tasks[i])) {
			err = PTR_ERR(tasks[i]);
			break;
		}
		/* the thread may exit before kthread_stop() */
		get_task_struct(tasks[i]);
		i++;
	}
	started = i;
	if (!err && started < nthreads)
		err = -ENODEV;
	/* Threads that will not run count as done. */
	for (i = started; i < nthreads; i++)
		atomic_dec(&bench_trans_running);
	for (i = 0; i < started; i++)
		wake_up_process(tasks[i]);

	bench_calls_snapshot(&calls0, &upd0);
	cb0 = atomic64_read(&bench_trans_callbacks);
	t0 = ktime_get_ns();
	complete_all(&bench_trans_start);
	if (started)
		wait_for_completion(&bench_trans_done);
	t1 = ktime_get_ns();
	bench_calls_snapshot(&calls1, &upd1);
	cb1 = atomic64_read(&bench_trans_callbacks);

	for (i = 0; i < started; i++) {
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
		skipped += bench_trans_threads[i].skipped;
		if (bench_trans_threads[i].err)
			err = bench_trans_threads[i].err;
	}
	for (i = 0; i < nthreads; i++)
		if (bench_trans_pinned[i])
			bench_trans_give(bench_trans_pinned[i]);
	if (err) {
		bench_error("trans mode=%s threads=%u round=%d error=%d\n",
			    mode, nthreads, round, err);
		return false;
	}
	if (round >= 0)
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: trans mode=%s threads=%u round=%d sections=%d cycles=%u ns=%llu hook_calls=%llu mask_updates=%llu callbacks=%llu skipped=%lu\n",
			       mode, nthreads, round, min_t(int, nsecs, nthreads),
			       nthreads * BENCH_TRANS_CYCLES, t1 - t0,
			       calls1 - calls0, upd1 - upd0, cb1 - cb0, skipped);
	return true;
}

static void bench_transitions(void)
{
	struct pasr_section_info *secs = bench_trans_secs;
	unsigned int cpus = num_online_cpus(), nthreads[2] = { 1, cpus };
	bool registered[BENCH_TRANS_MAX_DIES] = { };
	static const char * const modes[2] = { "pinned", "transitions" };
	int m, n, r, nsecs, found = 0;
	u64 t0;

	if (!pasr_is_on()) {
		bench_error("trans error=pasr-off\n");
		return;
	}
	bench_trans_reporting = static_key_enabled(&pasr_reporting_key);
	nsecs = min_t(unsigned int, cpus, ARRAY_SIZE(bench_trans_secs));
	/* reporting: free sections count free once page reporting ran */
	for (t0 = ktime_get_ns(); ktime_get_ns() - t0 < BENCH_TRANS_WAIT_NS;
	     msleep(100)) {
		found = bench_trans_sections(secs, nsecs);
		if (found == nsecs || !bench_trans_reporting)
			break;
	}
	nsecs = found;
	if (!nsecs) {
		bench_error("trans error=no-entirely-free-section\n");
		return;
	}
	bench_register(registered);
	seq_buf_printf(&bench_buf,
		       "PASR-BENCH: trans-info backend=%s cpus=%u sections=%d block_bytes=%lu section_bytes=%llu\n",
		       bench_trans_reporting ? "reporting" : "hooks", cpus, nsecs,
		       PAGE_SIZE << MAX_PAGE_ORDER, secs[0].size);
	for (n = 0; n < (cpus > 1 ? 2 : 1); n++) {
		for (m = 0; m < 2; m++) {
			/* warm-up round (-1), not printed */
			for (r = -1; r < BENCH_ROUNDS; r++) {
				cond_resched();
				if (!bench_trans_round(modes[m], m == 0,
						       nthreads[n], r, secs,
						       nsecs))
					goto out;
			}
		}
	}
out:
	bench_unregister(registered);
}

/*
 * Latency: from a section becoming entirely free to its mask raised. Every
 * max-order block of an entirely free, masked section is taken off the free
 * lists (the mask drops at once), then all are put back, and page reporting
 * is told as a free tells it. The time until the section is masked again is
 * the latency: an irq_work with the hooks; page reporting's delay and runs
 * with the reporting backend. Polled every 20-50 us of guest time.
 */
#define BENCH_LAT_BLOCKS	64
#define BENCH_LAT_MAX_NS	(60ULL * NSEC_PER_SEC)

static struct page *bench_lat_pages[BENCH_LAT_BLOCKS];

/* Whether section @i is masked, polled for up to BENCH_LAT_MAX_NS. */
static bool bench_lat_wait_masked(int i, u64 t0)
{
	struct pasr_section_info s;

	while (pasr_section_snapshot(i, &s) && !s.masked) {
		if (ktime_get_ns() - t0 > BENCH_LAT_MAX_NS)
			return false;
		usleep_range(20, 50);
	}
	return true;
}

static void bench_latency(void)
{
	bool registered[BENCH_TRANS_MAX_DIES] = { };
	struct pasr_section_info s, *secs = bench_trans_secs;
	unsigned long pfn, n, k;
	int r, i;
	u64 t0;

	if (!pasr_is_on()) {
		bench_error("latency error=pasr-off\n");
		return;
	}
	bench_register(registered);
	for (r = 0; r < BENCH_ROUNDS; r++) {
		if (bench_trans_sections(secs, 1) != 1) {
			bench_error("latency round=%d error=no-entirely-free-section\n", r);
			break;
		}
		i = pasr_section_of(secs[0].start);
		n = secs[0].size >> (PAGE_SHIFT + MAX_PAGE_ORDER);
		if (i < 0 || n > BENCH_LAT_BLOCKS) {
			bench_error("latency round=%d error=section-too-large\n", r);
			break;
		}
		/* reporting: the section may be free but not reported yet */
		if (!bench_lat_wait_masked(i, ktime_get_ns())) {
			bench_error("latency round=%d error=never-masked\n", r);
			break;
		}
		pfn = PHYS_PFN(secs[0].start);
		for (k = 0; k < n; k++) {
			bench_lat_pages[k] = pfn_to_page(pfn + (k << MAX_PAGE_ORDER));
			if (!bench_trans_take(bench_lat_pages[k]))
				break;
		}
		if (k < n || !pasr_section_snapshot(i, &s) || s.masked) {
			while (k--)
				bench_trans_put_back(bench_lat_pages[k], false);
			bench_error("latency round=%d error=%s\n", r,
				    k < n ? "block-in-use" : "still-masked");
			break;
		}
		t0 = ktime_get_ns();
		for (k = 0; k < n; k++)
			bench_trans_put_back(bench_lat_pages[k], false);
		page_reporting_notify_free(MAX_PAGE_ORDER);
		if (!bench_lat_wait_masked(i, t0)) {
			bench_error("latency round=%d error=not-masked-within-60s\n", r);
			break;
		}
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: latency round=%d section=%d blocks=%lu ns=%llu\n",
			       r, i, n, ktime_get_ns() - t0);
	}
	bench_unregister(registered);
}

/*
 * /sys/kernel/debug/pasr_bench/freeable: which sections could be emptied,
 * for the ideal of the power part of "make bench". A section holds
 * unmovable memory when a page in it is in use (a reference held) and is
 * neither on an LRU list, nor anonymous, nor a non-LRU movable page, nor in
 * ZONE_MOVABLE (which holds movable allocations only; pages reserved there
 * at boot do count): no migration can empty it. The anonymous and
 * ZONE_MOVABLE tests keep pages that are off the LRU only while being
 * migrated (by the governor, say) from counting. A page missing from the
 * memory map (a hole) counts as unmovable too. Entirely free sections and
 * sections the governor reserved count as freeable. A lockless snapshot,
 * like compaction's scanner.
 */
static bool bench_section_unmovable(const struct pasr_section_info *s)
{
	unsigned long pfn = PHYS_PFN(s->start), end = PHYS_PFN(s->start + s->size);
	unsigned int order;
	struct page *page;

	while (pfn < end) {
		page = pfn_to_online_page(pfn);
		if (!page)
			return true;
		if (PageBuddy(page)) {
			order = buddy_order_unsafe(page);
			pfn += order <= MAX_PAGE_ORDER ? 1UL << order : 1;
			continue;
		}
		if (page_count(page) && !PageLRU(page) && !PageAnon(page) &&
		    !__PageMovable(page) &&
		    (page_zonenum(page) != ZONE_MOVABLE || PageReserved(page)))
			return true;
		pfn++;
	}
	return false;
}

static int bench_freeable_show(struct seq_file *m, void *v)
{
	struct pasr_section_info s;
	int i, freeable = 0;
	char c;

	seq_puts(m, "map=");
	for (i = 0; pasr_section_snapshot(i, &s); i++) {
		if (s.free == s.size)
			c = 'F';	/* entirely free */
		else if (pasr_gov_reserved(i))
			c = 'R';	/* held empty by the governor */
		else if (!bench_section_unmovable(&s))
			c = 'm';	/* free and movable memory only */
		else
			c = 'U';	/* holds unmovable memory */
		freeable += c != 'U';
		seq_putc(m, c);
		cond_resched();
	}
	seq_printf(m, " sections=%d freeable=%d\n", i, freeable);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_freeable);
#endif

enum bench_part { BENCH_ALLOC, BENCH_TRANSITIONS, BENCH_LATENCY };

/* One part: the allocator and per-call cases, the transitions or latency. */
static void bench_run(enum bench_part part)
{
	int i, cpu;

	seq_buf_init(&bench_buf, bench_out, sizeof(bench_out));
	bench_failed = false;
	cpu = get_cpu();
	put_cpu();
	seq_buf_printf(&bench_buf,
		       "PASR-BENCH: info pasr=%s max_order=%d page_size=%lu rounds=%d cpu=%d\n",
		       bench_pasr_state(), MAX_PAGE_ORDER, PAGE_SIZE,
		       BENCH_ROUNDS, cpu);
	if (part != BENCH_ALLOC) {
#ifdef CONFIG_PASR
		if (part == BENCH_TRANSITIONS)
			bench_transitions();
		else
			bench_latency();
#else
		bench_error("%s error=no-pasr\n",
			    part == BENCH_TRANSITIONS ? "trans" : "latency");
#endif
	} else {
		for (i = 0; i < ARRAY_SIZE(bench_alloc_cases); i++)
			bench_alloc(&bench_alloc_cases[i]);
#ifdef CONFIG_PASR
		for (i = 0; i < ARRAY_SIZE(bench_call_cases); i++)
			bench_calls(&bench_call_cases[i]);
#endif
	}
	if (seq_buf_has_overflowed(&bench_buf))
		bench_failed = true;
	seq_buf_printf(&bench_buf, "PASR-BENCH: end%s\n",
		       seq_buf_has_overflowed(&bench_buf) ? " truncated" : "");
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char cmd[16] = {};
	enum bench_part part;
	bool failed;

	if (copy_from_user(cmd, ubuf, min(len, sizeof(cmd) - 1)))
		return -EFAULT;
	if (sysfs_streq(cmd, "run"))
		part = BENCH_ALLOC;
	else if (sysfs_streq(cmd, "transitions"))
		part = BENCH_TRANSITIONS;
	else if (sysfs_streq(cmd, "latency"))
		part = BENCH_LATENCY;
	else
		return -EINVAL;
	mutex_lock(&bench_mutex);
	bench_run(part);
	failed = bench_failed;
	mutex_unlock(&bench_mutex);
	return failed ? -EIO : len;
}

static ssize_t bench_run_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_out,
				      seq_buf_used(&bench_buf));
	mutex_unlock(&bench_mutex);
	return ret;
}

static const struct file_operations bench_run_fops = {
	.owner = THIS_MODULE,
	.read = bench_run_read,
	.write = bench_run_write,
	.llseek = default_llseek,
};

static int bench_now_get(void *data, u64 *val)
{
	*val = ktime_get_ns();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bench_now_fops, bench_now_get, NULL, "%llu\n");

static int __init pasr_bench_init(void)
{
	struct dentry *dir = debugfs_create_dir("pasr_bench", NULL);

	seq_buf_init(&bench_buf, bench_out, sizeof(bench_out));
	debugfs_create_file("run", 0600, dir, NULL, &bench_run_fops);
	debugfs_create_file_unsafe("now_ns", 0444, dir, NULL, &bench_now_fops);
#ifdef CONFIG_PASR
	debugfs_create_file("freeable", 0444, dir, NULL, &bench_freeable_fops);
#endif
	return 0;
}
late_initcall(pasr_bench_init);
