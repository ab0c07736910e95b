// SPDX-License-Identifier: GPL-2.0
/*
 * PASR: test-only debugfs files in /sys/kernel/debug/pasr/, built only for
 * test kernels (CONFIG_PASR_SELFTEST) and kept out of the production files:
 * they join the directory interfaces.c made, if it did (PASR is on):
 *
 *  - stress drives the buddy allocator from kernel threads and from the
 *    writing process; drain empties the per-CPU lists;
 *  - hot_add and hot_remove (with MEMORY_HOTPLUG) hot-add RAM that the
 *    kernel was booted without, and remove it.
 */

#define pr_fmt(fmt) "pasr: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pasr.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "internal.h"

/* pasr_test_get_cmd - copy a command written to a test file, NUL-terminated */
static int __maybe_unused pasr_test_get_cmd(char *buf, size_t size,
					    const char __user *ubuf, size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

/*
 * --- allocation stress ---
 *
 * debugfs pasr/stress (CONFIG_PASR_SELFTEST) drives the buddy allocator the
 * way the SMP stress test needs: "kthreads N SECONDS" runs N unbound kernel
 * threads that allocate and free blocks of every order 0..MAX_PAGE_ORDER for
 * SECONDS (the write returns when they are done); "user ROUNDS" does ROUNDS
 * steps of the same loop in the writing process. Reading it returns the
 * allocations and failures per order, and the blocks whose per-page tags
 * changed while allocated (two owners of one page).
 */
#ifdef CONFIG_PASR_SELFTEST
#define PASR_STRESS_SLOTS	64
/* At most this much held per thread or writer at a time: 4 max-order blocks. */
#define PASR_STRESS_BUDGET	(16UL << 20)
#define PASR_STRESS_MAX_THREADS	16
#define PASR_STRESS_MAX_SECONDS	600
#define PASR_STRESS_MAX_ROUNDS	10000000

enum { PASR_STRESS_KTHREAD, PASR_STRESS_USER, PASR_STRESS_KINDS };

static const char *const pasr_stress_kinds[PASR_STRESS_KINDS] = {
	"kthread", "user",
};

static atomic_long_t pasr_stress_allocs[PASR_STRESS_KINDS][NR_PAGE_ORDERS];
static atomic_long_t pasr_stress_fails[PASR_STRESS_KINDS][NR_PAGE_ORDERS];
static atomic_long_t pasr_stress_corrupt;
static atomic_long_t pasr_stress_threads_run;
static DEFINE_MUTEX(pasr_stress_mutex);

struct pasr_stress {
	int kind;
	unsigned long tag;
	unsigned long held;
	struct page *page[PASR_STRESS_SLOTS];
	u8 order[PASR_STRESS_SLOTS];
};

/* Three migratetypes, so that fallbacks and steals between them happen. */
static const gfp_t pasr_stress_gfp[] = {
	GFP_KERNEL, GFP_KERNEL | __GFP_RECLAIMABLE, GFP_KERNEL | __GFP_MOVABLE,
};

static void pasr_stress_free(struct pasr_stress *s, int slot)
{
	struct page *page = s->page[slot];
	unsigned int order = s->order[slot];
	unsigned long i, pfn = page_to_pfn(page);

	for (i = 0; i < (1UL << order); i++)
		if (*(unsigned long *)page_address(page + i) != (s->tag ^ (pfn + i)))
			atomic_long_inc(&pasr_stress_corrupt);
	__free_pages(page, order);
	s->held -= PAGE_SIZE << order;
	s->page[slot] = NULL;
}

static void pasr_stress_step(struct pasr_stress *s)
{
	int slot = get_random_u32_below(PASR_STRESS_SLOTS);
	unsigned int order = get_random_u32_below(NR_PAGE_ORDERS);
	gfp_t gfp = pasr_stress_gfp[get_random_u32_below(ARRAY_SIZE(pasr_stress_gfp))];
	struct page *page;
	unsigned long i, pfn;
	int j;

	if (s->page[slot]) {
		pasr_stress_free(s, slot);
		return;
	}
	for (j = 0; j < PASR_STRESS_SLOTS &&
	     s->held + (PAGE_SIZE << order) > PASR_STRESS_BUDGET; j++)
		if (s->page[j])
			pasr_stress_free(s, j);
	/* No retries, no OOM killer: a failure under pressure is counted. */
	page = alloc_pages(gfp | __GFP_NOWARN | __GFP_NORETRY, order);
	if (!page) {
		atomic_long_inc(&pasr_stress_fails[s->kind][order]);
		return;
	}
	atomic_long_inc(&pasr_stress_allocs[s->kind][order]);
	pfn = page_to_pfn(page);
	for (i = 0; i < (1UL << order); i++)
		*(unsigned long *)page_address(page + i) = s->tag ^ (pfn + i);
	s->page[slot] = page;
	s->order[slot] = order;
	s->held += PAGE_SIZE << order;
}

static void pasr_stress_release(struct pasr_stress *s)
{
	int i;

	for (i = 0; i < PASR_STRESS_SLOTS; i++)
		if (s->page[i])
			pasr_stress_free(s, i);
}

static int pasr_stress_thread(void *data)
{
	struct pasr_stress *s = data;

	while (!kthread_should_stop()) {
		pasr_stress_step(s);
		cond_resched();
	}
	pasr_stress_release(s);
	return 0;
}

static int pasr_stress_kthreads(unsigned int n, unsigned int seconds)
{
	struct task_struct *tsk[PASR_STRESS_MAX_THREADS];
	struct pasr_stress *s;
	unsigned int i, started = 0;
	int ret = 0;

	s = kcalloc(n, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&pasr_stress_mutex);
	for (i = 0; i < n; i++) {
		s[i].kind = PASR_STRESS_KTHREAD;
		s[i].tag = get_random_long();
		tsk[i] = kthread_run(pasr_stress_thread, &s[i], "pasr_stress/%u", i);
		if (IS_ERR(tsk[i])) {
			ret = PTR_ERR(tsk[i]);
			break;
		}
		started++;
	}
	if (!ret)
		msleep_interruptible(seconds * MSEC_PER_SEC);
	for (i = 0; i < started; i++)
		kthread_stop(tsk[i]);
	atomic_long_add(started, &pasr_stress_threads_run);
	mutex_unlock(&pasr_stress_mutex);
	kfree(s);
	return ret;
}

static int pasr_stress_user(unsigned int rounds)
{
	struct pasr_stress *s = kzalloc(sizeof(*s), GFP_KERNEL);
	unsigned int i;

	if (!s)
		return -ENOMEM;
	s->kind = PASR_STRESS_USER;
	s->tag = get_random_long();
	for (i = 0; i < rounds && !fatal_signal_pending(current); i++) {
		pasr_stress_step(s);
		cond_resched();
	}
	pasr_stress_release(s);
	kfree(s);
	return 0;
}

static ssize_t pasr_stress_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned int a, b;
	char buf[48];
	int ret;

	ret = pasr_test_get_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "kthreads %u %u", &a, &b) == 2 && a >= 1 &&
	    a <= PASR_STRESS_MAX_THREADS && b <= PASR_STRESS_MAX_SECONDS)
		ret = pasr_stress_kthreads(a, b);
	else if (sscanf(buf, "user %u", &a) == 1 && a <= PASR_STRESS_MAX_ROUNDS)
		ret = pasr_stress_user(a);
	else
		ret = -EINVAL;
	return ret ? ret : count;
}

