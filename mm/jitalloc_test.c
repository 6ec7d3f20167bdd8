// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the jit allocator, mm/jitalloc.c.
 *
 * Each case checks one behaviour: placement per type, fallback, the
 * protections read back from the page tables, the initial contents, the
 * update helpers, and the rejection of every kind of bad input.
 */

#include <kunit/test.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "jitalloc_fault_test.h"
#include "jitalloc_internal.h"
#include "jitalloc_test_pt.h"

/* ===== Helpers ===== */

#define JIT_TEST_PATTERN	0x5a
#define JIT_TEST_NR_BAD		8

/*
 * Bad calls are refused, counted and reported with a rate-limited message
 * (no WARNING); each case checks that exactly its bad calls were counted.
 */
#define JIT_TEST_EXPECT_REFUSED(test, before, n)			\
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), (before) + (n))

static bool jit_test_in(unsigned long addr, size_t len, unsigned long start,
			unsigned long end)
{
	return addr >= start && addr < end && len <= end - addr;
}

/* Is the allocation inside the primary or the fallback range of @as? */
static bool jit_test_in_space(const void *p, size_t len,
			      const struct jit_address_space *as)
{
	unsigned long addr = (unsigned long)p;

	return jit_test_in(addr, len, as->start, as->end) ||
	       (as->fallback_end &&
		jit_test_in(addr, len, as->fallback_start, as->fallback_end));
}

/* Read the protections of the kernel mapping of @addr from the page tables. */
static bool jit_test_mapping(const void *addr, bool *write, bool *exec)
{
	struct jit_test_leaf l = jit_test_leaf_of((unsigned long)addr);

	*write = l.writable;
	*exec = l.exec;
	return l.present;
}

/* Check every page of an allocation is mapped as @prot says. */
static void jit_test_expect_prot(struct kunit *test, const void *p, size_t len,
				 pgprot_t prot)
{
	bool want_write, want_exec, write, exec;
	size_t off;

	if (!jit_test_prot_bits(pgprot_val(prot), &want_write, &want_exec))
		kunit_skip(test, "no page table reader for this architecture");

	for (off = 0; off < len; off += PAGE_SIZE) {
		KUNIT_ASSERT_TRUE(test, jit_test_mapping(p + off, &write, &exec));
		KUNIT_EXPECT_EQ(test, write, want_write);
		KUNIT_EXPECT_EQ(test, exec, want_exec);
	}
}

static bool jit_test_all_bytes(const void *p, size_t len, u8 c)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return false;
	return true;
}

/*
 * Parameters for a context of the test's own: the defaults, except that
 * text is never mapped writable and executable at once where the
 * architecture can say so.
 */
static void jit_test_params(struct jit_alloc_params *params)
{
	memset(params, 0, sizeof(*params));
#ifdef PAGE_KERNEL_ROX
	params->text.prot = JIT_PROT_ROX;
#endif
}

/* A context of the test's own, from @params (which may be %NULL). */
static struct jit_alloc_ctx *jit_test_ctx(struct kunit *test,
					  const struct jit_alloc_params *params)
{
	struct jit_alloc_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, jit_alloc_ctx_init(ctx, params), 0);
	return ctx;
}

/*
 * A range of the vmalloc space that is fully occupied: no allocation can be
 * placed in it.  Returns the vm area to give back with free_vm_area().
 */
static struct vm_struct *jit_test_occupied(struct kunit *test,
					   unsigned long *start,
					   unsigned long *end)
{
	struct vm_struct *area = get_vm_area(4 * PAGE_SIZE, VM_ALLOC);

	KUNIT_ASSERT_NOT_NULL(test, area);
	*start = (unsigned long)area->addr;
	*end = *start + area->size;
	return area;
}

static const char * const jit_test_type_names[JIT_TYPE_NR] = {
	[JIT_TYPE_MODULE_TEXT]	= "module text",
	[JIT_TYPE_MODULE_DATA]	= "module data",
	[JIT_TYPE_MODULE_INIT]	= "module init",
	[JIT_TYPE_KPROBES]	= "kprobes",
	[JIT_TYPE_FTRACE]	= "ftrace",
	[JIT_TYPE_BPF]		= "bpf",
	[JIT_TYPE_BPF_TRAMPOLINE] = "bpf trampoline",
	[JIT_TYPE_ITS]		= "its thunks",
};

