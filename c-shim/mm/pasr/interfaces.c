// SPDX-License-Identifier: GPL-2.0
/*
 * PASR's files: /sys/kernel/mm/pasr/ (a small stable ABI) and
 * /sys/kernel/debug/pasr/ (the map, the dies, statistics, the verifier).
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/pasr.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>

#include "internal.h"

/* --- sysfs: /sys/kernel/mm/pasr/, a small stable ABI --- */

#define PASR_STAT_ATTR(_name, _fmt, _expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct pasr_stats st;						\
									\
	pasr_stats_snapshot(&st);						\
	return sysfs_emit(buf, _fmt "\n", _expr);			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

PASR_STAT_ATTR(enabled, "%d", st.state == 1);
PASR_STAT_ATTR(total_bytes, "%llu", st.covered);
PASR_STAT_ATTR(free_bytes, "%llu", st.free);
PASR_STAT_ATTR(masked_bytes, "%llu", st.masked);
PASR_STAT_ATTR(dies, "%d", st.dies);
PASR_STAT_ATTR(sections, "%d", st.sections);

static struct attribute *pasr_attrs[] = {
	&enabled_attr.attr,
	&total_bytes_attr.attr,
	&free_bytes_attr.attr,
	&masked_bytes_attr.attr,
	&dies_attr.attr,
	&sections_attr.attr,
	NULL,
};

static const struct attribute_group pasr_attr_group = {
	.attrs = pasr_attrs,
};

/* --- debugfs: /sys/kernel/debug/pasr/ --- */

static const char *const pasr_mode_names[] = {
	"bank", "segment", "single", "double",
};

static const char *const pasr_state_names[] = {
	"off", "on", "failed",
};

static int pasr_map_show(struct seq_file *m, void *v)
{
	struct pasr_section_info s;
	int i;

	seq_puts(m, "# section start end die bit pair free masked transitions masked_ms reserved\n");
	for (i = 0; pasr_section_snapshot(i, &s); i++)
		seq_printf(m, "%d %#llx %#llx %d %d %d %llu %d %llu %llu %d\n",
			   i, s.start, s.start + s.size - 1, s.die, s.bit,
			   s.pair, s.free, s.masked, s.transitions,
			   div_u64(s.masked_ns, NSEC_PER_MSEC),
			   pasr_gov_reserved(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_map);

static int pasr_dies_show(struct seq_file *m, void *v)
{
	struct pasr_die_info d;
	int i;

	seq_puts(m, "# die base size mode sections mask value callback\n");
	for (i = 0; pasr_die_snapshot(i, &d); i++)
		seq_printf(m, "%d %#llx %#llx %s %d %#llx %#llx %d\n",
			   i, d.base, d.size,
			   d.mode >= 0 && d.mode < ARRAY_SIZE(pasr_mode_names) ?
			   pasr_mode_names[d.mode] : "?",
			   d.sections, d.mask, d.value, d.has_callback);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_dies);

static int pasr_stats_show(struct seq_file *m, void *v)
{
	struct pasr_stats st;

	pasr_stats_snapshot(&st);
	seq_printf(m, "state %s\n", st.state >= 0 &&
		   st.state < ARRAY_SIZE(pasr_state_names) ?
		   pasr_state_names[st.state] : "?");
	seq_printf(m, "puts %llu\ngets %llu\n", st.puts, st.gets);
	seq_printf(m, "out_of_map_calls %llu\nout_of_map_bytes %llu\n",
		   st.out_of_map_calls, st.out_of_map_bytes);
	seq_printf(m, "mask_updates %llu\n", st.mask_updates);
	seq_printf(m, "covered_bytes %llu\nfree_bytes %llu\nmasked_bytes %llu\n",
		   st.covered, st.free, st.masked);
	seq_printf(m, "failed_section %d\nfailed_kind %d\n",
		   st.failed_section, st.failed_kind);
	/* the backend's allocator hooks: off once PASR has failed */
	seq_printf(m, "backend %s\nhooks %s\n", pasr_backend_name,
		   pasr_is_on() ? "on" : "off");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pasr_stats);

static void __init pasr_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("pasr", NULL);

	debugfs_create_file("map", 0444, dir, NULL, &pasr_map_fops);
	debugfs_create_file("dies", 0444, dir, NULL, &pasr_dies_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &pasr_stats_fops);
	pasr_verify_debugfs_init(dir);
}

/* /sys/kernel/mm/pasr, also home to the governor's directory */
struct kobject *pasr_kobj;

static int __init pasr_interfaces_init(void)
{
	struct kobject *kobj = kobject_create_and_add("pasr", mm_kobj);

	pasr_kobj = kobj;
	if (!kobj || sysfs_create_group(kobj, &pasr_attr_group))
		pr_err("cannot create /sys/kernel/mm/pasr\n");
	if (pasr_is_on())
		pasr_debugfs_init();
	return 0;
}
subsys_initcall(pasr_interfaces_init);
