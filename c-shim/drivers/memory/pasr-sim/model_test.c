// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "pasr_sim": the pure parts of the simulated PASR controller,
 * i.e. the decoding of the register values the PASR core hands over and the
 * IDD6 power model.
 */

#include <kunit/test.h>
#include <linux/kernel.h>

#include "model.h"

static const u32 idd6_85c[PASR_SIM_POINTS] = { 1000, 750, 600, 550, 500 };
static const u32 idd6_45c[PASR_SIM_POINTS] = { 500, 440, 380, 350, 330 };

/* At the table's own points the table's values come back exactly. */
static void pasr_sim_power_points(struct kunit *test)
{
	/* 16 sections: 16, 8, 4, 2, 1 refreshed = 1 .. 1/16 */
	static const u32 refreshed[PASR_SIM_POINTS] = { 16, 8, 4, 2, 1 };
	int i;

	for (i = 0; i < PASR_SIM_POINTS; i++) {
		KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, refreshed[i], 16),
				(u64)idd6_85c[i] * 1000);
		KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_45c, refreshed[i], 16),
				(u64)idd6_45c[i] * 1000);
	}
}

/* Every refreshed count of an 8-section die, interpolated linearly. */
static void pasr_sim_power_eight_sections(struct kunit *test)
{
	static const u64 want_na[9] = {
		500000,		/* 0/8: below 1/16, clamped */
		550000,		/* 1/8 */
		600000,		/* 2/8 = 1/4 */
		675000,		/* 3/8: half-way from 1/4 (600) to 1/2 (750) */
		750000,		/* 4/8 */
		812500,		/* 5/8: a quarter of the way from 750 to 1000 */
		875000,		/* 6/8 */
		937500,		/* 7/8 */
		1000000,	/* 8/8 */
	};
	u32 r;

	for (r = 0; r <= 8; r++)
		KUNIT_EXPECT_EQ_MSG(test, pasr_sim_idd6_na(idd6_85c, r, 8),
				    want_na[r], "refreshed %u/8", r);
}

/* Below 1/16 refreshed the 1/16 current applies; between 1/16 and 1/8 not. */
static void pasr_sim_power_clamp(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 0, 64), 500000ULL);
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 1, 64), 500000ULL);
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 3, 64), 500000ULL);
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 4, 64), 500000ULL);
	/* 5/64: a quarter of the way from 1/16 (500) to 1/8 (550) */
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 5, 64), 512500ULL);
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_45c, 0, 8), 330000ULL);
}

/* Degenerate inputs: no sections, more refreshed than sections. */
static void pasr_sim_power_degenerate(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 0, 0), 1000000ULL);
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 9, 8), 1000000ULL);
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, U32_MAX, U32_MAX),
			1000000ULL);
	/* Odd section counts stay between their neighbours. */
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 2, 3), 833333ULL);
	/* 1/3: a third of the way from 1/4 (600) to 1/2 (750) */
	KUNIT_EXPECT_EQ(test, pasr_sim_idd6_na(idd6_85c, 1, 3), 650000ULL);
}

/* The current never rises as fewer sections are refreshed. */
static void pasr_sim_power_monotonic(struct kunit *test)
{
	u32 s, r;

	for (s = 1; s <= 64; s++) {
		for (r = 1; r <= s; r++) {
			KUNIT_EXPECT_LE(test, pasr_sim_idd6_na(idd6_85c, r - 1, s),
					pasr_sim_idd6_na(idd6_85c, r, s));
			KUNIT_EXPECT_LE(test, pasr_sim_idd6_na(idd6_45c, r - 1, s),
					pasr_sim_idd6_na(idd6_45c, r, s));
		}
	}
}

static void pasr_sim_power_units(struct kunit *test)
{
	/* 1000 uA at 1.8 V = 1800 uW */
	KUNIT_EXPECT_EQ(test, pasr_sim_power_nw(1000000, 1800000), 1800000ULL);
	/* 812.5 uA at 1.2 V = 975 uW */
	KUNIT_EXPECT_EQ(test, pasr_sim_power_nw(812500, 1200000), 975000ULL);
	/* 1 A at 5 V does not overflow */
	KUNIT_EXPECT_EQ(test, pasr_sim_power_nw(1000000000ULL, 5000000),
			5000000000ULL);
}

