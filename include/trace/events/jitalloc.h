/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the allocator of executable memory and of its cache of
 * huge ROX pages (mm/jitalloc_cache.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM jitalloc

#if !defined(_TRACE_JITALLOC_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_JITALLOC_H

#include <linux/tracepoint.h>

#ifndef __JITALLOC_TRACE_ENUMS
#define __JITALLOC_TRACE_ENUMS
/* Where an allocation's memory came from. */
enum jit_trace_backend {
	JIT_TRACE_BACKEND_CHUNK,	/* chunks of a cache pool's huge page */
	JIT_TRACE_BACKEND_BLOCKS,	/* pages carved from the page blocks */
	JIT_TRACE_BACKEND_VMALLOC,	/* vmalloc, page by page */
};

/* Why a cache pool could not serve a request. */
enum jit_trace_fallback {
	JIT_TRACE_FALLBACK_TOO_BIG,	/* larger than a cache page */
	JIT_TRACE_FALLBACK_NO_PAGE,	/* no room, and no new huge page could be had */
	JIT_TRACE_FALLBACK_NOWAIT,	/* no room, and the caller cannot wait */
};

/* Why a cache pool gave a huge page back. */
enum jit_trace_reclaim {
	JIT_TRACE_RECLAIM_GRACE,	/* free for longer than the grace period */
	JIT_TRACE_RECLAIM_SHRINKER,	/* memory pressure */
	JIT_TRACE_RECLAIM_SPARE,	/* explicit reclaim of every free page */
	JIT_TRACE_RECLAIM_DESTROY,	/* the pool went away */
};
#endif

#define jit_trace_backends				\
	EM(JIT_TRACE_BACKEND_CHUNK,	"chunk")		\
	EM(JIT_TRACE_BACKEND_BLOCKS,	"blocks")		\
	EMe(JIT_TRACE_BACKEND_VMALLOC, "vmalloc")

#define jit_trace_fallbacks				\
	EM(JIT_TRACE_FALLBACK_TOO_BIG, "too_big")		\
	EM(JIT_TRACE_FALLBACK_NO_PAGE, "no_huge_page")	\
	EMe(JIT_TRACE_FALLBACK_NOWAIT, "nowait")

#define jit_trace_reclaims				\
	EM(JIT_TRACE_RECLAIM_GRACE,	"grace")		\
	EM(JIT_TRACE_RECLAIM_SHRINKER, "shrinker")		\
	EM(JIT_TRACE_RECLAIM_SPARE,	"spare")		\
	EMe(JIT_TRACE_RECLAIM_DESTROY, "destroy")

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);

jit_trace_backends
jit_trace_fallbacks
jit_trace_reclaims

#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

/**
 * jit_alloc - the jit allocator handed memory out
 * @addr: the allocation
 * @len: its size as asked for
 * @held: bytes it holds (whole chunks or pages), as jit_free reports them
 * @user: the type of user ("text", "data" for the untyped calls)
 * @backend: enum jit_trace_backend
 * @fallback: text of a cached type that its pool could not serve
 */
TRACE_EVENT(jit_alloc,

	TP_PROTO(const void *addr, size_t len, size_t held, const char *user,
		 int backend, bool fallback),

	TP_ARGS(addr, len, held, user, backend, fallback),

	TP_STRUCT__entry(
		__field(unsigned long,	addr)
		__field(size_t,		len)
		__field(size_t,		held)
		__string(user,		user)
		__field(int,		backend)
		__field(bool,		fallback)
	),

	TP_fast_assign(
		__entry->addr = (unsigned long)addr;
		__entry->len = len;
		__entry->held = held;
		jit_trace_assign_str(user, user);
		__entry->backend = backend;
		__entry->fallback = fallback;
	),

	TP_printk("addr=0x%lx len=%zu held=%zu user=%s backend=%s%s",
		  __entry->addr, __entry->len, __entry->held, __get_str(user),
		  __print_symbolic(__entry->backend, jit_trace_backends),
		  __entry->fallback ? " fallback" : "")
);

/**
 * jit_free - memory went back to the jit allocator
 * @addr: the allocation
 * @len: bytes it held (whole chunks or pages)
 * @user: the type of user, as in jit_alloc
 * @backend: enum jit_trace_backend
 */