/* ===== Placement ===== */

static void jit_test_text_placement(struct kunit *test)
{
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	void *p;

	KUNIT_ASSERT_TRUE(test, ctx->valid);
	p = jit_text_alloc(3 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_test_in_space(p, 3 * PAGE_SIZE,
						  &ctx->params.text));
	jit_free(p);
}

static void jit_test_data_placement(struct kunit *test)
{
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	void *p = jit_data_alloc(PAGE_SIZE + 1);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_test_in_space(p, PAGE_SIZE + 1,
						  &ctx->params.data));
	jit_free(p);
}

static void jit_test_type_placement(struct kunit *test)
{
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	enum jit_alloc_type type;

	for (type = 0; type < JIT_TYPE_NR; type++) {
		const struct jit_address_space *as;
		void *p;

		as = jit_alloc_ctx_space(ctx, type);
		KUNIT_ASSERT_NOT_NULL(test, as);
		if (type == JIT_TYPE_MODULE_DATA)
			p = jit_data_alloc_type(type, PAGE_SIZE);
		else
			p = jit_text_alloc_type(type, PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL_MSG(test, p, "type %s",
					  jit_test_type_names[type]);
		KUNIT_EXPECT_TRUE_MSG(test, jit_test_in_space(p, PAGE_SIZE, as),
				      "type %s at %p", jit_test_type_names[type],
				      p);
		jit_free(p);
	}
}

static void jit_test_type_own_space(struct kunit *test)
{
	struct jit_alloc_params params;
	const struct jit_address_space *as;
	struct jit_alloc_ctx *ctx;
	unsigned long mid;
	void *p;

	mid = PAGE_ALIGN(VMALLOC_START + (VMALLOC_END - VMALLOC_START) / 2);
	jit_test_params(&params);
	params.types[JIT_TYPE_BPF].start = mid;
	params.types[JIT_TYPE_BPF].end = VMALLOC_END;
	ctx = jit_test_ctx(test, &params);

	as = jit_alloc_ctx_space(ctx, JIT_TYPE_BPF);
	KUNIT_EXPECT_EQ(test, as->start, mid);
	KUNIT_EXPECT_EQ(test, as->prot, ctx->params.text.prot);
	p = jit_alloc_ctx_alloc(ctx, as, true, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_GE(test, (unsigned long)p, mid);
	jit_free(p);
}

static void jit_test_defaults(struct kunit *test)
{
	struct jit_alloc_ctx *ctx = jit_test_ctx(test, NULL);
	const struct jit_alloc_params *p = &ctx->params;

	KUNIT_EXPECT_EQ(test, p->text.start, VMALLOC_START);
	KUNIT_EXPECT_EQ(test, p->text.end, VMALLOC_END);
	KUNIT_EXPECT_EQ(test, p->text.fallback_end, 0UL);
	KUNIT_EXPECT_EQ(test, p->text.prot, JIT_PROT_RWX);
	KUNIT_EXPECT_EQ(test, p->data.prot, JIT_PROT_RW);
	KUNIT_EXPECT_EQ(test, pgprot_val(jit_prot_pgprot(p->text.prot)),
			pgprot_val(PAGE_KERNEL_EXEC));
	KUNIT_EXPECT_EQ(test, pgprot_val(jit_prot_pgprot(p->data.prot)),
			pgprot_val(PAGE_KERNEL));
}

static void jit_test_data_defaults_to_text(struct kunit *test)
{
	struct jit_alloc_params params = {
		.text = {
			.start		= VMALLOC_START,
			.end		= VMALLOC_START + SZ_1G,
			.fallback_start	= VMALLOC_START + SZ_1G,
			.fallback_end	= VMALLOC_END,
		},
	};
	struct jit_alloc_ctx *ctx = jit_test_ctx(test, &params);
	const struct jit_address_space *data = &ctx->params.data;
	const struct jit_address_space *mdata;

	KUNIT_EXPECT_EQ(test, data->start, params.text.start);
	KUNIT_EXPECT_EQ(test, data->end, params.text.end);
	KUNIT_EXPECT_EQ(test, data->fallback_start, params.text.fallback_start);
	KUNIT_EXPECT_EQ(test, data->fallback_end, params.text.fallback_end);
	KUNIT_EXPECT_EQ(test, data->prot, JIT_PROT_RW);

	mdata = jit_alloc_ctx_space(ctx, JIT_TYPE_MODULE_DATA);
	KUNIT_EXPECT_EQ(test, mdata->start, data->start);
	KUNIT_EXPECT_EQ(test, mdata->prot, JIT_PROT_RW);
}

static void jit_test_fallback(struct kunit *test)
{
	struct jit_alloc_params params;
	unsigned long start, end;
	struct vm_struct *area = jit_test_occupied(test, &start, &end);
	struct jit_alloc_ctx *ctx;
	void *p;

	jit_test_params(&params);
	params.text.start = start;
	params.text.end = end;
	params.text.fallback_start = VMALLOC_START;
	params.text.fallback_end = VMALLOC_END;
	ctx = jit_test_ctx(test, &params);

	p = jit_alloc_ctx_alloc(ctx, &ctx->params.text, true, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p) {
		KUNIT_EXPECT_FALSE(test, jit_test_in((unsigned long)p,
						     PAGE_SIZE, start, end));
		jit_free(p);
	}
	free_vm_area(area);
}

static void jit_test_primary_first(struct kunit *test)
{
	struct jit_alloc_params params;
	unsigned long start, end;
	struct vm_struct *area = jit_test_occupied(test, &start, &end);
	struct jit_alloc_ctx *ctx;
	void *p;

	jit_test_params(&params);
	/* A fallback that cannot serve anything must not be needed. */
	params.text.start = VMALLOC_START;
	params.text.end = VMALLOC_END;
	params.text.fallback_start = start;
	params.text.fallback_end = end;
	ctx = jit_test_ctx(test, &params);

	p = jit_alloc_ctx_alloc(ctx, &ctx->params.text, true, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, p);
	/* from the primary range, outside the occupied fallback */
	KUNIT_EXPECT_TRUE(test, jit_test_in((unsigned long)p, PAGE_SIZE,
					    VMALLOC_START, VMALLOC_END));
	KUNIT_EXPECT_FALSE(test, jit_test_in((unsigned long)p, 1, start, end));
	jit_free(p);
	free_vm_area(area);
}

static void jit_test_alignment(struct kunit *test)
{
	struct jit_alloc_params params = { .alignment = SZ_64K };
	struct jit_alloc_ctx *ctx = jit_test_ctx(test, &params);
	void *p[4];
	int i;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = jit_alloc_ctx_alloc(ctx, &ctx->params.data, false,
					   PAGE_SIZE);
		KUNIT_EXPECT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)p[i], SZ_64K));
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		jit_free(p[i]);
}

