// SPDX-License-Identifier: GPL-2.0-only
/*
 * PASR for the ST-Ericsson DB8500 (Ux500): one PASR mask callback per DDR die
 * described under the PRCMU's device tree node, turning the die's value into
 * the mailbox 0 request that carries MR16 and MR17 for its DDR controller and
 * chip select (MB0H_SET_PASR_DDRx_CSy, from the 2012 PASR RFC for Ux500).
 *
 * The callback runs under the PASR raw spinlock, often inside the buddy
 * allocator's zone->lock (see pasr_mask_fn), where the PRCMU's mailbox lock
 * may not be taken: it only latches the encoded request, lock-free. The PRCMU
 * driver sends what is latched, under its mailbox lock, before every power
 * state transition request (the way into DDR self-refresh), at probe and at
 * shutdown, so the firmware holds the latest masks whenever the DDR can
 * enter self-refresh. At panic and crash kexec, which hand every die value 0
 * on the one CPU still running, the callback sends at once, without the lock.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/panic.h>
#include <linux/pasr.h>
#include <linux/string.h>
#include <kunit/static_stub.h>

#include "db8500-prcmu-pasr.h"

/* a latched request: MR16 in bits 0-7, MR17 in 8-15, not yet sent */
#define DB8500_PASR_DIRTY	BIT(31)

/*
 * How long a send waits for the firmware to take the previous mailbox 0
 * request. Panic and crash kexec send with interrupts off: a wedged
 * firmware, a common reason to panic here, must not block kdump or the
 * reboot.
 */
#define DB8500_PASR_MBOX_TIMEOUT_US	10000

static const char *const db8500_pasr_modes[] = {
	[PASR_MODE_BANK] = "bank",
	[PASR_MODE_SEGMENT] = "segment",
	[PASR_MODE_SINGLE] = "single",
	[PASR_MODE_DOUBLE] = "double",
};

static struct db8500_pasr db8500_pasr;

/* the MB0H_SET_PASR_DDRx_CSy request header of a die */
static u8 db8500_pasr_header(unsigned int ddr, unsigned int cs)
{
	return MB0H_SET_PASR_DDR0_CS0 + 2 * ddr + cs;
}

/**
 * db8500_pasr_encode - the mailbox 0 request for a die's PASR value
 * @ddr: DDR controller (0 or 1)
 * @cs: chip select (0 or 1)
 * @mode: the die's PASR mode
 * @value: the value the PASR core hands the die (Documentation/mm/pasr.rst)
 * @req: the request
 *
 * Bank- and segment-selective values are the MR16 and MR17 masks. LPDDR2/3
 * have no register for single- and double-ended fractions: those go out as
 * the MR17 mask of the segments they leave unrefreshed.
 *
 * Return: false, with @req refreshing everything, for a value the mode
 * cannot take or a die that does not exist.
 */
bool db8500_pasr_encode(unsigned int ddr, unsigned int cs,
			enum pasr_mode mode, u64 value,
			struct db8500_pasr_req *req)
{
	unsigned int kept;

	req->header = db8500_pasr_header(ddr, cs);
	req->mr16 = 0;
	req->mr17 = 0;
	if (ddr > 1 || cs > 1)
		return false;
	switch (mode) {
	case PASR_MODE_BANK:
	case PASR_MODE_SEGMENT:
		if (value >> DB8500_PASR_SECTIONS)
			return false;
		if (mode == PASR_MODE_BANK)
			req->mr16 = value;
		else
			req->mr17 = value;
		return true;
	case PASR_MODE_SINGLE:
	case PASR_MODE_DOUBLE:
		/* bits 0-1: log2 of the refreshed fraction; bit 2: from the bottom */
		if (value > 7 || (mode == PASR_MODE_SINGLE && value & 4))
			return false;
		if (!(value & 3))
			return !value;
		kept = DB8500_PASR_SECTIONS >> (value & 3);
		if (value & 4)
			req->mr17 = GENMASK(DB8500_PASR_SECTIONS - kept - 1, 0);
		else
			req->mr17 = GENMASK(DB8500_PASR_SECTIONS - 1, kept);
		return true;
	}
	return false;
}

