// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller with Partial Array Self-Refresh, for QEMU and
 * for testing the PASR core (mm/pasr/). Bound by the "linux,lpddr-pasr-sim"
 * device-tree node, see
 * Documentation/devicetree/bindings/memory-controllers/linux,lpddr-pasr-sim.yaml.
 *
 * For every PASR die it registers a mask callback that latches the value the
 * core hands over in a simulated mode register (MR16/MR17 for bank- and
 * segment-selective dies, the single/double-ended PASR field otherwise).
 *
 * Self-refresh entry (system suspend, or a write to
 * /sys/kernel/debug/pasr-sim/self_refresh) behaves like the DRAM would:
 * with every CPU stopped, the sections the mode registers leave unrefreshed
 * lose their contents. Before that, every max-order block of those sections
 * is checked to be a free buddy block; any other block is a PASR accounting
 * bug, which is reported loudly and counted. Real DRAM would then corrupt
 * whatever that block holds; the simulator overwrites the free pages and the
 * unmapped page-cache pages (file data, which tests can read back) of such a
 * block, and spares the pages the kernel itself uses, so that the test
 * kernel survives to report the bug. In a section the evacuation governor
 * holds as a reservation (CONFIG_PASR_GOVERNOR), every page must be free or
 * held by the governor (an order-0 page with one reference, in no page cache
 * and mapped nowhere): those hold no data and are overwritten too. Every
 * byte of every page overwritten is lost, as in real DRAM: nothing that
 * reads free memory later (init_on_free, page poisoning) can be fooled by
 * a page that kept most of its old contents.
 *
 * Full refresh comes back when the controller lets go of its dies: on
 * unbind, the PASR core hands every die value 0 as the driver unregisters;
 * on reboot, power-off and panic, the core's notifiers do. The driver prints
 * each die's final value then ("die N MR value 0x0 (shutdown)"), so that the
 * tests can check it. With a "memory-region", the mode registers also live
 * in reserved memory, which survives a kexec or a crash kexec as hardware
 * registers do: the next kernel's driver prints what it finds there
 * ("die N MR value 0x0 (left by the previous kernel)").
 *
 * A power model estimates the self-refresh power (IDD6 x VDD) of every die
 * from the fraction of it still refreshed, and the energy PASR saved over
 * the time spent in (simulated) self-refresh.
 *
 * This loses data on purpose. Never bind it on real hardware.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/kasan.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/memory_hotplug.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mod_devicetable.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_reserved_mem.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/panic.h>
#include <linux/page-flags.h>
#include <linux/panic_notifier.h>
#include <linux/pasr.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <linux/syscore_ops.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "pasr-sim.h"

/*
 * What unrefreshed DRAM rows read back as in the simulation. Chosen to differ
 * from zero, from 0xff and from every pattern in include/linux/poison.h, so
 * that a corruption found later is recognisably this one.
 */
#define PASR_SIM_POISON		0xd5

/* Mode-register writes logged per die; later ones are only counted. */
#define PASR_SIM_LOG_WRITES	8
/* The log work polls the write records once a second for this long. */
#define PASR_SIM_LOG_POLLS	30
/* Violations described one by one per self-refresh entry. */
#define PASR_SIM_MAX_FINDINGS	8
/* Longest simulated self-refresh accepted from debugfs: one day, in ms. */
#define PASR_SIM_MAX_MS		(24ULL * 3600 * 1000)

/*
 * The mode registers as the hardware keeps them, across a kexec or a crash
 * kexec: in the reserved memory of the node's optional "memory-region",
 * which no kernel clears. A kernel that starts finds the values the last one
 * left. PASR_SIM_REGS_MAGIC marks a page some kernel has written.
 */
#define PASR_SIM_REGS_MAGIC	0x3152534d49535250ULL	/* "PRSIMSR1" */
#define PASR_SIM_REGS_DIES	16

struct pasr_sim_regs {
	u64 magic;
	u64 owner;			/* boot id of the kernel that bound last */
	u64 ndies;			/* its dies */
	u64 mr[PASR_SIM_REGS_DIES];
};

/* Tells this kernel's bindings from another kernel's, in the registers. */
static u64 pasr_sim_boot_id;

enum { PASR_SIM_85C, PASR_SIM_45C, PASR_SIM_TEMPS };

static const char *const pasr_sim_temp_names[PASR_SIM_TEMPS] = { "85c", "45c" };

/* Mobile LPDDR datasheet IDD6 (self-refresh) currents, in uA. */
static const u32 pasr_sim_default_idd6[PASR_SIM_TEMPS][PASR_SIM_POINTS] = {
	[PASR_SIM_85C] = { 1000, 750, 600, 550, 500 },
	[PASR_SIM_45C] = { 500, 440, 380, 350, 330 },
};

#define PASR_SIM_DEFAULT_UV	1800000

static const char *const pasr_sim_idd6_props[PASR_SIM_TEMPS] = {
	"linux,idd6-85c-microamp", "linux,idd6-45c-microamp",
};

static const char *const pasr_sim_mode_names[] = {
	"bank", "segment", "single", "double",
};

struct pasr_sim;

/*
 * A die as the simulated hardware is built: from its own die@ node, never
 * from the PASR core, as a real controller has its own geometry.
 */
struct pasr_sim_die {
	struct pasr_sim *sim;
	int index;			/* die@ node, in order */
	u64 base, size;
	u32 sections;
	enum pasr_sim_mode mode;
	u32 idd6[PASR_SIM_TEMPS][PASR_SIM_POINTS];
	bool registered;
	/* The simulated mode register, written by pasr_sim_write_mr(). */
	u64 mr, prev_mr, writes;
	u64 log_val[PASR_SIM_LOG_WRITES];
	u64 logged;			/* writes printed so far */
	/* Unrefreshed sections at the last self-refresh entry. */
	u32 sr_lost, sr_sections;
	/* PARC with parc_unmask_delay_ms: a value not applied yet. */
	u64 pending_mr, pending_at_ns;
	bool pending;
};

/* Two address ranges whose data is spread over two dies' sections. */
struct pasr_sim_ilv {
	u64 a, b, size;
};

#define PASR_SIM_MAX_ILVS	16

struct pasr_sim_finding {
	int die, bit;
	unsigned long pfn;
	unsigned long flags;
	int refcount;
	int order;			/* buddy order if PageBuddy, else -1 */
	bool valid;
};

