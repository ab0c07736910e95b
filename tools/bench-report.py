#!/usr/bin/env python3
"""Turn the console logs of 'make bench' (build/bench/boot-*.log) into a Markdown
report (stdout), CSV files and gnuplot PNG plots in the same directory.

The logs hold 'PASR-BENCH:' lines printed by the guest (tools/bench-init.sh
and mm/pasr/bench.c); the boot time is the printk timestamp of
'Run /init as init process'. Ratios are computed from the median of the rounds
of one run; nothing is tuned or dropped.
"""

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import time

CONFIGS = [
    ("absent", "kernel built without CONFIG_PASR"),
    ("off", "CONFIG_PASR=y, layout given, pasr=off (static key off)"),
    ("on", "CONFIG_PASR=y, layout given (static key on)"),
]

# (order, batch) -> allowed overhead of 'on' against 'off', in percent
ALLOC_TARGET = {0: 1.0, 3: 1.0, 10: 5.0}
CALLS_FLATNESS_TARGET = 10.0

KV = re.compile(r"(\w+)=(\S+)")


def parse_log(path):
    d = {"info": {}, "alloc": [], "calls": [], "workload": [], "state": [],
         "errors": [], "boot_s": None, "init": {}}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").replace("\r", "")
            m = re.search(r"\[\s*(\d+\.\d+)\]\s+Run /init as init process", line)
            if m:
                d["boot_s"] = float(m.group(1))
            i = line.find("PASR-BENCH: ")
            if i < 0:
                continue
            rest = line[i + len("PASR-BENCH: "):].split()
            if not rest:
                continue
            kind = rest[0]
            kv = dict(KV.findall(" ".join(rest[1:])))
            if "error" in kv or kind.startswith("error="):
                d["errors"].append(line[i:])
                continue
            if kind == "info":
                d["info"] = kv
            elif kind == "init":
                d["init"] = kv
            elif kind == "alloc":
                d["alloc"].append({k: int(v) for k, v in kv.items()})
            elif kind == "calls":
                d["calls"].append({k: int(v) for k, v in kv.items()})
            elif kind == "workload":
                w = {k: int(v) for k, v in kv.items()}
                w["ns"] = w["t1"] - w["t0"]
                d["workload"].append(w)
            elif kind == "state":
                d["state"].append((rest[1] if len(rest) > 1 else "?", kv))
    return d


def med(xs):
    return statistics.median(xs) if xs else None


def spread_pct(xs):
    """(max - min) / median of the rounds, in percent."""
    if not xs or len(xs) < 2:
        return 0.0
    m = statistics.median(xs)
    return 100.0 * (max(xs) - min(xs)) / m if m else 0.0


def fmt(x, nd=1):
    return "n/a" if x is None else f"{x:,.{nd}f}"


def pct(x, nd=2):
    return "n/a" if x is None else f"{x:+.{nd}f}%"