static int pasr_stress_show(struct seq_file *m, void *v)
{
	int k, o;

	seq_printf(m, "kthreads_run %ld\n", atomic_long_read(&pasr_stress_threads_run));
	for (k = 0; k < PASR_STRESS_KINDS; k++) {
		seq_printf(m, "%s_allocs", pasr_stress_kinds[k]);
		for (o = 0; o < NR_PAGE_ORDERS; o++)
			seq_printf(m, " %ld", atomic_long_read(&pasr_stress_allocs[k][o]));
		seq_printf(m, "\n%s_failures", pasr_stress_kinds[k]);
		for (o = 0; o < NR_PAGE_ORDERS; o++)
			seq_printf(m, " %ld", atomic_long_read(&pasr_stress_fails[k][o]));
		seq_putc(m, '\n');
	}
	seq_printf(m, "corrupt %ld\n", atomic_long_read(&pasr_stress_corrupt));
	return 0;
}

static int pasr_stress_open(struct inode *inode, struct file *file)
{
	return single_open(file, pasr_stress_show, NULL);
}

static const struct file_operations pasr_stress_fops = {
	.owner = THIS_MODULE,
	.open = pasr_stress_open,
	.read = seq_read,
	.write = pasr_stress_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * drain: writing anything empties every CPU's free page lists into the
 * buddy allocator. Pages on those lists are free but outside the free lists,
 * so PASR counts them as used: a few hundred of them, scattered over the
 * sections by the last large free, keep those sections refreshed until the
 * lists turn over. The selftests drain before they wait for a mask.
 */
static ssize_t pasr_drain_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	drain_all_pages(NULL);
	return count;
}

