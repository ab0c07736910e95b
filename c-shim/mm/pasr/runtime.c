// SPDX-License-Identifier: GPL-2.0
/*
 * What the Rust core (pasr.rs) calls in C because Rust cannot reach it in
 * 6.12: the irq-saving raw spinlock (no static Rust SpinLock there), the
 * clock, the irq_work that raises masks out of zone->lock and prints, the
 * work that turns PASR off after a violation, the per-CPU call counts,
 * the tracepoints, and the exports of the driver API the core defines.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pasr.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#define CREATE_TRACE_POINTS
#include <trace/events/pasr.h>

#include "internal.h"

/* Taken only when a section enters or leaves "entirely free". */
DEFINE_RAW_SPINLOCK(pasr_lock);

unsigned long pasr_lock_irqsave(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pasr_lock, flags);
	return flags;
}

void pasr_unlock_irqrestore(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&pasr_lock, flags);
}

u64 pasr_clock_ns(void)
{
	return ktime_get_mono_fast_ns();
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
	enum pasr_violation_kind kind;
	u64 free, delta;
	unsigned long stack[PASR_VIOLATION_STACK];
	unsigned int nr_stack;
} pasr_violation;
static atomic_t pasr_violation_pending = ATOMIC_INIT(0);

static void pasr_violation_workfn(struct work_struct *work)
{
	WARN(1, "pasr: section %u: %s of %llu bytes with %llu free; PASR disabled, all memory refreshed\n",
	     pasr_violation.section, pasr_violation.kind == PASR_VIOLATION_PUT ? "put" : "get",
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
	pasr_debug_log_flush();
	if (atomic_read(&pasr_violation_pending) == 1) {
		atomic_set(&pasr_violation_pending, 2);
		schedule_work(&pasr_violation_work);
	}
}

/* The core's deferred raise: 6.12 has no Rust irq_work. */
static void pasr_report_irq_work(struct irq_work *work)
{
	pasr_raise_pending();
	pasr_report_print();
}

static DEFINE_IRQ_WORK(pasr_report_work, pasr_report_irq_work);

void pasr_defer_report(void)
{
	irq_work_queue(&pasr_report_work);
}

/* Called once, by the core, which has already cleared every mask. */
void pasr_report_violation(unsigned int section, enum pasr_violation_kind kind,
			   u64 free, u64 delta)
{
	pasr_violation.section = section;
	pasr_violation.kind = kind;
	pasr_violation.free = free;
	pasr_violation.delta = delta;
	pasr_violation.nr_stack = stack_trace_save(pasr_violation.stack,
						   PASR_VIOLATION_STACK, 1);
	atomic_set_release(&pasr_violation_pending, 1);
	pasr_defer_report();
}

/*
 * The driver-facing API, defined in the Rust core (rust/mm/pasr/pasr.rs):
 * exported so that a DDR controller driver can be a module.
 */
EXPORT_SYMBOL_GPL(pasr_register_mask_function);
EXPORT_SYMBOL_GPL(pasr_register_die);
EXPORT_SYMBOL_GPL(pasr_unregister_mask_function);
EXPORT_SYMBOL_GPL(pasr_die_count);
EXPORT_SYMBOL_GPL(pasr_die_range);
EXPORT_SYMBOL_GPL(pasr_die_describe);
EXPORT_SYMBOL_GPL(pasr_put);
EXPORT_SYMBOL_GPL(pasr_get);

u64 pasr_block_size(void)
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

void pasr_count_call(unsigned int section, bool put)
{
	if (put)
		this_cpu_inc(pasr_calls.puts[section]);
	else
		this_cpu_inc(pasr_calls.gets[section]);
}

void pasr_calls_sum(unsigned int section, u64 *puts, u64 *gets)
{
	int cpu;

	*puts = 0;
	*gets = 0;
	for_each_possible_cpu(cpu) {
		*puts += per_cpu(pasr_calls.puts[section], cpu);
		*gets += per_cpu(pasr_calls.gets[section], cpu);
	}
}

void pasr_trace_mask_update(unsigned int die, u64 old, u64 new)
{
	trace_pasr_mask_update(die, old, new);
}

void pasr_trace_section_state(unsigned int section, bool free, bool masked)
{
	trace_pasr_section_state(section, free, masked);
}
