// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier's own layout. The verifier judges the core, so it does not
 * ask the core where a section lies, which sections pair up, or which masks
 * a die may take: it reads the layout's source itself (the ddr_die= and
 * interleaved= parameters, or the DT's die@ nodes), cuts each die into equal
 * sections by arithmetic, and finds a section by walking its own table.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/bits.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/pasr.h>
#include <linux/string.h>

#include "internal.h"

struct pasr_vdie pasr_vdies[PASR_MAX_ARGS] __ro_after_init;
struct pasr_vsect pasr_vsects[PASR_MAX_SECTIONS] __ro_after_init;
int pasr_nvdies __ro_after_init, pasr_nvsects __ro_after_init;
/* the layout the verifier read is not one it can judge by */
const char *pasr_vlayout_bad __ro_after_init;

static const char *const pasr_vmode_names[] = {
	[PASR_MODE_BANK] = "bank", [PASR_MODE_SEGMENT] = "segment",
	[PASR_MODE_SINGLE] = "single", [PASR_MODE_DOUBLE] = "double",
};

/* The verifier's section holding @pa, or -1. */
int pasr_vlookup(u64 pa)
{
	int i;

	for (i = 0; i < pasr_nvsects; i++)
		if (pa >= pasr_vsects[i].start &&
		    pa - pasr_vsects[i].start < pasr_vsects[i].size)
			return i;
	return -1;
}

static void __init pasr_vadd_die(u64 base, u64 size, u32 sections,
				 enum pasr_mode mode)
{
	struct pasr_vdie *d;
	u32 k;

	if (pasr_nvdies == PASR_MAX_ARGS || !sections || sections > 64 ||
	    pasr_nvsects + sections > PASR_MAX_SECTIONS) {
		pasr_vlayout_bad = "too many dies or sections";
		return;
	}
	d = &pasr_vdies[pasr_nvdies];
	*d = (struct pasr_vdie){ base, size, sections, mode };
	for (k = 0; k < sections; k++)
		pasr_vsects[pasr_nvsects++] = (struct pasr_vsect){
			.start = base + k * div_u64(size, sections),
			.size = div_u64(size, sections),
			.die = pasr_nvdies, .bit = k, .pair = -1,
		};
	pasr_nvdies++;
}

/* Interleaved [@a, @a + @size) and [@b, @b + @size): same offsets pair up. */
static void __init pasr_vadd_ilv(u64 a, u64 b, u64 size)
{
	u64 off = 0;
	int sa, sb;

	while (off < size) {
		sa = pasr_vlookup(a + off);
		sb = pasr_vlookup(b + off);
		if (sa < 0 || sb < 0) {
			pasr_vlayout_bad = "an interleaved range outside the dies";
			return;
		}
		pasr_vsects[sa].pair = sb;
		pasr_vsects[sb].pair = sa;
		off += pasr_vsects[sa].size;
	}
}

