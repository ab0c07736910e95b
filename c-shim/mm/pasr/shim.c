// SPDX-License-Identifier: GPL-2.0
/*
 * PASR: the C glue the Rust core (pasr.rs) cannot express in Rust on 6.12:
 * early parameters, the static keys of the two backends (the buddy hooks,
 * and free page reporting), the irq-safe raw spinlock that serialises mask
 * updates, tracepoints, sysfs and debugfs, and the verifier that walks the
 * buddy free lists. The test-only debugfs files are in test.c.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/page_reporting.h>
#include <linux/panic_notifier.h>
#include <linux/percpu.h>
#include <linux/pasr.h>
#include <linux/reboot.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#define CREATE_TRACE_POINTS
#include <trace/events/pasr.h>

#include "internal.h"

DEFINE_STATIC_KEY_FALSE(pasr_enabled_key);
DEFINE_STATIC_KEY_FALSE(pasr_reporting_key);

/* Taken only when a section enters or leaves "entirely free". */
static DEFINE_RAW_SPINLOCK(pasr_lock);

/*
 * Early parameters are kept as pointers into the early command line copy,
 * which lives until the init sections are freed, after pasr_init().
 * One more slot than the core accepts lets it name the first extra one.
 */
#define PASR_MAX_ARGS 17

static char *pasr_die_args[PASR_MAX_ARGS] __initdata;
static unsigned int pasr_ndies __initdata;
static char *pasr_ilv_args[PASR_MAX_ARGS] __initdata;
static unsigned int pasr_nilvs __initdata;
static bool pasr_off __initdata;
/* the hooks backend is the default, when built (CONFIG_PASR_HOOKS) */
static bool pasr_use_reporting __initdata = !IS_ENABLED(CONFIG_PASR_HOOKS);
static const char *pasr_backend_name __ro_after_init =
	IS_ENABLED(CONFIG_PASR_HOOKS) ? "hooks" : "reporting";

static int __init pasr_add_arg(char **args, unsigned int *n, char *val)
{
	static char empty[] __initdata = "";

	if (*n < PASR_MAX_ARGS)
		args[*n] = val ? val : empty;
	if (*n < UINT_MAX)
		(*n)++;
	return 0;
}

static int __init pasr_ddr_die_param(char *val)
{
	return pasr_add_arg(pasr_die_args, &pasr_ndies, val);
}
early_param("ddr_die", pasr_ddr_die_param);

static int __init pasr_interleaved_param(char *val)
{
	return pasr_add_arg(pasr_ilv_args, &pasr_nilvs, val);
}
early_param("interleaved", pasr_interleaved_param);

static int __init pasr_param(char *val)
{
	if (val && !strcmp(val, "off")) {
		pasr_off = true;
	} else if (!val || strcmp(val, "on")) {
		pr_err("pasr=%s: expected on or off; PASR disabled\n",
		       val ? val : "");
		pasr_off = true;
	}
	return 0;
}
early_param("pasr", pasr_param);

static int __init pasr_backend_param(char *val)
{
	/* the last one given wins, as for other parameters */
	if (val && !strcmp(val, "reporting")) {
		pasr_use_reporting = true;
	} else if (val && !strcmp(val, "hooks") &&
		   IS_ENABLED(CONFIG_PASR_HOOKS)) {
		pasr_use_reporting = false;
	} else if (val && !strcmp(val, "hooks")) {
		pr_err("pasr.backend=hooks: not built (CONFIG_PASR_HOOKS); PASR disabled\n");
		pasr_off = true;
	} else {
		pr_err("pasr.backend=%s: expected hooks or reporting; PASR disabled\n",
		       val ? val : "");
		pasr_off = true;
	}
	return 0;
}
early_param("pasr.backend", pasr_backend_param);

#ifdef CONFIG_OF
static struct pasr_dt_die pasr_dt_dies[PASR_MAX_ARGS] __initdata;

/*
 * Hands the raw die@ properties of the first "linux,pasr-ddr-layout" node to
 * the core, which decodes and validates them. Returns 1 if there is none.
 * The unflattened tree is read-only by now, so the property pointers stay
 * valid during the call.
 */
static int __init pasr_init_dt(void)
{
	struct device_node *np, *child;
	u32 addr_cells, size_cells;
	size_t n = 0;
	int ret;

	np = of_find_compatible_node(NULL, NULL, "linux,pasr-ddr-layout");
	if (!np)
		return 1;
	if (!of_device_is_available(np)) {
		of_node_put(np);
		return 1;
	}
	if (of_property_read_u32(np, "#address-cells", &addr_cells))
		addr_cells = 0;
	if (of_property_read_u32(np, "#size-cells", &size_cells))
		size_cells = 0;
	for_each_available_child_of_node(np, child) {
		struct pasr_dt_die *d = &pasr_dt_dies[n];

		if (!of_node_name_eq(child, "die"))
			continue;
		if (n == PASR_MAX_ARGS) {
			of_node_put(child);
			break;
		}
		d->name = of_node_full_name(child);
		d->reg = of_get_property(child, "reg", &d->reg_len);
		d->sections = of_get_property(child, "linux,pasr-sections",
					      &d->sections_len);
		d->mode = of_get_property(child, "linux,pasr-mode", &d->mode_len);
		d->interleave = of_get_property(child, "linux,pasr-interleave",
						&d->interleave_len);
		n++;
	}
	ret = n ? pasr_rs_init_dt(pasr_dt_dies, n, addr_cells, size_cells,
				  PAGE_SIZE << MAX_PAGE_ORDER) : 1;
	if (!n)
		pr_err("%pOF: no die@ nodes; PASR disabled\n", np);
	of_node_put(np);
	return ret;
}
#else
static int __init pasr_init_dt(void)
{
	return 1;
}
#endif

