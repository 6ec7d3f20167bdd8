/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitalloc: one allocator for memory that holds generated or loaded code.
 *
 * Modules, BPF, kprobes and ftrace all need executable memory, and often
 * data that has to live close to it.  Architectures describe where such
 * memory may be placed and how it is mapped with &struct jit_alloc_params;
 * users ask for it with jit_text_alloc() and friends and never pass
 * addresses.  See mm/jitalloc.c.
 */
#ifndef _LINUX_JITALLOC_H
#define _LINUX_JITALLOC_H

#include <linux/types.h>
#include <linux/mm.h>	/* pgprot_t; some arches' pgtable.h need it first */
#include <linux/pgtable.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

/**
 * enum jit_alloc_flags - architecture quirks of the jit allocator
 * @JIT_ALLOC_KASAN_SHADOW: allocate KASAN shadow for each allocation;
 *	needed where the placement range is not covered by the vmalloc
 *	shadow (KASAN without KASAN_VMALLOC).
 * @JIT_ALLOC_RANDOMIZE: randomize placement, as module KASLR does: page
 *	granular allocations start a random number of pages (1 to 1024) into
 *	their range, drawn at the first allocation, and with
 *	CONFIG_JIT_ALLOC_CACHE every huge page of the pool that holds module
 *	text goes to a random aligned place in its range, with the first
 *	allocation in it at a random offset.
 * @JIT_ALLOC_CACHE_TOP_DOWN: with CONFIG_JIT_ALLOC_CACHE, the huge pages of
 *	the pool that holds module text go to the highest free aligned
 *	places of its range, not at random: for a small module region whose
 *	place is random itself (arm64), so that they leave the rest of it in
 *	one piece for large page-granular allocations.
 * @JIT_ALLOC_GROUP_PAGES: set_memory_*() on jit memory also changes its
 *	direct-map alias, splitting large direct-map pages; with
 *	CONFIG_JIT_ALLOC_CACHE, page-granular allocations take their pages
 *	from blocks of one direct-map leaf each, so that only the first
 *	change in a block splits it.
 */
enum jit_alloc_flags {
	JIT_ALLOC_KASAN_SHADOW	= (1 << 0),
	JIT_ALLOC_RANDOMIZE	= (1 << 1),
	JIT_ALLOC_CACHE_TOP_DOWN = (1 << 2),
	JIT_ALLOC_GROUP_PAGES	= (1 << 3),
};

#define JIT_ALLOC_FLAGS_MASK	(JIT_ALLOC_KASAN_SHADOW | \
				 JIT_ALLOC_RANDOMIZE | \
				 JIT_ALLOC_CACHE_TOP_DOWN | \
				 JIT_ALLOC_GROUP_PAGES)

/**
 * enum jit_alloc_type - who an allocation is for, to choose its placement
 * @JIT_TYPE_MODULE_TEXT: text of loadable modules
 * @JIT_TYPE_MODULE_DATA: data and read-only data of loadable modules
 * @JIT_TYPE_MODULE_INIT: init text of loadable modules, written by the
 *	loader and freed after init (their init data is %JIT_TYPE_MODULE_DATA)
 * @JIT_TYPE_KPROBES: kprobes instruction slots
 * @JIT_TYPE_FTRACE: ftrace trampolines
 * @JIT_TYPE_BPF: BPF programs and dispatchers, and trampolines where the
 *	architecture does not allocate them as %JIT_TYPE_BPF_TRAMPOLINE
 * @JIT_TYPE_BPF_TRAMPOLINE: trampolines of BPF programs and struct_ops maps,
 *	on architectures that write them with text poking
 * @JIT_TYPE_ITS: pages of x86 indirect-branch thunks (the ITS mitigation),
 *	allocated while text_mutex is held and written with text poking
 * @JIT_TYPE_NR: number of types
 *
 * %JIT_TYPE_MODULE_DATA is a data type; every other type is a text type.
 * A type without an address space of its own in &jit_alloc_params.types
 * uses &jit_alloc_params.text (text types) or &jit_alloc_params.data
 * (data types).
 */