/* ===== Protections and contents ===== */

static void jit_test_data_prot(struct kunit *test)
{
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	void *p = jit_data_alloc(2 * PAGE_SIZE);
	bool write, exec;

	KUNIT_ASSERT_NOT_NULL(test, p);
	jit_test_expect_prot(test, p, 2 * PAGE_SIZE,
			     jit_prot_pgprot(ctx->params.data.prot));
	if (jit_test_mapping(p, &write, &exec)) {
		KUNIT_EXPECT_TRUE(test, write);
		KUNIT_EXPECT_FALSE(test, exec);
	}
	jit_free(p);
}

static void jit_test_text_prot(struct kunit *test)
{
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	enum jit_alloc_type type;

	for (type = 0; type < JIT_TYPE_NR; type++) {
		const struct jit_address_space *as;
		void *p;

		if (type == JIT_TYPE_MODULE_DATA)
			continue;
		as = jit_alloc_ctx_space(ctx, type);
		p = jit_text_alloc_type(type, 2 * PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, p);
		/* types served by the huge page cache are ROX from the start */
		jit_test_expect_prot(test, p, 2 * PAGE_SIZE,
				     jit_prot_pgprot(jit_type_is_rox(type) ?
						     JIT_PROT_ROX : as->prot));
		jit_free(p);
	}
}