/* One self-refresh entry, filled in with every CPU stopped. */
struct pasr_sim_entry {
	struct pasr_sim *sim;
	u64 blocks, violations, poisoned_pages, data_pages, spared_pages;
	u64 reserved_pages, lost_bytes;
	u32 bad_sections, mr_invalid;
	int nfindings;
	struct pasr_sim_finding findings[PASR_SIM_MAX_FINDINGS];
};

struct pasr_sim {
	struct device *dev;
	int ndies;
	struct pasr_sim_die *dies;
	int nilvs;
	struct pasr_sim_ilv ilvs[PASR_SIM_MAX_ILVS];
	u32 vdd_uv;
	/* Orders mode-register writes (under the PASR lock) and readers. */
	raw_spinlock_t lock;
	/* Serialises self-refresh entries and the statistics below. */
	struct mutex sr_mutex;
	u64 entries, suspend_entries, violations, last_violations;
	u64 poisoned_pages, data_pages, spared_pages, mr_invalid;
	u64 reserved_pages;
	u64 sr_ms, saved_pj[PASR_SIM_TEMPS];
	u64 suspend_start_ns;
	bool in_suspend;
	/* A system suspend's entry, armed by the noirq callback (see there). */
	struct pasr_sim_entry *armed;
	struct syscore syscore;
	struct dentry *debugfs;
	struct delayed_work log_work;
	unsigned int log_polls;
	struct notifier_block panic_nb;
	struct notifier_block pm_nb;
	struct pasr_sim_regs *regs;	/* NULL without "memory-region" */
	/*
	 * PARC: the thread that loses masked sections while the system runs,
	 * set and cleared under @lock, and woken by a value that masks more.
	 */
	struct task_struct *parc_thread;
	bool parc_kicked;
	u64 parc_passes, parc_pages, parc_last_pass_ms, parc_kicks;
};

/* Only one controller: debugfs names are global. */
static struct pasr_sim *pasr_sim_instance;

/*
 * pasr_sim.parc=1: the dies also mask refresh while the system runs, as
 * LPDDR5 partial-array auto-refresh (PARC) does: a masked section loses its
 * contents at once, not at the next self-refresh entry.
 * pasr_sim.parc_unmask_delay_ms=N (test only): values take effect N ms late,
 * as with a driver that latches them and registers without saying so; PARC
 * then loses data, which is why the core refuses PASR_DIE_RUNTIME with
 * PASR_DIE_LATCHED.
 */
static bool pasr_sim_parc;
module_param_named(parc, pasr_sim_parc, bool, 0444);
static unsigned int pasr_sim_parc_delay_ms;
module_param_named(parc_unmask_delay_ms, pasr_sim_parc_delay_ms, uint, 0444);

/* Pause between two PARC passes over the masked sections. */
#define PASR_SIM_PARC_PAUSE_MS	10

/* ---- pure helpers (KUnit: pasr-sim-test.c) ------------------------------- */

static u64 pasr_sim_all(u32 sections)
{
	return sections >= 64 ? ~0ULL : (1ULL << sections) - 1;
}

/**
 * pasr_sim_decode_mr - the sections a mode-register value leaves unrefreshed
 * @mode: PASR mode of the die (enum pasr_sim_mode)
 * @sections: sections of the die, 1..64
 * @mr: the register value the PASR core handed over
 * @lost: the unrefreshed sections, bit i for section i
 *
 * Bank- and segment-selective: @mr is the mask. Single- and double-ended:
 * bits 0-1 hold log2 of the refreshed fraction's denominator; the rest of the
 * die, from the top, or from the bottom if bit 2 is set (double-ended only),
 * is unrefreshed.
 *
 * Return: false if @mr is not a legal value for the die (*@lost is then 0).
 */
bool pasr_sim_decode_mr(int mode, u32 sections, u64 mr, u64 *lost)
{
	u64 all = pasr_sim_all(sections);
	u32 k, kept;

	*lost = 0;
	if (sections == 0 || sections > 64)
		return false;
	switch (mode) {
	case PASR_SIM_BANK:
	case PASR_SIM_SEGMENT:
		if (mr & ~all)
			return false;
		*lost = mr;
		return true;
	case PASR_SIM_SINGLE:
	case PASR_SIM_DOUBLE:
		if (mr & ~7ULL)
			return false;
		if ((mr & 4) && mode != PASR_SIM_DOUBLE)
			return false;
		k = mr & 3;
		if (k == 0)
			return !(mr & 4);
		if (sections % (1U << k))
			return false;
		kept = sections >> k;
		if (mr & 4)
			*lost = all >> kept;		/* bottom part */
		else
			*lost = all & ~((1ULL << kept) - 1);	/* top part */
		return true;
	default:
		return false;
	}
}

/**
 * pasr_sim_idd6_na - self-refresh current of a partly refreshed die
 * @table: IDD6 in uA with 1, 1/2, 1/4, 1/8 and 1/16 of the die refreshed
 * @refreshed: sections still refreshed
 * @sections: sections of the die
 *
 * Linear interpolation in the refreshed fraction between the table's points;
 * below 1/16 the 1/16 current applies (the periphery's self-refresh current
 * does not go away).
 *
 * Return: the current in nA.
 */
u64 pasr_sim_idd6_na(const u32 table[PASR_SIM_POINTS], u32 refreshed,
		     u32 sections)
{
	u64 r = refreshed, s = sections;
	s64 lo, hi, num;
	int k;

	if (s == 0 || r >= s)
		return (u64)table[0] * 1000;
	if (r * 16 < s)
		return (u64)table[PASR_SIM_POINTS - 1] * 1000;
	/* The segment [1/2^(k+1), 1/2^k] holding r/s. */
	for (k = 0; k < PASR_SIM_POINTS - 2; k++)
		if ((r << (k + 1)) >= s)
			break;
	hi = (s64)table[k] * 1000;
	lo = (s64)table[k + 1] * 1000;
	/* (r/s - 1/2^(k+1)) / (1/2^k - 1/2^(k+1)) = (r * 2^(k+1) - s) / s */
	num = (hi - lo) * (s64)((r << (k + 1)) - s);
	return lo + div64_s64(num, s);
}

/* Power in nW of a current in nA at a voltage in uV. */
u64 pasr_sim_power_nw(u64 na, u32 uv)
{
	return div_u64(na * uv, 1000000);
}

/*
 * A device-tree IDD6 table: every current 1 uA .. 1 A, and never higher with
 * less of the die refreshed.
 */
