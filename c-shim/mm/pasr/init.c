// SPDX-License-Identifier: GPL-2.0
/*
 * PASR bring-up: the ddr_die=, interleaved=, pasr= and pasr.backend= early
 * parameters, the DT layout node, the configurations PASR cannot serve, and
 * the early initcall that builds the map and starts a backend.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/of.h>
#include <linux/pasr.h>
#include <linux/string.h>

#include "internal.h"

/*
 * Early parameters are kept as pointers into the early command line copy,
 * which lives until the init sections are freed, after pasr_init().
 */
static char *pasr_die_args[PASR_MAX_ARGS] __initdata;
static unsigned int pasr_ndies __initdata;
static char *pasr_ilv_args[PASR_MAX_ARGS] __initdata;
static unsigned int pasr_nilvs __initdata;
static bool pasr_off __initdata;
/* the hooks backend is the default, when built (CONFIG_PASR_HOOKS) */
static bool pasr_use_reporting __initdata = !IS_ENABLED(CONFIG_PASR_HOOKS);

static int __init pasr_add_arg(char **args, unsigned int *n, char *val)
{
	static char empty[] __initdata = "";

	if (*n < PASR_MAX_ARGS)
		args[*n] = val ? val : empty;
	if (*n < UINT_MAX)
		(*n)++;
	return 0;
}

static int __init pasr_ddr_die_param(char *val)
{
	return pasr_add_arg(pasr_die_args, &pasr_ndies, val);
}
early_param("ddr_die", pasr_ddr_die_param);

static int __init pasr_interleaved_param(char *val)
{
	return pasr_add_arg(pasr_ilv_args, &pasr_nilvs, val);
}
early_param("interleaved", pasr_interleaved_param);

static int __init pasr_param(char *val)
{
	if (val && !strcmp(val, "off")) {
		pasr_off = true;
	} else if (!val || strcmp(val, "on")) {
		pr_err("pasr=%s: expected on or off; PASR disabled\n",
		       val ? val : "");
		pasr_off = true;
	}
	return 0;
}
early_param("pasr", pasr_param);

static int __init pasr_backend_param(char *val)
{
	/* the last one given wins, as for other parameters */
	if (val && !strcmp(val, "reporting")) {
		pasr_use_reporting = true;
	} else if (val && !strcmp(val, "hooks") &&
		   IS_ENABLED(CONFIG_PASR_HOOKS)) {
		pasr_use_reporting = false;
	} else if (val && !strcmp(val, "hooks")) {
		pr_err("pasr.backend=hooks: not built (CONFIG_PASR_HOOKS); PASR disabled\n");
		pasr_off = true;
	} else {
		pr_err("pasr.backend=%s: expected hooks or reporting; PASR disabled\n",
		       val ? val : "");
		pasr_off = true;
	}
	return 0;
}
early_param("pasr.backend", pasr_backend_param);

#ifdef CONFIG_OF
static struct pasr_dt_die pasr_dt_dies[PASR_MAX_ARGS] __initdata;
static struct pasr_dt_interleave pasr_dt_ilvs[PASR_MAX_ARGS] __initdata;
static size_t pasr_dt_nilvs __initdata;

/*
 * Decodes die@ node @dn, the @i-th, into pasr_dt_dies[@i], and its
 * linux,pasr-interleave triplets <A B SIZE> into pasr_dt_ilvs, with @ac
 * address and @sc size cells. Returns why it cannot, or NULL.
 */
static const char *__init pasr_dt_read_die(struct device_node *dn, u32 i,
					    u32 ac, u32 sc)
{
	struct pasr_dt_die *d = &pasr_dt_dies[i];
	const __be32 *p;
	int len, k, n;

	p = of_get_property(dn, "reg", &len);
	if (!p || len != (ac + sc) * sizeof(*p))
		return "reg: expected one <BASE SIZE> in the parent's cells";
	d->name = of_node_full_name(dn);
	d->base = of_read_number(p, ac);
	d->size = of_read_number(p + ac, sc);
	d->has_sections = of_find_property(dn, "linux,pasr-sections", &len);
	if (d->has_sections &&
	    (len != sizeof(u32) ||
	     of_property_read_u32(dn, "linux,pasr-sections", &d->sections)))
		return "linux,pasr-sections: expected one cell";
	d->mode = NULL;
	if (of_find_property(dn, "linux,pasr-mode", NULL) &&
	    of_property_read_string(dn, "linux,pasr-mode", &d->mode))
		return "linux,pasr-mode: expected a string";
	p = of_get_property(dn, "linux,pasr-interleave", &len);
	if (!p)
		return NULL;
	n = len / sizeof(*p);
	if (!n || len % ((2 * ac + sc) * sizeof(*p)))
		return "linux,pasr-interleave: expected <A B SIZE> triplets in the parent's cells";
	/* past PASR_MAX_ARGS, the core refuses the layout as too many */
	for (k = 0; k < n && pasr_dt_nilvs < PASR_MAX_ARGS; k += 2 * ac + sc) {
		struct pasr_dt_interleave *il = &pasr_dt_ilvs[pasr_dt_nilvs++];

		il->a = of_read_number(p + k, ac);
		il->b = of_read_number(p + k + ac, ac);
		il->size = of_read_number(p + k + 2 * ac, sc);
		il->die = i;
	}
	return NULL;
}

