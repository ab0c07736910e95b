// SPDX-License-Identifier: GPL-2.0
/*
 * PASR evacuation governor: its interface, /sys/kernel/mm/pasr/governor/
 * (enabled, threshold, trigger, release) and its stats/.
 */

#define pr_fmt(fmt) "pasr: governor: " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "governor.h"
#include "internal.h"

static ssize_t enabled_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", pasr_gov_is_enabled());
}

static ssize_t enabled_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t len)
{
	bool on;

	if (kstrtobool(buf, &on))
		return -EINVAL;
	pasr_gov_set_enabled(on);
	return len;
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);

static ssize_t threshold_show(struct kobject *k, struct kobj_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", pasr_gov_threshold_percent());
}

static ssize_t threshold_store(struct kobject *k, struct kobj_attribute *a,
			       const char *buf, size_t len)
{
	unsigned int v;

	if (kstrtouint(buf, 0, &v) || v > 100)
		return -EINVAL;
	pasr_gov_set_threshold(v);
	return len;
}

static struct kobj_attribute threshold_attr = __ATTR_RW(threshold);

static ssize_t trigger_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t len)
{
	pasr_gov_trigger();
	return len;
}

static struct kobj_attribute trigger_attr = __ATTR_WO(trigger);

static ssize_t release_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t len)
{
	pasr_gov_give_back();
	return len;
}

static struct kobj_attribute release_attr = __ATTR_WO(release);

/* /sys/kernel/mm/pasr/governor/stats/: one counter per file, as sysfs wants. */
#define PASR_GOV_STAT(_name, _fmt, _field)				\
static ssize_t _name##_show(struct kobject *k,				\
			    struct kobj_attribute *a, char *buf)	\
{									\
	struct pasr_gov_stats st;					\
									\
	pasr_gov_read_stats(&st);					\
	return sysfs_emit(buf, _fmt "\n", st._field);			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

PASR_GOV_STAT(evacuated, "%lu", evacuated);
PASR_GOV_STAT(migrated_pages, "%lu", migrated_pages);
PASR_GOV_STAT(returned, "%lu", returned);
PASR_GOV_STAT(failures, "%lu", failures);
PASR_GOV_STAT(reserved_bytes, "%llu", reserved_bytes);
PASR_GOV_STAT(use_percent, "%u", use_percent);

static struct attribute *pasr_gov_attrs[] = {
	&enabled_attr.attr,
	&threshold_attr.attr,
	&trigger_attr.attr,
	&release_attr.attr,
	NULL,
};

static const struct attribute_group pasr_gov_group = {
	.attrs = pasr_gov_attrs,
};

static struct attribute *pasr_gov_stats_attrs[] = {
	&evacuated_attr.attr,
	&migrated_pages_attr.attr,
	&returned_attr.attr,
	&failures_attr.attr,
	&reserved_bytes_attr.attr,
	&use_percent_attr.attr,
	NULL,
};

static const struct attribute_group pasr_gov_stats_group = {
	.name = "stats",
	.attrs = pasr_gov_stats_attrs,
};

static const struct attribute_group *pasr_gov_groups[] = {
	&pasr_gov_group,
	&pasr_gov_stats_group,
	NULL,
};

void __init pasr_gov_sysfs_init(void)
{
	struct kobject *gov_kobj;

	gov_kobj = pasr_kobj ? kobject_create_and_add("governor", pasr_kobj) : NULL;
	if (!gov_kobj || sysfs_create_groups(gov_kobj, pasr_gov_groups))
		pr_err("cannot create /sys/kernel/mm/pasr/governor\n");
}
