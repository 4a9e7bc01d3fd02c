/*
 * vfs-pages.h: page-cache events (EV_PAGE): pages dirtied, file mappings
 * faulted.
 * Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_PAGES_H
#define BLKTOP_VFS_PAGES_H

#include "vfs-emit.h"

/*
 * Page-cache events (struct ev_page), loaded beside any variant where the
 * kernel has the typed tracepoints (src/source-live-extras.c probes each). A page dirtied
 * or a mapping faulted is charged to the task it happens in: the writer of a
 * write(), the task storing through or touching a shared mapping.
 */
/* A record of size bytes in the ring, the batch of this CPU sent first (its order kept); NULL: counted lost. */
static __always_inline void *page_reserve(__u64 size, __u64 *now)
{
	void *ev;

	*now = bpf_ktime_get_ns();
	batch_drain(*now);
	ev = bpf_ringbuf_reserve(&events, size, 0);
	if (!ev)
		count(&counters, CNT_LOST);
	return ev;
}

static __always_inline int page_event(struct address_space *m, __u16 kind, __u32 bytes,
    __u64 index1)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	struct inode *host;
	struct ev_page *ev;
	__u16 mode;

	if (!trace_pages || !m || !wanted(id >> 32))
		return 0;
	host = m->host;
	if (!host)
		return 0;
	mode = host->i_mode;
	if ((mode & S_IFMT) == S_IFBLK)
		return 0;	/* the block device's cache: metadata, charged nowhere */
	if (!(ev = page_reserve(sizeof(*ev), &now)))
		return 0;
	ev->type = EV_PAGE;
	ev->dev = host->i_sb->s_dev;
	ev->ts = now;
	ev->ino = host->i_ino;
	ev->bytes = bytes;
	ev->pid = (__u32)id;
	ev->tgid = id >> 32;
	ev->kind = kind;
	ev->pad = 0;
	ev->index1 = index1;
	task_owner(cg_cache_cpu(), &ev->cgroup, ev->comm, now);
	bpf_ringbuf_submit(ev, wake_flags(ev->ts));
	return 0;
}

/* Bytes of a folio: a page, or 2^order pages for a large folio (order in the second page's flags). */
static __always_inline __u32 folio_bytes(struct folio *folio)
{
	unsigned long fl = 0, fl1 = 0;

	bpf_probe_read_kernel(&fl, sizeof(fl), folio);	/* page flags: the first word in every layout */
	if (!(fl & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 4096;
	bpf_probe_read_kernel(&fl1, sizeof(fl1), &folio->_flags_1);
	return 4096u << (fl1 & 0x1f);
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(page_dirty, struct folio *folio, struct address_space *mapping)
{
	return page_event(mapping, PAGE_DIRTY, folio_bytes(folio), 0);
}

/* Before folios (5.10 to 5.17): writeback_dirty_page, one page. */
SEC("tp_btf/writeback_dirty_page")
int BPF_PROG(page_dirty_page, struct page *page, struct address_space *mapping)
{
	return page_event(mapping, PAGE_DIRTY, 4096, 0);
}

/*
 * A dirtier about to be paused (the classic tracepoint: its fields hold the
 * pause in ms on every kernel; the typed one's arguments changed in 6.11 and
 * are in jiffies). Only pauses are sent: pause <= 0 lets the task go on.
 */
SEC("tp/writeback/balance_dirty_pages")
int page_throttle(struct trace_event_raw_balance_dirty_pages *ctx)
{
	__u64 id, now;
	struct ev_throttle *ev;
	long pause;

	STOP_CHECK();
	id = bpf_get_current_pid_tgid();
	pause = ctx->pause;
	if (!trace_throttle || pause <= 0 || !wanted(id >> 32))
		return 0;
	if (!(ev = page_reserve(sizeof(*ev), &now)))
		return 0;
	ev->type = EV_THROTTLE;
	ev->pid = (__u32)id;
	ev->ts = now;
	ev->tgid = id >> 32;
	ev->pause_ms = pause > 0x7fffffff ? 0x7fffffff : (__u32)pause;
	ev->dirty = ctx->dirty;
	ev->limit = ctx->limit;
	task_owner(cg_cache_cpu(), &ev->cgroup, ev->comm, now);
	bpf_ringbuf_submit(ev, wake_flags(ev->ts));
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(page_fault, struct address_space *mapping, unsigned long index)
{
	return page_event(mapping, PAGE_FAULT, 4096, (__u64)index + 1);
}

#endif