static int __init pasr_late_init(void)
{
	if (pasr_is_on())
		pasr_rs_late_init();
	return 0;
}
late_initcall(pasr_late_init);

unsigned long pasr_shim_lock(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pasr_lock, flags);
	return flags;
}

void pasr_shim_unlock(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&pasr_lock, flags);
}

u64 pasr_shim_now_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * --- reporting backend: PASR is the free page reporting device ---
 *
 * Page reporting's worker (mm/page_reporting.c) takes unreported free
 * blocks of at least the reporting order off the free lists, hands them to
 * pasr_report() in process context, and puts them back at the tail of
 * their lists, marked reported. A reported block leaves the free lists
 * only through __del_page_from_free_list(), which clears the mark and, for
 * a max-order block, calls __pasr_unreport() before the block can be used.
 * So the counters hold the reported max-order blocks: memory that holds no
 * data. Only lowering a mask is synchronous.
 */
static DEFINE_MUTEX(pasr_reporting_mutex);
static bool pasr_reporting_registered;	/* under pasr_reporting_mutex */

/* The free max-order block at @page: counted free, or used again. */
static void pasr_put_page_block(struct page *page)
{
	pasr_put(PFN_PHYS(page_to_pfn(page)), PAGE_SIZE << MAX_PAGE_ORDER);
}

static void pasr_get_page_block(struct page *page)
{
	pasr_get(PFN_PHYS(page_to_pfn(page)), PAGE_SIZE << MAX_PAGE_ORDER);
}

static int pasr_report(struct page_reporting_dev_info *prdev,
		       struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;

	/* smaller blocks come if page_reporting.page_reporting_order= asks */
	for_each_sg(sgl, sg, nents, i)
		if (sg->length == PAGE_SIZE << MAX_PAGE_ORDER)
			pasr_put_page_block(sg_page(sg));
	return 0;
}

static struct page_reporting_dev_info pasr_prdev = {
	.report = pasr_report,
	.order = MAX_PAGE_ORDER,
};

void __pasr_unreport(struct page *page)
{
	/* test-only: the block is used while PASR still counts it free */
	if (pasr_fault(PASR_FAULT_NO_UNREPORT))
		return;
	pasr_get_page_block(page);
}

/* Stops reporting; a report under way is finished (and drained) first. */
static void pasr_reporting_stop(void)
{
	mutex_lock(&pasr_reporting_mutex);
	if (pasr_reporting_registered)
		page_reporting_unregister(&pasr_prdev);
	pasr_reporting_registered = false;
	mutex_unlock(&pasr_reporting_mutex);
}

/*
 * Pauses reporting, for the verifier: the report under way finishes, its
 * blocks drained back to the free lists, and none starts until
 * pasr_reporting_unpause(). Lighter than unregistering: no RCU grace
 * period, no new PAGE_REPORTING_DELAY.
 */
static bool pasr_reporting_paused;	/* under pasr_reporting_mutex */

static void pasr_reporting_pause(void)
{
	mutex_lock(&pasr_reporting_mutex);
	if (pasr_reporting_registered) {
		disable_delayed_work_sync(&pasr_prdev.work);
		pasr_reporting_paused = true;
	}
	mutex_unlock(&pasr_reporting_mutex);
}

static void pasr_reporting_unpause(void)
{
	mutex_lock(&pasr_reporting_mutex);
	if (pasr_reporting_paused) {
		enable_delayed_work(&pasr_prdev.work);
		pasr_reporting_paused = false;
		/*
		 * Page reporting's request while paused was dropped and left
		 * its state "requested": one run, now, resumes the cycle.
		 */
		if (pasr_reporting_registered)
			schedule_delayed_work(&pasr_prdev.work, 0);
	}
	mutex_unlock(&pasr_reporting_mutex);
}

/* PASR stopped accounting (failure or refusal): no backend calls in. */
static void pasr_backend_off(void)
{
	static_branch_disable(&pasr_enabled_key);
	pasr_reporting_stop();
	static_branch_disable(&pasr_reporting_key);
}

/* Registers PASR as the reporting device; PASR gives up if it can't. */
static void __init pasr_reporting_start(void)
{
	int ret;

	mutex_lock(&pasr_reporting_mutex);
	ret = page_reporting_register(&pasr_prdev);
	pasr_reporting_registered = !ret;
	mutex_unlock(&pasr_reporting_mutex);
	if (ret) {
		pr_err("cannot register for free page reporting (%d); PASR disabled, all memory refreshed\n",
		       ret);
		pasr_rs_shutdown(false);
		pasr_backend_off();
	}
}

/*
 * --- deferred work: raising masks, reports ---
 *
 * The core runs under zone->lock when a section becomes entirely free, when
 * it finds a violation, and the debug controller's callback runs there too.
 * Raising a mask calls the controller; printk() or WARN() could take the
 * console lock and deadlock (see the comments about zone->lock and printk
 * in mm/page_alloc.c). So they only record what happened and queue an
 * irq_work, which is lock-free; the irq_work raises the masks and prints.
 * Lowering a mask stays synchronous. A violation also needs process
 * context, to turn the static key off, so it queues a work.
 */
#define PASR_VIOLATION_STACK	16

static struct {
	unsigned int section;
	int kind;
	u64 free, delta;
	unsigned long stack[PASR_VIOLATION_STACK];
	unsigned int nr_stack;
} pasr_violation;
static atomic_t pasr_violation_pending = ATOMIC_INIT(0);

