// SPDX-License-Identifier: GPL-2.0
/*
 * PASR benchmark (CONFIG_PASR_BENCH, test kernels only).
 *
 * Writing "run" to /sys/kernel/debug/pasr_bench/run times, on the calling
 * CPU:
 *
 *  - alloc_pages() + __free_pages() pairs of order 0, 3 (both served by the
 *    per-cpu lists, which never reach the PASR hooks) and MAX_PAGE_ORDER
 *    (every pair goes through the buddy free lists, so through pasr_kget()
 *    and pasr_kput()), one pair at a time and, for MAX_PAGE_ORDER, also in
 *    batches;
 *  - with PASR, pasr_put() + pasr_get() pairs of max-order blocks on private
 *    maps of 1 to 256 sections, through pasr_rs_bench_calls() in the Rust
 *    core; the live map is not touched.
 *
 * Reading the file returns the results of the last run as "PASR-BENCH:"
 * lines of key=value pairs, one per round, which tools/bench.sh parses.
 * /sys/kernel/debug/pasr_bench/now_ns reads ktime_get_ns(), a precise clock
 * for timing user-space workloads.
 *
 * The file builds without CONFIG_PASR too, so that the allocator can be
 * timed on a kernel built without PASR, for comparison.
 */

#define pr_fmt(fmt) "pasr_bench: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/pasr.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define BENCH_ROUNDS		5
#define BENCH_MAX_BATCH		32
#define BENCH_CALL_ITERS	200000ULL

struct bench_alloc_case {
	unsigned int order;
	unsigned int batch;
	unsigned int iters;	/* alloc+free pairs per round */
};

static const struct bench_alloc_case bench_alloc_cases[] = {
	{ 0, 1, 200000 },
	{ 3, 1, 100000 },
	{ MAX_PAGE_ORDER, 1, 4000 },
	{ MAX_PAGE_ORDER, BENCH_MAX_BATCH, 4000 },
};

static DEFINE_MUTEX(bench_mutex);
static char bench_out[16384];
static struct seq_buf bench_buf;
static struct page *bench_pages[BENCH_MAX_BATCH];

#ifdef CONFIG_PASR
static const char *bench_pasr_state(void)
{
	return static_key_enabled(&pasr_enabled_key) ? "on" : "off";
}

static void bench_calls_snapshot(u64 *calls, u64 *updates)
{
	struct pasr_stats st;

	pasr_rs_stats(&st);
	*calls = st.puts + st.gets;
	*updates = st.mask_updates;
}
#else
static const char *bench_pasr_state(void)
{
	return "absent";
}

static void bench_calls_snapshot(u64 *calls, u64 *updates)
{
	*calls = 0;
	*updates = 0;
}
#endif

/* Returns the ns taken by @c->iters alloc+free pairs, or 0 on failure. */
static u64 bench_alloc_round(const struct bench_alloc_case *c,
			     unsigned int iters)
{
	unsigned int i, j, n;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (i = 0; i < iters; i += n) {
		n = min(c->batch, iters - i);
		for (j = 0; j < n; j++) {
			bench_pages[j] = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
						     c->order);
			if (!bench_pages[j])
				break;
		}
		if (j < n) {
			while (j--)
				__free_pages(bench_pages[j], c->order);
			return 0;
		}
		for (j = 0; j < n; j++)
			__free_pages(bench_pages[j], c->order);
	}
	t1 = ktime_get_ns();
	return t1 - t0;
}

static void bench_alloc(const struct bench_alloc_case *c)
{
	u64 ns, calls0, calls1, upd0, upd1;
	int r;

	/* Warm up: fill the per-cpu lists, settle the migratetypes. */
	if (!bench_alloc_round(c, max(c->iters / 10, c->batch))) {
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: alloc order=%u batch=%u error=ENOMEM\n",
			       c->order, c->batch);
		return;
	}
	for (r = 0; r < BENCH_ROUNDS; r++) {
		cond_resched();
		bench_calls_snapshot(&calls0, &upd0);
		ns = bench_alloc_round(c, c->iters);
		bench_calls_snapshot(&calls1, &upd1);
		if (!ns) {
			seq_buf_printf(&bench_buf,
				       "PASR-BENCH: alloc order=%u batch=%u round=%d error=ENOMEM\n",
				       c->order, c->batch, r);
			return;
		}
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: alloc order=%u batch=%u round=%d iters=%u ns=%llu hook_calls=%llu mask_updates=%llu\n",
			       c->order, c->batch, r, c->iters, ns,
			       calls1 - calls0, upd1 - upd0);
	}
}

