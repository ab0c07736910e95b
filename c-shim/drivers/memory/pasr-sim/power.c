// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: the power model. Every die's self-refresh
 * power is IDD6 x VDD, with IDD6 interpolated in the fraction of the die
 * still refreshed (model.c), and the energy PASR saved over the time spent
 * in self-refresh.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

void pasr_sim_die_power(struct pasr_sim *sim, struct pasr_sim_die *d,
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
u64 pasr_sim_saving_pm(u64 full, u64 now)
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

/*
 * The power of every die and the sum; with @m, also one status line per die
 * (debugfs status).
 */
void pasr_sim_total_power(struct pasr_sim *sim,
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

void pasr_sim_print_power(struct pasr_sim *sim, const char *when)
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

void pasr_sim_log_work(struct work_struct *work)
{
	struct pasr_sim *sim = container_of(to_delayed_work(work),
					    struct pasr_sim, log_work);

	pasr_sim_log_writes(sim);
	if (++sim->log_polls < PASR_SIM_LOG_POLLS)
		schedule_delayed_work(&sim->log_work, HZ);
	else
		pasr_sim_print_power(sim, "after boot");
}

static void pasr_sim_sat_add(u64 *acc, u64 v)
{
	if (check_add_overflow(*acc, v, acc))
		*acc = U64_MAX;
}

/* Energy saved over @ms of self-refresh with the sections lost at entry. */
void pasr_sim_account(struct pasr_sim *sim, u64 ms)
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