static void jit_test_rox_prot(struct kunit *test)
{
#ifdef PAGE_KERNEL_ROX
	struct jit_alloc_params params = {
		.text.prot = JIT_PROT_ROX,
	};
	struct jit_alloc_ctx *ctx = jit_test_ctx(test, &params);
	bool write, exec;
	void *text, *data;

	text = jit_alloc_ctx_alloc(ctx, &ctx->params.text, true, PAGE_SIZE);
	data = jit_alloc_ctx_alloc(ctx, &ctx->params.data, false, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, text);
	KUNIT_ASSERT_NOT_NULL(test, data);

	if (!jit_test_mapping(text, &write, &exec))
		kunit_skip(test, "no page table reader for this architecture");
	KUNIT_EXPECT_FALSE(test, write);
	KUNIT_EXPECT_TRUE(test, exec);
	KUNIT_EXPECT_TRUE(test, jit_test_mapping(data, &write, &exec));
	KUNIT_EXPECT_TRUE(test, write);
	KUNIT_EXPECT_FALSE(test, exec);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(text, PAGE_SIZE, 0));

	jit_free(text);
	jit_free(data);
#else
	kunit_skip(test, "no PAGE_KERNEL_ROX");
#endif
}

static void jit_test_text_fill(struct kunit *test)
{
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	void *p = jit_text_alloc(3 * PAGE_SIZE + 100);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(p, 3 * PAGE_SIZE + 100,
						   ctx->params.text_fill));
	jit_free(p);
}

static void jit_test_data_zeroed(struct kunit *test)
{
	void *p = jit_data_alloc(3 * PAGE_SIZE + 100);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(p, 3 * PAGE_SIZE + 100, 0));
	jit_free(p);
}

/* ===== Update helpers ===== */

static void jit_test_update_copy(struct kunit *test)
{
	u8 buf[64];
	void *p = jit_text_alloc(2 * PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(buf, JIT_TEST_PATTERN, sizeof(buf));
	/* Across the page boundary */
	jit_update_copy(p + PAGE_SIZE - 32, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, memcmp(p + PAGE_SIZE - 32, buf, sizeof(buf)), 0);
	jit_free(p);
}

static void jit_test_update_set(struct kunit *test)
{
	void *p = jit_text_alloc(2 * PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, p);
	jit_update_set(p, JIT_TEST_PATTERN, 2 * PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(p, 2 * PAGE_SIZE,
						   JIT_TEST_PATTERN));
	jit_free(p);
}

static void jit_test_update_data(struct kunit *test)
{
	u8 buf[16];
	void *p = jit_data_alloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(buf, JIT_TEST_PATTERN, sizeof(buf));
	jit_update_copy(p + 8, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, memcmp(p + 8, buf, sizeof(buf)), 0);
	jit_update_set(p, 0x11, 8);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(p, 8, 0x11));
	jit_free(p);
}

static void jit_test_update_zero_len(struct kunit *test)
{
	u8 buf[8] = {};

	/* Nothing to write: not a bad update, even outside allocations. */
	jit_update_copy(buf, buf, 0);
	jit_update_set(buf, 1, 0);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(buf, sizeof(buf), 0));
}

static void jit_test_update_outside(struct kunit *test)
{
	unsigned long refused;
	u8 src[16];
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(src, JIT_TEST_PATTERN, sizeof(src));
	refused = jit_alloc_refused();
	jit_update_copy(buf, src, sizeof(src));
	jit_update_set(buf, JIT_TEST_PATTERN, 64);
	JIT_TEST_EXPECT_REFUSED(test, refused, 2);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(buf, 64, 0));
}

static void jit_test_update_straddle(struct kunit *test)
{
	unsigned long refused;
	const struct jit_alloc_ctx *ctx = jit_alloc_default_ctx();
	u8 src[32];
	void *p = jit_data_alloc(PAGE_SIZE);
	void *q = jit_text_alloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	memset(src, JIT_TEST_PATTERN, sizeof(src));
	refused = jit_alloc_refused();
	/* Starts inside, ends past the end */
	jit_update_copy(p + PAGE_SIZE - 16, src, sizeof(src));
	jit_update_set(q + PAGE_SIZE - 16, JIT_TEST_PATTERN, sizeof(src));
	/* Wraps around the address space */
	jit_update_set(p, JIT_TEST_PATTERN, SIZE_MAX);
	JIT_TEST_EXPECT_REFUSED(test, refused, 3);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(p, PAGE_SIZE, 0));
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(q, PAGE_SIZE,
						   ctx->params.text_fill));
	jit_free(p);
	jit_free(q);
}

