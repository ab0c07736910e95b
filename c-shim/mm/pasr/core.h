/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PASR core's interface with the C files of mm/pasr/: what the Rust core
 * (mm/pasr/pasr.rs) implements for them, and what they implement for it.
 * bindgen reads it (rust/bindings/bindings_helper.h), so both sides share
 * these declarations.
 */
#ifndef _MM_PASR_CORE_H
#define _MM_PASR_CORE_H

#include <linux/pasr.h>
#include <linux/types.h>

#include "../pasr.h"

struct page;

/* Sections in all at most (the core checks it is its MAX_SECTIONS). */
#define PASR_MAX_SECTIONS	256

/* Implemented in Rust (mm/pasr/pasr.rs) for the C files of mm/pasr/. */
int pasr_map_init(char *const *dies, size_t ndies, char *const *ilvs,
		  size_t nilvs, u64 min_section);
void pasr_map_late_init(void);
void pasr_refresh_all(bool panic);
void pasr_resync(void);
void pasr_set_accounting(bool on);
void pasr_debug_log_flush(void);
void pasr_defer_raising(void);
void pasr_raise_pending(void);

/*
 * A "linux,pasr-ddr-layout" node, its cells decoded with the of_* helpers
 * (init.c); the core validates the numbers and parses the mode name.
 */
struct pasr_dt_die {
	const char *name;	/* full node name, for messages */
	u64 base, size;
	u32 sections;
	bool has_sections;	/* linux,pasr-sections given */
	const char *mode;	/* linux,pasr-mode, or NULL */
};

struct pasr_dt_interleave {
	u64 a, b, size;
	u32 die;		/* index of the die@ node that declares it */
};

int pasr_map_init_dt(const struct pasr_dt_die *dies, size_t ndies,
		     const struct pasr_dt_interleave *ilvs, size_t nilvs,
		     u64 min_section);

/* Snapshots from the Rust core, for sysfs and debugfs (mirrored in pasr.rs). */
struct pasr_section_info {
	u64 start, size, free, puts, gets, transitions, masked_ns;
	s32 die, bit, pair;	/* pair: -1 if none */
	bool masked;
};

struct pasr_die_info {
	u64 base, size, mask, value;
	s32 first_section, sections, mode;
	bool has_callback;
};

struct pasr_stats {
	u64 covered, free, masked, puts, gets;
	u64 out_of_map_calls, out_of_map_bytes, mask_updates;
	s32 state, dies, sections, failed_section, failed_kind;
};

struct pasr_mismatch {
	s32 section;
	u64 counted, actual;
	bool masked, expected_masked;
};

bool pasr_section_snapshot(int section, struct pasr_section_info *out);
bool pasr_die_snapshot(int die, struct pasr_die_info *out);
void pasr_stats_snapshot(struct pasr_stats *out);
int pasr_section_of(u64 paddr);
int pasr_check_counts(const u64 *actual, int n, struct pasr_mismatch *out,
		      int max_out);

u64 pasr_bench_calls(int dies, int sections, u64 iterations);

/* How a caller broke the accounting (pasr_report_violation()). */
enum pasr_violation_kind {
	PASR_VIOLATION_PUT = 1,	/* a put would make a section more than free */
	PASR_VIOLATION_GET = 2,	/* a get would take more than is free */
};

/* Implemented in C (mm/pasr/runtime.c, kunit_live.c) for the Rust core. */
void pasr_trace_mask_update(unsigned int die, u64 old, u64 new);
void pasr_trace_section_state(unsigned int section, bool free, bool masked);
unsigned long pasr_lock_irqsave(void);
void pasr_unlock_irqrestore(unsigned long flags);
u64 pasr_clock_ns(void);
void pasr_report_violation(unsigned int section, enum pasr_violation_kind kind,
			   u64 free, u64 delta);
void pasr_defer_report(void);
struct page *pasr_test_alloc_block(u64 *paddr);
void pasr_test_free_block(struct page *page);
struct page *pasr_test_alloc_movable_block(u64 *paddr);
int pasr_test_partly_free_blocks(void);
bool pasr_test_reporting(void);
u64 pasr_block_size(void);

/* Per-CPU statistics of the core's put and get calls, per section. */
void pasr_count_call(unsigned int section, bool put);
void pasr_calls_sum(unsigned int section, u64 *puts, u64 *gets);

#endif /* _MM_PASR_CORE_H */
