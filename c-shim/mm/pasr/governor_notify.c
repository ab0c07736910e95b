// SPDX-License-Identifier: GPL-2.0
/*
 * PASR evacuation governor: its answers to the rest of mm. Reservations go
 * back under memory pressure (a shrinker), all at once at OOM, and before
 * the memory they are in goes offline; before the system sleeps, the
 * governor evacuates what it can while tasks still run.
 */

#define pr_fmt(fmt) "pasr: governor: " fmt

#include <linux/init.h>
#include <linux/memory.h>
#include <linux/notifier.h>
#include <linux/oom.h>
#include <linux/shrinker.h>
#include <linux/suspend.h>

#include "governor.h"

static unsigned long pasr_gov_count(struct shrinker *sh,
				    struct shrink_control *sc)
{
	unsigned long n = pasr_gov_reserved_pages_now();

	return n ? n : SHRINK_EMPTY;
}

static unsigned long pasr_gov_scan(struct shrinker *sh,
				   struct shrink_control *sc)
{
	unsigned long freed = pasr_gov_give_back_pages(sc->nr_to_scan);

	return freed ? freed : SHRINK_STOP;
}

static int pasr_gov_oom(struct notifier_block *nb, unsigned long action,
			void *parm)
{
	*(unsigned long *)parm += pasr_gov_give_back_pages(ULONG_MAX);
	return NOTIFY_OK;
}

static struct notifier_block pasr_gov_oom_nb = {
	.notifier_call = pasr_gov_oom,
};

#ifdef CONFIG_MEMORY_HOTPLUG
/*
 * Memory about to go offline: give back the reservations in it. Their pages
 * go to the free lists of the pageblocks offlining has just isolated, where
 * offlining takes them like any free page; held, they would make it fail.
 * Offlining cannot begin during an evacuation step, which holds
 * get_online_mems().
 */
static int pasr_gov_memory(struct notifier_block *nb, unsigned long action,
			   void *arg)
{
	struct memory_notify *mn = arg;

	if (action == MEM_GOING_OFFLINE)
		pasr_gov_give_back_range(mn->start_pfn,
					 mn->start_pfn + mn->nr_pages);
	return NOTIFY_OK;
}
#endif

#ifdef CONFIG_PM_SLEEP
/* Evacuate what can be before the system sleeps, while tasks still run. */
static int pasr_gov_pm(struct notifier_block *nb, unsigned long action,
		       void *data)
{
	if (action == PM_SUSPEND_PREPARE && pasr_gov_is_enabled())
		pasr_gov_trigger();
	return NOTIFY_OK;
}

static struct notifier_block pasr_gov_pm_nb = {
	.notifier_call = pasr_gov_pm,
};
#endif

/* Returns -ENOMEM without a shrinker: then nothing is registered. */
int __init pasr_gov_notify_init(void)
{
	struct shrinker *sh = shrinker_alloc(0, "pasr-governor");

	if (!sh)
		return -ENOMEM;
	sh->count_objects = pasr_gov_count;
	sh->scan_objects = pasr_gov_scan;
	sh->seeks = 0;
	shrinker_register(sh);
	register_oom_notifier(&pasr_gov_oom_nb);
#ifdef CONFIG_MEMORY_HOTPLUG
	hotplug_memory_notifier(pasr_gov_memory, DEFAULT_CALLBACK_PRI);
#endif
#ifdef CONFIG_PM_SLEEP
	register_pm_notifier(&pasr_gov_pm_nb);
#endif
	return 0;
}
