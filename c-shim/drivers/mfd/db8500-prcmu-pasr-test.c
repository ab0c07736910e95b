// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the DB8500 PRCMU PASR requests: for every die (DDR
 * controller and chip select) and every PASR mode, the mailbox 0 request a
 * value becomes, and the values a mode cannot take; and when a latched request
 * is sent, on dies of the test's own. Nothing touches the PRCMU, so the suite
 * runs on any PASR test kernel, not only on Ux500.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/pasr.h>

#include "db8500-prcmu-pasr.h"

static const u8 db8500_pasr_headers[2][2] = {
	{ MB0H_SET_PASR_DDR0_CS0, MB0H_SET_PASR_DDR0_CS1 },
	{ MB0H_SET_PASR_DDR1_CS0, MB0H_SET_PASR_DDR1_CS1 },
};

struct db8500_pasr_case {
	enum pasr_mode mode;
	u64 value;
	bool ok;
	u16 mr16, mr17;
};

static const struct db8500_pasr_case db8500_pasr_cases[] = {
	/* bank-selective: the section mask is MR16 */
	{ PASR_MODE_BANK, 0, true, 0, 0 },
	{ PASR_MODE_BANK, 0x01, true, 0x01, 0 },
	{ PASR_MODE_BANK, 0xa5, true, 0xa5, 0 },
	{ PASR_MODE_BANK, 0xff, true, 0xff, 0 },
	{ PASR_MODE_BANK, 0x100, false, 0, 0 },
	/* segment-selective: the section mask is MR17 */
	{ PASR_MODE_SEGMENT, 0, true, 0, 0 },
	{ PASR_MODE_SEGMENT, 0x80, true, 0, 0x80 },
	{ PASR_MODE_SEGMENT, 0x5a, true, 0, 0x5a },
	{ PASR_MODE_SEGMENT, 0xff, true, 0, 0xff },
	{ PASR_MODE_SEGMENT, 1ULL << 63, false, 0, 0 },
	/* single-ended: 1/2, 1/4, 1/8 refreshed, masked from the top */
	{ PASR_MODE_SINGLE, 0, true, 0, 0 },
	{ PASR_MODE_SINGLE, 1, true, 0, 0xf0 },
	{ PASR_MODE_SINGLE, 2, true, 0, 0xfc },
	{ PASR_MODE_SINGLE, 3, true, 0, 0xfe },
	{ PASR_MODE_SINGLE, 5, false, 0, 0 },	/* bottom: double-ended only */
	{ PASR_MODE_SINGLE, 8, false, 0, 0 },
	/* double-ended: either end */
	{ PASR_MODE_DOUBLE, 0, true, 0, 0 },
	{ PASR_MODE_DOUBLE, 1, true, 0, 0xf0 },
	{ PASR_MODE_DOUBLE, 3, true, 0, 0xfe },
	{ PASR_MODE_DOUBLE, 5, true, 0, 0x0f },
	{ PASR_MODE_DOUBLE, 6, true, 0, 0x3f },
	{ PASR_MODE_DOUBLE, 7, true, 0, 0x7f },
	{ PASR_MODE_DOUBLE, 4, false, 0, 0 },	/* nothing masked, "from the bottom" */
	{ PASR_MODE_DOUBLE, 0x13, false, 0, 0 },
};

/* Every die and mode: the header names the die, the payload the masks. */
static void db8500_pasr_encode_every_die_and_mode(struct kunit *test)
{
	unsigned int ddr, cs, i;

	for (ddr = 0; ddr < 2; ddr++) {
		for (cs = 0; cs < 2; cs++) {
			for (i = 0; i < ARRAY_SIZE(db8500_pasr_cases); i++) {
				const struct db8500_pasr_case *c = &db8500_pasr_cases[i];
				struct db8500_pasr_req req;
				bool ok;

				ok = db8500_pasr_encode(ddr, cs, c->mode, c->value, &req);
				KUNIT_EXPECT_EQ_MSG(test, ok, c->ok,
						    "ddr %u cs %u mode %d value %#llx",
						    ddr, cs, c->mode, c->value);
				KUNIT_EXPECT_EQ(test, req.header, db8500_pasr_headers[ddr][cs]);
				KUNIT_EXPECT_EQ_MSG(test, req.mr16, c->mr16,
						    "mode %d value %#llx", c->mode, c->value);
				KUNIT_EXPECT_EQ_MSG(test, req.mr17, c->mr17,
						    "mode %d value %#llx", c->mode, c->value);
			}
		}
	}
}