static void pasr_violation_workfn(struct work_struct *work)
{
	WARN(1, "pasr: section %u: %s of %llu bytes with %llu free; PASR disabled, all memory refreshed\n",
	     pasr_violation.section, pasr_violation.kind == 1 ? "put" : "get",
	     pasr_violation.delta, pasr_violation.free);
	pr_err("the call that broke the accounting:\n");
	stack_trace_print(pasr_violation.stack, pasr_violation.nr_stack, 1);
	/* Neither backend need call into the core any more. */
	pasr_backend_off();
}

static DECLARE_WORK(pasr_violation_work, pasr_violation_workfn);

/*
 * Prints what the debug controller recorded and hands a violation to its
 * work. Never under a zone lock: lockdep checks it (a zone lock is taken
 * with interrupts off, so the irq_work cannot have interrupted its holder).
 */
static void pasr_report_print(void)
{
	struct zone *zone;

	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		for_each_populated_zone(zone)
			lockdep_assert_once(lockdep_is_held(&zone->lock) != LOCK_STATE_HELD);
	}
	pasr_rs_debug_log();
	if (atomic_read(&pasr_violation_pending) == 1) {
		atomic_set(&pasr_violation_pending, 2);
		schedule_work(&pasr_violation_work);
	}
}

static void pasr_report_irq_work(struct irq_work *work)
{
	pasr_rs_raise_pending();
	pasr_report_print();
}

static DEFINE_IRQ_WORK(pasr_report_work, pasr_report_irq_work);

void pasr_shim_defer_report(void)
{
	/* test-only: print in the caller's context, as before the deferral */
	if (pasr_fault(PASR_FAULT_REPORT_NOW)) {
		pasr_report_print();
		return;
	}
	irq_work_queue(&pasr_report_work);
}

/* Called once, by the core, which has already cleared every mask. */
void pasr_shim_violation(unsigned int section, int kind, u64 free, u64 delta)
{
	pasr_violation.section = section;
	pasr_violation.kind = kind;
	pasr_violation.free = free;
	pasr_violation.delta = delta;
	pasr_violation.nr_stack = stack_trace_save(pasr_violation.stack,
						   PASR_VIOLATION_STACK, 1);
	atomic_set_release(&pasr_violation_pending, 1);
	pasr_shim_defer_report();
}

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
	pasr_rs_shutdown(false);
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
	pasr_rs_shutdown(true);
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

/*
 * The driver-facing API, defined in the Rust core (rust/mm/pasr/pasr.rs):
 * exported so that a DDR controller driver can be a module.
 */
EXPORT_SYMBOL_GPL(pasr_register_mask_function);
EXPORT_SYMBOL_GPL(pasr_register_die);
EXPORT_SYMBOL_GPL(pasr_unregister_mask_function);
EXPORT_SYMBOL_GPL(pasr_die_count);
EXPORT_SYMBOL_GPL(pasr_die_range);
EXPORT_SYMBOL_GPL(pasr_rs_die_info);
EXPORT_SYMBOL_GPL(pasr_put);
EXPORT_SYMBOL_GPL(pasr_get);

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
		pasr_rs_shutdown(false);
		pasr_backend_off();
		break;
	case PM_POST_HIBERNATION:
		pasr_rs_resync();
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pasr_pm_nb = {
	.notifier_call = pasr_pm_notify,
};

/*
 * --- configurations PASR cannot serve ---
 *
 * init_on_free zeroes pages when they are freed and then hands them out as
 * zeroed memory (__GFP_ZERO is skipped); page poisoning checks on
 * allocation that a free page still holds its poison. Both rely on free
 * memory keeping its contents, which a section left unrefreshed in
 * self-refresh does not. PASR refuses to mask with either on, and says so.
 */
static const char *__init pasr_conflict(void)
{
	if (want_init_on_free())
		return "init_on_free";
	if (page_poisoning_enabled_static())
		return "page_poison";
	return NULL;
}

/*
 * Calls @fn(page, list, arg) for every block on the max-order free lists,
 * under its zone's lock: of every populated zone, or of @only's only, and of
 * every migratetype, or of @mt's only (@mt < 0: all). @fn may move its block
 * within @list, but only to the head: blocks behind it are still to come.
 */
typedef void (*pasr_block_fn)(struct page *page, struct list_head *list,
			      void *arg);

static void pasr_walk_free_blocks(struct zone *only, int mt,
				  pasr_block_fn fn, void *arg)
{
	struct page *page, *next;
	struct list_head *list;
	unsigned long flags;
	struct zone *zone;
	int t;

	for_each_populated_zone(zone) {
		if (only && zone != only)
			continue;
		spin_lock_irqsave(&zone->lock, flags);
		for (t = 0; t < MIGRATE_TYPES; t++) {
			if (mt >= 0 && t != mt)
				continue;
			list = &zone->free_area[MAX_PAGE_ORDER].free_list[t];
			list_for_each_entry_safe(page, next, list, buddy_list)
				fn(page, list, arg);
		}
		spin_unlock_irqrestore(&zone->lock, flags);
	}
}

/* Where the block at @page lies, for the placement rule. */
enum pasr_block_where {
	PASR_BLOCK_OUTSIDE,		/* in no section */
	PASR_BLOCK_PARTLY_FREE,		/* in a section partly counted free */
	PASR_BLOCK_ENTIRELY_FREE,	/* in a section entirely counted free */
};

static enum pasr_block_where pasr_block_where(struct page *page)
{
	struct pasr_section_info s;
	int i = pasr_rs_lookup(PFN_PHYS(page_to_pfn(page)));