static void jit_test_update_freed(struct kunit *test)
{
	unsigned long refused = jit_alloc_refused();
	u8 src[16];
	void *p = jit_data_alloc(PAGE_SIZE);
	void *q;

	KUNIT_ASSERT_NOT_NULL(test, p);
	jit_free(p);
	/* Keep the range mapped by someone else, so a stray write is safe. */
	q = vzalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, q);
	memset(src, JIT_TEST_PATTERN, sizeof(src));
	jit_update_copy(p, src, sizeof(src));	/* freed */
	jit_update_copy(q, src, sizeof(src));	/* never ours */
	/* both refused, and whoever holds the memory now keeps it intact */
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 2);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(q, PAGE_SIZE, 0));
	vfree(q);
}

/* ===== Bad input ===== */

static void jit_test_zero_len(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, jit_text_alloc(0));
	KUNIT_EXPECT_NULL(test, jit_data_alloc(0));
	KUNIT_EXPECT_NULL(test, jit_text_alloc_type(JIT_TYPE_BPF, 0));
	KUNIT_EXPECT_NULL(test, jit_data_alloc_type(JIT_TYPE_MODULE_DATA, 0));
}

static void jit_test_too_large(struct kunit *test)
{
	struct jit_alloc_params params = {};
	unsigned long start, end;
	struct vm_struct *area = jit_test_occupied(test, &start, &end);
	struct jit_alloc_ctx *ctx;

	/* Larger than the range and its fallback: no attempt, no warning. */
	params.text.start = start;
	params.text.end = end;
	params.text.fallback_start = start;
	params.text.fallback_end = end;
	ctx = jit_test_ctx(test, &params);
	KUNIT_EXPECT_NULL(test, jit_alloc_ctx_alloc(ctx, &ctx->params.text,
						    true, end - start + 1));
	KUNIT_EXPECT_NULL(test, jit_text_alloc(SIZE_MAX));
	KUNIT_EXPECT_NULL(test, jit_text_alloc(SIZE_MAX - PAGE_SIZE + 2));
	KUNIT_EXPECT_NULL(test, jit_data_alloc(SIZE_MAX / 2));
	free_vm_area(area);
}