/* A die that does not exist gets no request that masks anything. */
static void db8500_pasr_encode_no_such_die(struct kunit *test)
{
	struct db8500_pasr_req req;

	KUNIT_EXPECT_FALSE(test, db8500_pasr_encode(2, 0, PASR_MODE_BANK, 0xff, &req));
	KUNIT_EXPECT_EQ(test, req.mr16, 0);
	KUNIT_EXPECT_FALSE(test, db8500_pasr_encode(0, 2, PASR_MODE_SEGMENT, 0xff, &req));
	KUNIT_EXPECT_EQ(test, req.mr17, 0);
}

/* what db8500_pasr_record() was handed, in order */
static struct db8500_pasr_req db8500_pasr_sent[4];
static unsigned int db8500_pasr_nsent;

static void db8500_pasr_record(const struct db8500_pasr_req *req)
{
	if (db8500_pasr_nsent < ARRAY_SIZE(db8500_pasr_sent))
		db8500_pasr_sent[db8500_pasr_nsent] = *req;
	db8500_pasr_nsent++;
}

static bool db8500_pasr_panicking(void)
{
	return true;
}

static bool db8500_pasr_mbox_free(void)
{
	return false;
}

/* A firmware that never takes a request: mailbox 0 stays busy. */
static bool db8500_pasr_mbox_wedged(void)
{
	return true;
}

static void db8500_pasr_expect_sent(struct kunit *test, unsigned int i,
				    u8 header, u16 mr16, u16 mr17)
{
	KUNIT_EXPECT_EQ_MSG(test, db8500_pasr_sent[i].header, header, "request %u", i);
	KUNIT_EXPECT_EQ_MSG(test, db8500_pasr_sent[i].mr16, mr16, "request %u", i);
	KUNIT_EXPECT_EQ_MSG(test, db8500_pasr_sent[i].mr17, mr17, "request %u", i);
}

/*
 * A value is latched and sent once, at the next flush. At panic and crash
 * kexec nothing flushes later: the callback sends every pending request.
 */
static void db8500_pasr_latch_and_flush(struct kunit *test)
{
	struct db8500_pasr pasr = {
		.mbox = { db8500_pasr_mbox_free, db8500_pasr_record },
		.ndies = 2,
	};
	struct db8500_pasr_die *a = &pasr.dies[0], *b = &pasr.dies[1];

	*a = (struct db8500_pasr_die){ .pasr = &pasr, .ddr = 1, .cs = 0,
				       .mode = PASR_MODE_SEGMENT };
	*b = (struct db8500_pasr_die){ .pasr = &pasr, .ddr = 0, .cs = 1,
				       .mode = PASR_MODE_BANK };
	db8500_pasr_nsent = 0;

	db8500_pasr_mask(0x0f, a);
	KUNIT_EXPECT_EQ(test, db8500_pasr_nsent, 0);
	db8500_pasr_flush_dies(&pasr);
	KUNIT_ASSERT_EQ(test, db8500_pasr_nsent, 1);
	db8500_pasr_expect_sent(test, 0, MB0H_SET_PASR_DDR1_CS0, 0, 0x0f);
	db8500_pasr_flush_dies(&pasr);
	KUNIT_EXPECT_EQ(test, db8500_pasr_nsent, 1);

	/* a value the mode cannot take: full refresh */
	db8500_pasr_mask(0x1ff, a);
	db8500_pasr_flush_dies(&pasr);
	KUNIT_ASSERT_EQ(test, db8500_pasr_nsent, 2);
	db8500_pasr_expect_sent(test, 1, MB0H_SET_PASR_DDR1_CS0, 0, 0);

	/* panic while die b's request is still pending */
	db8500_pasr_mask(0xc0, b);
	kunit_activate_static_stub(test, db8500_pasr_in_panic, db8500_pasr_panicking);
	db8500_pasr_mask(0, a);
	kunit_deactivate_static_stub(test, db8500_pasr_in_panic);
	KUNIT_ASSERT_EQ(test, db8500_pasr_nsent, 4);
	db8500_pasr_expect_sent(test, 2, MB0H_SET_PASR_DDR1_CS0, 0, 0);
	db8500_pasr_expect_sent(test, 3, MB0H_SET_PASR_DDR0_CS1, 0xc0, 0);
}