int pasr_sim_check_table(const u32 table[PASR_SIM_POINTS])
{
	int i;

	for (i = 0; i < PASR_SIM_POINTS; i++) {
		if (table[i] == 0 || table[i] > PASR_SIM_MAX_UA)
			return -ERANGE;
		if (i && table[i] > table[i - 1])
			return -EINVAL;
	}
	return 0;
}

/* ---- the mode registers -------------------------------------------------- */

/*
 * The PASR mask callback: the core calls it with its raw spinlock held and
 * interrupts off, from the buddy allocator. It only latches the value.
 */
static void pasr_sim_write_mr(u64 value, void *cookie)
{
	struct pasr_sim_die *d = cookie;
	unsigned long flags;
	u64 lost, kept;

	if (d->sim->regs && d->index < PASR_SIM_REGS_DIES)
		WRITE_ONCE(d->sim->regs->mr[d->index], value);
	/*
	 * A panic or a crash kexec calls with the other CPUs stopped, one of
	 * which may hold the lock: latch without it.
	 */
	if (unlikely(oops_in_progress)) {
		WRITE_ONCE(d->mr, value);
		return;
	}
	raw_spin_lock_irqsave(&d->sim->lock, flags);
	if (unlikely(pasr_sim_parc_delay_ms)) {
		d->pending_mr = value;
		d->pending_at_ns = ktime_get_mono_fast_ns() +
				   (u64)pasr_sim_parc_delay_ms * NSEC_PER_MSEC;
		d->pending = true;
	} else {
		/* PARC loses a newly masked section now, not a pause later. */
		if (d->sim->parc_thread &&
		    pasr_sim_decode_mr(d->mode, d->sections, value, &lost) &&
		    (!pasr_sim_decode_mr(d->mode, d->sections, d->mr, &kept) ||
		     (lost & ~kept))) {
			WRITE_ONCE(d->sim->parc_kicked, true);
			WRITE_ONCE(d->sim->parc_kicks, d->sim->parc_kicks + 1);
			wake_up_process(d->sim->parc_thread);
		}
		d->prev_mr = d->mr;
		d->mr = value;
	}
	if (d->writes < PASR_SIM_LOG_WRITES)
		d->log_val[d->writes] = value;
	d->writes++;
	raw_spin_unlock_irqrestore(&d->sim->lock, flags);
}

struct pasr_sim_mr {
	u64 mr, prev, writes;
};

static void pasr_sim_read_mr(struct pasr_sim_die *d, struct pasr_sim_mr *out)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&d->sim->lock, flags);
	out->mr = d->mr;
	out->prev = d->prev_mr;
	out->writes = d->writes;
	raw_spin_unlock_irqrestore(&d->sim->lock, flags);
}

/* Prints the writes recorded since the last call, up to the log limit. */
static void pasr_sim_log_writes(struct pasr_sim *sim)
{
	int i;

	for (i = 0; i < sim->ndies; i++) {
		struct pasr_sim_die *d = &sim->dies[i];
		u64 vals[PASR_SIM_LOG_WRITES], from, to, writes, w;
		unsigned long flags;

		raw_spin_lock_irqsave(&sim->lock, flags);
		writes = d->writes;
		from = d->logged;
		to = min_t(u64, writes, PASR_SIM_LOG_WRITES);
		memcpy(vals, d->log_val, sizeof(vals));
		d->logged = max(from, to);
		if (writes > PASR_SIM_LOG_WRITES &&
		    d->logged == PASR_SIM_LOG_WRITES)
			d->logged++;	/* say "not logged" once */
		raw_spin_unlock_irqrestore(&sim->lock, flags);

		for (w = from; w < to; w++)
			pr_info("die %d MR value %#llx (write %llu)\n",
				d->index, vals[w], w + 1);
		if (from <= PASR_SIM_LOG_WRITES && writes > PASR_SIM_LOG_WRITES)
			pr_info("die %d: further MR writes are counted, not logged (debugfs pasr-sim/status)\n",
				d->index);
	}
}

/* ---- PARC: masked sections lose their contents while the system runs ---- */

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
static bool pasr_sim_section_range(const struct pasr_sim_die *d, int bit,
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

/* ---- power model --------------------------------------------------------- */

struct pasr_sim_power {
	u64 now_nw[PASR_SIM_TEMPS], full_nw[PASR_SIM_TEMPS];
};

static void pasr_sim_die_power(struct pasr_sim *sim, struct pasr_sim_die *d,
			       u32 lost, u32 sections,
			       struct pasr_sim_power *p)
{
	int t;

	lost = min(lost, sections);
	for (t = 0; t < PASR_SIM_TEMPS; t++) {
		u64 now = pasr_sim_idd6_na(d->idd6[t], sections - lost, sections);
		u64 full = pasr_sim_idd6_na(d->idd6[t], sections, sections);

		p->now_nw[t] = pasr_sim_power_nw(now, sim->vdd_uv);
		p->full_nw[t] = pasr_sim_power_nw(full, sim->vdd_uv);
	}
}

static void pasr_sim_add_power(struct pasr_sim_power *sum,
			       const struct pasr_sim_power *p)
{
	int t;

	for (t = 0; t < PASR_SIM_TEMPS; t++) {
		sum->now_nw[t] += p->now_nw[t];
		sum->full_nw[t] += p->full_nw[t];
	}
}

/* Saving against full refresh, in tenths of a percent. */
static u64 pasr_sim_saving_pm(u64 full, u64 now)
{
	if (!full || now >= full)
		return 0;
	return div64_u64((full - now) * 1000, full);
}

/* The unrefreshed sections of a die according to its mode register now. */
static u32 pasr_sim_lost_now(struct pasr_sim_die *d, struct pasr_sim_mr *mr,
			     u64 *lost_mask)
{
	pasr_sim_read_mr(d, mr);
	pasr_sim_decode_mr(d->mode, d->sections, mr->mr, lost_mask);
	return hweight64(*lost_mask);
}

static void pasr_sim_seq_power(struct seq_file *m, const struct pasr_sim_power *p);

/*
 * The power of every die and the sum; with @m, also one status line per die
 * (debugfs status).
 */
static void pasr_sim_total_power(struct pasr_sim *sim,
				 struct pasr_sim_power *sum, u32 *lost,
				 u32 *sections, u64 *writes, struct seq_file *m)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	*lost = *sections = 0;
	*writes = 0;
	for (i = 0; i < sim->ndies; i++) {
		struct pasr_sim_die *d = &sim->dies[i];
		struct pasr_sim_power p;
		struct pasr_sim_mr mr;
		u64 mask;
		u32 n = pasr_sim_lost_now(d, &mr, &mask);

		pasr_sim_die_power(sim, d, n, d->sections, &p);
		pasr_sim_add_power(sum, &p);
		*lost += n;
		*sections += d->sections;
		*writes += mr.writes;
		if (!m)
			continue;
		seq_printf(m, "die %d base %#llx size %#llx mode %s sections %u mr %#llx writes %llu prev %#llx lost_mask %#llx masked %u refreshed %u/%u",
			   d->index, d->base, d->size,
			   pasr_sim_mode_names[d->mode], d->sections, mr.mr,
			   mr.writes, mr.prev, mask, n, d->sections - n,
			   d->sections);
		pasr_sim_seq_power(m, &p);
		seq_putc(m, '\n');
	}
}

