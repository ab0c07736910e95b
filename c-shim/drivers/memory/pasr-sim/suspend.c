// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: system suspend and hibernation, in which the
 * DRAM goes into self-refresh.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/device.h>
#include <linux/pm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>
#include <linux/syscore_ops.h>
#include <linux/timekeeping.h>

#include "internal.h"

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
const struct platform_s2idle_ops pasr_sim_s2idle_ops = {
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

const struct syscore_ops pasr_sim_syscore_ops = {
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
int pasr_sim_pm_notify(struct notifier_block *nb, unsigned long action,
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

const struct dev_pm_ops pasr_sim_pm_ops = {
	.suspend_noirq = pasr_sim_suspend_noirq,
	.resume_noirq = pasr_sim_resume_noirq,
	.freeze_noirq = pasr_sim_suspend_noirq,
	.thaw_noirq = pasr_sim_thaw_noirq,
	.poweroff_noirq = pasr_sim_suspend_noirq,
	.restore_noirq = pasr_sim_restore_noirq,
};
