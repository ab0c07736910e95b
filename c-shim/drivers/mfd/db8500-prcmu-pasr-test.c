// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the DB8500 PRCMU PASR requests: for every die (DDR
 * controller and chip select) and every PASR mode, the mailbox 0 request a
 * value becomes, and the values a mode cannot take. The encoding is pure, so
 * the suite runs on any PASR test kernel, not only on Ux500.
 */
#include <kunit/test.h>

#include "db8500-prcmu-pasr.h"

static const u8 db8500_pasr_headers[2][2] = {
	{ MB0H_SET_PASR_DDR0_CS0, MB0H_SET_PASR_DDR0_CS1 },
	{ MB0H_SET_PASR_DDR1_CS0, MB0H_SET_PASR_DDR1_CS1 },
};

struct db8500_pasr_case {
	enum db8500_pasr_mode mode;
	u64 value;
	bool ok;
	u16 mr16, mr17;
};

static const struct db8500_pasr_case db8500_pasr_cases[] = {
	/* bank-selective: the section mask is MR16 */
	{ DB8500_PASR_BANK, 0, true, 0, 0 },
	{ DB8500_PASR_BANK, 0x01, true, 0x01, 0 },
	{ DB8500_PASR_BANK, 0xa5, true, 0xa5, 0 },
	{ DB8500_PASR_BANK, 0xff, true, 0xff, 0 },
	{ DB8500_PASR_BANK, 0x100, false, 0, 0 },
	/* segment-selective: the section mask is MR17 */
	{ DB8500_PASR_SEGMENT, 0, true, 0, 0 },
	{ DB8500_PASR_SEGMENT, 0x80, true, 0, 0x80 },
	{ DB8500_PASR_SEGMENT, 0x5a, true, 0, 0x5a },
	{ DB8500_PASR_SEGMENT, 0xff, true, 0, 0xff },
	{ DB8500_PASR_SEGMENT, 1ULL << 63, false, 0, 0 },
	/* single-ended: 1/2, 1/4, 1/8 refreshed, masked from the top */
	{ DB8500_PASR_SINGLE, 0, true, 0, 0 },
	{ DB8500_PASR_SINGLE, 1, true, 0, 0xf0 },
	{ DB8500_PASR_SINGLE, 2, true, 0, 0xfc },
	{ DB8500_PASR_SINGLE, 3, true, 0, 0xfe },
	{ DB8500_PASR_SINGLE, 5, false, 0, 0 },	/* bottom: double-ended only */
	{ DB8500_PASR_SINGLE, 8, false, 0, 0 },
	/* double-ended: either end */
	{ DB8500_PASR_DOUBLE, 0, true, 0, 0 },
	{ DB8500_PASR_DOUBLE, 1, true, 0, 0xf0 },
	{ DB8500_PASR_DOUBLE, 3, true, 0, 0xfe },
	{ DB8500_PASR_DOUBLE, 5, true, 0, 0x0f },
	{ DB8500_PASR_DOUBLE, 6, true, 0, 0x3f },
	{ DB8500_PASR_DOUBLE, 7, true, 0, 0x7f },
	{ DB8500_PASR_DOUBLE, 4, false, 0, 0 },	/* nothing masked, "from the bottom" */
	{ DB8500_PASR_DOUBLE, 0x13, false, 0, 0 },
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

	KUNIT_EXPECT_FALSE(test, db8500_pasr_encode(2, 0, DB8500_PASR_BANK, 0xff, &req));
	KUNIT_EXPECT_EQ(test, req.mr16, 0);
	KUNIT_EXPECT_FALSE(test, db8500_pasr_encode(0, 2, DB8500_PASR_SEGMENT, 0xff, &req));
	KUNIT_EXPECT_EQ(test, req.mr17, 0);
}

static struct kunit_case db8500_pasr_test_cases[] = {
	KUNIT_CASE(db8500_pasr_encode_every_die_and_mode),
	KUNIT_CASE(db8500_pasr_encode_no_such_die),
	{}
};

static struct kunit_suite db8500_pasr_test_suite = {
	.name = "pasr_db8500",
	.test_cases = db8500_pasr_test_cases,
};

kunit_test_suite(db8500_pasr_test_suite);
