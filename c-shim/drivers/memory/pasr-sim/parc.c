// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: partial-array auto-refresh (PARC, LPDDR5), in
 * which a masked section loses its contents while the system runs.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/bitops.h>
#include <linux/highmem.h>
#include <linux/kasan.h>
#include <linux/kthread.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "internal.h"

/*
 * pasr_sim.parc=1: the dies also mask refresh while the system runs, as
 * LPDDR5 partial-array auto-refresh (PARC) does: a masked section loses its
 * contents at once, not at the next self-refresh entry.
 * pasr_sim.parc_unmask_delay_ms=N (test only): values take effect N ms late,
 * as with a driver that latches them and registers without saying so; PARC
 * then loses data, which is why the core refuses PASR_DIE_RUNTIME with
 * PASR_DIE_LATCHED.
 */
bool pasr_sim_parc;
module_param_named(parc, pasr_sim_parc, bool, 0444);
unsigned int pasr_sim_parc_delay_ms;
module_param_named(parc_unmask_delay_ms, pasr_sim_parc_delay_ms, uint, 0444);

/* Pause between two PARC passes over the masked sections. */
#define PASR_SIM_PARC_PAUSE_MS	10

/*
 * Whether section @bit of @d is unrefreshed now. Called with sim->lock held:
 * the mask callback takes it too, so once a callback that refreshes the
 * section again has returned, no page of it is touched any more, and the
 * allocator uses a page of it only after that callback.
 */
static bool pasr_sim_parc_masked(struct pasr_sim_die *d, int bit)
{
	u64 lost;

	lockdep_assert_held(&d->sim->lock);
	if (d->pending && ktime_get_mono_fast_ns() >= d->pending_at_ns) {
		d->prev_mr = d->mr;
		d->mr = d->pending_mr;
		d->pending = false;
	}
	return pasr_sim_decode_mr(d->mode, d->sections, d->mr, &lost) &&
	       (lost & BIT_ULL(bit));
}

/* Loses every byte of [@start, @start + @size) while section @bit of @d stays unrefreshed. */
static u64 pasr_sim_parc_range(struct pasr_sim_die *d, int bit, u64 start,
			       u64 size)
{
	unsigned long pfn = PHYS_PFN(start), end = PHYS_PFN(start + size);
	unsigned long flags;
	u64 n = 0;
	bool masked;

	for (; pfn < end; pfn++) {
		struct page *page = pfn_to_online_page(pfn);

		if (!page)
			continue;
		raw_spin_lock_irqsave(&d->sim->lock, flags);
		masked = pasr_sim_parc_masked(d, bit);
		if (masked) {
			/* free pages are KASAN-poisoned: this write is meant */
			kasan_disable_current();
			memset_page(page, 0, PASR_SIM_POISON, PAGE_SIZE);
			kasan_enable_current();
		}
		raw_spin_unlock_irqrestore(&d->sim->lock, flags);
		if (!masked)
			break;
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

/*
 * The ranges of addresses section @bit of @d holds data of, one per call,
 * from *@k = 0 on: its own, then, where they are interleaved with another
 * die's, the same offsets of the partner range, whose data it holds half of.
 * Returns false past the last.
 */
bool pasr_sim_section_range(const struct pasr_sim_die *d, int bit,
			    int *k, u64 *start, u64 *size)
{
	u64 len = div_u64(d->size, d->sections);
	u64 first = d->base + bit * len, end = first + len;

	if (*k == 0) {
		(*k)++;
		*start = first;
		*size = len;
		return true;
	}
	while (*k <= 2 * d->sim->nilvs) {
		const struct pasr_sim_ilv *l = &d->sim->ilvs[(*k - 1) / 2];
		bool a_side = (*k - 1) % 2 == 0;
		u64 from = a_side ? l->a : l->b, to = a_side ? l->b : l->a;
		u64 lo = max(first, from), hi = min(end, from + l->size);

		(*k)++;
		if (lo < hi) {
			*start = to + (lo - from);
			*size = hi - lo;
			return true;
		}
	}
	return false;
}

/* One pass: loses what section @bit of @d holds. */
static u64 pasr_sim_parc_section(struct pasr_sim_die *d, int bit)
{
	u64 start, size, n = 0;
	int k = 0;

	while (pasr_sim_section_range(d, bit, &k, &start, &size))
		n += pasr_sim_parc_range(d, bit, start, size);
	return n;
}

static int pasr_sim_parc_fn(void *data)
{
	struct pasr_sim *sim = data;

	while (!kthread_should_stop()) {
		u64 start = ktime_get_ns(), pages = 0, lost;
		unsigned long flags;
		int i, b;

		WRITE_ONCE(sim->parc_kicked, false);
		for (i = 0; i < sim->ndies; i++) {
			struct pasr_sim_die *d = &sim->dies[i];

			raw_spin_lock_irqsave(&sim->lock, flags);
			pasr_sim_parc_masked(d, 0);
			pasr_sim_decode_mr(d->mode, d->sections, d->mr, &lost);
			raw_spin_unlock_irqrestore(&sim->lock, flags);
			for (b = 0; b < d->sections; b++)
				if (lost & BIT_ULL(b))
					pages += pasr_sim_parc_section(d, b);
		}
		WRITE_ONCE(sim->parc_pages, sim->parc_pages + pages);
		WRITE_ONCE(sim->parc_last_pass_ms,
			   div_u64(ktime_get_ns() - start, NSEC_PER_MSEC));
		WRITE_ONCE(sim->parc_passes, sim->parc_passes + 1);
		/* A kick during the pass starts the next one at once. */
		set_current_state(TASK_INTERRUPTIBLE);
		if (!READ_ONCE(sim->parc_kicked) && !kthread_should_stop())
			schedule_timeout(msecs_to_jiffies(PASR_SIM_PARC_PAUSE_MS));
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Starts the thread that loses masked sections while the system runs. */
void pasr_sim_parc_start(struct pasr_sim *sim)
{
	struct task_struct *t = kthread_run(pasr_sim_parc_fn, sim,
					    "pasr-sim-parc");
	unsigned long flags;

	if (IS_ERR(t)) {
		dev_err(sim->dev, "PARC: no thread (%ld): masks apply in self-refresh only\n",
			PTR_ERR(t));
	} else {
		raw_spin_lock_irqsave(&sim->lock, flags);
		sim->parc_thread = t;
		raw_spin_unlock_irqrestore(&sim->lock, flags);
		pr_info("PARC: masked sections lose their contents while the system runs%s\n",
			pasr_sim_parc_delay_ms ? " (test: values applied late)" : "");
	}
}

void pasr_sim_parc_stop(struct pasr_sim *sim)
{
	struct task_struct *t;
	unsigned long flags;

	/* No mask write wakes the thread once it is cleared. */
	raw_spin_lock_irqsave(&sim->lock, flags);
	t = sim->parc_thread;
	sim->parc_thread = NULL;
	raw_spin_unlock_irqrestore(&sim->lock, flags);
	if (t)
		kthread_stop(t);
}