/*
 * A fixed-point value split for "%llu.%03u" (or "%llu.%u"): div_u64_rem(), as
 * a 64-bit division is a libgcc call that 32-bit ARM kernels do not link.
 */
struct pasr_sim_fixed {
	u64 whole;
	u32 frac;
};

static struct pasr_sim_fixed pasr_sim_fixed(u64 v, u32 one)
{
	struct pasr_sim_fixed f;

	f.whole = div_u64_rem(v, one, &f.frac);
	return f;
}

static void pasr_sim_print_power(struct pasr_sim *sim, const char *when)
{
	struct pasr_sim_fixed now85, full85, s85, now45, full45, s45;
	struct pasr_sim_power p;
	u32 lost, sections;
	u64 writes;

	pasr_sim_total_power(sim, &p, &lost, &sections, &writes, NULL);
	now85 = pasr_sim_fixed(p.now_nw[PASR_SIM_85C], 1000);
	full85 = pasr_sim_fixed(p.full_nw[PASR_SIM_85C], 1000);
	s85 = pasr_sim_fixed(pasr_sim_saving_pm(p.full_nw[PASR_SIM_85C],
						p.now_nw[PASR_SIM_85C]), 10);
	now45 = pasr_sim_fixed(p.now_nw[PASR_SIM_45C], 1000);
	full45 = pasr_sim_fixed(p.full_nw[PASR_SIM_45C], 1000);
	s45 = pasr_sim_fixed(pasr_sim_saving_pm(p.full_nw[PASR_SIM_45C],
						p.now_nw[PASR_SIM_45C]), 10);
	pr_info("%s: %u/%u sections unrefreshed; self-refresh power %llu.%03u uW at 85C (full refresh %llu.%03u uW, saving %llu.%u%%), %llu.%03u uW at 45C (full %llu.%03u uW, saving %llu.%u%%)\n",
		when, lost, sections,
		now85.whole, now85.frac, full85.whole, full85.frac,
		s85.whole, s85.frac,
		now45.whole, now45.frac, full45.whole, full45.frac,
		s45.whole, s45.frac);
}

static void pasr_sim_log_work(struct work_struct *work)
{
	struct pasr_sim *sim = container_of(to_delayed_work(work),
					    struct pasr_sim, log_work);

	pasr_sim_log_writes(sim);
	if (++sim->log_polls < PASR_SIM_LOG_POLLS)
		schedule_delayed_work(&sim->log_work, HZ);
	else
		pasr_sim_print_power(sim, "after boot");
}

/* ---- self-refresh entry: check and lose the unrefreshed sections --------- */

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
static int pasr_sim_enter_stopped(void *data)
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

static void pasr_sim_sat_add(u64 *acc, u64 v)
{
	if (check_add_overflow(*acc, v, acc))
		*acc = U64_MAX;
}

/* Energy saved over @ms of self-refresh with the sections lost at entry. */
static void pasr_sim_account(struct pasr_sim *sim, u64 ms)
{
	int i, t;

	pasr_sim_sat_add(&sim->sr_ms, ms);
	for (i = 0; i < sim->ndies; i++) {
		struct pasr_sim_die *d = &sim->dies[i];
		struct pasr_sim_power p;

		pasr_sim_die_power(sim, d, d->sr_lost, d->sr_sections, &p);
		for (t = 0; t < PASR_SIM_TEMPS; t++) {
			u64 pj;

			/* nW x ms = pJ */
			if (check_mul_overflow(p.full_nw[t] - p.now_nw[t], ms, &pj))
				pj = U64_MAX;
			pasr_sim_sat_add(&sim->saved_pj[t], pj);
		}
	}
}

