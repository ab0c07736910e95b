/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pasr

#if !defined(_TRACE_PASR_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PASR_H

#include <linux/tracepoint.h>

/* A die's register value changed: the controller was handed @new. */
TRACE_EVENT(pasr_mask_update,
	    TP_PROTO(unsigned int die, u64 old, u64 new),
	    TP_ARGS(die, old, new),
	    TP_STRUCT__entry(__field(unsigned int, die)
			     __field(u64, old)
			     __field(u64, new)),
	    TP_fast_assign(__entry->die = die;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("die=%u old=%#llx new=%#llx",
		      __entry->die, __entry->old, __entry->new)
);

/* A section changed between free and used, or masked and refreshed. */
TRACE_EVENT(pasr_section_state,
	    TP_PROTO(unsigned int section, bool free, bool masked),
	    TP_ARGS(section, free, masked),
	    TP_STRUCT__entry(__field(unsigned int, section)
			     __field(bool, free)
			     __field(bool, masked)),
	    TP_fast_assign(__entry->section = section;
			   __entry->free = free;
			   __entry->masked = masked;),
	    TP_printk("section=%u %s %s", __entry->section,
		      __entry->free ? "free" : "used",
		      __entry->masked ? "masked" : "refreshed")
);

#endif /* _TRACE_PASR_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
