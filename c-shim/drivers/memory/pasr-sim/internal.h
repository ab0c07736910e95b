/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated LPDDR controller with PASR: the state its parts share. The
 * driver is split by role: probe.c binds it, registers.c latches the mode
 * registers, self_refresh.c and parc.c lose what they leave unrefreshed,
 * suspend.c enters self-refresh with the system, power.c estimates the
 * power, debugfs.c shows it all, model.c holds the pure parts (model.h).
 */
#ifndef _DRIVERS_MEMORY_PASR_SIM_INTERNAL_H
#define _DRIVERS_MEMORY_PASR_SIM_INTERNAL_H

#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pm.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>
#include <linux/syscore_ops.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "model.h"

struct device;
struct pasr_sim;
struct seq_file;

/*
 * What unrefreshed DRAM rows read back as in the simulation. Chosen to differ
 * from zero, from 0xff and from every pattern in include/linux/poison.h, so
 * that a corruption found later is recognisably this one.
 */
#define PASR_SIM_POISON		0xd5

/* Mode-register writes logged per die; later ones are only counted. */
#define PASR_SIM_LOG_WRITES	8
/* The log work polls the write records once a second for this long. */
#define PASR_SIM_LOG_POLLS	30
/* Violations described one by one per self-refresh entry. */
#define PASR_SIM_MAX_FINDINGS	8

/*
 * The mode registers as the hardware keeps them, across a kexec or a crash
 * kexec: in the reserved memory of the node's optional "memory-region",
 * which no kernel clears. A kernel that starts finds the values the last one
 * left. PASR_SIM_REGS_MAGIC marks a page some kernel has written.
 */
#define PASR_SIM_REGS_MAGIC	0x3152534d49535250ULL	/* "PRSIMSR1" */
#define PASR_SIM_REGS_DIES	16

struct pasr_sim_regs {
	u64 magic;
	u64 owner;			/* boot id of the kernel that bound last */
	u64 ndies;			/* its dies */
	u64 mr[PASR_SIM_REGS_DIES];
};

enum { PASR_SIM_85C, PASR_SIM_45C, PASR_SIM_TEMPS };

/*
 * A die as the simulated hardware is built: from its own die@ node, never
 * from the PASR core, as a real controller has its own geometry.
 */
struct pasr_sim_die {
	struct pasr_sim *sim;
	int index;			/* die@ node, in order */
	u64 base, size;
	u32 sections;
	enum pasr_sim_mode mode;
	u32 idd6[PASR_SIM_TEMPS][PASR_SIM_POINTS];
	bool registered;
	/* The simulated mode register, written by pasr_sim_write_mr(). */
	u64 mr, prev_mr, writes;
	u64 log_val[PASR_SIM_LOG_WRITES];
	u64 logged;			/* writes printed so far */
	/* Unrefreshed sections at the last self-refresh entry. */
	u32 sr_lost, sr_sections;
	/* PARC with parc_unmask_delay_ms: a value not applied yet. */
	u64 pending_mr, pending_at_ns;
	bool pending;
};

/* Two address ranges whose data is spread over two dies' sections. */
struct pasr_sim_ilv {
	u64 a, b, size;
};

#define PASR_SIM_MAX_ILVS	16

struct pasr_sim_finding {
	int die, bit;
	unsigned long pfn;
	unsigned long flags;
	int refcount;
	int order;			/* buddy order if PageBuddy, else -1 */
	bool valid;
};

/* One self-refresh entry, filled in with every CPU stopped. */
struct pasr_sim_entry {
	struct pasr_sim *sim;
	u64 blocks, violations, poisoned_pages, data_pages, spared_pages;
	u64 reserved_pages, lost_bytes;
	u32 bad_sections, mr_invalid;
	int nfindings;
	struct pasr_sim_finding findings[PASR_SIM_MAX_FINDINGS];
};