/* Counts and reports one self-refresh entry; returns its violations. */
static long pasr_sim_entered(struct pasr_sim *sim, struct pasr_sim_entry *e,
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
static long pasr_sim_run_entry(struct pasr_sim *sim, struct pasr_sim_entry *e,
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
static long pasr_sim_enter(struct pasr_sim *sim, const char *why)
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

/* ---- system suspend: the DRAM goes into self-refresh --------------------- */

/*
 * The DRAM enters self-refresh as late as each suspend path allows, so that
 * what any device's noirq callback allocates, after this device's own, is
 * judged too:
 *  - suspend to idle: after every device's noirq suspend (the s2idle
 *    prepare_late hook), with the other CPUs stopped;
 *  - suspend to RAM and the hibernation snapshot: in syscore suspend, where
 *    one CPU runs with interrupts off.
 * The noirq callback arms the entry with what those hooks may not allocate.
 */
static void pasr_sim_suspended(struct pasr_sim *sim, long found)
{
	/* A failed entry must not stop the system from suspending. */
	sim->in_suspend = found >= 0;
	if (sim->in_suspend) {
		sim->suspend_entries++;
		sim->suspend_start_ns = ktime_get_boottime_ns();
	}
}

static void pasr_sim_resumed(struct pasr_sim *sim)
{
	u64 ms;

	if (!sim->in_suspend)
		return;
	ms = div_u64(ktime_get_boottime_ns() - sim->suspend_start_ns,
		     NSEC_PER_MSEC);
	pasr_sim_account(sim, ms);
	sim->in_suspend = false;
	pr_info("self-refresh exit after %llu ms\n", ms);
}

/* Takes the armed entry, if a suspend armed one and none ran it yet. */
static struct pasr_sim_entry *pasr_sim_take_armed(struct pasr_sim *sim)
{
	struct pasr_sim_entry *e = sim->armed;

	sim->armed = NULL;
	return e;
}

static int pasr_sim_suspend_noirq(struct device *dev)
{
	struct pasr_sim *sim = dev_get_drvdata(dev);
	struct pasr_sim_entry *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (e)
		e->sim = sim;
	else
		pr_err("suspend: no memory for the self-refresh entry: not simulated\n");
	mutex_lock(&sim->sr_mutex);
	kfree(pasr_sim_take_armed(sim));
	sim->armed = e;
	mutex_unlock(&sim->sr_mutex);
	return 0;
}

/*
 * Suspend to idle: every device's noirq callback has run; the CPUs still
 * run. Probing is blocked and no task can unbind, so the instance stays.
 */
static int pasr_sim_s2idle_prepare_late(void)
{
	struct pasr_sim *sim = pasr_sim_instance;
	struct pasr_sim_entry *e;

	if (!sim)
		return 0;
	mutex_lock(&sim->sr_mutex);
	e = pasr_sim_take_armed(sim);
	if (e)
		pasr_sim_suspended(sim, pasr_sim_run_entry(sim, e, "suspend"));
	mutex_unlock(&sim->sr_mutex);
	kfree(e);
	return 0;
}

/*
 * No platform the simulator runs on (QEMU virt, with a DT) has s2idle ops of
 * its own; a real controller's driver has no reason to set them. Set once,
 * at init: probe holds the device lock, which suspend takes after the
 * system sleep lock that s2idle_set_ops() takes.
 */
static const struct platform_s2idle_ops pasr_sim_s2idle_ops = {
	.prepare_late = pasr_sim_s2idle_prepare_late,
};

/*
 * Suspend to RAM, the hibernation snapshot: the other CPUs are offline and
 * interrupts are off, so no page can change (as under stop_machine()), and
 * no task runs to hold sr_mutex: the frozen ones left it before freezing.
 */
static int pasr_sim_syscore_suspend(void *data)
{
	struct pasr_sim *sim = data;
	struct pasr_sim_entry *e = pasr_sim_take_armed(sim);

	if (!e)
		return 0;
	pasr_sim_enter_stopped(e);
	pasr_sim_suspended(sim, pasr_sim_entered(sim, e, "suspend"));
	kfree(e);
	return 0;
}

static const struct syscore_ops pasr_sim_syscore_ops = {
	.suspend = pasr_sim_syscore_suspend,
};

/*
 * Ends a suspend: frees the entry a suspend that stopped before it left
 * armed, and, if @resumed, counts the time spent in self-refresh.
 */
static void pasr_sim_finish(struct pasr_sim *sim, bool resumed)
{
	mutex_lock(&sim->sr_mutex);
	kfree(pasr_sim_take_armed(sim));
	if (resumed)
		pasr_sim_resumed(sim);
	mutex_unlock(&sim->sr_mutex);
}

static int pasr_sim_resume_noirq(struct device *dev)
{
	pasr_sim_finish(dev_get_drvdata(dev), false);
	return 0;
}

/*
 * A suspend's self-refresh is counted once every device has resumed: where
 * no clocksource runs in suspend (32-bit ARM virt), the RTC's resume adds
 * the time slept to the boot-time clock only then.
 */
static int pasr_sim_pm_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	if (action == PM_POST_SUSPEND)
		pasr_sim_finish(container_of(nb, struct pasr_sim, pm_nb), true);
	return NOTIFY_DONE;
}

/* Hibernation: the snapshot is taken, or the image is back. */
static int pasr_sim_thaw_noirq(struct device *dev)
{
	pasr_sim_finish(dev_get_drvdata(dev), true);
	return 0;
}

/*
 * Hibernation: this kernel's memory, the mode registers' shadow with it,
 * comes back from the image, while the DRAM kept whatever the kernel that
 * loaded the image wrote last. With "memory-region", the registers are in
 * memory that no image holds: take the values from there, as a driver of
 * real hardware would find them.
 */
static int pasr_sim_restore_noirq(struct device *dev)
{
	struct pasr_sim *sim = dev_get_drvdata(dev);
	unsigned long flags;
	int i;

	if (sim->regs) {
		raw_spin_lock_irqsave(&sim->lock, flags);
		for (i = 0; i < sim->ndies; i++) {
			struct pasr_sim_die *d = &sim->dies[i];

			if (d->index >= PASR_SIM_REGS_DIES)
				continue;
			d->prev_mr = d->mr;
			d->mr = READ_ONCE(sim->regs->mr[d->index]);
			d->pending = false;
		}
		raw_spin_unlock_irqrestore(&sim->lock, flags);
		for (i = 0; i < sim->ndies; i++)
			pr_info("die %d MR value %#llx (after restore)\n",
				sim->dies[i].index, sim->dies[i].mr);
	}
	return pasr_sim_thaw_noirq(dev);
}

static const struct dev_pm_ops pasr_sim_pm_ops = {
	.suspend_noirq = pasr_sim_suspend_noirq,
	.resume_noirq = pasr_sim_resume_noirq,
	.freeze_noirq = pasr_sim_suspend_noirq,
	.thaw_noirq = pasr_sim_thaw_noirq,
	.poweroff_noirq = pasr_sim_suspend_noirq,
	.restore_noirq = pasr_sim_restore_noirq,
};

/* ---- debugfs: /sys/kernel/debug/pasr-sim/ --------------------------------- */

static void pasr_sim_seq_uw(struct seq_file *m, const char *key, u64 nw)
{
	struct pasr_sim_fixed uw = pasr_sim_fixed(nw, 1000);

	seq_printf(m, " %s %llu.%03u", key, uw.whole, uw.frac);
}

static void pasr_sim_seq_power(struct seq_file *m, const struct pasr_sim_power *p)
{
	char key[24];
	int t;

	for (t = 0; t < PASR_SIM_TEMPS; t++) {
		snprintf(key, sizeof(key), "power_%s_uw", pasr_sim_temp_names[t]);
		pasr_sim_seq_uw(m, key, p->now_nw[t]);
		snprintf(key, sizeof(key), "full_%s_uw", pasr_sim_temp_names[t]);
		pasr_sim_seq_uw(m, key, p->full_nw[t]);
	}
	for (t = 0; t < PASR_SIM_TEMPS; t++) {
		struct pasr_sim_fixed pc =
			pasr_sim_fixed(pasr_sim_saving_pm(p->full_nw[t], p->now_nw[t]), 10);

		seq_printf(m, " saving_%s %llu.%u%%", pasr_sim_temp_names[t],
			   pc.whole, pc.frac);
	}
}

static int pasr_sim_status_show(struct seq_file *m, void *v)
{
	struct pasr_sim *sim = m->private;
	struct pasr_sim_power sum;
	u32 lost_total, sections_total;
	u64 writes;

	seq_printf(m, "# power: IDD6 x VDD (%u uV), interpolated in the refreshed fraction; unit uW\n",
		   sim->vdd_uv);
	pasr_sim_total_power(sim, &sum, &lost_total, &sections_total, &writes, m);
	seq_printf(m, "total dies %d writes %llu masked %u refreshed %u/%u",
		   sim->ndies, writes, lost_total, sections_total - lost_total,
		   sections_total);
	pasr_sim_seq_power(m, &sum);
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_sim_status);

static void pasr_sim_seq_uj(struct seq_file *m, const char *key, u64 pj)
{
	struct pasr_sim_fixed uj = pasr_sim_fixed(div_u64(pj, 1000), 1000);

	seq_printf(m, "%s %llu.%03u\n", key, uj.whole, uj.frac);
}

static int pasr_sim_sr_show(struct seq_file *m, void *v)
{
	struct pasr_sim *sim = m->private;

	mutex_lock(&sim->sr_mutex);
	seq_printf(m, "entries %llu\n", sim->entries);
	seq_printf(m, "suspend_entries %llu\n", sim->suspend_entries);
	seq_printf(m, "violations %llu\n", sim->violations);
	seq_printf(m, "last_violations %llu\n", sim->last_violations);
	seq_printf(m, "self_refresh_ms %llu\n", sim->sr_ms);
	pasr_sim_seq_uj(m, "energy_saved_85c_uj", sim->saved_pj[PASR_SIM_85C]);
	pasr_sim_seq_uj(m, "energy_saved_45c_uj", sim->saved_pj[PASR_SIM_45C]);
	seq_printf(m, "poisoned_pages %llu\n", sim->poisoned_pages);
	seq_printf(m, "data_pages_lost %llu\n", sim->data_pages);
	seq_printf(m, "spared_pages %llu\n", sim->spared_pages);
	seq_printf(m, "reserved_pages_lost %llu\n", sim->reserved_pages);
	seq_printf(m, "mr_invalid %llu\n", sim->mr_invalid);
	seq_printf(m, "parc_passes %llu\n", READ_ONCE(sim->parc_passes));
	seq_printf(m, "parc_pages_lost %llu\n", READ_ONCE(sim->parc_pages));
	seq_printf(m, "parc_last_pass_ms %llu\n", READ_ONCE(sim->parc_last_pass_ms));
	seq_printf(m, "parc_kicks %llu\n", READ_ONCE(sim->parc_kicks));
	mutex_unlock(&sim->sr_mutex);
	return 0;
}

static int pasr_sim_sr_open(struct inode *inode, struct file *file)
{
	return single_open(file, pasr_sim_sr_show, inode->i_private);
}

/* Write a duration in ms: enter self-refresh for that long (simulated). */
static ssize_t pasr_sim_sr_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct pasr_sim *sim = ((struct seq_file *)file->private_data)->private;
	long found;
	u64 ms;
	int ret;

	ret = kstrtou64_from_user(buf, count, 0, &ms);
	if (ret || ms > PASR_SIM_MAX_MS) {
		pr_err("self_refresh: expected a duration in ms, 0..%llu\n",
		       PASR_SIM_MAX_MS);
		return -EINVAL;
	}
	mutex_lock(&sim->sr_mutex);
	found = pasr_sim_enter(sim, "debugfs");
	if (found >= 0)
		pasr_sim_account(sim, ms);
	mutex_unlock(&sim->sr_mutex);
	if (found < 0)
		return found;
	pasr_sim_print_power(sim, "self-refresh");
	return count;
}

