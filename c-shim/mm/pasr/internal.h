/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PASR: declarations shared by the C files of mm/pasr/ only.
 */
#ifndef _MM_PASR_INTERNAL_H
#define _MM_PASR_INTERNAL_H

#include <linux/init.h>
#include <linux/pasr.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

#include "core.h"

struct dentry;
struct list_head;
struct page;
struct zone;

/*
 * The most ddr_die= (or interleaved=) arguments kept: one more than the core
 * accepts lets it name the first extra one.
 */
#define PASR_MAX_ARGS 17

/* runtime.c: taken only when a section enters or leaves "entirely free" */
extern raw_spinlock_t pasr_lock;

/* backend.c */
extern const char *pasr_backend_name;
void __init pasr_backend_start(bool reporting);
/* PASR stopped accounting (failure or refusal): no backend calls in. */
void pasr_backend_off(void);
void pasr_reporting_pause(void);
void pasr_reporting_unpause(void);

typedef void (*pasr_block_fn)(struct page *page, struct list_head *list,
			      void *arg);
void pasr_walk_free_blocks(struct zone *only, int mt, pasr_block_fn fn,
			   void *arg);

enum pasr_block_where {
	PASR_BLOCK_OUTSIDE,		/* in no section */
	PASR_BLOCK_PARTLY_FREE,		/* in a section partly counted free */
	PASR_BLOCK_ENTIRELY_FREE,	/* in a section entirely counted free */
};

enum pasr_block_where pasr_block_where(struct page *page);

/* governor.c: sections the governor holds hold no data and count as free */
#ifdef CONFIG_PASR_GOVERNOR
bool pasr_gov_reserved(int section);
void pasr_gov_hold(void);
void pasr_gov_unhold(void);
#else
static inline bool pasr_gov_reserved(int section)
{
	return false;
}

static inline void pasr_gov_hold(void)
{
}

static inline void pasr_gov_unhold(void)
{
}
#endif

/* interfaces.c: /sys/kernel/mm/pasr, for the governor */
extern struct kobject *pasr_kobj;

/* lifecycle.c: the reboot, panic and power management notifiers */
void __init pasr_lifecycle_init(void);

/* verify_layout.c: the verifier's own sections and dies */
struct pasr_vsect {
	u64 start, size;
	int die, bit, pair;
};

struct pasr_vdie {
	u64 base, size;
	u32 sections;
	enum pasr_mode mode;
};

extern struct pasr_vdie pasr_vdies[PASR_MAX_ARGS];
extern struct pasr_vsect pasr_vsects[PASR_MAX_SECTIONS];
extern int pasr_nvdies, pasr_nvsects;
/* the layout the verifier read is not one it can judge by */
extern const char *pasr_vlayout_bad;

void __init pasr_verify_layout_init(char **dies, unsigned int ndies,
				    char **ilvs, unsigned int nilvs);
int pasr_vlookup(u64 pa);
u64 pasr_vlegal(enum pasr_mode mode, u32 n, u64 maskable);

/* verify.c */
void __init pasr_verify_debugfs_init(struct dentry *dir);

#endif /* _MM_PASR_INTERNAL_H */