/**
 * db8500_pasr_in_panic - whether this CPU runs panic() or a crash kexec
 *
 * Return: true in panic() and crash kexec, where the PASR core hands every
 * die value 0 with the other CPUs stopped and nothing flushes after it.
 */
bool db8500_pasr_in_panic(void)
{
	KUNIT_STATIC_STUB_REDIRECT(db8500_pasr_in_panic);
	return panic_on_this_cpu();
}

/* Sends @req once mailbox 0 is free; false if it stays busy too long. */
static bool db8500_pasr_send(struct db8500_pasr *pasr,
			     const struct db8500_pasr_req *req)
{
	unsigned int us;

	for (us = 0; pasr->mbox.busy(); us++) {
		if (us == DB8500_PASR_MBOX_TIMEOUT_US)
			return false;
		udelay(1);
	}
	pasr->mbox.write(req);
	return true;
}

/**
 * db8500_pasr_flush_dies - send the requests latched since the last flush
 * @pasr: the dies and mailbox 0
 *
 * The caller holds the mailbox lock, or is the only CPU left running. A
 * request mailbox 0 does not take in time stays latched for the next flush.
 *
 * Return: the number of requests not sent.
 */
int db8500_pasr_flush_dies(struct db8500_pasr *pasr)
{
	/* pairs with the release in db8500_pasr_init(): the dies are set up */
	int i, n = smp_load_acquire(&pasr->ndies), unsent = 0;

	for (i = 0; i < n; i++) {
		struct db8500_pasr_die *die = &pasr->dies[i];
		struct db8500_pasr_req req;
		int v = atomic_fetch_andnot(DB8500_PASR_DIRTY, &die->latched);

		if (!(v & DB8500_PASR_DIRTY))
			continue;
		req.header = db8500_pasr_header(die->ddr, die->cs);
		req.mr16 = v & 0xff;
		req.mr17 = (v >> 8) & 0xff;
		if (db8500_pasr_send(pasr, &req))
			continue;
		/* dirty again, unless a newer value was latched meanwhile */
		atomic_cmpxchg(&die->latched, v & ~DB8500_PASR_DIRTY, v);
		unsent++;
		pr_err("PASR: mailbox 0 busy for %d us: DDR%u CS%u request not sent\n",
		       DB8500_PASR_MBOX_TIMEOUT_US, die->ddr, die->cs);
	}
	return unsent;
}

/**
 * db8500_pasr_mask - the PASR mask callback of a die
 * @value: the die's value
 * @cookie: the die (struct db8500_pasr_die)
 *
 * Latches the request. At panic and crash kexec nothing sends it later, and
 * a stopped CPU may hold the mailbox lock: it is sent at once, unlocked.
 */
void db8500_pasr_mask(u64 value, void *cookie)
{
	struct db8500_pasr_die *die = cookie;
	struct db8500_pasr_req req;

	/* a value the mode cannot take: refresh everything */
	db8500_pasr_encode(die->ddr, die->cs, die->mode, value, &req);
	atomic_set(&die->latched, DB8500_PASR_DIRTY | req.mr17 << 8 | req.mr16);
	if (db8500_pasr_in_panic())
		db8500_pasr_flush_dies(die->pasr);
}

/**
 * db8500_pasr_flush - send the requests latched since the last flush
 *
 * The caller holds the PRCMU's mailbox 0 lock.
 */
void db8500_pasr_flush(void)
{
	db8500_pasr_flush_dies(&db8500_pasr);
}

static int db8500_pasr_add_die(struct device *dev, struct device_node *np,
			       struct db8500_pasr_die *die, u64 *base, u64 *size)
{
	const char *mode = "bank";
	u32 ddr_cs[2], sections = DB8500_PASR_SECTIONS;
	int m;

