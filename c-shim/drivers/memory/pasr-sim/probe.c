// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated LPDDR controller with Partial Array Self-Refresh, for QEMU and
 * for testing the PASR core (mm/pasr/). Bound by the "linux,lpddr-pasr-sim"
 * device-tree node, see
 * Documentation/devicetree/bindings/memory-controllers/linux,lpddr-pasr-sim.yaml.
 *
 * For every PASR die it registers a mask callback that latches the value the
 * core hands over in a simulated mode register (MR16/MR17 for bank- and
 * segment-selective dies, the single/double-ended PASR field otherwise).
 *
 * Self-refresh entry (system suspend, or a write to
 * /sys/kernel/debug/pasr-sim/self_refresh) behaves like the DRAM would:
 * with every CPU stopped, the sections the mode registers leave unrefreshed
 * lose their contents. Before that, every max-order block of those sections
 * is checked to be a free buddy block; any other block is a PASR accounting
 * bug, which is reported loudly and counted. Real DRAM would then corrupt
 * whatever that block holds; the simulator overwrites the free pages and the
 * unmapped page-cache pages (file data, which tests can read back) of such a
 * block, and spares the pages the kernel itself uses, so that the test
 * kernel survives to report the bug. In a section the evacuation governor
 * holds as a reservation (CONFIG_PASR_GOVERNOR), every page must be free or
 * held by the governor (an order-0 page with one reference, in no page cache
 * and mapped nowhere): those hold no data and are overwritten too. Every
 * byte of every page overwritten is lost, as in real DRAM: nothing that
 * reads free memory later (init_on_free, page poisoning) can be fooled by
 * a page that kept most of its old contents.
 *
 * Full refresh comes back when the controller lets go of its dies: on
 * unbind, the PASR core hands every die value 0 as the driver unregisters;
 * on reboot, power-off and panic, the core's notifiers do. The driver prints
 * each die's final value then ("die N MR value 0x0 (shutdown)"), so that the
 * tests can check it. With a "memory-region", the mode registers also live
 * in reserved memory, which survives a kexec or a crash kexec as hardware
 * registers do: the next kernel's driver prints what it finds there
 * ("die N MR value 0x0 (left by the previous kernel)").
 *
 * A power model estimates the self-refresh power (IDD6 x VDD) of every die
 * from the fraction of it still refreshed, and the energy PASR saved over
 * the time spent in (simulated) self-refresh.
 *
 * This loses data on purpose. Never bind it on real hardware.
 */

#define pr_fmt(fmt) "pasr-sim: " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/mod_devicetable.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/panic_notifier.h>
#include <linux/pasr.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/slab.h>
#include <linux/suspend.h>
#include <linux/syscore_ops.h>

#include "internal.h"

/* Mobile LPDDR datasheet IDD6 (self-refresh) currents, in uA. */
static const u32 pasr_sim_default_idd6[PASR_SIM_TEMPS][PASR_SIM_POINTS] = {
	[PASR_SIM_85C] = { 1000, 750, 600, 550, 500 },
	[PASR_SIM_45C] = { 500, 440, 380, 350, 330 },
};

#define PASR_SIM_DEFAULT_UV	1800000

static const char *const pasr_sim_idd6_props[PASR_SIM_TEMPS] = {
	"linux,idd6-85c-microamp", "linux,idd6-45c-microamp",
};

const char *const pasr_sim_mode_names[4] = {
	"bank", "segment", "single", "double",
};

/* Only one controller: debugfs names are global. */
struct pasr_sim *pasr_sim_instance;

/* Reads an IDD6 table property of @np into @table if present and valid. */
static void pasr_sim_read_idd6(struct device_node *np, const char *prop,
			       u32 table[PASR_SIM_POINTS])
{
	u32 t[PASR_SIM_POINTS];
	int n = of_property_count_u32_elems(np, prop);

	if (n == -EINVAL)	/* absent */
		return;
	if (n != PASR_SIM_POINTS ||
	    of_property_read_u32_array(np, prop, t, PASR_SIM_POINTS)) {
		pr_err("%pOF: %s: expected %d cells (uA at 1, 1/2, 1/4, 1/8, 1/16 refreshed); ignored\n",
		       np, prop, PASR_SIM_POINTS);
		return;
	}
	if (pasr_sim_check_table(t)) {
		pr_err("%pOF: %s: <%u %u %u %u %u>: each value must be 1..%u uA and none above the one before; ignored\n",
		       np, prop, t[0], t[1], t[2], t[3], t[4], PASR_SIM_MAX_UA);
		return;
	}
	memcpy(table, t, sizeof(t));
}