enum jit_alloc_type {
	JIT_TYPE_MODULE_TEXT,
	JIT_TYPE_MODULE_DATA,
	JIT_TYPE_MODULE_INIT,
	JIT_TYPE_KPROBES,
	JIT_TYPE_FTRACE,
	JIT_TYPE_BPF,
	JIT_TYPE_BPF_TRAMPOLINE,
	JIT_TYPE_ITS,
	JIT_TYPE_NR,
};

/**
 * enum jit_prot - how memory of an address space is mapped
 * @JIT_PROT_DEFAULT: the default of the class: %JIT_PROT_RWX for text,
 *	%JIT_PROT_RW for data
 * @JIT_PROT_RW: %PAGE_KERNEL
 * @JIT_PROT_RWX: %PAGE_KERNEL_EXEC
 * @JIT_PROT_ROX: read-only and executable, jit_arch_rox_pgprot()
 *
 * A kind of protection, not a &pgprot_t: the allocator turns it into page
 * table bits with jit_prot_pgprot() each time it maps memory, because some
 * of those bits are only known once the CPUs are up (arm64 makes kernel
 * mappings non-global when KPTI is enabled at smp_cpus_done() and adds
 * the BTI guard bit where the CPUs have BTI).
 */
enum jit_prot {
	JIT_PROT_DEFAULT,
	JIT_PROT_RW,
	JIT_PROT_RWX,
	JIT_PROT_ROX,
};

/**
 * struct jit_address_space - where allocations may be placed, and how mapped
 * @prot: the kind of protections of the mapping, &enum jit_prot
 * @start: start of the primary range, page aligned
 * @end: end of the primary range (exclusive); zero leaves the whole space
 *	unset so that the default for it applies
 * @fallback_start: start of the range tried when the primary one fails,
 *	page aligned
 * @fallback_end: end of the fallback range (exclusive); zero if there is none
 */
struct jit_address_space {
	enum jit_prot	prot;
	unsigned long	start;
	unsigned long	end;
	unsigned long	fallback_start;
	unsigned long	fallback_end;
};

/**
 * struct jit_alloc_params - an architecture's constraints on jit memory
 * @text: address space of jit_text_alloc(); the VMALLOC range mapped
 *	%JIT_PROT_RWX if unset
 * @data: address space of jit_data_alloc(); the ranges of @text mapped
 *	%JIT_PROT_RW if unset
 * @types: optional address space per &enum jit_alloc_type; an unset entry
 *	means @text or @data, as the type's class says
 * @flags: a mask of &enum jit_alloc_flags
 * @alignment: alignment of every allocation in bytes; a power of two, or
 *	zero for no constraint beyond the page alignment vmalloc gives
 * @cache_types: mask of BIT(&enum jit_alloc_type) whose text is served
 *	read-only and executable from the huge page cache (with
 *	CONFIG_JIT_ALLOC_CACHE); their users write it only with
 *	jit_update_copy() and jit_update_set() and never change its
 *	permissions, see jit_type_is_rox()
 * @text_fill: byte that fills new text allocations before they are handed
 *	out; it must trap when executed (e.g. int3 on x86), and is zero on
 *	architectures where zeroes trap
 */
struct jit_alloc_params {
	struct jit_address_space	text;
	struct jit_address_space	data;
	struct jit_address_space	types[JIT_TYPE_NR];
	unsigned int			flags;
	unsigned int			alignment;
	unsigned int			cache_types;
	u8				text_fill;
};

struct jit_block_pool;

/**
 * struct jit_alloc_ctx - validated parameters the allocator works from
 * @params: @params as given, with every unset field replaced by its default
 * @valid: the given parameters passed validation; no allocation is served
 *	from an invalid context
 * @blocks: page blocks of page-granular allocations, when
 *	%JIT_ALLOC_GROUP_PAGES asks for them; %NULL means vmalloc pages
 *
 * There is one context for the kernel, set up by jit_alloc_init() from
 * jit_alloc_arch_params().
 */
