// SPDX-License-Identifier: GPL-2.0
/*
 * PASR and memory hotplug: offline memory holds no data and counts as free
 * until it goes online again or its memory block is removed.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/init.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/pasr.h>
#include <linux/xarray.h>

#include "internal.h"

/*
 * The ranges PASR counted free as they went offline (start pfn -> number of
 * pages), written under the memory hotplug lock by the memory notifier and
 * the memory blocks' bus notifier. No limit: an xarray, filled in process
 * context.
 */
static DEFINE_XARRAY(pasr_offline);

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
	start = PFN_PHYS(pfn);
	size = nr << PAGE_SHIFT;
	switch (action) {
	case MEM_OFFLINE:
	case MEM_CANCEL_ONLINE:	/* still offline: what GOING_ONLINE took back */
		if (!pasr_offline_tracked)
			break;
		old = xa_store(&pasr_offline, pfn, xa_mk_value(nr), GFP_KERNEL);
		err = xa_err(old);
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