/* "SIZE@BASE[,sections=N][,mode=MODE]" */
static void __init pasr_vparse_die(const char *arg)
{
	u32 sections = 8;
	int mode = PASR_MODE_BANK;
	char *p = (char *)arg, *opt;
	u64 size, base;

	size = memparse(p, &p);
	if (*p++ != '@')
		goto bad;
	base = memparse(p, &p);
	while (*p == ',') {
		opt = p + 1;
		p = strchrnul(opt, ',');
		if (str_has_prefix(opt, "sections=")) {
			char num[12];

			if (p - opt - 9 >= sizeof(num))
				goto bad;
			strscpy(num, opt + 9, p - opt - 9 + 1);
			if (kstrtou32(num, 0, &sections))
				goto bad;
		} else if (str_has_prefix(opt, "mode=")) {
			for (mode = 0; mode < ARRAY_SIZE(pasr_vmode_names); mode++)
				if (p - opt - 5 == strlen(pasr_vmode_names[mode]) &&
				    !strncmp(opt + 5, pasr_vmode_names[mode], p - opt - 5))
					break;
			if (mode == ARRAY_SIZE(pasr_vmode_names))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (*p)
		goto bad;
	pasr_vadd_die(base, size, sections, mode);
	return;
bad:
	pasr_vlayout_bad = "a ddr_die= it cannot read";
}

/* "SIZE@A:B" */
static void __init pasr_vparse_ilv(const char *arg)
{
	char *p = (char *)arg;
	u64 size, a, b;

	size = memparse(p, &p);
	if (*p++ != '@')
		goto bad;
	a = memparse(p, &p);
	if (*p++ != ':')
		goto bad;
	b = memparse(p, &p);
	if (*p)
		goto bad;
	pasr_vadd_ilv(a, b, size);
	return;
bad:
	pasr_vlayout_bad = "an interleaved= it cannot read";
}

#ifdef CONFIG_OF
static void __init pasr_vread_dt(void)
{
	struct device_node *np, *dn;
	const __be32 *p;
	int ac, sc, len, i;

	np = of_find_compatible_node(NULL, NULL, "linux,pasr-ddr-layout");
	if (!np)
		return;
	for_each_available_child_of_node(np, dn) {
		const char *mode = "bank";
		u32 sections = 8;
		u64 base, size;
		int m;

		if (!of_node_name_eq(dn, "die"))
			continue;
		of_property_read_u32(dn, "linux,pasr-sections", &sections);
		of_property_read_string(dn, "linux,pasr-mode", &mode);
		m = match_string(pasr_vmode_names, ARRAY_SIZE(pasr_vmode_names), mode);
		if (of_property_read_reg(dn, 0, &base, &size) || m < 0) {
			pasr_vlayout_bad = "a die@ node it cannot read";
			continue;
		}
		pasr_vadd_die(base, size, sections, m);
	}
	/* pairs, once every die is known */
	for_each_available_child_of_node(np, dn) {
		ac = of_n_addr_cells(dn);
		sc = of_n_size_cells(dn);
		p = of_get_property(dn, "linux,pasr-interleave", &len);
		if (!p || !of_node_name_eq(dn, "die"))
			continue;
		len /= sizeof(*p);
		for (i = 0; i + 2 * ac + sc <= len; i += 2 * ac + sc)
			pasr_vadd_ilv(of_read_number(p + i, ac),
				      of_read_number(p + i + ac, ac),
				      of_read_number(p + i + 2 * ac, sc));
	}
	of_node_put(np);
}
#else
static void __init pasr_vread_dt(void)
{
}
#endif

/*
 * The core took the layout: read it again, for the verifier, from the
 * @ndies ddr_die= and @nilvs interleaved= arguments, or from the DT.
 */
void __init pasr_verify_layout_init(char **dies, unsigned int ndies,
				    char **ilvs, unsigned int nilvs)
{
	unsigned int i;

	if (ndies || nilvs) {
		for (i = 0; i < ndies; i++)
			pasr_vparse_die(dies[i]);
		for (i = 0; i < nilvs; i++)
			pasr_vparse_ilv(ilvs[i]);
	} else {
		pasr_vread_dt();
	}
	if (pasr_vlayout_bad)
		pr_warn("verify: the layout has %s: no verifier\n", pasr_vlayout_bad);
}

/*
 * The most sections of a @mode die of @n sections that may go unrefreshed
 * when @maskable may: any of them on a bank or segment die; on a single- or
 * double-ended die, the top 7/8, 3/4 or 1/2 (double-ended: or the bottom),
 * the largest first and the top before the bottom, as Documentation/mm/pasr.rst
 * says.
 */
u64 pasr_vlegal(enum pasr_mode mode, u32 n, u64 maskable)
{
	u64 all = n >= 64 ? U64_MAX : BIT_ULL(n) - 1;
	static const u32 eighths[] = { 7, 6, 4 };
	int j;

	maskable &= all;
	if (mode == PASR_MODE_BANK || mode == PASR_MODE_SEGMENT)
		return maskable;
	for (j = 0; j < ARRAY_SIZE(eighths); j++) {
		u32 masked = n * eighths[j];
		u64 bottom, top;

		if (masked % 8)
			continue;
		masked /= 8;
		bottom = masked >= 64 ? U64_MAX : BIT_ULL(masked) - 1;
		top = all & ~(all >> masked);
		if ((maskable & top) == top)
			return top;
		if (mode == PASR_MODE_DOUBLE && (maskable & bottom) == bottom)
			return bottom;
	}
	return 0;
}