static void jit_test_bad_type(struct kunit *test)
{
	unsigned long refused = jit_alloc_refused();

	KUNIT_EXPECT_NULL(test, jit_text_alloc_type(JIT_TYPE_MODULE_DATA,
						    PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, jit_data_alloc_type(JIT_TYPE_BPF, PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, jit_text_alloc_type(JIT_TYPE_NR, PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, jit_data_alloc_type(JIT_TYPE_NR, PAGE_SIZE));
	JIT_TEST_EXPECT_REFUSED(test, refused, 4);
	KUNIT_EXPECT_NULL(test, jit_alloc_ctx_space(jit_alloc_default_ctx(),
						    JIT_TYPE_NR));
}

/* Each set of parameters is invalid for exactly one reason. */
static void jit_test_invalid_params(struct kunit *test)
{
	struct jit_alloc_params *bad = kunit_kcalloc(test, JIT_TEST_NR_BAD, sizeof(*bad),
						     GFP_KERNEL);
	struct jit_alloc_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						  GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, bad);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	bad[0].text.start = VMALLOC_END;		/* start > end */
	bad[0].text.end = VMALLOC_START;
	bad[1].text.start = VMALLOC_START;		/* empty range */
	bad[1].text.end = VMALLOC_START;
	bad[2].text.start = VMALLOC_START;		/* fallback start only */
	bad[2].text.end = VMALLOC_END;
	bad[2].text.fallback_start = VMALLOC_START;
	bad[3].alignment = 3 * PAGE_SIZE;		/* not a power of two */
	bad[4].flags = BIT(30);				/* unknown flag */
	bad[5].types[JIT_TYPE_FTRACE].start = PAGE_SIZE; /* start, no end */
	bad[6].data.start = VMALLOC_START;		/* backwards fallback */
	bad[6].data.end = VMALLOC_END;
	bad[6].data.fallback_start = VMALLOC_END;
	bad[6].data.fallback_end = VMALLOC_START;
	bad[7].text.start = VMALLOC_START + 1;		/* unaligned start */
	bad[7].text.end = VMALLOC_END;

	for (i = 0; i < JIT_TEST_NR_BAD; i++) {
		KUNIT_EXPECT_EQ_MSG(test, jit_alloc_ctx_init(ctx, &bad[i]),
				    -EINVAL, "params %d", i);
		KUNIT_EXPECT_FALSE(test, ctx->valid);
		KUNIT_EXPECT_NULL_MSG(test,
				      jit_alloc_ctx_alloc(ctx, &ctx->params.text,
							  true, PAGE_SIZE),
				      "params %d", i);
		KUNIT_EXPECT_NULL(test, jit_alloc_ctx_alloc(ctx,
							    &ctx->params.data,
							    false, PAGE_SIZE));
	}
}

static void jit_test_free_null(struct kunit *test)
{
	unsigned long refused = jit_alloc_refused(), seq = jit_free_seq();

	/* a no-op, as kfree(NULL): not refused, not even counted as a free */
	jit_free(NULL);
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused);
	KUNIT_EXPECT_EQ(test, jit_free_seq(), seq);
}

static void jit_test_free_foreign(struct kunit *test)
{
	unsigned long refused;
	void *v = vmalloc(PAGE_SIZE);
	void *k = kmalloc(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, k);
	refused = jit_alloc_refused();
	jit_free(v);
	jit_free(k);
	JIT_TEST_EXPECT_REFUSED(test, refused, 2);
	/* Nothing was freed: both are still ours to use and free. */
	memset(v, 1, PAGE_SIZE);
	memset(k, 1, 64);
	vfree(v);
	kfree(k);
}

static void jit_test_free_interior(struct kunit *test)
{
	unsigned long refused;
	u8 src[8];
	void *p = jit_data_alloc(2 * PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, p);
	refused = jit_alloc_refused();
	jit_free(p + PAGE_SIZE);
	jit_free(p + 1);
	JIT_TEST_EXPECT_REFUSED(test, refused, 2);
	/* Still live: updates are accepted, then it frees normally. */
	memset(src, JIT_TEST_PATTERN, sizeof(src));
	jit_update_copy(p + PAGE_SIZE, src, sizeof(src));
	KUNIT_EXPECT_EQ(test, memcmp(p + PAGE_SIZE, src, sizeof(src)), 0);
	jit_free(p);
}

#define JIT_TEST_FAIL_AREAS	256

/*
 * A free cannot fail, whatever allocation fails under it: taking an area
 * out of the allocator's tree may need a maple node (a rebalance), and a
 * failed removal would leave a stale entry that passes the range check of
 * jit_update_copy().  The first slab allocation of each free is made to
 * fail (the task's fail-nth, as /proc/self/fail-nth sets it; needs
 * CONFIG_FAILSLAB): the node for the erase, where it needs one.
 * Every freed area must be gone from the tree (not only taken for freed:
 * the tree holds as many entries as before), and some frees must have met
 * the failure, or the test tested nothing.
 */
static void jit_test_free_under_failslab(struct kunit *test)
{
#ifdef CONFIG_FAILSLAB
	unsigned long areas = jit_alloc_areas();
	struct jit_alloc_params params;
	struct jit_alloc_ctx *ctx;
	int i, n, stale = 0, met = 0;
	void **p;

	/* read-only text, written by poking: what jit_addr_is_rox() sees */
	jit_test_params(&params);
	if (params.text.prot != JIT_PROT_ROX)
		kunit_skip(test, "no read-only executable protections here");
	ctx = jit_test_ctx(test, &params);
	p = kunit_kcalloc(test, JIT_TEST_FAIL_AREAS, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (n = 0; n < JIT_TEST_FAIL_AREAS; n++) {
		p[n] = jit_alloc_ctx_alloc(ctx, &ctx->params.text, true, PAGE_SIZE);
		if (!p[n])
			break;
		if (!jit_addr_is_rox(p[n])) {
			jit_free(p[n]);
			break;
		}
	}
	for (i = 0; i < n; i++) {
		current->fail_nth = 1;
		jit_free(p[i]);
		/* consumed: an allocation in the free failed */
		met += !current->fail_nth;
		current->fail_nth = 0;
		if (jit_addr_is_rox(p[i]))
			stale++;
	}
	kunit_info(test, "%d frees, %d met a failed allocation", n, met);
	KUNIT_EXPECT_EQ(test, n, JIT_TEST_FAIL_AREAS);
	KUNIT_EXPECT_EQ(test, stale, 0);
	/* nothing left in the tree, not even an entry marked dying */
	KUNIT_EXPECT_EQ(test, jit_alloc_areas(), areas);
	KUNIT_EXPECT_LT(test, 0, met);
#else
	kunit_skip(test, "needs CONFIG_FAILSLAB");
#endif
}

/*
 * Each removal from the tree fails twice, as a store that finds no node
 * would: every free must still take its area out of the tree, trying
 * again, and leave no entry behind, dying or not.  Only this task's
 * removals fail.
 */
static void jit_test_free_when_erase_fails(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	struct jit_test_fault f;
	unsigned long areas = jit_alloc_areas();
	void *p[16];
	int i, met = 0;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = jit_data_alloc(PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	jit_test_fault_arm(&f, &jit_fail_tree_erase, 2);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		atomic_set(&jit_fail_tree_erase.times, 2);
		jit_free(p[i]);
		met += !atomic_read(&jit_fail_tree_erase.times);
	}
	jit_test_fault_disarm(&f);
	kunit_info(test, "%d of %zu removals failed twice first\n", met,
		   ARRAY_SIZE(p));
	KUNIT_EXPECT_EQ(test, met, (int)ARRAY_SIZE(p));
	KUNIT_EXPECT_EQ(test, jit_alloc_areas(), areas);
#else
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
#endif
}

static void jit_test_double_free(struct kunit *test)
{
	unsigned long refused;
	void *p = jit_text_alloc(PAGE_SIZE);
	void *q;

	KUNIT_ASSERT_NOT_NULL(test, p);
	jit_free(p);
	refused = jit_alloc_refused();
	jit_free(p);
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 1);

	/*
	 * Whoever gets the range next must not lose it to a stale free
	 * (if it got another range, the stale free is refused too).
	 */
	q = jit_data_alloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, q);
	if (q != p) {
		jit_free(p);
		KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 2);
	}
	jit_update_set(q, JIT_TEST_PATTERN, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, jit_test_all_bytes(q, PAGE_SIZE,
						   JIT_TEST_PATTERN));
	jit_free(q);
}