	if (i < 0 || !pasr_rs_section_info(i, &s))
		return PASR_BLOCK_OUTSIDE;
	return s.free < s.size ? PASR_BLOCK_PARTLY_FREE :
				 PASR_BLOCK_ENTIRELY_FREE;
}

#ifdef CONFIG_PASR_KUNIT_TEST
bool pasr_steering_off;

/* Read by the hook on every CPU: written once, as it is read. */
void pasr_set_steering_off(bool off)
{
	WRITE_ONCE(pasr_steering_off, off);
}
#endif

/* Hooks backend: a max-order block leaves a free list (see pasr_kget()). */
void __pasr_kget(struct page *page)
{
	pasr_get_page_block(page);
}

/*
 * Hooks backend: counts the free max-order blocks the buddy allocator holds,
 * with every CPU stopped. The hooks are on already, ignored by the core
 * until now; a CPU stopped here is outside every zone->lock section, so no
 * block is between a free list and its hook: every block freed or allocated
 * before is on the lists as it is now, every one after is counted by the
 * hooks.
 */
static void __init pasr_seed_count(struct page *page, struct list_head *list,
				   void *unused)
{
	pasr_put_page_block(page);
}

/*
 * Once every block is counted: the placement rule (pasr_place() in
 * mm/page_alloc.c) for the whole list. The blocks of partly free sections,
 * and those outside every section, go to the head, so the blocks of
 * entirely free sections end up behind them. (Their order among themselves
 * is reversed, which the allocator does not care about.)
 */
static void __init pasr_seed_place(struct page *page, struct list_head *list,
				   void *unused)
{
	if (pasr_block_where(page) != PASR_BLOCK_ENTIRELY_FREE)
		list_move(&page->buddy_list, list);
}

static int __init pasr_seed_stopped(void *unused)
{
	pasr_rs_set_accounting(true);
	/* count every block first (a section may span two zones), then place */
	pasr_walk_free_blocks(NULL, -1, pasr_seed_count, NULL);
	pasr_walk_free_blocks(NULL, -1, pasr_seed_place, NULL);
	return 0;
}

static void __init pasr_start(void)
{
	if (pasr_use_reporting) {
		pasr_backend_name = "reporting";
		static_branch_enable(&pasr_reporting_key);
		/* the first reports come PAGE_REPORTING_DELAY later */
		pasr_reporting_start();
		return;
	}
	if (pasr_fault(PASR_FAULT_SEED_EARLY)) {
		/* the wrong order: an allocation between the walk and the hooks is missed */
		stop_machine(pasr_seed_stopped, NULL, NULL);
		/*
		 * The block stays allocated, on purpose: PASR counts it free,
		 * so freeing it would overflow its section's counter.
		 */
		alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER);
		static_branch_enable(&pasr_enabled_key);
		return;
	}
	pasr_rs_set_accounting(false);
	static_branch_enable(&pasr_enabled_key);
	stop_machine(pasr_seed_stopped, NULL, NULL);
}

/*
 * Bring-up, an early initcall: before the other CPUs come up and before any
 * controller probes. The map is built (boot parameters take precedence over
 * the device tree), with every section counted used, unless the
 * configuration is one PASR cannot serve; then the backend starts: the
 * hooks seed the counters from the free lists, page reporting reports what
 * is free a few seconds later.
 */
static void __init pasr_verify_layout_init(void);

static int __init pasr_init(void)
{
	const char *why;
	int ret;

	if (pasr_off) {
		pr_info("disabled by pasr=off\n");
		return 0;
	}
	if (pasr_ndies || pasr_nilvs)
		ret = pasr_rs_init(pasr_die_args, min(pasr_ndies, PASR_MAX_ARGS),
				   pasr_ilv_args, min(pasr_nilvs, PASR_MAX_ARGS),
				   PAGE_SIZE << MAX_PAGE_ORDER);
	else
		ret = pasr_init_dt();
	if (ret)
		return 0;
	pasr_verify_layout_init();
	why = pasr_conflict();
	if (why && pasr_test_unsafe_init) {
		pr_err("%s is on, but pasr_test.unsafe_init=1: masking anyway; free pages will not hold what %s expects (test only)\n",
		       why, why);
		why = NULL;
	}
	if (why) {
		pr_err("%s is on: it needs free pages to keep their contents, which unrefreshed DRAM loses; PASR disabled, all memory refreshed\n",
		       why);
		pasr_rs_shutdown(false);
		return 0;
	}
	register_reboot_notifier(&pasr_reboot_nb);
	atomic_notifier_chain_register(&panic_notifier_list, &pasr_panic_nb);
	register_pm_notifier(&pasr_pm_nb);
	/* masks are raised from irq_work, never under zone->lock */
	pasr_rs_defer_raise_on();
	pasr_start();
	pr_info("enabled (%s backend)\n", pasr_backend_name);
	return 0;
}
early_initcall(pasr_init);

/* For the live KUnit cases: a real max-order block from the buddy allocator. */
struct page *pasr_shim_alloc_block(u64 *paddr)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER);

	if (page)
		*paddr = PFN_PHYS(page_to_pfn(page));
	return page;
}

void pasr_shim_free_block(struct page *page)
{
	__free_pages(page, MAX_PAGE_ORDER);
}

/* For the live KUnit steering case: a max-order block of movable memory. */
struct page *pasr_shim_alloc_movable_block(u64 *paddr)
{
	struct page *page = alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN |
					__GFP_NORETRY, MAX_PAGE_ORDER);

	if (page)
		*paddr = PFN_PHYS(page_to_pfn(page));
	return page;
}

