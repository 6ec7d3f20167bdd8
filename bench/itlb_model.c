// SPDX-License-Identifier: GPL-2.0
/*
 * itlb_model - a QEMU TCG plugin that models the instruction TLB of the
 * guest's CPU, so the iTLB effect of jitalloc can be measured on a machine
 * without a PMU (QEMU TCG has none, and TCG timings show no TLB effect).
 *
 * What it sees: every executed translation block with its virtual address
 * and length.  What it needs from the guest: which kernel ranges are mapped
 * by pages larger than 4 KiB, and when to measure.  Both come from the
 * guest workload (bench/jitload.c):
 *
 *  - it prints the executable ranges mapped by large pages, read from the
 *    guest's page-table dump, on the console between
 *      ### itlb-ranges begin <phase>
 *      ### itlb-range <start hex> <end hex> <page shift>
 *      ### itlb-ranges end <phase>
 *    and waits until the console has sent them (tcdrain);
 *  - it then executes a marker instruction that opens the measured window
 *    for <phase> on the vCPU that executes it, and another that closes it.
 *    x86_64: nopl 0x4a540000+code(%rax) (0f 1f 80 imm32);
 *    arm64:  movk xzr, #(0xa000+code), lsl #48 (a write to XZR: a NOP).
 *    code = 0x100 + phase opens, 0x200 closes.
 *
 * On an open marker the plugin reads the console log (plugin argument
 * log=FILE, where the harness sends the guest console) for the ranges of
 * that phase, waiting up to 5 s for the end line; every address outside
 * them is taken to be mapped by a 4 KiB page.  On a close marker it appends
 * one line per window to out=FILE:
 *
 *   itlb-model phase=P cpu=C kernel_insns=N kernel_lookups=N
 *     kernel_l1_misses=N kernel_walks=N user_insns=N user_lookups=N
 *     user_l1_misses=N user_walks=N
 *
 * The model (state the parameters wherever its figures appear):
 *  - x86_64 follows Intel Skylake, per logical CPU: L1 iTLB for 4 KiB pages,
 *    128 entries 8-way; L1 iTLB for 2 MiB pages, 8 entries fully
 *    associative; a second-level TLB (STLB) of 1,536 entries 12-way shared
 *    by 4 KiB and 2 MiB pages.  Larger pages are held as 2 MiB entries.
 *  - arm64 follows Arm Cortex-A72 (the A57 family QEMU emulates here): a
 *    48-entry fully associative L1 instruction TLB holding 4 KiB, 64 KiB
 *    and 1 MiB granules (a 2 MiB block takes a 1 MiB entry), and a unified
 *    1,024-entry 4-way L2 TLB holding every size.
 *  - LRU replacement everywhere.  One lookup per executed translation
 *    block and page it touches (a block rarely spans two pages): what is
 *    modelled is the stream of distinct pages the fetch unit needs, not
 *    each fetch.  A miss in the first level looks up the second; a miss
 *    there is a page walk, and fills both.
 *  - No flushes: address spaces are assumed tagged (PCID/ASID) and kernel
 *    mappings global, as on the hardware the series is for; TLB shootdowns
 *    issued by the guest are not seen.  Data accesses, which share the
 *    second level, are not modelled (the same for both kernels compared).
 *  - Kernel mode is told by address (the upper half of the address space).
 *
 * Build: cc -O2 -fPIC -shared -o itlb_model.so itlb_model.c (no library
 * needed); the declarations of the QEMU plugin API (version 1, QEMU 4.2 to
 * 8.x) it uses are below, as Debian ships no qemu-plugin.h.
 * Run: qemu-system-... -plugin ./itlb_model.so,log=CONSOLE,out=FILE
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- the part of QEMU's plugin API (version 1) this plugin uses --- */
#define PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_tb_trans_cb_t)(qemu_plugin_id_t id,
					  struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
PLUGIN_EXPORT int qemu_plugin_version = 1;
/* --- end of the API declarations --- */

#define MAX_CPUS	64
#define MAX_RANGES	65536
#define MARK_OPEN	0x100
#define MARK_CLOSE	0x200

/* One level of a TLB: @sets sets of @ways entries, LRU. */
struct tlb {
	unsigned int sets, ways;
	uint64_t *tag;		/* sets * ways; 0 = empty */
	uint64_t *stamp;	/* last use, for LRU */
	uint64_t clock;
};

struct cpu_state {
	bool open;
	int phase;
	struct tlb l1_small, l1_large, l2;
	uint64_t kinsns, klookups, kl1miss, kwalks;
	uint64_t uinsns, ulookups, ul1miss, uwalks;
};

struct range {
	uint64_t start, end;
	unsigned int shift;
};

struct range_table {
	unsigned int n;
	struct range r[];
};

struct tb_info {
	uint64_t vaddr, last;	/* first and last byte of the block */
	unsigned int insns;
};