/*
 * A wedged firmware at panic: the send gives up after its timeout, and the
 * request stays latched for a later flush.
 */
static void db8500_pasr_wedged_mailbox_returns(struct kunit *test)
{
	struct db8500_pasr pasr = {
		.mbox = { db8500_pasr_mbox_wedged, db8500_pasr_record },
		.ndies = 1,
	};
	struct db8500_pasr_die *a = &pasr.dies[0];
	u64 start, ms;

	*a = (struct db8500_pasr_die){ .pasr = &pasr, .ddr = 0, .cs = 0,
				       .mode = PASR_MODE_BANK };
	db8500_pasr_nsent = 0;
	start = ktime_get_ns();
	kunit_activate_static_stub(test, db8500_pasr_in_panic, db8500_pasr_panicking);
	db8500_pasr_mask(0, a);
	kunit_deactivate_static_stub(test, db8500_pasr_in_panic);
	ms = div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, db8500_pasr_nsent, 0);
	/* 10 ms of udelay(1), slow under emulation: bounded all the same */
	KUNIT_EXPECT_LT(test, ms, 10000);
	KUNIT_EXPECT_EQ(test, db8500_pasr_flush_dies(&pasr), 1);

	pasr.mbox.busy = db8500_pasr_mbox_free;
	KUNIT_EXPECT_EQ(test, db8500_pasr_flush_dies(&pasr), 0);
	KUNIT_ASSERT_EQ(test, db8500_pasr_nsent, 1);
	db8500_pasr_expect_sent(test, 0, MB0H_SET_PASR_DDR0_CS0, 0, 0);
}

static void db8500_pasr_never_called(u64 value, void *cookie)
{
	(*(int *)cookie)++;
}

/*
 * The PASR core refuses a die this driver would read in another mode than
 * the layout's: the die keeps full refresh, no value reaches the callback.
 */
static void db8500_pasr_geometry_mismatch_refused(struct kunit *test)
{
	struct db8500_pasr pasr = {
		.mbox = { db8500_pasr_mbox_free, db8500_pasr_record },
		.ndies = 1,
	};
	struct db8500_pasr_die *a = &pasr.dies[0];
	struct pasr_die_desc desc, info;
	int calls = 0;

	if (!pasr_die_describe(0, &info))
		kunit_skip(test, "no PASR layout in this kernel");
	*a = (struct db8500_pasr_die){ .pasr = &pasr, .ddr = 0, .cs = 0,
				       .mode = (info.mode + 1) % 4 };
	db8500_pasr_nsent = 0;
	KUNIT_EXPECT_EQ(test, db8500_pasr_register(a, info.base, info.size),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->latched), 0);

	/* the same check in the core, for any driver: a section too many */
	desc = info;
	desc.sections = info.sections + 1;
	KUNIT_EXPECT_EQ(test, pasr_register_die(&desc, db8500_pasr_never_called,
						&calls), -EINVAL);
	/* latching and masking while the system runs: refused */
	desc.sections = info.sections;
	desc.flags = PASR_DIE_LATCHED | PASR_DIE_RUNTIME;
	KUNIT_EXPECT_EQ(test, pasr_register_die(&desc, db8500_pasr_never_called,
						&calls), -EINVAL);
	KUNIT_EXPECT_EQ(test, calls, 0);
}

static struct kunit_case db8500_pasr_test_cases[] = {
	KUNIT_CASE(db8500_pasr_encode_every_die_and_mode),
	KUNIT_CASE(db8500_pasr_encode_no_such_die),
	KUNIT_CASE(db8500_pasr_latch_and_flush),
	KUNIT_CASE(db8500_pasr_wedged_mailbox_returns),
	KUNIT_CASE(db8500_pasr_geometry_mismatch_refused),
	{}
};

static struct kunit_suite db8500_pasr_test_suite = {
	.name = "pasr_db8500",
	.test_cases = db8500_pasr_test_cases,
};

kunit_test_suite(db8500_pasr_test_suite);