static struct kunit_case jitalloc_test_cases[] = {
	KUNIT_CASE(jit_test_text_placement),
	KUNIT_CASE(jit_test_data_placement),
	KUNIT_CASE(jit_test_type_placement),
	KUNIT_CASE(jit_test_type_own_space),
	KUNIT_CASE(jit_test_defaults),
	KUNIT_CASE(jit_test_data_defaults_to_text),
	KUNIT_CASE(jit_test_fallback),
	KUNIT_CASE(jit_test_primary_first),
	KUNIT_CASE(jit_test_alignment),
	KUNIT_CASE(jit_test_data_prot),
	KUNIT_CASE(jit_test_text_prot),
	KUNIT_CASE(jit_test_rox_prot),
	KUNIT_CASE(jit_test_text_fill),
	KUNIT_CASE(jit_test_data_zeroed),
	KUNIT_CASE(jit_test_update_copy),
	KUNIT_CASE(jit_test_update_set),
	KUNIT_CASE(jit_test_update_data),
	KUNIT_CASE(jit_test_update_zero_len),
	KUNIT_CASE(jit_test_update_outside),
	KUNIT_CASE(jit_test_update_straddle),
	KUNIT_CASE(jit_test_update_freed),
	KUNIT_CASE(jit_test_zero_len),
	KUNIT_CASE(jit_test_too_large),
	KUNIT_CASE(jit_test_bad_type),
	KUNIT_CASE(jit_test_invalid_params),
	KUNIT_CASE(jit_test_free_null),
	KUNIT_CASE(jit_test_free_foreign),
	KUNIT_CASE(jit_test_free_interior),
	KUNIT_CASE(jit_test_double_free),
	KUNIT_CASE(jit_test_free_under_failslab),
	KUNIT_CASE(jit_test_free_when_erase_fails),
	{}
};

static struct kunit_suite jitalloc_test_suite = {
	.name = "jitalloc",
	.test_cases = jitalloc_test_cases,
};

kunit_test_suite(jitalloc_test_suite);

MODULE_LICENSE("GPL");
