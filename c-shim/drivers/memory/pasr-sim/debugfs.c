// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: /sys/kernel/debug/pasr-sim/, the mode
 * registers and the power now (status), self-refresh on demand and its
 * statistics (self_refresh), the violations found (violations) and the
 * power model's figures for every number of unrefreshed sections (power_table).
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "internal.h"

/* Longest simulated self-refresh accepted from debugfs: one day, in ms. */
#define PASR_SIM_MAX_MS		(24ULL * 3600 * 1000)

static const char *const pasr_sim_temp_names[PASR_SIM_TEMPS] = { "85c", "45c" };

static void pasr_sim_seq_uw(struct seq_file *m, const char *key, u64 nw)
{
	struct pasr_sim_fixed uw = pasr_sim_fixed(nw, 1000);

	seq_printf(m, " %s %llu.%03u", key, uw.whole, uw.frac);
}

void pasr_sim_seq_power(struct seq_file *m, const struct pasr_sim_power *p)
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

/*
 * The model's self-refresh power of each die with 0, 1, ... of its sections
 * unrefreshed, in nW, so that a benchmark prices any placement of masked
 * sections with this model instead of a copy of it.
 */
static int pasr_sim_power_table_show(struct seq_file *m, void *v)
{
	struct pasr_sim *sim = m->private;
	struct pasr_sim_power p;
	int i, t;
	u32 k;

	seq_puts(m, "# self-refresh power in nW with 0, 1, ... sections unrefreshed\n");
	for (i = 0; i < sim->ndies; i++) {
		struct pasr_sim_die *d = &sim->dies[i];

		for (t = 0; t < PASR_SIM_TEMPS; t++) {
			seq_printf(m, "die %d temp %s nw", d->index,
				   pasr_sim_temp_names[t]);
			for (k = 0; k <= d->sections; k++) {
				pasr_sim_die_power(sim, d, k, d->sections, &p);
				seq_printf(m, " %llu", p.now_nw[t]);
			}
			seq_putc(m, '\n');
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_sim_power_table);

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

void pasr_sim_debugfs_init(struct pasr_sim *sim)
{
	sim->debugfs = debugfs_create_dir("pasr-sim", NULL);
	debugfs_create_file("status", 0444, sim->debugfs, sim,
			    &pasr_sim_status_fops);
	debugfs_create_file("self_refresh", 0600, sim->debugfs, sim,
			    &pasr_sim_sr_fops);
	debugfs_create_file("violations", 0444, sim->debugfs, sim,
			    &pasr_sim_violations_fops);
	debugfs_create_file("power_table", 0444, sim->debugfs, sim,
			    &pasr_sim_power_table_fops);
}
