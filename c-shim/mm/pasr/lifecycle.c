// SPDX-License-Identifier: GPL-2.0
/*
 * PASR and the kernel's lifecycle: full refresh before a reboot, power-off,
 * halt, kexec, panic and crash kexec, and around a hibernation image's
 * restore.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/pasr.h>
#include <linux/reboot.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>

#include "internal.h"

/*
 * --- lifecycle: masks never outlive the kernel that set them ---
 *
 * Before a reboot, power-off, halt or kexec (all run the reboot notifiers),
 * on panic and before a crash kexec, every die goes back to full refresh:
 * the next kernel, firmware or crash kernel knows nothing of the masks.
 * The panic and crash paths run with the other CPUs stopped and do not take
 * the PASR lock, which a stopped CPU may hold.
 */
static int pasr_reboot_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	pasr_refresh_all(false);
	return NOTIFY_DONE;
}

static struct notifier_block pasr_reboot_nb = {
	.notifier_call = pasr_reboot_notify,
	/* before the controllers' own shutdown (device_shutdown() comes later) */
	.priority = INT_MAX,
};

/*
 * Panic and crash kexec, on the one CPU left running, interrupts off. A CPU
 * that smp_send_stop() could not stop (no pseudo-NMI) may still be inside a
 * mask update: then wait a while for the lock and keep it, so that no
 * update follows the final one. The values are written in any case.
 */
static void pasr_panic_shutdown(void)
{
	unsigned int us;

	if (num_online_cpus() > 1) {
		for (us = 0; us < USEC_PER_SEC; us++) {
			if (raw_spin_trylock(&pasr_lock))
				break;
			udelay(1);
		}
	}
	pasr_refresh_all(true);
}

static int pasr_panic_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	pasr_panic_shutdown();
	return NOTIFY_DONE;
}

static struct notifier_block pasr_panic_nb = {
	.notifier_call = pasr_panic_notify,
	.priority = INT_MAX,
};

/* Called by __crash_kexec() after machine_crash_shutdown() stopped the other CPUs. */
void pasr_crash_shutdown(void)
{
	pasr_panic_shutdown();
}

/*
 * Hibernation: the kernel that restores an image copies the image's pages
 * over memory its own masks may leave unrefreshed, and the restored kernel
 * finds the controllers holding the boot kernel's values. So the boot kernel
 * restores full refresh for good before it loads an image, and the restored
 * kernel hands every die its own value again.
 */
static int pasr_pm_notify(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	switch (action) {
	case PM_RESTORE_PREPARE:
		pasr_refresh_all(false);
		pasr_backend_off();
		break;
	case PM_POST_HIBERNATION:
		pasr_resync();
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pasr_pm_nb = {
	.notifier_call = pasr_pm_notify,
};

void __init pasr_lifecycle_init(void)
{
	register_reboot_notifier(&pasr_reboot_nb);
	atomic_notifier_chain_register(&panic_notifier_list, &pasr_panic_nb);
	register_pm_notifier(&pasr_pm_nb);
}