def case_name(order, batch):
    s = f"order {order}"
    if order == 10:
        s += " (MAX_PAGE_ORDER)"
    if batch > 1:
        s += f", batches of {batch}"
    return s


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def gnuplot(script, path):
    with open(path, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"bench-report: gnuplot {path} failed:\n{r.stderr}\n")
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--qemu-mode", required=True)
    ap.add_argument("--qemu", default="")
    ap.add_argument("--machine", default="")
    ap.add_argument("--layout", default="")
    ap.add_argument("--host", default="")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--elapsed", type=int, default=0)
    a = ap.parse_args()
    out = a.dir

    runs = {}  # config -> list of parsed boots, in boot order
    for cfg, _ in CONFIGS:
        logs = []
        for name in os.listdir(out):
            m = re.fullmatch(rf"boot-{cfg}-(\d+)\.log", name)
            if m:
                logs.append((int(m.group(1)), os.path.join(out, name)))
        if logs:
            runs[cfg] = [dict(parse_log(p), boot=n) for n, p in sorted(logs)]
    if "on" not in runs or "off" not in runs:
        sys.exit("bench-report: boot-on-N.log and boot-off-N.log are needed")
    for cfg, boots in runs.items():
        for r in boots:
            got = r["info"].get("pasr")
            if got != cfg:
                sys.exit(f"bench-report: boot '{cfg}' {r['boot']}: the kernel says pasr={got}, "
                         f"expected {cfg}")
    nboots = min(len(b) for b in runs.values())

    icount = "icount" in a.qemu_mode and "no -icount" not in a.qemu_mode
    unit = "ns (guest clock)"
    lines = []
    P = lines.append
    failed_targets = []

    times = {}
    for name in ("build-times.txt", "boot-times.txt"):
        p = os.path.join(out, name)
        if os.path.exists(p):
            for ln in open(p):
                k, v = ln.split()
                times.setdefault(name, []).append((k, int(v)))

    P("## PASR benchmark")
    P("")
    P(f"- Date: {time.strftime('%Y-%m-%d %H:%M %Z')}")
    P(f"- Kernel: Linux {a.kernel}, arm64, non-debug (allnoconfig + `tools/bench.fragment`: "
      "no DEBUG_KERNEL, PROVE_LOCKING, KUNIT or PASR test options; CONFIG_PASR_BENCH=y)")
    P(f"- QEMU: {a.qemu}; machine {a.machine}")
    if icount:
        P(f"- QEMU mode: `{a.qemu_mode}`: guest time follows the instruction count "
          "(with shift=0, 1 ns per guest instruction), so the figures are instruction path "
          "lengths; caches and memory latency are not modelled. -icount is not record/replay: "
          "host timing still moves interrupts, so boots differ slightly; every configuration "
          f"is booted {nboots} times, interleaved, and the boot-to-boot spread is the noise")
    else:
        P(f"- QEMU mode: {a.qemu_mode}: figures are wall-clock TCG emulation times, noisy; "
          f"every configuration is booted {nboots} times")
    P(f"- Host: {a.host}")
    P(f"- Layout (on and off boots): `{a.layout}`")
    P(f"- Command: `{a.command}`")
    bt = [f"{k} kernel {v} s" for k, v in times.get("build-times.txt", [])]
    bo = [v for _, v in times.get("boot-times.txt", [])]
    P(f"- Time taken: {a.elapsed} s in all (builds: {', '.join(bt) or 'n/a'}; "
      f"{len(bo)} boots: {sum(bo)} s)")
    P("")
    P("Configurations: " + "; ".join(f"**{c}** = {d}" for c, d in CONFIGS if c in runs) + ".")
    P("")
    P("Every figure is the median over the boots of the median over the rounds of one boot; "
      "spread = (max - min) / median of the per-boot figures (boot-to-boot noise).")
    P("")

    # ---- 1. allocator ------------------------------------------------------
    cases = []
    for r in runs["on"][0]["alloc"]:
        k = (r["order"], r["batch"])
        if k not in cases:
            cases.append(k)
    alloc_rows = []
    stats = {}  # (cfg, order, batch) -> dict
    for cfg, boots in runs.items():
        for k in cases:
            bmeds, hooks, upd, iters = [], [], [], None
            for r in boots:
                rs = [x for x in r["alloc"] if (x["order"], x["batch"]) == k]
                for x in rs:
                    alloc_rows.append([cfg, r["boot"], x["order"], x["batch"], x["round"],
                                       x["iters"], x["ns"], f"{x['ns'] / x['iters']:.3f}",
                                       x["hook_calls"], x["mask_updates"]])
                if rs:
                    bmeds.append(med([x["ns"] / x["iters"] for x in rs]))
                    hooks += [x["hook_calls"] / x["iters"] for x in rs]
                    upd += [x["mask_updates"] for x in rs]
                    iters = rs[0]["iters"]
            stats[(cfg,) + k] = {"med": med(bmeds), "spread": spread_pct(bmeds),
                                 "hooks": med(hooks), "upd": med(upd), "iters": iters}
    write_csv(os.path.join(out, "alloc.csv"),
              ["config", "boot", "order", "batch", "round", "pairs", "ns", "ns_per_pair",
               "pasr_hook_calls", "mask_updates"], alloc_rows)

    rounds = runs["on"][0]["info"].get("rounds", "?")
    P("### 1. Allocator overhead: PASR on against off, same kernel")
    P("")
    P(f"One `alloc_pages(GFP_KERNEL)` + `__free_pages()` pair, in {unit} per pair "
      f"({rounds} rounds per boot). PASR hook calls = `pasr_put`/`pasr_get` calls per pair, "
      "and mask updates per round, in the **on** boots.")
    P("")
    P("| case | pairs/round | off | on | on/off | overhead | target | met | spread off / on "
      "| PASR hook calls per pair | mask updates per round |")
    P("| --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: | ---: |")
    summary = []
    for k in cases:
        off, on = stats[("off",) + k], stats[("on",) + k]
        ratio = on["med"] / off["med"] if off["med"] and on["med"] else None
        ovh = (ratio - 1) * 100 if ratio else None
        tgt = ALLOC_TARGET.get(k[0])
        met = None if ovh is None or tgt is None else ovh <= tgt
        if met is False:
            failed_targets.append(f"allocator overhead, {case_name(*k)}: {pct(ovh)} > {tgt}%")
        P(f"| {case_name(*k)} | {on['iters']} | {fmt(off['med'])} | {fmt(on['med'])} | "
          f"{fmt(ratio, 4)} | {pct(ovh)} | <= {tgt}% | "
          f"{'yes' if met else 'NO' if met is False else 'n/a'} | "
          f"{off['spread']:.2f}% / {on['spread']:.2f}% | {fmt(on['hooks'], 2)} | "
          f"{fmt(on['upd'], 0)} |")
        summary.append([k[0], k[1], off["med"], on["med"], ratio, ovh, tgt,
                        "yes" if met else "no", off["spread"], on["spread"], on["hooks"]])
    P("")
    low = [k for k in cases if k[0] < 10]
    if low and all((stats[("on",) + k]["hooks"] or 0) == 0 for k in low):
        P("Orders 0 and 3 are served by the per-cpu page lists: in the **on** boots no pair "
          "reached the PASR hooks (0 calls), which fire only when a MAX_PAGE_ORDER block enters "
          "or leaves a buddy free list. Their difference from **off** is not PASR code running.")
    else:
        P("Orders 0 and 3: see the hook-call column for how often the PASR hooks ran.")
    P("")

    # configured off against not built
    if "absent" in runs:
        P("#### PASR configured off against a kernel built without CONFIG_PASR")
        P("")
        P("Same cases; **off** is the bench kernel booted with `pasr=off`, **absent** the "
          "kernel built without CONFIG_PASR. Noise = the larger boot-to-boot spread of the "
          "two; the target is a difference within it.")
        P("")
        P("| case | absent | off | off/absent | difference | noise | within noise |")
        P("| --- | ---: | ---: | ---: | ---: | ---: | :---: |")
        for n, k in enumerate(cases):
            ab, off = stats[("absent",) + k], stats[("off",) + k]
            ratio = off["med"] / ab["med"] if ab["med"] and off["med"] else None
            diff = (ratio - 1) * 100 if ratio else None
            noise = max(ab["spread"], off["spread"])
            ok = None if diff is None else abs(diff) <= noise
            if ok is False:
                failed_targets.append(
                    f"configured off against not built, {case_name(*k)}: {pct(diff)}, "
                    f"noise {noise:.2f}%")
            P(f"| {case_name(*k)} | {fmt(ab['med'])} | {fmt(off['med'])} | {fmt(ratio, 4)} | "
              f"{pct(diff)} | {noise:.2f}% | {'yes' if ok else 'NO' if ok is False else 'n/a'} |")
            summary[n] += [ab["med"], diff, noise, "yes" if ok else "no"]
        P("")
    write_csv(os.path.join(out, "alloc-summary.csv"),
              ["order", "batch", "off_ns_per_pair", "on_ns_per_pair", "on_off_ratio",
               "overhead_pct", "target_pct", "target_met", "spread_off_pct", "spread_on_pct",
               "hook_calls_per_pair_on"]
              + (["absent_ns_per_pair", "off_vs_absent_pct", "noise_pct", "within_noise"]
                 if "absent" in runs else []),
              [[("" if v is None else (f"{v:.4f}" if isinstance(v, float) else v)) for v in row]
               for row in summary])

    # user-space workload
    P("#### User-space workload")
    P("")
    w0 = runs["on"][0]["workload"]
    mib = w0[0]["mib"] if w0 else 0
    P(f"`dd if=/dev/zero of=/mnt/fill bs=1M count={mib}; rm /mnt/fill` on tmpfs, "
      f"{len(w0)} rounds per boot, {unit} per round read from "
      "`/sys/kernel/debug/pasr_bench/now_ns`.")
    P("")
    P("| config | ms per round | MiB/s | spread | against off |")
    P("| --- | ---: | ---: | ---: | ---: |")
    wrows, wmed, wspread = [], {}, {}
    for cfg, boots in runs.items():
        bm = []
        for r in boots:
            for w in r["workload"]:
                wrows.append([cfg, r["boot"], w["round"], w["mib"], w["ns"]])
            if r["workload"]:
                bm.append(med([w["ns"] for w in r["workload"]]))
        wmed[cfg], wspread[cfg] = med(bm), spread_pct(bm)
    for cfg, _ in CONFIGS:
        if wmed.get(cfg) is None:
            continue
        vs = (wmed[cfg] / wmed["off"] - 1) * 100 if wmed.get("off") else None
        P(f"| {cfg} | {fmt(wmed[cfg] / 1e6, 2)} | {fmt(mib * 1e9 / wmed[cfg], 0)} | "
          f"{wspread[cfg]:.2f}% | {pct(vs) if cfg != 'off' else '-'} |")
    write_csv(os.path.join(out, "workload.csv"), ["config", "boot", "round", "mib", "ns"], wrows)
    P("")

    # ---- 2. per-call -------------------------------------------------------
    P("### 2. Per-call cost of pasr_put / pasr_get")
    P("")
    crow, layouts, cbm = [], [], {}
    for r in runs["on"]:
        for c in r["calls"]:
            k = (c["dies"], c["sections"])
            if k not in layouts:
                layouts.append(k)
            crow.append([r["boot"], c["dies"], c["sections"], c["round"], c["pairs"], c["ns"],
                         f"{c['ns'] / (2 * c['pairs']):.3f}"])
        for k in layouts:
            per = [c["ns"] / (2 * c["pairs"]) for c in r["calls"]
                   if (c["dies"], c["sections"]) == k]
            if per:
                cbm.setdefault(k, []).append(med(per))
    write_csv(os.path.join(out, "calls.csv"),
              ["boot", "dies", "sections", "round", "put_get_pairs", "ns", "ns_per_call"], crow)
    errs = [e for r in runs["on"] for e in r["errors"] if "calls" in e]
    cmed = {k: med(v) for k, v in cbm.items()}
    if layouts:
        P("`pasr_rs_bench_calls()`: put + get pairs of max-order blocks on a private map of N "
          "dies of 512 MiB, cycling over every block; the live map is not touched. "
          f"{unit} per call (half a pair), in the **on** boots.")
        P("")
        P("| layout | sections | ns per call | ns per put+get pair | spread | against 1 die |")
        P("| --- | ---: | ---: | ---: | ---: | ---: |")
        base = cmed[layouts[0]]
        for k in layouts:
            P(f"| {k[0]} die{'s' if k[0] > 1 else ''} x {k[1] // k[0]} | {k[1]} | "
              f"{fmt(cmed[k], 2)} | {fmt(2 * cmed[k], 2)} | {spread_pct(cbm[k]):.2f}% | "
              f"{pct((cmed[k] / base - 1) * 100)} |")
        vals = [v for v in cmed.values() if v]
        flat = (max(vals) / min(vals) - 1) * 100
        ok = flat <= CALLS_FLATNESS_TARGET
        if not ok:
            failed_targets.append(
                f"per-call cost flatness: {flat:.2f}% > {CALLS_FLATNESS_TARGET}%")
        P("")
        P(f"Flatness (slowest / fastest layout - 1): **{flat:.2f}%**; target at most "
          f"{CALLS_FLATNESS_TARGET:.0f}%: **{'met' if ok else 'MISSED'}**.")
    else:
        P("**Not measured**: " + ("; ".join(errs) if errs else "no per-call results in the log"))
        failed_targets.append("per-call cost: not measured")
    P("")

    # ---- 3. power ----------------------------------------------------------
    P("### 3. Power-down effectiveness")
    P("")
    P("| time | masked bytes | ideal (free memory rounded down to whole sections) | "
      "estimated self-refresh saving |")
    P("| --- | --- | --- | --- |")
    P("| - | not measured yet | not measured yet | not measured yet |")
    P("")
    P("**Not measured yet.** This needs the evacuation governor (patch 0008, "
      "CONFIG_PASR_GOVERNOR) and the simulated controller's power model (patch 0006) in the "
      "bench kernel, and a run of the governor scenario sampled over time; both landed after "
      "this benchmark was written. No figure is given rather than an invented one.")
    P("")
    st = runs["on"][0]["state"]
    if st:
        P("For information only, `/sys/kernel/mm/pasr` in the first **on** boot at three "
          "points (no governor, no controller model):")
        P("")
        P("| point | free_bytes | masked_bytes |")
        P("| --- | ---: | ---: |")
        for name, kv in st:
            P(f"| {name} | {int(kv.get('free_bytes', 0)) >> 20} MiB | "
              f"{int(kv.get('masked_bytes', 0)) >> 20} MiB |")
        P("")

    # ---- 4. boot -----------------------------------------------------------
    P("### 4. Boot cost")
    P("")
    P("Kernel start to `Run /init as init process` (printk timestamp, guest clock).")
    P("")
    P("| config | to init (ms) | spread | against off |")
    P("| --- | ---: | ---: | ---: |")
    brow, bmed = [], {}
    for cfg, boots in runs.items():
        bs = [r["boot_s"] for r in boots if r["boot_s"] is not None]
        for r in boots:
            brow.append([cfg, r["boot"], "" if r["boot_s"] is None else f"{r['boot_s']:.6f}"])
        bmed[cfg] = (med(bs), spread_pct(bs))
    for cfg, _ in CONFIGS:
        if cfg not in bmed or bmed[cfg][0] is None:
            continue
        b, sp = bmed[cfg]
        boff = bmed["off"][0]
        vs = (b / boff - 1) * 100 if b and boff else None
        P(f"| {cfg} | {fmt(b * 1e3, 3)} | {sp:.2f}% | {pct(vs) if cfg != 'off' else '-'} |")
    write_csv(os.path.join(out, "boot.csv"), ["config", "boot", "run_init_s"], brow)
    P("")

    # ---- targets -----------------------------------------------------------
    P("### Targets")
    P("")
    if failed_targets:
        P("**Missed:**")
        P("")
        for t in failed_targets:
            P(f"- {t}")
    else:
        P("All targets met.")
    P("")

    # ---- plots -------------------------------------------------------------
    pngs = []
    dat = os.path.join(out, "alloc.dat")
    cfgs = [c for c, _ in CONFIGS if c in runs]
    with open(dat, "w") as f:
        f.write("# case " + " ".join(cfgs) + "\n")
        for k in cases:
            label = f"order{k[0]}" + (f"x{k[1]}" if k[1] > 1 else "")
            f.write(label + " " + " ".join(f"{stats[(c,) + k]['med']:.3f}" for c in cfgs) + "\n")
    cols = ", ".join(
        (f"'{dat}' using {i + 2}:xtic(1) title '{c}'" if i == 0 else f"'' using {i + 2} title '{c}'")
        for i, c in enumerate(cfgs))
    ylabel = "ns per pair (guest clock" + (", icount" if icount else "") + ")"
    if gnuplot(f"""set terminal pngcairo size 900,540 noenhanced
set output '{out}/alloc.png'
set title 'alloc_pages + __free_pages, median ns per pair ({a.qemu_mode})'
set style data histograms
set style histogram clustered gap 1
set xrange [-0.6:{len(cases) - 0.4}]
set style fill solid 0.8 border -1
set logscale y
set ylabel '{ylabel}'
set key top left
set grid ytics
plot {cols}
""", os.path.join(out, "alloc.gp")):
        pngs.append("alloc.png")

    dat = os.path.join(out, "overhead.dat")
    with open(dat, "w") as f:
        f.write("# case overhead target\n")
        for k in cases:
            label = f"order{k[0]}" + (f"x{k[1]}" if k[1] > 1 else "")
            on, off = stats[("on",) + k]["med"], stats[("off",) + k]["med"]
            f.write(f"{label} {(on / off - 1) * 100:.4f} {ALLOC_TARGET.get(k[0], 0)}\n")
    if gnuplot(f"""set terminal pngcairo size 900,540 noenhanced
set output '{out}/overhead.png'
set title 'PASR on against off: allocator overhead per case, and its target'
set style data histograms
set style histogram clustered gap 1
set xrange [-0.6:{len(cases) - 0.4}]
set style fill solid 0.8 border -1
set ylabel 'overhead, percent'
set grid ytics
set key top left
plot '{dat}' using 2:xtic(1) title 'measured overhead (on/off - 1)', '' using 3 title 'target: at most' fs pattern 4
""", os.path.join(out, "overhead.gp")):
        pngs.append("overhead.png")

    if cmed:
        dat = os.path.join(out, "calls.dat")
        base = cmed[layouts[0]]
        with open(dat, "w") as f:
            f.write("# sections ns lo hi\n")
            for k in layouts:
                f.write(f"{k[1]} {cmed[k]:.4f} {base * 0.9:.4f} {base * 1.1:.4f}\n")
        if gnuplot(f"""set terminal pngcairo size 900,540 noenhanced
set output '{out}/calls.png'
set title 'pasr_put / pasr_get: median ns per call against the number of sections'
set logscale x 2
set xrange [4:512]
set yrange [0:*]
set xlabel 'sections in the map (1x8, 8x8, 16x16 dies x sections)'
set ylabel 'ns per call (guest clock)'
set grid
set key bottom right
plot '{dat}' using 1:3:4 with filledcurves fs transparent solid 0.2 title '+-10% of the 1-die cost', \\
     '' using 1:2 with linespoints lw 2 pt 7 title 'ns per call'
""", os.path.join(out, "calls.gp")):
            pngs.append("calls.png")

    P("Files: " + ", ".join(f"`build/bench/{n}`" for n in
                            ["alloc.csv", "alloc-summary.csv", "workload.csv", "calls.csv",
                             "boot.csv"] + pngs) + ".")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