/* Reads the linux,pasr-interleave triplets <A B SIZE> of die node @dn. */
static int pasr_sim_read_ilvs(struct pasr_sim *sim, struct device_node *dn)
{
	int ac = of_n_addr_cells(dn), sc = of_n_size_cells(dn);
	int cells = 2 * ac + sc, len, i;
	const __be32 *p = of_get_property(dn, "linux,pasr-interleave", &len);

	if (!p)
		return 0;
	len /= sizeof(*p);
	if (len % cells || sim->nilvs + len / cells > PASR_SIM_MAX_ILVS)
		return -EINVAL;
	for (i = 0; i < len; i += cells) {
		struct pasr_sim_ilv *l = &sim->ilvs[sim->nilvs++];

		l->a = of_read_number(p + i, ac);
		l->b = of_read_number(p + i + ac, ac);
		l->size = of_read_number(p + i + 2 * ac, sc);
	}
	return 0;
}

/* The die of die@ node @dn, as the simulated hardware is built. */
static int pasr_sim_read_die(struct pasr_sim *sim, struct device_node *dn,
			     struct pasr_sim_die *d)
{
	const char *mode = "bank";
	int m;

	d->sections = 8;
	if (of_property_read_reg(dn, 0, &d->base, &d->size) || !d->size)
		return -EINVAL;
	of_property_read_u32(dn, "linux,pasr-sections", &d->sections);
	of_property_read_string(dn, "linux,pasr-mode", &mode);
	m = match_string(pasr_sim_mode_names, ARRAY_SIZE(pasr_sim_mode_names),
			 mode);
	if (m < 0 || !d->sections || d->sections > 64 ||
	    pasr_sim_read_ilvs(sim, dn))
		return -EINVAL;
	d->mode = m;
	return 0;
}

/* How the PASR core must see @d to hand it values it reads right. */
static void pasr_sim_desc(struct pasr_sim_die *d, struct pasr_die_desc *desc)
{
	static const enum pasr_mode modes[] = {
		[PASR_SIM_BANK] = PASR_MODE_BANK,
		[PASR_SIM_SEGMENT] = PASR_MODE_SEGMENT,
		[PASR_SIM_SINGLE] = PASR_MODE_SINGLE,
		[PASR_SIM_DOUBLE] = PASR_MODE_DOUBLE,
	};

	desc->base = d->base;
	desc->size = d->size;
	desc->sections = d->sections;
	desc->mode = modes[d->mode];
	desc->flags = pasr_sim_parc ? PASR_DIE_RUNTIME : 0;
}

static void pasr_sim_setup_model(struct pasr_sim *sim, struct device_node *np)
{
	u32 base_idd6[PASR_SIM_TEMPS][PASR_SIM_POINTS];
	u32 uv;
	int i, t;

	memcpy(base_idd6, pasr_sim_default_idd6, sizeof(base_idd6));
	sim->vdd_uv = PASR_SIM_DEFAULT_UV;
	if (!of_property_read_u32(np, "linux,vdd-microvolt", &uv)) {
		if (uv && uv <= PASR_SIM_MAX_UV)
			sim->vdd_uv = uv;
		else
			pr_err("%pOF: linux,vdd-microvolt = <%u>: must be 1..%u; using %u\n",
			       np, uv, PASR_SIM_MAX_UV, PASR_SIM_DEFAULT_UV);
	}
	for (t = 0; t < PASR_SIM_TEMPS; t++)
		pasr_sim_read_idd6(np, pasr_sim_idd6_props[t], base_idd6[t]);

	i = 0;
	for_each_available_child_of_node_scoped(np, dn) {
		struct pasr_sim_die *d;

		if (!of_node_name_eq(dn, "die") || i == sim->ndies)
			continue;
		d = &sim->dies[i++];
		memcpy(d->idd6, base_idd6, sizeof(d->idd6));
		for (t = 0; t < PASR_SIM_TEMPS; t++)
			pasr_sim_read_idd6(dn, pasr_sim_idd6_props[t], d->idd6[t]);
	}
}

/* After the PASR core's panic notifier, which restores full refresh. */
static int pasr_sim_panic_notify(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	pasr_sim_print_final(container_of(nb, struct pasr_sim, panic_nb),
			     "panic");
	return NOTIFY_DONE;
}

static void pasr_sim_unregister(struct pasr_sim *sim)
{
	int i;

	for (i = 0; i < sim->ndies; i++) {
		if (sim->dies[i].registered)
			pasr_unregister_mask_function(sim->dies[i].base);
		sim->dies[i].registered = false;
	}
}

