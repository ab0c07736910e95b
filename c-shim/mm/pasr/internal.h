/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PASR: declarations shared by the C files of mm/pasr/ only.
 */
#ifndef _MM_PASR_INTERNAL_H
#define _MM_PASR_INTERNAL_H

#include <linux/init.h>

struct dentry;

#ifdef CONFIG_PASR_TEST_DEBUGFS
/* test.c: creates the test-only files in debugfs pasr/ (@dir). */
void __init pasr_test_debugfs_init(struct dentry *dir);
/* test.c: pasr_test.unsafe_init=1 lets PASR mask despite init_on_free. */
extern bool pasr_test_unsafe_init;
#else
static inline void pasr_test_debugfs_init(struct dentry *dir)
{
}

#define pasr_test_unsafe_init false
#endif

#endif /* _MM_PASR_INTERNAL_H */