#ifdef CONFIG_PASR
struct bench_call_case {
	int dies;
	int sections_per_die;
};

/* 1 die x 8, 8 dies x 8, and the largest map: 16 dies x 16 sections. */
static const struct bench_call_case bench_call_cases[] = {
	{ 1, 8 },
	{ 8, 8 },
	{ 16, 16 },
};

static void bench_calls(const struct bench_call_case *c)
{
	u64 ns;
	int r;

	/* Warm up; 0 means the core refused the layout. */
	if (!pasr_rs_bench_calls(c->dies, c->sections_per_die,
				 BENCH_CALL_ITERS / 10)) {
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: calls dies=%d sections=%d error=refused\n",
			       c->dies, c->dies * c->sections_per_die);
		return;
	}
	for (r = 0; r < BENCH_ROUNDS; r++) {
		cond_resched();
		ns = pasr_rs_bench_calls(c->dies, c->sections_per_die,
					 BENCH_CALL_ITERS);
		seq_buf_printf(&bench_buf,
			       "PASR-BENCH: calls dies=%d sections=%d round=%d pairs=%llu ns=%llu\n",
			       c->dies, c->dies * c->sections_per_die, r,
			       BENCH_CALL_ITERS, ns);
	}
}
#endif

static void bench_run(void)
{
	int i, cpu;

	seq_buf_init(&bench_buf, bench_out, sizeof(bench_out));
	cpu = get_cpu();
	put_cpu();
	seq_buf_printf(&bench_buf,
		       "PASR-BENCH: info pasr=%s max_order=%d page_size=%lu rounds=%d cpu=%d\n",
		       bench_pasr_state(), MAX_PAGE_ORDER, PAGE_SIZE,
		       BENCH_ROUNDS, cpu);
	for (i = 0; i < ARRAY_SIZE(bench_alloc_cases); i++)
		bench_alloc(&bench_alloc_cases[i]);
#ifdef CONFIG_PASR
	for (i = 0; i < ARRAY_SIZE(bench_call_cases); i++)
		bench_calls(&bench_call_cases[i]);
#endif
	seq_buf_printf(&bench_buf, "PASR-BENCH: end%s\n",
		       seq_buf_has_overflowed(&bench_buf) ? " truncated" : "");
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char cmd[8] = {};

	if (copy_from_user(cmd, ubuf, min(len, sizeof(cmd) - 1)))
		return -EFAULT;
	if (strncmp(cmd, "run", 3))
		return -EINVAL;
	mutex_lock(&bench_mutex);
	bench_run();
	mutex_unlock(&bench_mutex);
	return len;
}

static ssize_t bench_run_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_out,
				      seq_buf_used(&bench_buf));
	mutex_unlock(&bench_mutex);
	return ret;
}

static const struct file_operations bench_run_fops = {
	.owner = THIS_MODULE,
	.read = bench_run_read,
	.write = bench_run_write,
	.llseek = default_llseek,
};

static int bench_now_get(void *data, u64 *val)
{
	*val = ktime_get_ns();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bench_now_fops, bench_now_get, NULL, "%llu\n");

static int __init pasr_bench_init(void)
{
	struct dentry *dir = debugfs_create_dir("pasr_bench", NULL);

	seq_buf_init(&bench_buf, bench_out, sizeof(bench_out));
	debugfs_create_file("run", 0600, dir, NULL, &bench_run_fops);
	debugfs_create_file_unsafe("now_ns", 0444, dir, NULL, &bench_now_fops);
	return 0;
}
late_initcall(pasr_bench_init);
