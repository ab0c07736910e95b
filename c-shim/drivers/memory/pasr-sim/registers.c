// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: the mode registers. The PASR core's mask
 * callback latches values in them; with a "memory-region" they also live in
 * reserved memory, which survives a kexec as hardware registers do.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "internal.h"

/* Tells this kernel's bindings from another kernel's, in the registers. */
static u64 pasr_sim_boot_id;

/*
 * The PASR mask callback: the core calls it with its raw spinlock held and
 * interrupts off, from the buddy allocator. It only latches the value.
 */
void pasr_sim_write_mr(u64 value, void *cookie)
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

void pasr_sim_read_mr(struct pasr_sim_die *d, struct pasr_sim_mr *out)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&d->sim->lock, flags);
	out->mr = d->mr;
	out->prev = d->prev_mr;
	out->writes = d->writes;
	raw_spin_unlock_irqrestore(&d->sim->lock, flags);
}

/* Prints the writes recorded since the last call, up to the log limit. */
void pasr_sim_log_writes(struct pasr_sim *sim)
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

/*
 * Prints every die's mode register: its final value when the controller
 * lets go (@why: shutdown, panic, unbind). Without locks: in a panic, a
 * stopped CPU may hold sim->lock, and the value is one aligned word.
 */
void pasr_sim_print_final(struct pasr_sim *sim, const char *why)
{
	int i;

	for (i = 0; i < sim->ndies; i++)
		pr_info("die %d MR value %#llx (%s)\n", sim->dies[i].index,
			READ_ONCE(sim->dies[i].mr), why);
}

/*
 * Maps the registers of "memory-region", if the node has one, and prints
 * what the previous kernel (before a kexec or a crash kexec) left in them:
 * a value other than 0 is a die it left partly unrefreshed.
 */
struct pasr_sim_regs *pasr_sim_map_regs(struct device *dev)
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