TRACE_EVENT(jit_free,

	TP_PROTO(const void *addr, size_t len, const char *user, int backend),

	TP_ARGS(addr, len, user, backend),

	TP_STRUCT__entry(
		__field(unsigned long,	addr)
		__field(size_t,		len)
		__string(user,		user)
		__field(int,		backend)
	),

	TP_fast_assign(
		__entry->addr = (unsigned long)addr;
		__entry->len = len;
		jit_trace_assign_str(user, user);
		__entry->backend = backend;
	),

	TP_printk("addr=0x%lx len=%zu user=%s backend=%s",
		  __entry->addr, __entry->len, __get_str(user),
		  __print_symbolic(__entry->backend, jit_trace_backends))
);

/**
 * jit_fallback - a cache pool could not serve a request
 * @pool: the pool's name
 * @len: the size asked for
 * @reason: enum jit_trace_fallback
 */
TRACE_EVENT(jit_fallback,

	TP_PROTO(const char *pool, size_t len, int reason),

	TP_ARGS(pool, len, reason),

	TP_STRUCT__entry(
		__string(pool,		pool)
		__field(size_t,		len)
		__field(int,		reason)
	),

	TP_fast_assign(
		jit_trace_assign_str(pool, pool);
		__entry->len = len;
		__entry->reason = reason;
	),

	TP_printk("pool=%s len=%zu reason=%s", __get_str(pool), __entry->len,
		  __print_symbolic(__entry->reason, jit_trace_fallbacks))
);

/**
 * jit_cache_page_map - a cache pool mapped a new huge page
 * @pool: the pool's name
 * @addr: the page
 * @size: its size
 */
TRACE_EVENT(jit_cache_page_map,

	TP_PROTO(const char *pool, const void *addr, unsigned long size),

	TP_ARGS(pool, addr, size),

	TP_STRUCT__entry(
		__string(pool,		pool)
		__field(unsigned long,	addr)
		__field(unsigned long,	size)
	),

	TP_fast_assign(
		jit_trace_assign_str(pool, pool);
		__entry->addr = (unsigned long)addr;
		__entry->size = size;
	),

	TP_printk("pool=%s addr=0x%lx size=%lu", __get_str(pool),
		  __entry->addr, __entry->size)
);

/**
 * jit_cache_page_unmap - a cache pool gave a huge page back
 * @pool: the pool's name
 * @addr: the page
 * @size: its size
 * @reason: enum jit_trace_reclaim
 */
TRACE_EVENT(jit_cache_page_unmap,

	TP_PROTO(const char *pool, const void *addr, unsigned long size,
		 int reason),

	TP_ARGS(pool, addr, size, reason),

	TP_STRUCT__entry(
		__string(pool,		pool)
		__field(unsigned long,	addr)
		__field(unsigned long,	size)
		__field(int,		reason)
	),

	TP_fast_assign(
		jit_trace_assign_str(pool, pool);
		__entry->addr = (unsigned long)addr;
		__entry->size = size;
		__entry->reason = reason;
	),

	TP_printk("pool=%s addr=0x%lx size=%lu reason=%s", __get_str(pool),
		  __entry->addr, __entry->size,
		  __print_symbolic(__entry->reason, jit_trace_reclaims))
);

/**
 * jit_cache_refill - freed chunks were refilled with traps, reusable again
 * @pool: the pool's name
 * @chunks: chunks refilled in this batch
 * @bytes: their size
 */
TRACE_EVENT(jit_cache_refill,

	TP_PROTO(const char *pool, unsigned long chunks, unsigned long bytes),

	TP_ARGS(pool, chunks, bytes),

	TP_STRUCT__entry(
		__string(pool,		pool)
		__field(unsigned long,	chunks)
		__field(unsigned long,	bytes)
	),

	TP_fast_assign(
		jit_trace_assign_str(pool, pool);
		__entry->chunks = chunks;
		__entry->bytes = bytes;
	),

	TP_printk("pool=%s chunks=%lu bytes=%lu", __get_str(pool),
		  __entry->chunks, __entry->bytes)
);

#endif /* _TRACE_JITALLOC_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