static void pasr_sim_table_check(struct kunit *test)
{
	static const u32 flat[PASR_SIM_POINTS] = { 7, 7, 7, 7, 7 };
	static const u32 rising[PASR_SIM_POINTS] = { 1000, 750, 800, 550, 500 };
	static const u32 zero[PASR_SIM_POINTS] = { 1000, 750, 600, 550, 0 };
	static const u32 huge[PASR_SIM_POINTS] = { 1000001, 750, 600, 550, 500 };

	KUNIT_EXPECT_EQ(test, pasr_sim_check_table(idd6_85c), 0);
	KUNIT_EXPECT_EQ(test, pasr_sim_check_table(idd6_45c), 0);
	KUNIT_EXPECT_EQ(test, pasr_sim_check_table(flat), 0);
	KUNIT_EXPECT_NE(test, pasr_sim_check_table(rising), 0);
	KUNIT_EXPECT_NE(test, pasr_sim_check_table(zero), 0);
	KUNIT_EXPECT_NE(test, pasr_sim_check_table(huge), 0);
}

static void pasr_sim_decode_bank_segment(struct kunit *test)
{
	u64 lost;

	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_BANK, 8, 0xf0, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0xf0ULL);
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_SEGMENT, 8, 0x5a, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0x5aULL);
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_BANK, 8, 0, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0ULL);
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_BANK, 64, ~0ULL, &lost));
	KUNIT_EXPECT_EQ(test, lost, ~0ULL);
	/* a bit beyond the die's sections */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_BANK, 8, 0x100, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0ULL);
}

static void pasr_sim_decode_single(struct kunit *test)
{
	static const u64 want[4] = { 0x00, 0xf0, 0xfc, 0xfe };
	u64 lost, k;

	for (k = 0; k < 4; k++) {
		KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 8, k, &lost));
		KUNIT_EXPECT_EQ(test, lost, want[k]);
	}
	/* from the bottom: double-ended only */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 8, 5, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0ULL);
	/* 1/8 of 4 sections is not a whole section */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 4, 3, &lost));
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 4, 2, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0xeULL);
	/* 1/4 of 6 sections neither */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 6, 2, &lost));
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 6, 1, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0x38ULL);
	/* 64 sections, 1/8 kept */
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 64, 3, &lost));
	KUNIT_EXPECT_EQ(test, lost, ~0ULL << 8);
	/* unknown bits */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_SINGLE, 8, 8, &lost));
}

static void pasr_sim_decode_double(struct kunit *test)
{
	u64 lost;

	/* from the top, as single-ended */
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_DOUBLE, 8, 2, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0xfcULL);
	/* from the bottom */
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_DOUBLE, 8, 4 | 1, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0x0fULL);
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_DOUBLE, 8, 4 | 2, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0x3fULL);
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_DOUBLE, 8, 4 | 3, &lost));
	KUNIT_EXPECT_EQ(test, lost, 0x7fULL);
	KUNIT_EXPECT_TRUE(test, pasr_sim_decode_mr(PASR_SIM_DOUBLE, 64, 4 | 3, &lost));
	KUNIT_EXPECT_EQ(test, lost, ~0ULL >> 8);
	/* "from the bottom" with everything refreshed means nothing */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_DOUBLE, 8, 4, &lost));
	/* bad modes and section counts */
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(4, 8, 0, &lost));
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(-1, 8, 0, &lost));
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_BANK, 0, 0, &lost));
	KUNIT_EXPECT_FALSE(test, pasr_sim_decode_mr(PASR_SIM_BANK, 65, 0, &lost));
}

static struct kunit_case pasr_sim_cases[] = {
	KUNIT_CASE(pasr_sim_power_points),
	KUNIT_CASE(pasr_sim_power_eight_sections),
	KUNIT_CASE(pasr_sim_power_clamp),
	KUNIT_CASE(pasr_sim_power_degenerate),
	KUNIT_CASE(pasr_sim_power_monotonic),
	KUNIT_CASE(pasr_sim_power_units),
	KUNIT_CASE(pasr_sim_table_check),
	KUNIT_CASE(pasr_sim_decode_bank_segment),
	KUNIT_CASE(pasr_sim_decode_single),
	KUNIT_CASE(pasr_sim_decode_double),
	{}
};

static struct kunit_suite pasr_sim_suite = {
	.name = "pasr_sim",
	.test_cases = pasr_sim_cases,
};

kunit_test_suite(pasr_sim_suite);

MODULE_DESCRIPTION("KUnit tests for the simulated PASR controller");
MODULE_LICENSE("GPL");