/*
 * For the live KUnit steering case: the free max-order blocks of sections
 * that are not entirely free, on the movable free list of the highest zone
 * that has free max-order blocks. A movable max-order allocation takes
 * these first; with steering, before any block of an entirely free section
 * of that list.
 */
static void pasr_count_partly_free(struct page *page, struct list_head *list,
				   void *n)
{
	if (pasr_block_where(page) == PASR_BLOCK_PARTLY_FREE)
		(*(int *)n)++;
}

int pasr_shim_partly_free_blocks(void)
{
	struct zone *zone, *top = NULL;
	int n = 0;

	for_each_populated_zone(zone) {
		/* A racy look is enough to pick the zone to count in. */
		if (data_race(zone->free_area[MAX_PAGE_ORDER].nr_free))
			top = zone;
	}
	if (top)
		pasr_walk_free_blocks(top, MIGRATE_MOVABLE,
				      pasr_count_partly_free, &n);
	return n;
}

/* For the live KUnit cases: whether the reporting backend counts. */
bool pasr_shim_reporting(void)
{
	return static_key_enabled(&pasr_reporting_key);
}

u64 pasr_shim_block_size(void)
{
	return PAGE_SIZE << MAX_PAGE_ORDER;
}

/*
 * The core's put and get calls per section, vmstat-style: per CPU, so that
 * the statistics dirty no shared cache line, least of all the counters'.
 */
struct pasr_calls {
	u64 puts[PASR_MAX_SECTIONS];
	u64 gets[PASR_MAX_SECTIONS];
};

static DEFINE_PER_CPU(struct pasr_calls, pasr_calls);

void pasr_shim_count_call(unsigned int section, bool put)
{
	if (put)
		this_cpu_inc(pasr_calls.puts[section]);
	else
		this_cpu_inc(pasr_calls.gets[section]);
}

void pasr_shim_calls(unsigned int section, u64 *puts, u64 *gets)
{
	int cpu;

	*puts = 0;
	*gets = 0;
	for_each_possible_cpu(cpu) {
		*puts += per_cpu(pasr_calls.puts[section], cpu);
		*gets += per_cpu(pasr_calls.gets[section], cpu);
	}
}

void pasr_shim_trace_mask(unsigned int die, u64 old, u64 new)
{
	trace_pasr_mask_update(die, old, new);
}

void pasr_shim_trace_section(unsigned int section, bool free, bool masked)
{
	trace_pasr_section_state(section, free, masked);
}

/*
 * --- the verifier's own layout ---
 *
 * The verifier judges the core, so it does not ask the core where a section
 * lies, which sections pair up, or which masks a die may take: it reads the
 * layout's source itself (the ddr_die= and interleaved= parameters, or the
 * DT's die@ nodes), cuts each die into equal sections by arithmetic, and
 * finds a section by walking its own table.
 */
struct pasr_vsect {
	u64 start, size;
	int die, bit, pair;
};

struct pasr_vdie {
	u64 base, size;
	u32 sections;
	enum pasr_mode mode;
};

static struct pasr_vdie pasr_vdies[PASR_MAX_ARGS] __ro_after_init;
static struct pasr_vsect pasr_vsects[PASR_MAX_SECTIONS] __ro_after_init;
static int pasr_nvdies __ro_after_init, pasr_nvsects __ro_after_init;
/* the layout the verifier read is not one it can judge by */
static const char *pasr_vlayout_bad __ro_after_init;

static const char *const pasr_vmode_names[] = {
	[PASR_MODE_BANK] = "bank", [PASR_MODE_SEGMENT] = "segment",
	[PASR_MODE_SINGLE] = "single", [PASR_MODE_DOUBLE] = "double",
};

/* The verifier's section holding @pa, or -1. */
static int pasr_vlookup(u64 pa)
{
	int i;

	for (i = 0; i < pasr_nvsects; i++)
		if (pa >= pasr_vsects[i].start &&
		    pa - pasr_vsects[i].start < pasr_vsects[i].size)
			return i;
	return -1;
}

static void __init pasr_vadd_die(u64 base, u64 size, u32 sections,
				 enum pasr_mode mode)
{
	struct pasr_vdie *d;
	u32 k;

	if (pasr_nvdies == PASR_MAX_ARGS || !sections || sections > 64 ||
	    pasr_nvsects + sections > PASR_MAX_SECTIONS) {
		pasr_vlayout_bad = "too many dies or sections";
		return;
	}
	d = &pasr_vdies[pasr_nvdies];
	*d = (struct pasr_vdie){ base, size, sections, mode };
	for (k = 0; k < sections; k++)
		pasr_vsects[pasr_nvsects++] = (struct pasr_vsect){
			.start = base + k * div_u64(size, sections),
			.size = div_u64(size, sections),
			.die = pasr_nvdies, .bit = k, .pair = -1,
		};
	pasr_nvdies++;
}

/* Interleaved [@a, @a + @size) and [@b, @b + @size): same offsets pair up. */
static void __init pasr_vadd_ilv(u64 a, u64 b, u64 size)
{
	u64 off = 0;
	int sa, sb;

	while (off < size) {
		sa = pasr_vlookup(a + off);
		sb = pasr_vlookup(b + off);
		if (sa < 0 || sb < 0) {
			pasr_vlayout_bad = "an interleaved range outside the dies";
			return;
		}
		pasr_vsects[sa].pair = sb;
		pasr_vsects[sb].pair = sa;
		off += pasr_vsects[sa].size;
	}
}