static enum { ARCH_X86, ARCH_ARM64 } arch;
static const char *log_path, *out_path;
static struct cpu_state cpus[MAX_CPUS];
/* replaced whole on every open marker; old tables are kept (a few KiB) */
static struct range_table *_Atomic ranges;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void tlb_init(struct tlb *t, unsigned int entries, unsigned int ways)
{
	t->ways = ways;
	t->sets = entries / ways;
	t->tag = calloc(entries, sizeof(*t->tag));
	t->stamp = calloc(entries, sizeof(*t->stamp));
	if (!t->tag || !t->stamp) {
		fprintf(stderr, "itlb_model: out of memory\n");
		exit(1);
	}
}

/*
 * Look up the page @vpn of size 1 << @shift; on a miss put it in the
 * set's least recently used way.  Returns true on a hit.
 */
static bool tlb_access(struct tlb *t, uint64_t vpn, unsigned int shift)
{
	unsigned int set = (unsigned int)(vpn % t->sets), w, victim = 0;
	uint64_t key = (vpn << 6) | shift;	/* never 0: shift >= 12 */
	uint64_t *tag = &t->tag[set * t->ways];
	uint64_t *stamp = &t->stamp[set * t->ways];

	t->clock++;
	for (w = 0; w < t->ways; w++) {
		if (tag[w] == key) {
			stamp[w] = t->clock;
			return true;
		}
		if (stamp[w] < stamp[victim])
			victim = w;
	}
	tag[victim] = key;
	stamp[victim] = t->clock;
	return false;
}

static bool kernel_addr(uint64_t va)
{
	return va >> 63;
}

/* Page shift of the mapping of @va: a listed large page, or 4 KiB. */
static unsigned int page_shift(uint64_t va)
{
	struct range_table *t = ranges;
	unsigned int lo = 0, hi;

	if (!t)
		return 12;
	hi = t->n;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (va < t->r[mid].start)
			hi = mid;
		else if (va >= t->r[mid].end)
			lo = mid + 1;
		else
			return t->r[mid].shift;
	}
	return 12;
}