struct pasr_sim {
	struct device *dev;
	int ndies;
	struct pasr_sim_die *dies;
	int nilvs;
	struct pasr_sim_ilv ilvs[PASR_SIM_MAX_ILVS];
	u32 vdd_uv;
	/* Orders mode-register writes (under the PASR lock) and readers. */
	raw_spinlock_t lock;
	/* Serialises self-refresh entries and the statistics below. */
	struct mutex sr_mutex;
	u64 entries, suspend_entries, violations, last_violations;
	u64 poisoned_pages, data_pages, spared_pages, mr_invalid;
	u64 reserved_pages;
	u64 sr_ms, saved_pj[PASR_SIM_TEMPS];
	u64 suspend_start_ns;
	bool in_suspend;
	/* A system suspend's entry, armed by the noirq callback (see there). */
	struct pasr_sim_entry *armed;
	struct syscore syscore;
	struct dentry *debugfs;
	struct delayed_work log_work;
	unsigned int log_polls;
	struct notifier_block panic_nb;
	struct notifier_block pm_nb;
	struct pasr_sim_regs *regs;	/* NULL without "memory-region" */
	/*
	 * PARC: the thread that loses masked sections while the system runs,
	 * set and cleared under @lock, and woken by a value that masks more.
	 */
	struct task_struct *parc_thread;
	bool parc_kicked;
	u64 parc_passes, parc_pages, parc_last_pass_ms, parc_kicks;
};

/* A die's mode register, read under the lock. */
struct pasr_sim_mr {
	u64 mr, prev, writes;
};

/* Self-refresh power of a die or of all, now and with everything refreshed. */
struct pasr_sim_power {
	u64 now_nw[PASR_SIM_TEMPS], full_nw[PASR_SIM_TEMPS];
};

/*
 * A fixed-point value split for "%llu.%03u" (or "%llu.%u"): div_u64_rem(), as
 * a 64-bit division is a libgcc call that 32-bit ARM kernels do not link.
 */
struct pasr_sim_fixed {
	u64 whole;
	u32 frac;
};

static inline struct pasr_sim_fixed pasr_sim_fixed(u64 v, u32 one)
{
	struct pasr_sim_fixed f;

	f.whole = div_u64_rem(v, one, &f.frac);
	return f;
}

/* Only one controller: debugfs names are global. */
extern struct pasr_sim *pasr_sim_instance;
extern const char *const pasr_sim_mode_names[4];
extern bool pasr_sim_parc;
extern unsigned int pasr_sim_parc_delay_ms;

/* registers.c */
void pasr_sim_write_mr(u64 value, void *cookie);
void pasr_sim_read_mr(struct pasr_sim_die *d, struct pasr_sim_mr *out);
void pasr_sim_log_writes(struct pasr_sim *sim);
void pasr_sim_print_final(struct pasr_sim *sim, const char *why);
struct pasr_sim_regs *pasr_sim_map_regs(struct device *dev);

/* parc.c */
bool pasr_sim_section_range(const struct pasr_sim_die *d, int bit, int *k,
			    u64 *start, u64 *size);
void pasr_sim_parc_start(struct pasr_sim *sim);
void pasr_sim_parc_stop(struct pasr_sim *sim);

/* power.c */
void pasr_sim_die_power(struct pasr_sim *sim, struct pasr_sim_die *d,
			u32 lost, u32 sections, struct pasr_sim_power *p);
u64 pasr_sim_saving_pm(u64 full, u64 now);
void pasr_sim_total_power(struct pasr_sim *sim, struct pasr_sim_power *sum,
			  u32 *lost, u32 *sections, u64 *writes,
			  struct seq_file *m);
void pasr_sim_print_power(struct pasr_sim *sim, const char *when);
void pasr_sim_log_work(struct work_struct *work);
void pasr_sim_account(struct pasr_sim *sim, u64 ms);

/* self_refresh.c */
int pasr_sim_enter_stopped(void *data);
long pasr_sim_entered(struct pasr_sim *sim, struct pasr_sim_entry *e,
		      const char *why);
long pasr_sim_run_entry(struct pasr_sim *sim, struct pasr_sim_entry *e,
			const char *why);
long pasr_sim_enter(struct pasr_sim *sim, const char *why);

/* suspend.c */
extern const struct dev_pm_ops pasr_sim_pm_ops;
extern const struct platform_s2idle_ops pasr_sim_s2idle_ops;
extern const struct syscore_ops pasr_sim_syscore_ops;
int pasr_sim_pm_notify(struct notifier_block *nb, unsigned long action,
		       void *data);

/* debugfs.c */
void pasr_sim_debugfs_init(struct pasr_sim *sim);
void pasr_sim_seq_power(struct seq_file *m, const struct pasr_sim_power *p);

#endif /* _DRIVERS_MEMORY_PASR_SIM_INTERNAL_H */
