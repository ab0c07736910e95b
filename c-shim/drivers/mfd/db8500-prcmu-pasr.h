/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PASR on the ST-Ericsson DB8500 (Ux500): the PRCMU firmware writes the
 * LPDDR mode registers MR16 (bank mask) and MR17 (segment mask) of a die
 * when mailbox 0 carries a MB0H_SET_PASR_DDRx_CSy request. Shared between
 * drivers/mfd/db8500-prcmu.c, which owns the mailbox, the PASR glue in
 * db8500-prcmu-pasr.c and its KUnit test.
 */
#ifndef __DB8500_PRCMU_PASR_H
#define __DB8500_PRCMU_PASR_H

#include <linux/atomic.h>
#include <linux/pasr.h>
#include <linux/types.h>

struct device;

/* Mailbox 0 request headers (the 2012 PASR RFC for Ux500). */
#define MB0H_SET_PASR_DDR0_CS0		5
#define MB0H_SET_PASR_DDR0_CS1		6
#define MB0H_SET_PASR_DDR1_CS0		7
#define MB0H_SET_PASR_DDR1_CS1		8

/* The request's payload, at the start of the mailbox 0 request area. */
#define DB8500_PASR_REQ_MR16		0x0	/* u16 */
#define DB8500_PASR_REQ_MR17		0x2	/* u16 */

/* LPDDR2/3 dies have 8 banks and 8 segments: the masks are 8-bit. */
#define DB8500_PASR_SECTIONS		8

struct db8500_pasr_req {
	u8 header;
	u16 mr16;
	u16 mr17;
};

/* two DDR controllers, two chip selects each */
#define DB8500_PASR_MAX_DIES		4

struct db8500_pasr;

/*
 * A die: its request header and mode, and its latched request (MR16 in bits
 * 0-7, MR17 in 8-15, and a "not sent yet" bit).
 */
struct db8500_pasr_die {
	struct db8500_pasr *pasr;
	unsigned int ddr, cs;
	enum pasr_mode mode;
	atomic_t latched;
};

/*
 * The dies, the first @ndies set up, and mailbox 0: whether the firmware
 * still has the previous request, and the writer of the next one.
 */
struct db8500_pasr_mbox {
	bool (*busy)(void);
	void (*write)(const struct db8500_pasr_req *req);
};

struct db8500_pasr {
	struct db8500_pasr_mbox mbox;
	int ndies;
	struct db8500_pasr_die dies[DB8500_PASR_MAX_DIES];
};

bool db8500_pasr_encode(unsigned int ddr, unsigned int cs,
			enum pasr_mode mode, u64 value,
			struct db8500_pasr_req *req);

/* db8500-prcmu-pasr.c is also built for its KUnit test alone */
#if IS_ENABLED(CONFIG_DB8500_PRCMU_PASR) || IS_ENABLED(CONFIG_DB8500_PRCMU_PASR_KUNIT_TEST)
int db8500_pasr_init(struct device *prcmu, const struct db8500_pasr_mbox *mbox);
void db8500_pasr_flush(void);
/* for the KUnit test */
bool db8500_pasr_in_panic(void);
void db8500_pasr_mask(u64 value, void *cookie);
int db8500_pasr_flush_dies(struct db8500_pasr *pasr);
int db8500_pasr_register(struct db8500_pasr_die *die, u64 base, u64 size);
#else
static inline int
db8500_pasr_init(struct device *prcmu, const struct db8500_pasr_mbox *mbox)
{
	return 0;
}

static inline void db8500_pasr_flush(void)
{
}
#endif

#endif /* __DB8500_PRCMU_PASR_H */