/* One instruction-side translation of @va, counted for its mode. */
static void translate(struct cpu_state *c, uint64_t va)
{
	unsigned int shift = page_shift(va);
	bool kernel = kernel_addr(va), large;
	unsigned int l1_shift = shift;

	if (arch == ARCH_X86) {
		large = shift > 12;
		if (shift > 21)
			l1_shift = 21;
	} else {
		/* A72's L1 holds 4K, 64K and 1M granules only */
		large = false;
		if (shift >= 20)
			l1_shift = 20;
		else if (shift >= 16)
			l1_shift = 16;
		else
			l1_shift = 12;
	}
	if (kernel)
		c->klookups++;
	else
		c->ulookups++;
	if (tlb_access(large ? &c->l1_large : &c->l1_small, va >> l1_shift,
		       l1_shift))
		return;
	if (kernel)
		c->kl1miss++;
	else
		c->ul1miss++;
	if (tlb_access(&c->l2, va >> shift, shift))
		return;
	if (kernel)
		c->kwalks++;
	else
		c->uwalks++;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_info *tb = udata;
	struct cpu_state *c;
	unsigned int shift;

	if (vcpu >= MAX_CPUS)
		return;
	c = &cpus[vcpu];
	if (!c->open)
		return;
	if (kernel_addr(tb->vaddr))
		c->kinsns += tb->insns;
	else
		c->uinsns += tb->insns;
	translate(c, tb->vaddr);
	shift = page_shift(tb->vaddr);
	if ((tb->vaddr >> shift) != (tb->last >> shift))
		translate(c, tb->last);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Read the ranges the guest printed for @phase from the console log.  The
 * last complete block for the phase wins.  Returns NULL when the log never
 * shows the block's end line (the window is then not opened).
 */
static struct range_table *read_ranges(int phase)
{
	char line[256], begin[64], end[64];
	struct range_table *t = NULL, *cur = NULL;
	int tries;

	snprintf(begin, sizeof(begin), "### itlb-ranges begin %d", phase);
	snprintf(end, sizeof(end), "### itlb-ranges end %d", phase);
	for (tries = 0; tries < 5000 && !t; tries++) {
		FILE *f = fopen(log_path, "r");

		if (!f) {
			fprintf(stderr, "itlb_model: %s: %s\n", log_path,
				strerror(errno));
			return NULL;
		}
		while (fgets(line, sizeof(line), f)) {
			struct range r;
			char *p;

			if (strstr(line, begin)) {
				free(cur);
				cur = calloc(1, sizeof(*cur) +
					     MAX_RANGES * sizeof(struct range));
				continue;
			}
			if (!cur)
				continue;
			if (strstr(line, end)) {
				free(t);
				t = cur;
				cur = NULL;
				continue;
			}
			p = strstr(line, "### itlb-range ");
			if (p && sscanf(p, "### itlb-range %" SCNx64 " %" SCNx64 " %u",
					&r.start, &r.end, &r.shift) == 3 &&
			    r.start < r.end && r.shift >= 12 && r.shift < 40 &&
			    cur->n < MAX_RANGES)
				cur->r[cur->n++] = r;
		}
		fclose(f);
		free(cur);
		cur = NULL;
		if (!t)
			sleep_ms(1);
	}
	if (t)
		qsort(t->r, t->n, sizeof(t->r[0]), cmp_range);
	return t;
}

static void report(unsigned int vcpu, struct cpu_state *c)
{
	FILE *f;

	pthread_mutex_lock(&out_lock);
	f = fopen(out_path, "a");
	if (f) {
		fprintf(f, "itlb-model phase=%d cpu=%u kernel_insns=%" PRIu64
			" kernel_lookups=%" PRIu64 " kernel_l1_misses=%" PRIu64
			" kernel_walks=%" PRIu64 " user_insns=%" PRIu64
			" user_lookups=%" PRIu64 " user_l1_misses=%" PRIu64
			" user_walks=%" PRIu64 " ranges=%u\n",
			c->phase, vcpu, c->kinsns, c->klookups, c->kl1miss,
			c->kwalks, c->uinsns, c->ulookups, c->ul1miss, c->uwalks,
			ranges ? ranges->n : 0);
		fclose(f);
	} else {
		fprintf(stderr, "itlb_model: %s: %s\n", out_path, strerror(errno));
	}
	pthread_mutex_unlock(&out_lock);
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	unsigned int code = (unsigned int)(uintptr_t)udata;
	struct cpu_state *c;

	if (vcpu >= MAX_CPUS)
		return;
	c = &cpus[vcpu];
	if (code & MARK_OPEN) {
		struct range_table *t = read_ranges(code & 0xff);

		if (!t) {
			fprintf(stderr, "itlb_model: no ranges for phase %u in %s; window not opened\n",
				code & 0xff, log_path);
			return;
		}
		ranges = t;
		c->phase = code & 0xff;
		c->kinsns = c->klookups = c->kl1miss = c->kwalks = 0;
		c->uinsns = c->ulookups = c->ul1miss = c->uwalks = 0;
		c->open = true;
	} else if (code & MARK_CLOSE) {
		if (!c->open) {
			fprintf(stderr, "itlb_model: window closed on cpu %u, where none is open\n",
				vcpu);
			return;
		}
		c->open = false;
		report(vcpu, c);
	}
}

/* The marker code of @insn, or 0. */
static unsigned int marker_code(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);
	uint32_t v;

	if (arch == ARCH_X86) {
		if (n != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
			return 0;
		memcpy(&v, b + 3, 4);
		if ((v & 0xffff0000) != 0x4a540000)
			return 0;
		v &= 0xffff;
	} else {
		if (n != 4)
			return 0;
		memcpy(&v, b, 4);
		/* MOVK Xd=XZR, hw=3 */
		if ((v & 0xffe0001f) != 0xf2e0001f)
			return 0;
		v = (v >> 5) & 0xffff;
		if ((v & 0xf000) != 0xa000)
			return 0;
		v &= 0x0fff;
	}
	return (v & MARK_OPEN) || v == MARK_CLOSE ? v : 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct tb_info *info;
	struct qemu_plugin_insn *last;

	if (!n)
		return;
	info = malloc(sizeof(*info));
	if (!info)
		return;
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	info->vaddr = qemu_plugin_tb_vaddr(tb);
	info->last = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last) - 1;
	info->insns = n;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     info);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		unsigned int code = marker_code(insn);

		if (code)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
						QEMU_PLUGIN_CB_NO_REGS,
						(void *)(uintptr_t)code);
	}
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				      const qemu_info_t *info, int argc,
				      char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "log=", 4)) {
			log_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else {
			fprintf(stderr, "itlb_model: unknown argument '%s' (log=FILE out=FILE)\n",
				argv[i]);
			return 1;
		}
	}
	if (!log_path || !out_path) {
		fprintf(stderr, "itlb_model: needs log=FILE and out=FILE\n");
		return 1;
	}
	if (!strcmp(info->target_name, "x86_64")) {
		arch = ARCH_X86;
	} else if (!strcmp(info->target_name, "aarch64")) {
		arch = ARCH_ARM64;
	} else {
		fprintf(stderr, "itlb_model: no model for %s\n", info->target_name);
		return 1;
	}
	for (i = 0; i < MAX_CPUS; i++) {
		if (arch == ARCH_X86) {
			tlb_init(&cpus[i].l1_small, 128, 8);
			tlb_init(&cpus[i].l1_large, 8, 8);
			tlb_init(&cpus[i].l2, 1536, 12);
		} else {
			tlb_init(&cpus[i].l1_small, 48, 48);
			tlb_init(&cpus[i].l1_large, 1, 1);	/* unused */
			tlb_init(&cpus[i].l2, 1024, 4);
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