static int pasr_sim_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct pasr_sim_regs *regs;
	struct pasr_sim *sim;
	int i, n, ret;

	if (pasr_sim_instance) {
		dev_err(dev, "only one simulated PASR controller is supported\n");
		return -EBUSY;
	}
	/* what the hardware holds, whether PASR is on in this kernel or not */
	regs = pasr_sim_map_regs(dev);
	if (IS_ERR(regs))
		return PTR_ERR(regs);
	if (pasr_die_count() <= 0) {
		dev_warn(dev, "PASR is not enabled (no valid DDR layout): nothing to control\n");
		return -ENODEV;
	}
	if (pasr_sim_parc && debug_pagealloc_enabled_static()) {
		dev_err(dev, "PARC: not with debug_pagealloc, which unmaps free pages: off\n");
		pasr_sim_parc = false;
	}
	n = 0;
	for_each_available_child_of_node_scoped(dev->of_node, dn)
		n += of_node_name_eq(dn, "die");
	if (!n) {
		dev_err(dev, "no die@ nodes: nothing to control\n");
		return -ENODEV;
	}

	sim = devm_kzalloc(dev, sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	sim->dies = devm_kcalloc(dev, n, sizeof(*sim->dies), GFP_KERNEL);
	if (!sim->dies)
		return -ENOMEM;
	sim->dev = dev;
	sim->ndies = n;
	if (regs) {
		regs->ndies = min(n, PASR_SIM_REGS_DIES);
		sim->regs = regs;
	}
	raw_spin_lock_init(&sim->lock);
	mutex_init(&sim->sr_mutex);
	INIT_DELAYED_WORK(&sim->log_work, pasr_sim_log_work);

	i = 0;
	for_each_available_child_of_node_scoped(dev->of_node, dn) {
		struct pasr_sim_die *d;

		if (!of_node_name_eq(dn, "die"))
			continue;
		d = &sim->dies[i];
		d->sim = sim;
		d->index = i++;
		if (pasr_sim_read_die(sim, dn, d)) {
			dev_err(dev, "%pOF: bad reg, linux,pasr-sections, -mode or -interleave\n",
				dn);
			return -EINVAL;
		}
	}
	pasr_sim_setup_model(sim, dev->of_node);

	for (i = 0; i < n; i++) {
		struct pasr_sim_die *d = &sim->dies[i];
		const u32 *a = d->idd6[PASR_SIM_85C], *b = d->idd6[PASR_SIM_45C];
		struct pasr_die_desc desc;

		pr_info("die %d: [mem %#010llx-%#010llx] %s, %u sections; IDD6 85C %u/%u/%u/%u/%u uA, 45C %u/%u/%u/%u/%u uA at 1..1/16 refreshed, VDD %u uV\n",
			i, d->base, d->base + d->size - 1,
			pasr_sim_mode_names[d->mode], d->sections,
			a[0], a[1], a[2], a[3], a[4], b[0], b[1], b[2], b[3], b[4],
			sim->vdd_uv);
		pasr_sim_desc(d, &desc);
		ret = pasr_register_die(&desc, pasr_sim_write_mr, d);
		/* refused: the die keeps its reset value, full refresh */
		if (ret)
			dev_err(dev, "die %d at %#llx: not registered (%d): fully refreshed\n",
				i, d->base, ret);
		d->registered = !ret;
	}

	platform_set_drvdata(pdev, sim);
	pasr_sim_instance = sim;
	sim->syscore.ops = &pasr_sim_syscore_ops;
	sim->syscore.data = sim;
	register_syscore(&sim->syscore);
	pasr_sim_log_writes(sim);
	pasr_sim_print_power(sim, "probe");

	pasr_sim_debugfs_init(sim);
	schedule_delayed_work(&sim->log_work, HZ);
	sim->panic_nb.notifier_call = pasr_sim_panic_notify;
	sim->panic_nb.priority = INT_MIN;
	atomic_notifier_chain_register(&panic_notifier_list, &sim->panic_nb);
	sim->pm_nb.notifier_call = pasr_sim_pm_notify;
	register_pm_notifier(&sim->pm_nb);
	if (pasr_sim_parc)
		pasr_sim_parc_start(sim);
	return 0;
}

static void pasr_sim_remove(struct platform_device *pdev)
{
	struct pasr_sim *sim = platform_get_drvdata(pdev);

	pasr_sim_parc_stop(sim);
	atomic_notifier_chain_unregister(&panic_notifier_list, &sim->panic_nb);
	unregister_pm_notifier(&sim->pm_nb);
	debugfs_remove_recursive(sim->debugfs);
	cancel_delayed_work_sync(&sim->log_work);
	/* The core hands each die value 0, then no longer calls into sim. */
	pasr_sim_unregister(sim);
	pasr_sim_print_final(sim, "unbind");
	unregister_syscore(&sim->syscore);
	pasr_sim_instance = NULL;
}

/* device_shutdown() runs after the reboot notifiers, the PASR core's too. */
static void pasr_sim_shutdown(struct platform_device *pdev)
{
	struct pasr_sim *sim = platform_get_drvdata(pdev);

	if (sim)
		pasr_sim_print_final(sim, "shutdown");
}

static const struct of_device_id pasr_sim_of_match[] = {
	{ .compatible = "linux,lpddr-pasr-sim" },
	{ }
};
MODULE_DEVICE_TABLE(of, pasr_sim_of_match);

static struct platform_driver pasr_sim_driver = {
	.probe = pasr_sim_probe,
	.remove = pasr_sim_remove,
	.shutdown = pasr_sim_shutdown,
	.driver = {
		.name = "pasr-sim",
		.of_match_table = pasr_sim_of_match,
		.pm = pm_sleep_ptr(&pasr_sim_pm_ops),
	},
};

static int __init pasr_sim_init(void)
{
	s2idle_set_ops(&pasr_sim_s2idle_ops);
	return platform_driver_register(&pasr_sim_driver);
}
device_initcall(pasr_sim_init);