static const struct file_operations pasr_sim_sr_fops = {
	.owner = THIS_MODULE,
	.open = pasr_sim_sr_open,
	.read = seq_read,
	.write = pasr_sim_sr_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int pasr_sim_violations_show(struct seq_file *m, void *v)
{
	struct pasr_sim *sim = m->private;

	mutex_lock(&sim->sr_mutex);
	seq_printf(m, "%llu\n", sim->violations);
	mutex_unlock(&sim->sr_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_sim_violations);

/* ---- probe ---------------------------------------------------------------- */

/* Reads an IDD6 table property of @np into @table if present and valid. */
static void pasr_sim_read_idd6(struct device_node *np, const char *prop,
			       u32 table[PASR_SIM_POINTS])
{
	u32 t[PASR_SIM_POINTS];
	int n = of_property_count_u32_elems(np, prop);

	if (n == -EINVAL)	/* absent */
		return;
	if (n != PASR_SIM_POINTS ||
	    of_property_read_u32_array(np, prop, t, PASR_SIM_POINTS)) {
		pr_err("%pOF: %s: expected %d cells (uA at 1, 1/2, 1/4, 1/8, 1/16 refreshed); ignored\n",
		       np, prop, PASR_SIM_POINTS);
		return;
	}
	if (pasr_sim_check_table(t)) {
		pr_err("%pOF: %s: <%u %u %u %u %u>: each value must be 1..%u uA and none above the one before; ignored\n",
		       np, prop, t[0], t[1], t[2], t[3], t[4], PASR_SIM_MAX_UA);
		return;
	}
	memcpy(table, t, sizeof(t));
}

/* Reads the linux,pasr-interleave triplets <A B SIZE> of die node @dn. */
static int pasr_sim_read_ilvs(struct pasr_sim *sim, struct device_node *dn)
{
	int ac = of_n_addr_cells(dn), sc = of_n_size_cells(dn);
	int cells = 2 * ac + sc, len, i;
	const __be32 *p = of_get_property(dn, "linux,pasr-interleave", &len);

	if (!p)
		return 0;
	len /= sizeof(*p);
	if (len % cells || sim->nilvs + len / cells > PASR_SIM_MAX_ILVS)
		return -EINVAL;
	for (i = 0; i < len; i += cells) {
		struct pasr_sim_ilv *l = &sim->ilvs[sim->nilvs++];

		l->a = of_read_number(p + i, ac);
		l->b = of_read_number(p + i + ac, ac);
		l->size = of_read_number(p + i + 2 * ac, sc);
	}
	return 0;
}

/* The die of die@ node @dn, as the simulated hardware is built. */
static int pasr_sim_read_die(struct pasr_sim *sim, struct device_node *dn,
			     struct pasr_sim_die *d)
{
	const char *mode = "bank";
	int m;

	d->sections = 8;
	if (of_property_read_reg(dn, 0, &d->base, &d->size) || !d->size)
		return -EINVAL;
	of_property_read_u32(dn, "linux,pasr-sections", &d->sections);
	of_property_read_string(dn, "linux,pasr-mode", &mode);
	m = match_string(pasr_sim_mode_names, ARRAY_SIZE(pasr_sim_mode_names),
			 mode);
	if (m < 0 || !d->sections || d->sections > 64 ||
	    pasr_sim_read_ilvs(sim, dn))
		return -EINVAL;
	d->mode = m;
	return 0;
}

/* How the PASR core must see @d to hand it values it reads right. */
static void pasr_sim_desc(struct pasr_sim_die *d, struct pasr_die_desc *desc)
{
	static const enum pasr_mode modes[] = {
		[PASR_SIM_BANK] = PASR_MODE_BANK,
		[PASR_SIM_SEGMENT] = PASR_MODE_SEGMENT,
		[PASR_SIM_SINGLE] = PASR_MODE_SINGLE,
		[PASR_SIM_DOUBLE] = PASR_MODE_DOUBLE,
	};

	desc->base = d->base;
	desc->size = d->size;
	desc->sections = d->sections;
	desc->mode = modes[d->mode];
	desc->flags = pasr_sim_parc ? PASR_DIE_RUNTIME : 0;
}

static void pasr_sim_setup_model(struct pasr_sim *sim, struct device_node *np)
{
	u32 base_idd6[PASR_SIM_TEMPS][PASR_SIM_POINTS];
	u32 uv;
	int i, t;

	memcpy(base_idd6, pasr_sim_default_idd6, sizeof(base_idd6));
	sim->vdd_uv = PASR_SIM_DEFAULT_UV;
	if (!of_property_read_u32(np, "linux,vdd-microvolt", &uv)) {
		if (uv && uv <= PASR_SIM_MAX_UV)
			sim->vdd_uv = uv;
		else
			pr_err("%pOF: linux,vdd-microvolt = <%u>: must be 1..%u; using %u\n",
			       np, uv, PASR_SIM_MAX_UV, PASR_SIM_DEFAULT_UV);
	}
	for (t = 0; t < PASR_SIM_TEMPS; t++)
		pasr_sim_read_idd6(np, pasr_sim_idd6_props[t], base_idd6[t]);

	i = 0;
	for_each_available_child_of_node_scoped(np, dn) {
		struct pasr_sim_die *d;

		if (!of_node_name_eq(dn, "die") || i == sim->ndies)
			continue;
		d = &sim->dies[i++];
		memcpy(d->idd6, base_idd6, sizeof(d->idd6));
		for (t = 0; t < PASR_SIM_TEMPS; t++)
			pasr_sim_read_idd6(dn, pasr_sim_idd6_props[t], d->idd6[t]);
	}
}

/*
 * Prints every die's mode register: its final value when the controller
 * lets go (@why: shutdown, panic, unbind). Without locks: in a panic, a
 * stopped CPU may hold sim->lock, and the value is one aligned word.
 */
static void pasr_sim_print_final(struct pasr_sim *sim, const char *why)
{
	int i;

	for (i = 0; i < sim->ndies; i++)
		pr_info("die %d MR value %#llx (%s)\n", sim->dies[i].index,
			READ_ONCE(sim->dies[i].mr), why);
}

/* After the PASR core's panic notifier, which restores full refresh. */
static int pasr_sim_panic_notify(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	pasr_sim_print_final(container_of(nb, struct pasr_sim, panic_nb),
			     "panic");
	return NOTIFY_DONE;
}

static void pasr_sim_unregister(struct pasr_sim *sim)
{
	int i;

	for (i = 0; i < sim->ndies; i++) {
		if (sim->dies[i].registered)
			pasr_unregister_mask_function(sim->dies[i].base);
		sim->dies[i].registered = false;
	}
}

/*
 * Maps the registers of "memory-region", if the node has one, and prints
 * what the previous kernel (before a kexec or a crash kexec) left in them:
 * a value other than 0 is a die it left partly unrefreshed.
 */
static struct pasr_sim_regs *pasr_sim_map_regs(struct device *dev)
{
	struct device_node *rn = of_parse_phandle(dev->of_node, "memory-region", 0);
	struct reserved_mem *rmem = rn ? of_reserved_mem_lookup(rn) : NULL;
	struct pasr_sim_regs *regs;
	u64 i;

	of_node_put(rn);
	if (!rn)
		return NULL;
	BUILD_BUG_ON(sizeof(*regs) > PAGE_SIZE);
	if (!rmem || rmem->size < PAGE_SIZE) {
		dev_err(dev, "memory-region: not a reserved-memory region of a page or more\n");
		return ERR_PTR(-EINVAL);
	}
	regs = devm_memremap(dev, rmem->base, sizeof(*regs), MEMREMAP_WB);
	if (IS_ERR(regs))
		return regs;
	if (regs->magic != PASR_SIM_REGS_MAGIC ||
	    regs->ndies > PASR_SIM_REGS_DIES) {
		memset(regs, 0, sizeof(*regs));
		regs->magic = PASR_SIM_REGS_MAGIC;
		pr_info("mode registers at %pa: no previous kernel's values\n",
			&rmem->base);
	}
	if (!pasr_sim_boot_id)
		pasr_sim_boot_id = get_random_u64() | 1;
	for (i = 0; i < regs->ndies; i++)
		pr_info("die %llu MR value %#llx (left by the %s)\n", i,
			regs->mr[i], regs->owner == pasr_sim_boot_id ?
			"last binding" : "previous kernel");
	regs->owner = pasr_sim_boot_id;
	return regs;
}

static int pasr_sim_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct pasr_sim_regs *regs;
	struct pasr_sim *sim;
	int i, n, ret;

	if (pasr_sim_instance) {
		dev_err(dev, "only one simulated PASR controller is supported\n");
		return -EBUSY;
	}
	/* what the hardware holds, whether PASR is on in this kernel or not */
	regs = pasr_sim_map_regs(dev);
	if (IS_ERR(regs))
		return PTR_ERR(regs);
	if (pasr_die_count() <= 0) {
		dev_warn(dev, "PASR is not enabled (no valid DDR layout): nothing to control\n");
		return -ENODEV;
	}
	if (pasr_sim_parc && debug_pagealloc_enabled_static()) {
		dev_err(dev, "PARC: not with debug_pagealloc, which unmaps free pages: off\n");
		pasr_sim_parc = false;
	}
	n = 0;
	for_each_available_child_of_node_scoped(dev->of_node, dn)
		n += of_node_name_eq(dn, "die");
	if (!n) {
		dev_err(dev, "no die@ nodes: nothing to control\n");
		return -ENODEV;
	}

	sim = devm_kzalloc(dev, sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	sim->dies = devm_kcalloc(dev, n, sizeof(*sim->dies), GFP_KERNEL);
	if (!sim->dies)
		return -ENOMEM;
	sim->dev = dev;
	sim->ndies = n;
	if (regs) {
		regs->ndies = min(n, PASR_SIM_REGS_DIES);
		sim->regs = regs;
	}
	raw_spin_lock_init(&sim->lock);
	mutex_init(&sim->sr_mutex);
	INIT_DELAYED_WORK(&sim->log_work, pasr_sim_log_work);

	i = 0;
	for_each_available_child_of_node_scoped(dev->of_node, dn) {
		struct pasr_sim_die *d;

		if (!of_node_name_eq(dn, "die"))
			continue;
		d = &sim->dies[i];
		d->sim = sim;
		d->index = i++;
		if (pasr_sim_read_die(sim, dn, d)) {
			dev_err(dev, "%pOF: bad reg, linux,pasr-sections, -mode or -interleave\n",
				dn);
			return -EINVAL;
		}
	}
	pasr_sim_setup_model(sim, dev->of_node);

	for (i = 0; i < n; i++) {
		struct pasr_sim_die *d = &sim->dies[i];
		const u32 *a = d->idd6[PASR_SIM_85C], *b = d->idd6[PASR_SIM_45C];
		struct pasr_die_desc desc;

		pr_info("die %d: [mem %#010llx-%#010llx] %s, %u sections; IDD6 85C %u/%u/%u/%u/%u uA, 45C %u/%u/%u/%u/%u uA at 1..1/16 refreshed, VDD %u uV\n",
			i, d->base, d->base + d->size - 1,
			pasr_sim_mode_names[d->mode], d->sections,
			a[0], a[1], a[2], a[3], a[4], b[0], b[1], b[2], b[3], b[4],
			sim->vdd_uv);
		pasr_sim_desc(d, &desc);
		ret = pasr_register_die(&desc, pasr_sim_write_mr, d);
		/* refused: the die keeps its reset value, full refresh */
		if (ret)
			dev_err(dev, "die %d at %#llx: not registered (%d): fully refreshed\n",
				i, d->base, ret);
		d->registered = !ret;
	}

	platform_set_drvdata(pdev, sim);
	pasr_sim_instance = sim;
	sim->syscore.ops = &pasr_sim_syscore_ops;
	sim->syscore.data = sim;
	register_syscore(&sim->syscore);
	pasr_sim_log_writes(sim);
	pasr_sim_print_power(sim, "probe");

	sim->debugfs = debugfs_create_dir("pasr-sim", NULL);
	debugfs_create_file("status", 0444, sim->debugfs, sim,
			    &pasr_sim_status_fops);
	debugfs_create_file("self_refresh", 0600, sim->debugfs, sim,
			    &pasr_sim_sr_fops);
	debugfs_create_file("violations", 0444, sim->debugfs, sim,
			    &pasr_sim_violations_fops);
	schedule_delayed_work(&sim->log_work, HZ);
	sim->panic_nb.notifier_call = pasr_sim_panic_notify;
	sim->panic_nb.priority = INT_MIN;
	atomic_notifier_chain_register(&panic_notifier_list, &sim->panic_nb);
	sim->pm_nb.notifier_call = pasr_sim_pm_notify;
	register_pm_notifier(&sim->pm_nb);
	if (pasr_sim_parc) {
		struct task_struct *t = kthread_run(pasr_sim_parc_fn, sim,
						    "pasr-sim-parc");
		unsigned long flags;

		if (IS_ERR(t)) {
			dev_err(dev, "PARC: no thread (%ld): masks apply in self-refresh only\n",
				PTR_ERR(t));
		} else {
			raw_spin_lock_irqsave(&sim->lock, flags);
			sim->parc_thread = t;
			raw_spin_unlock_irqrestore(&sim->lock, flags);
			pr_info("PARC: masked sections lose their contents while the system runs%s\n",
				pasr_sim_parc_delay_ms ? " (test: values applied late)" : "");
		}
	}
	return 0;
}

static void pasr_sim_remove(struct platform_device *pdev)
{
	struct pasr_sim *sim = platform_get_drvdata(pdev);
	struct task_struct *t;
	unsigned long flags;

	/* No mask write wakes the thread once it is cleared. */
	raw_spin_lock_irqsave(&sim->lock, flags);
	t = sim->parc_thread;
	sim->parc_thread = NULL;
	raw_spin_unlock_irqrestore(&sim->lock, flags);
	if (t)
		kthread_stop(t);
	atomic_notifier_chain_unregister(&panic_notifier_list, &sim->panic_nb);
	unregister_pm_notifier(&sim->pm_nb);
	debugfs_remove_recursive(sim->debugfs);
	cancel_delayed_work_sync(&sim->log_work);
	/* The core hands each die value 0, then no longer calls into sim. */
	pasr_sim_unregister(sim);
	pasr_sim_print_final(sim, "unbind");
	unregister_syscore(&sim->syscore);
	pasr_sim_instance = NULL;
}

/* device_shutdown() runs after the reboot notifiers, the PASR core's too. */
static void pasr_sim_shutdown(struct platform_device *pdev)
{
	struct pasr_sim *sim = platform_get_drvdata(pdev);

	if (sim)
		pasr_sim_print_final(sim, "shutdown");
}

static const struct of_device_id pasr_sim_of_match[] = {
	{ .compatible = "linux,lpddr-pasr-sim" },
	{ }
};
MODULE_DEVICE_TABLE(of, pasr_sim_of_match);

static struct platform_driver pasr_sim_driver = {
	.probe = pasr_sim_probe,
	.remove = pasr_sim_remove,
	.shutdown = pasr_sim_shutdown,
	.driver = {
		.name = "pasr-sim",
		.of_match_table = pasr_sim_of_match,
		.pm = pm_sleep_ptr(&pasr_sim_pm_ops),
	},
};

static int __init pasr_sim_init(void)
{
	s2idle_set_ops(&pasr_sim_s2idle_ops);
	return platform_driver_register(&pasr_sim_driver);
}
device_initcall(pasr_sim_init);