/*
 * Decodes the die@ nodes of the first "linux,pasr-ddr-layout" node and hands
 * the numbers to the core, which validates them. Returns 1 if there is none.
 */
static int __init pasr_init_dt(void)
{
	struct device_node *np, *child;
	const char *why;
	u32 ac, sc, n = 0;
	int ret = 1;

	np = of_find_compatible_node(NULL, NULL, "linux,pasr-ddr-layout");
	if (!np)
		return 1;
	if (!of_device_is_available(np))
		goto out;
	if (of_property_read_u32(np, "#address-cells", &ac) ||
	    of_property_read_u32(np, "#size-cells", &sc) ||
	    ac < 1 || ac > 2 || sc < 1 || sc > 2) {
		pr_err("DT %pOF: #address-cells and #size-cells must be 1 or 2; PASR disabled\n",
		       np);
		goto out;
	}
	for_each_available_child_of_node(np, child) {
		if (!of_node_name_eq(child, "die"))
			continue;
		/* past PASR_MAX_ARGS, the core refuses the layout as too many */
		if (n == PASR_MAX_ARGS) {
			of_node_put(child);
			break;
		}
		why = pasr_dt_read_die(child, n, ac, sc);
		if (why) {
			pr_err("DT %s: %s; PASR disabled\n",
			       of_node_full_name(child), why);
			of_node_put(child);
			goto out;
		}
		n++;
	}
	if (n)
		ret = pasr_map_init_dt(pasr_dt_dies, n, pasr_dt_ilvs,
				       pasr_dt_nilvs, PAGE_SIZE << MAX_PAGE_ORDER);
	else
		pr_err("%pOF: no die@ nodes; PASR disabled\n", np);
out:
	of_node_put(np);
	return ret;
}
#else
static int __init pasr_init_dt(void)
{
	return 1;
}
#endif

static int __init pasr_late_init(void)
{
	if (pasr_is_on())
		pasr_map_late_init();
	return 0;
}
late_initcall(pasr_late_init);

/*
 * --- configurations PASR cannot serve ---
 *
 * init_on_free zeroes pages when they are freed and then hands them out as
 * zeroed memory (__GFP_ZERO is skipped); page poisoning checks on
 * allocation that a free page still holds its poison. Both rely on free
 * memory keeping its contents, which a section left unrefreshed in
 * self-refresh does not. PASR refuses to mask with either on, and says so.
 */
static const char *__init pasr_conflict(void)
{
	if (want_init_on_free())
		return "init_on_free";
	if (page_poisoning_enabled_static())
		return "page_poison";
	return NULL;
}

/*
 * Bring-up, an early initcall: before the other CPUs come up and before any
 * controller probes. The map is built (boot parameters take precedence over
 * the device tree), with every section counted used, unless the
 * configuration is one PASR cannot serve; then the backend starts: the
 * hooks seed the counters from the free lists, page reporting reports what
 * is free a few seconds later.
 */
static int __init pasr_init(void)
{
	const char *why;
	int ret;

	if (pasr_off) {
		pr_info("disabled by pasr=off\n");
		return 0;
	}
	if (pasr_ndies || pasr_nilvs)
		ret = pasr_map_init(pasr_die_args, min(pasr_ndies, PASR_MAX_ARGS),
				    pasr_ilv_args, min(pasr_nilvs, PASR_MAX_ARGS),
				    PAGE_SIZE << MAX_PAGE_ORDER);
	else
		ret = pasr_init_dt();
	if (ret)
		return 0;
	pasr_verify_layout_init(pasr_die_args, min(pasr_ndies, PASR_MAX_ARGS),
				pasr_ilv_args, min(pasr_nilvs, PASR_MAX_ARGS));
	why = pasr_conflict();
	if (why) {
		pr_err("%s is on: it needs free pages to keep their contents, which unrefreshed DRAM loses; PASR disabled, all memory refreshed\n",
		       why);
		pasr_refresh_all(false);
		return 0;
	}
	pasr_lifecycle_init();
	/* masks are raised from irq_work, never under zone->lock */
	pasr_defer_raising();
	pasr_backend_start(pasr_use_reporting);
	pr_info("enabled (%s backend)\n", pasr_backend_name);
	return 0;
}
early_initcall(pasr_init);