/* "SIZE@BASE[,sections=N][,mode=MODE]" */
static void __init pasr_vparse_die(const char *arg)
{
	u32 sections = 8;
	int mode = PASR_MODE_BANK;
	char *p = (char *)arg, *opt;
	u64 size, base;

	size = memparse(p, &p);
	if (*p++ != '@')
		goto bad;
	base = memparse(p, &p);
	while (*p == ',') {
		opt = p + 1;
		p = strchrnul(opt, ',');
		if (str_has_prefix(opt, "sections=")) {
			char num[12];

			if (p - opt - 9 >= sizeof(num))
				goto bad;
			strscpy(num, opt + 9, p - opt - 9 + 1);
			if (kstrtou32(num, 0, &sections))
				goto bad;
		} else if (str_has_prefix(opt, "mode=")) {
			for (mode = 0; mode < ARRAY_SIZE(pasr_vmode_names); mode++)
				if (p - opt - 5 == strlen(pasr_vmode_names[mode]) &&
				    !strncmp(opt + 5, pasr_vmode_names[mode], p - opt - 5))
					break;
			if (mode == ARRAY_SIZE(pasr_vmode_names))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (*p)
		goto bad;
	pasr_vadd_die(base, size, sections, mode);
	return;
bad:
	pasr_vlayout_bad = "a ddr_die= it cannot read";
}

/* "SIZE@A:B" */
static void __init pasr_vparse_ilv(const char *arg)
{
	char *p = (char *)arg;
	u64 size, a, b;

	size = memparse(p, &p);
	if (*p++ != '@')
		goto bad;
	a = memparse(p, &p);
	if (*p++ != ':')
		goto bad;
	b = memparse(p, &p);
	if (*p)
		goto bad;
	pasr_vadd_ilv(a, b, size);
	return;
bad:
	pasr_vlayout_bad = "an interleaved= it cannot read";
}

#ifdef CONFIG_OF
static void __init pasr_vread_dt(void)
{
	struct device_node *np, *dn;
	const __be32 *p;
	int ac, sc, len, i;

	np = of_find_compatible_node(NULL, NULL, "linux,pasr-ddr-layout");
	if (!np)
		return;
	for_each_available_child_of_node(np, dn) {
		const char *mode = "bank";
		u32 sections = 8;
		u64 base, size;
		int m;

		if (!of_node_name_eq(dn, "die"))
			continue;
		of_property_read_u32(dn, "linux,pasr-sections", &sections);
		of_property_read_string(dn, "linux,pasr-mode", &mode);
		m = match_string(pasr_vmode_names, ARRAY_SIZE(pasr_vmode_names), mode);
		if (of_property_read_reg(dn, 0, &base, &size) || m < 0) {
			pasr_vlayout_bad = "a die@ node it cannot read";
			continue;
		}
		pasr_vadd_die(base, size, sections, m);
	}
	/* pairs, once every die is known */
	for_each_available_child_of_node(np, dn) {
		ac = of_n_addr_cells(dn);
		sc = of_n_size_cells(dn);
		p = of_get_property(dn, "linux,pasr-interleave", &len);
		if (!p || !of_node_name_eq(dn, "die"))
			continue;
		len /= sizeof(*p);
		for (i = 0; i + 2 * ac + sc <= len; i += 2 * ac + sc)
			pasr_vadd_ilv(of_read_number(p + i, ac),
				      of_read_number(p + i + ac, ac),
				      of_read_number(p + i + 2 * ac, sc));
	}
	of_node_put(np);
}
#else
static void __init pasr_vread_dt(void)
{
}
#endif

/* The core took the layout: read it again, for the verifier. */
static void __init pasr_verify_layout_init(void)
{
	unsigned int i;

	if (pasr_ndies || pasr_nilvs) {
		for (i = 0; i < min(pasr_ndies, PASR_MAX_ARGS); i++)
			pasr_vparse_die(pasr_die_args[i]);
		for (i = 0; i < min(pasr_nilvs, PASR_MAX_ARGS); i++)
			pasr_vparse_ilv(pasr_ilv_args[i]);
	} else {
		pasr_vread_dt();
	}
	if (pasr_vlayout_bad)
		pr_warn("verify: the layout has %s: no verifier\n", pasr_vlayout_bad);
}

/*
 * The most sections of a @mode die of @n sections that may go unrefreshed
 * when @maskable may: any of them on a bank or segment die; on a single- or
 * double-ended die, the top 7/8, 3/4 or 1/2 (double-ended: or the bottom),
 * the largest first and the top before the bottom, as Documentation/mm/pasr.rst
 * says.
 */
static u64 pasr_vlegal(enum pasr_mode mode, u32 n, u64 maskable)
{
	u64 all = n >= 64 ? U64_MAX : BIT_ULL(n) - 1;
	static const u32 eighths[] = { 7, 6, 4 };
	int j;

	maskable &= all;
	if (mode == PASR_MODE_BANK || mode == PASR_MODE_SEGMENT)
		return maskable;
	for (j = 0; j < ARRAY_SIZE(eighths); j++) {
		u32 masked = n * eighths[j];
		u64 bottom, top;

		if (masked % 8)
			continue;
		masked /= 8;
		bottom = masked >= 64 ? U64_MAX : BIT_ULL(masked) - 1;
		top = all & ~(all >> masked);
		if ((maskable & top) == top)
			return top;
		if (mode == PASR_MODE_DOUBLE && (maskable & bottom) == bottom)
			return bottom;
	}
	return 0;
}

/* --- memory hotplug: offline memory holds no data and counts as free --- */

#ifdef CONFIG_MEMORY_HOTPLUG
/*
 * The ranges PASR counted free as they went offline (start pfn -> number of
 * pages), written under the memory hotplug lock by the memory notifier and
 * the memory blocks' bus notifier. No limit: an xarray, filled in process
 * context.
 */
static DEFINE_XARRAY(pasr_offline);

/* test-only: whether a table of 64 ranges, as PASR once had, would be full */
static bool pasr_offline_64_full(void)
{
	unsigned long pfn, n = 0;
	void *entry;

	if (!pasr_fault(PASR_FAULT_OFFLINE_64))
		return false;
	xa_for_each(&pasr_offline, pfn, entry)
		if (++n >= 64)
			return true;
	return false;
}

/* Whether offline memory may be counted free: its removal is seen. */
static bool pasr_offline_tracked __ro_after_init;

/*
 * Counts used again every offline range PASR counted free in the memory
 * blocks of [@pfn, @pfn + @nr): they go online, or away.
 */
static void pasr_offline_forget(unsigned long pfn, unsigned long nr)
{
	unsigned long block = PHYS_PFN(memory_block_size_bytes());
	unsigned long first = ALIGN_DOWN(pfn, block);
	unsigned long last = ALIGN(pfn + nr, block) - 1;
	unsigned long idx;
	void *entry;

	xa_for_each_range(&pasr_offline, idx, entry, first, last) {
		xa_erase(&pasr_offline, idx);
		pasr_get(PFN_PHYS(idx), xa_to_value(entry) << PAGE_SHIFT);
	}
}

/*
 * Offlining takes every max-order block of the range off the free lists
 * (each one a pasr_get()); once offline, the range holds no data, so it is
 * put back as free. Onlining frees the pages into the buddy allocator again
 * (each block a pasr_put()), so the range is first taken back. Only ranges
 * PASR saw go offline are taken back: memory that was never online was
 * never counted free. With memmap_on_memory, the notified range leaves out
 * the block's own memmap pages, which stay in use (and refreshed) while the
 * block is present: only what offlining took is put back, to the byte. A
 * range that cannot be recorded (no memory for the xarray) is not put: it
 * stays refreshed, which is safe.
 */
static int pasr_memory_callback(struct notifier_block *nb,
				unsigned long action, void *arg)
{
	struct memory_notify *mn = arg;
	unsigned long pfn = mn->start_pfn, nr = mn->nr_pages;
	phys_addr_t start;
	unsigned long size;
	void *old;
	int err;

	if (!pasr_is_on())
		return NOTIFY_OK;
	/* test-only: count the whole memory block, its own memmap included */
	if (pasr_fault(PASR_FAULT_OFFLINE_BLOCKS)) {
		pfn = ALIGN_DOWN(pfn, PHYS_PFN(memory_block_size_bytes()));
		nr += mn->start_pfn - pfn;
	}
	start = PFN_PHYS(pfn);
	size = nr << PAGE_SHIFT;
	switch (action) {
	case MEM_OFFLINE:
	case MEM_CANCEL_ONLINE:	/* still offline: what GOING_ONLINE took back */
		if (!pasr_offline_tracked)
			break;
		if (pasr_offline_64_full()) {
			old = NULL;
			err = -ENOSPC;
		} else {
			old = xa_store(&pasr_offline, pfn, xa_mk_value(nr),
				       GFP_KERNEL);
			err = xa_err(old);
		}
		if (err) {
			pr_warn("[mem %pa+%#lx] offline but not recorded (%d): it stays refreshed\n",
				&start, size, err);
		} else if (!old) {
			pasr_put(start, size);
		}
		break;
	case MEM_GOING_ONLINE:
		/* the whole block: its memmap may have moved since it went offline */
		pasr_offline_forget(pfn, nr);
		break;
	}
	return NOTIFY_OK;
}

/*
 * A memory block goes away (remove_memory(): dax/kmem unbind, virtio-mem,
 * ACPI), offline, before its range is unmapped and handed to its next owner,
 * who may write it at once (add_memory() writes a memmap_on_memory memmap
 * into it): full refresh first. The memory notifier has no event for this;
 * the memory blocks' devices do.
 */
static int pasr_memory_bus_callback(struct notifier_block *nb,
				    unsigned long action, void *data)
{
	struct memory_block *mem = container_of(data, struct memory_block, dev);

	if (action == BUS_NOTIFY_DEL_DEVICE)
		pasr_offline_forget(section_nr_to_pfn(mem->start_section_nr),
				    PHYS_PFN(memory_block_size_bytes()));
	return NOTIFY_OK;
}

static struct notifier_block pasr_memory_bus_nb = {
	.notifier_call = pasr_memory_bus_callback,
};

static int __init pasr_memory_bus(struct memory_block *mem, void *bus)
{
	*(const struct bus_type **)bus = mem->dev.bus;
	return 1;
}

static int __init pasr_memory_init(void)
{
	const struct bus_type *bus = NULL;

	hotplug_memory_notifier(pasr_memory_callback, DEFAULT_CALLBACK_PRI);
	/* the memory blocks' bus ("memory"), from any block */
	for_each_memory_block(&bus, pasr_memory_bus);
	if (bus && !bus_register_notifier(bus, &pasr_memory_bus_nb))
		pasr_offline_tracked = true;
	else if (pasr_is_on())
		pr_warn("memory block removal not seen: offline memory stays refreshed\n");
	return 0;
}
subsys_initcall(pasr_memory_init);

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

/* --- verifier: recompute every section's free bytes from the free lists --- */

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
	pasr_rs_raise_pending();
	pasr_rs_stats(&st);
	res->sections = pasr_nvsects;
	memset(pasr_actual, 0, sizeof(pasr_actual));
	pasr_walk_free_blocks(NULL, -1, pasr_verify_block, res);
	/* each of our sections among the core's: the same addresses and bit */
	for (i = 0; i < pasr_nvsects; i++) {
		const struct pasr_vsect *v = &pasr_vsects[i];
		u64 lo = pasr_actual[i], hi;

		pasr_core_sect[i] = -1;
		for (k = 0; pasr_rs_section_info(k, &si); k++)
			if (si.start == v->start && si.size == v->size &&
			    si.bit == v->bit)
				pasr_core_sect[i] = k;
		if (pasr_core_sect[i] < 0 ||
		    !pasr_rs_section_info(pasr_core_sect[i], &si))
			si = (struct pasr_section_info){ .free = U64_MAX };
		pasr_counted[i] = si.free;
		pasr_masked[i] = si.masked;
		/* test-only fault: the governor's pages are not counted */
		if (!pasr_fault(PASR_FAULT_VERIFY_NO_GOV))
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
	for (k = 0; pasr_rs_section_info(k, &si); k++) {
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

/* --- sysfs: /sys/kernel/mm/pasr/, a small stable ABI --- */

#define PASR_STAT_ATTR(_name, _fmt, _expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct pasr_stats st;						\
									\
	pasr_rs_stats(&st);						\
	return sysfs_emit(buf, _fmt "\n", _expr);			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

PASR_STAT_ATTR(enabled, "%d", st.state == 1);
PASR_STAT_ATTR(total_bytes, "%llu", st.covered);
PASR_STAT_ATTR(free_bytes, "%llu", st.free);
PASR_STAT_ATTR(masked_bytes, "%llu", st.masked);
PASR_STAT_ATTR(dies, "%d", st.dies);
PASR_STAT_ATTR(sections, "%d", st.sections);

static struct attribute *pasr_attrs[] = {
	&enabled_attr.attr,
	&total_bytes_attr.attr,
	&free_bytes_attr.attr,
	&masked_bytes_attr.attr,
	&dies_attr.attr,
	&sections_attr.attr,
	NULL,
};

static const struct attribute_group pasr_attr_group = {
	.attrs = pasr_attrs,
};

/* --- debugfs: /sys/kernel/debug/pasr/ --- */

static const char *const pasr_mode_names[] = {
	"bank", "segment", "single", "double",
};

static const char *const pasr_state_names[] = {
	"off", "on", "failed",
};

static int pasr_map_show(struct seq_file *m, void *v)
{
	struct pasr_section_info s;
	int i;

	seq_puts(m, "# section start end die bit pair free masked transitions masked_ms reserved\n");
	for (i = 0; pasr_rs_section_info(i, &s); i++)
		seq_printf(m, "%d %#llx %#llx %d %d %d %llu %d %llu %llu %d\n",
			   i, s.start, s.start + s.size - 1, s.die, s.bit,
			   s.pair, s.free, s.masked, s.transitions,
			   div_u64(s.masked_ns, NSEC_PER_MSEC),
			   pasr_gov_reserved(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_map);

static int pasr_dies_show(struct seq_file *m, void *v)
{
	struct pasr_die_info d;
	int i;

	seq_puts(m, "# die base size mode sections mask value callback\n");
	for (i = 0; pasr_rs_die_info(i, &d); i++)
		seq_printf(m, "%d %#llx %#llx %s %d %#llx %#llx %d\n",
			   i, d.base, d.size,
			   d.mode >= 0 && d.mode < ARRAY_SIZE(pasr_mode_names) ?
			   pasr_mode_names[d.mode] : "?",
			   d.sections, d.mask, d.value, d.has_callback);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_dies);

static int pasr_stats_show(struct seq_file *m, void *v)
{
	struct pasr_stats st;

	pasr_rs_stats(&st);
	seq_printf(m, "state %s\n", st.state >= 0 &&
		   st.state < ARRAY_SIZE(pasr_state_names) ?
		   pasr_state_names[st.state] : "?");
	seq_printf(m, "puts %llu\ngets %llu\n", st.puts, st.gets);
	seq_printf(m, "out_of_map_calls %llu\nout_of_map_bytes %llu\n",
		   st.out_of_map_calls, st.out_of_map_bytes);
	seq_printf(m, "mask_updates %llu\n", st.mask_updates);
	seq_printf(m, "covered_bytes %llu\nfree_bytes %llu\nmasked_bytes %llu\n",
		   st.covered, st.free, st.masked);
	seq_printf(m, "failed_section %d\nfailed_kind %d\n",
		   st.failed_section, st.failed_kind);
	/* the backend's allocator hooks: off once PASR has failed */
	seq_printf(m, "backend %s\nhooks %s\n", pasr_backend_name,
		   pasr_is_on() ? "on" : "off");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_stats);

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

static void __init pasr_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("pasr", NULL);

	debugfs_create_file("map", 0444, dir, NULL, &pasr_map_fops);
	debugfs_create_file("dies", 0444, dir, NULL, &pasr_dies_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &pasr_stats_fops);
	debugfs_create_file("verify", 0400, dir, NULL, &pasr_verify_fops);
	pasr_test_debugfs_init(dir);
}

/* /sys/kernel/mm/pasr, also home to the governor's directory */
struct kobject *pasr_kobj;

static int __init pasr_interfaces_init(void)
{
	struct kobject *kobj = kobject_create_and_add("pasr", mm_kobj);

	pasr_kobj = kobj;
	if (!kobj || sysfs_create_group(kobj, &pasr_attr_group))
		pr_err("cannot create /sys/kernel/mm/pasr\n");
	if (pasr_is_on())
		pasr_debugfs_init();
	return 0;
}
subsys_initcall(pasr_interfaces_init);

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