struct jit_alloc_ctx {
	struct jit_alloc_params	params;
	bool			valid;
	struct jit_block_pool	*blocks;
};

#ifdef CONFIG_JIT_ALLOC

void *jit_text_alloc(size_t len);
void *jit_data_alloc(size_t len);
void *jit_text_alloc_type(enum jit_alloc_type type, size_t len);
void *jit_data_alloc_type(enum jit_alloc_type type, size_t len);
void jit_free(void *buf);
bool jit_type_is_rox(enum jit_alloc_type type);
bool jit_type_is_cached(enum jit_alloc_type type);
bool jit_addr_is_rox(const void *addr);
unsigned long jit_free_seq(void);
int jit_update_copy(void *dst, const void *src, size_t len);
int jit_update_set(void *dst, int c, size_t len);

struct jit_alloc_params *jit_alloc_arch_params(void);
void jit_alloc_init(void);
struct jit_alloc_params *jit_alloc_arch_params_late(void);

/* Architecture text poking: how jit_update_copy() and _set() write text. */
int jit_arch_text_copy(void *dst, const void *src, size_t len);
int jit_arch_text_set(void *dst, int c, size_t len);
/*
 * jitalloc gives them at most this much text per call: the architecture's
 * poking may hold a lock that kprobes, ftrace and jump labels take too
 * (text_mutex on x86) for a whole call.
 */
#define JIT_POKE_CHUNK	SZ_64K
/* Protections of memory mapped read-only and executable from the start. */
pgprot_t jit_arch_rox_pgprot(void);

/**
 * jit_prot_pgprot() - the page table protections of a kind of protection
 * @prot: the kind; %JIT_PROT_DEFAULT is taken as %JIT_PROT_RW
 *
 * Evaluated each time memory is mapped, never stored: on arm64 the value of
 * %PAGE_KERNEL changes when KPTI makes kernel mappings non-global after
 * the secondary CPUs came up, and read-only executable memory gets the BTI
 * guard bit only where every CPU has BTI.
 *
 * Return: the protections.
 */
static inline pgprot_t jit_prot_pgprot(enum jit_prot prot)
{
	switch (prot) {
	case JIT_PROT_RWX:
#ifdef PAGE_KERNEL_RWX
		/* parisc: its PAGE_KERNEL_EXEC is read-only */
		return PAGE_KERNEL_RWX;
#else
		return PAGE_KERNEL_EXEC;
#endif
	case JIT_PROT_ROX:
		return jit_arch_rox_pgprot();
	default:
		return PAGE_KERNEL;
	}
}

unsigned long jit_text_held_pages(void);

#else /* CONFIG_JIT_ALLOC */

/* Without an MMU there is nothing to place or protect: plain vmalloc. */
static inline void *jit_text_alloc(size_t len)
{
	return len ? vzalloc(len) : NULL;
}

static inline void *jit_data_alloc(size_t len)
{
	return len ? vzalloc(len) : NULL;
}

static inline void *jit_text_alloc_type(enum jit_alloc_type type, size_t len)
{
	return jit_text_alloc(len);
}

static inline void *jit_data_alloc_type(enum jit_alloc_type type, size_t len)
{
	return jit_data_alloc(len);
}

static inline void jit_free(void *buf)
{
	vfree(buf);
}

static inline bool jit_type_is_rox(enum jit_alloc_type type)
{
	return false;
}

static inline bool jit_type_is_cached(enum jit_alloc_type type)
{
	return false;
}

static inline bool jit_addr_is_rox(const void *addr)
{
	return false;
}

static inline unsigned long jit_text_held_pages(void)
{
	return 0;
}

/* Only users of jit_type_is_rox() memory need it, and there is none. */
static inline unsigned long jit_free_seq(void)
{
	return 0;
}

static inline int jit_update_copy(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
	return 0;
}

static inline int jit_update_set(void *dst, int c, size_t len)
{
	memset(dst, c, len);
	return 0;
}

static inline void jit_alloc_init(void) { }

#endif /* CONFIG_JIT_ALLOC */

#endif /* _LINUX_JITALLOC_H */
