/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PASR governor (governor.c), as its other files see it: its sysfs
 * interface (governor_sysfs.c) and its notifiers (governor_notify.c).
 */
#ifndef _MM_PASR_GOVERNOR_H
#define _MM_PASR_GOVERNOR_H

#include <linux/init.h>
#include <linux/types.h>

struct pasr_gov_stats {
	unsigned long evacuated, migrated_pages, returned, failures;
	u64 reserved_bytes;
	unsigned int use_percent;	/* of memory, holding data */
};

bool pasr_gov_is_enabled(void);
void pasr_gov_set_enabled(bool on);
unsigned int pasr_gov_threshold_percent(void);
void pasr_gov_set_threshold(unsigned int percent);
void pasr_gov_trigger(void);
void pasr_gov_give_back(void);
void pasr_gov_read_stats(struct pasr_gov_stats *st);
unsigned long pasr_gov_reserved_pages_now(void);
unsigned long pasr_gov_give_back_pages(unsigned long nr);
void pasr_gov_give_back_range(unsigned long lo, unsigned long hi);

void __init pasr_gov_sysfs_init(void);
int __init pasr_gov_notify_init(void);

#endif /* _MM_PASR_GOVERNOR_H */