static const struct file_operations pasr_drain_fops = {
	.owner = THIS_MODULE,
	.write = pasr_drain_write,
};
#endif /* CONFIG_PASR_SELFTEST */

#ifdef CONFIG_MEMORY_HOTPLUG
/*
 * --- memory hot-add ---
 *
 * hot_add: writing SIZE@START hot-adds [START, START + SIZE) as
 * System RAM with add_memory() ("SIZE@START memmap": with each block's
 * memmap on the block, when memory_hotplug.memmap_on_memory=1 allows it,
 * or -EINVAL); the new memory blocks stay offline until
 * onlined through /sys/devices/system/memory/. QEMU's arm64 virt machine
 * cannot hot-plug DIMMs without ACPI, and arm64 refuses to offline boot
 * memory, so the memory hotplug test boots with mem= below QEMU's RAM and
 * adds the rest here. Test only: the range must be RAM nothing else uses.
 */
/*
 * The SIZE@START range written to hot_add or hot_remove, in whole memory
 * blocks; *@rest points past it.
 */
static int pasr_test_get_range(const char __user *ubuf, size_t count,
			       char *buf, size_t len, u64 *start, u64 *size,
			       char **rest)
{
	u64 block = memory_block_size_bytes();
	int ret = pasr_test_get_cmd(buf, len, ubuf, count);

	if (ret)
		return ret;
	*size = memparse(buf, rest);
	if (**rest != '@')
		return -EINVAL;
	*start = memparse(*rest + 1, rest);
	if (!*size || !IS_ALIGNED(*start, block) || !IS_ALIGNED(*size, block))
		return -EINVAL;
	return 0;
}

static ssize_t pasr_hot_add_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	mhp_t flags = MHP_NONE;
	char buf[64], *p;
	u64 start, size;
	int ret;

	ret = pasr_test_get_range(ubuf, count, buf, sizeof(buf), &start, &size, &p);
	if (ret)
		return ret;
	/* "SIZE@START memmap": each block's memmap on the block itself */
	if (sysfs_streq(p, " memmap") && mhp_supports_memmap_on_memory())
		flags = MHP_MEMMAP_ON_MEMORY;
	else if (*p && *p != '\n')
		return -EINVAL;
	ret = add_memory(memory_add_physaddr_to_nid(start), start, size, flags);
	if (ret)
		return ret;
	pr_info("test: hot-added [mem %#010llx-%#010llx]%s\n", start,
		start + size - 1, flags ? ", memmap on memory" : "");
	return count;
}

static const struct file_operations pasr_hot_add_fops = {
	.owner = THIS_MODULE,
	.write = pasr_hot_add_write,
};

#ifdef CONFIG_MEMORY_HOTREMOVE
/*
 * hot_remove: writing SIZE@START offlines (if needed) and removes
 * [START, START + SIZE) with offline_and_remove_memory(), as dax/kmem
 * unbind and virtio-mem do before the range goes to another owner.
 */
static ssize_t pasr_hot_remove_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char buf[64], *p;
	u64 start, size;
	int ret;

	ret = pasr_test_get_range(ubuf, count, buf, sizeof(buf), &start, &size, &p);
	if (ret)
		return ret;
	if (*p && *p != '\n')
		return -EINVAL;
	ret = offline_and_remove_memory(start, size);
	if (ret)
		return ret;
	pr_info("test: removed [mem %#010llx-%#010llx]\n", start,
		start + size - 1);
	return count;
}

static const struct file_operations pasr_hot_remove_fops = {
	.owner = THIS_MODULE,
	.write = pasr_hot_remove_write,
};
#endif
#endif

/* After interfaces.c's subsys_initcall has made the directory. */
static int __init pasr_test_debugfs_init(void)
{
	struct dentry *dir = debugfs_lookup("pasr", NULL);

	if (!dir)
		return 0;
#ifdef CONFIG_PASR_SELFTEST
	debugfs_create_file("stress", 0600, dir, NULL, &pasr_stress_fops);
	debugfs_create_file("drain", 0200, dir, NULL, &pasr_drain_fops);
#endif
#ifdef CONFIG_MEMORY_HOTPLUG
	debugfs_create_file("hot_add", 0200, dir, NULL, &pasr_hot_add_fops);
#ifdef CONFIG_MEMORY_HOTREMOVE
	debugfs_create_file("hot_remove", 0200, dir, NULL, &pasr_hot_remove_fops);
#endif
#endif
	dput(dir);
	return 0;
}
subsys_initcall_sync(pasr_test_debugfs_init);
