/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated LPDDR controller with PASR: the pure parts (register decoding and
 * the IDD6 power model), shared with the KUnit suite in model_test.c.
 */
#ifndef _DRIVERS_MEMORY_PASR_SIM_H
#define _DRIVERS_MEMORY_PASR_SIM_H

#include <linux/types.h>

/*
 * Points of the IDD6 tables: the self-refresh current with 1, 1/2, 1/4, 1/8
 * and 1/16 of the die refreshed.
 */
#define PASR_SIM_POINTS		5
/* Largest IDD6 current accepted from the device tree: 1 A. */
#define PASR_SIM_MAX_UA		1000000
/* Largest supply voltage accepted from the device tree: 5 V. */
#define PASR_SIM_MAX_UV		5000000

/* PASR modes, as in struct pasr_die_info.mode. */
enum pasr_sim_mode {
	PASR_SIM_BANK = 0,
	PASR_SIM_SEGMENT = 1,
	PASR_SIM_SINGLE = 2,
	PASR_SIM_DOUBLE = 3,
};

bool pasr_sim_decode_mr(int mode, u32 sections, u64 mr, u64 *lost);
u64 pasr_sim_idd6_na(const u32 table[PASR_SIM_POINTS], u32 refreshed,
		     u32 sections);
u64 pasr_sim_power_nw(u64 na, u32 uv);
int pasr_sim_check_table(const u32 table[PASR_SIM_POINTS]);

#endif /* _DRIVERS_MEMORY_PASR_SIM_H */
