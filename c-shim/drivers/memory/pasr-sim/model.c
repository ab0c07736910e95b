// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller: the pure parts of its model, the decoding of
 * mode-register values and the IDD6 power model (KUnit: model_test.c).
 */

#include <linux/errno.h>
#include <linux/math64.h>

#include "model.h"

static u64 pasr_sim_all(u32 sections)
{
	return sections >= 64 ? ~0ULL : (1ULL << sections) - 1;
}

/**
 * pasr_sim_decode_mr - the sections a mode-register value leaves unrefreshed
 * @mode: PASR mode of the die (enum pasr_sim_mode)
 * @sections: sections of the die, 1..64
 * @mr: the register value the PASR core handed over
 * @lost: the unrefreshed sections, bit i for section i
 *
 * Bank- and segment-selective: @mr is the mask. Single- and double-ended:
 * bits 0-1 hold log2 of the refreshed fraction's denominator; the rest of the
 * die, from the top, or from the bottom if bit 2 is set (double-ended only),
 * is unrefreshed.
 *
 * Return: false if @mr is not a legal value for the die (*@lost is then 0).
 */
bool pasr_sim_decode_mr(int mode, u32 sections, u64 mr, u64 *lost)
{
	u64 all = pasr_sim_all(sections);
	u32 k, kept;

	*lost = 0;
	if (sections == 0 || sections > 64)
		return false;
	switch (mode) {
	case PASR_SIM_BANK:
	case PASR_SIM_SEGMENT:
		if (mr & ~all)
			return false;
		*lost = mr;
		return true;
	case PASR_SIM_SINGLE:
	case PASR_SIM_DOUBLE:
		if (mr & ~7ULL)
			return false;
		if ((mr & 4) && mode != PASR_SIM_DOUBLE)
			return false;
		k = mr & 3;
		if (k == 0)
			return !(mr & 4);
		if (sections % (1U << k))
			return false;
		kept = sections >> k;
		if (mr & 4)
			*lost = all >> kept;		/* bottom part */
		else
			*lost = all & ~((1ULL << kept) - 1);	/* top part */
		return true;
	default:
		return false;
	}
}

/**
 * pasr_sim_idd6_na - self-refresh current of a partly refreshed die
 * @table: IDD6 in uA with 1, 1/2, 1/4, 1/8 and 1/16 of the die refreshed
 * @refreshed: sections still refreshed
 * @sections: sections of the die
 *
 * Linear interpolation in the refreshed fraction between the table's points;
 * below 1/16 the 1/16 current applies (the periphery's self-refresh current
 * does not go away).
 *
 * Return: the current in nA.
 */
u64 pasr_sim_idd6_na(const u32 table[PASR_SIM_POINTS], u32 refreshed,
		     u32 sections)
{
	u64 r = refreshed, s = sections;
	s64 lo, hi, num;
	int k;

	if (s == 0 || r >= s)
		return (u64)table[0] * 1000;
	if (r * 16 < s)
		return (u64)table[PASR_SIM_POINTS - 1] * 1000;
	/* The segment [1/2^(k+1), 1/2^k] holding r/s. */
	for (k = 0; k < PASR_SIM_POINTS - 2; k++)
		if ((r << (k + 1)) >= s)
			break;
	hi = (s64)table[k] * 1000;
	lo = (s64)table[k + 1] * 1000;
	/* (r/s - 1/2^(k+1)) / (1/2^k - 1/2^(k+1)) = (r * 2^(k+1) - s) / s */
	num = (hi - lo) * (s64)((r << (k + 1)) - s);
	return lo + div64_s64(num, s);
}

/* Power in nW of a current in nA at a voltage in uV. */
u64 pasr_sim_power_nw(u64 na, u32 uv)
{
	return div_u64(na * uv, 1000000);
}

/*
 * A device-tree IDD6 table: every current 1 uA .. 1 A, and never higher with
 * less of the die refreshed.
 */
int pasr_sim_check_table(const u32 table[PASR_SIM_POINTS])
{
	int i;

	for (i = 0; i < PASR_SIM_POINTS; i++) {
		if (table[i] == 0 || table[i] > PASR_SIM_MAX_UA)
			return -ERANGE;
		if (i && table[i] > table[i - 1])
			return -EINVAL;
	}
	return 0;
}