	if (of_property_read_reg(np, 0, base, size)) {
		dev_err(dev, "PASR: %pOF: no reg\n", np);
		return -EINVAL;
	}
	if (of_property_read_u32_array(np, "stericsson,ddr-cs", ddr_cs, 2) ||
	    ddr_cs[0] > 1 || ddr_cs[1] > 1) {
		dev_err(dev, "PASR: %pOF: stericsson,ddr-cs must be <DDR CS>, each 0 or 1\n",
			np);
		return -EINVAL;
	}
	of_property_read_u32(np, "linux,pasr-sections", &sections);
	if (sections != DB8500_PASR_SECTIONS) {
		dev_err(dev, "PASR: %pOF: %u sections, but MR16/MR17 mask 8\n",
			np, sections);
		return -EINVAL;
	}
	of_property_read_string(np, "linux,pasr-mode", &mode);
	m = match_string(db8500_pasr_modes, ARRAY_SIZE(db8500_pasr_modes), mode);
	if (m < 0) {
		dev_err(dev, "PASR: %pOF: unknown linux,pasr-mode \"%s\"\n", np, mode);
		return -EINVAL;
	}
	die->ddr = ddr_cs[0];
	die->cs = ddr_cs[1];
	die->mode = m;
	die->pasr = &db8500_pasr;
	atomic_set(&die->latched, 0);
	return 0;
}

/**
 * db8500_pasr_register - register the mask callback of a die
 * @die: the die, set up
 * @base: its first byte
 * @size: its size
 *
 * The PASR core checks that its layout has the die as the driver reads it:
 * 8 sections, in the die's mode.
 *
 * Return: 0, or the PASR core's error.
 */
int db8500_pasr_register(struct db8500_pasr_die *die, u64 base, u64 size)
{
	struct pasr_die_desc desc = {
		.base = base,
		.size = size,
		.sections = DB8500_PASR_SECTIONS,
		.mode = die->mode,
		/* sent before the next power state transition, not at once */
		.flags = PASR_DIE_LATCHED,
	};

	return pasr_register_die(&desc, db8500_pasr_mask, die);
}

/**
 * db8500_pasr_init - register a PASR mask callback for every DDR die
 * @prcmu: the PRCMU device, whose node's "stericsson,db8500-prcmu-pasr"
 *         child (also "linux,pasr-ddr-layout": the PASR core reads the
 *         layout from it) describes the dies
 * @mbox: mailbox 0
 *
 * A die that is described wrongly, or that the PASR core does not have as
 * this driver reads it, is left out, with an error: the PASR core never
 * masks a die without a callback.
 *
 * Return: 0; PASR is optional for the PRCMU.
 */
int db8500_pasr_init(struct device *prcmu, const struct db8500_pasr_mbox *mbox)
{
	struct device_node *np, *child;
	int n = 0;

	np = of_get_compatible_child(prcmu->of_node, "stericsson,db8500-prcmu-pasr");
	if (!np)
		return 0;
	db8500_pasr.mbox = *mbox;
	for_each_available_child_of_node(np, child) {
		struct db8500_pasr_die *die = &db8500_pasr.dies[n];
		u64 base, size;
		int err;

		if (n == DB8500_PASR_MAX_DIES) {
			dev_err(prcmu, "PASR: more than %d DDR dies\n", n);
			of_node_put(child);
			break;
		}
		if (db8500_pasr_add_die(prcmu, child, die, &base, &size))
			continue;
		/* the die, set up, visible to a flush before its first value */
		smp_store_release(&db8500_pasr.ndies, n + 1);
		err = db8500_pasr_register(die, base, size);
		if (err) {
			dev_err(prcmu, "PASR: %pOF: the PASR core refused the die (%d)\n",
				child, err);
			/* not registered: never latches, hidden again */
			smp_store_release(&db8500_pasr.ndies, n);
			continue;
		}
		n++;
	}
	of_node_put(np);
	dev_info(prcmu, "PASR: %d DDR dies\n", n);
	return 0;
}
