// SPDX-License-Identifier: GPL-2.0
/*
 * jitstat - report on the jit text allocator's pools, as slabinfo does slabs
 *
 * Reads what jitalloc shows in debugfs (root only): <debugfs>/jitalloc/api
 * (the allocator's counters; "execmem" where the cache is an execmem
 * backend), one file per cache pool, named after the types it serves
 * ("modules+kprobes+ftrace+bpf", "kprobes+bpf", "modules" ...), and the page
 * blocks ("page_blocks", x86).  Each holds "key value" lines, explained in
 * Documentation/mm/jitalloc.rst (execmem_cache.rst with execmem) and
 * jitstat(8).  A file is told apart by its keys, not its name; keys this
 * tool does not know go into --json and are otherwise ignored, so that it
 * keeps working when the kernel adds some.
 *
 * Where debugfs cannot be read (not mounted, not root) it makes a reduced
 * report, for all pools together, from the JitText line of /proc/meminfo
 * and the jit_cache_* counters of /proc/vmstat.
 *
 * Build with "make -C tools/vm jitstat" (tools/mm from Linux 6.3 on); it
 * needs nothing but libc, so for a guest without libc:
 * "cc -static -O2 jitstat.c -o jitstat".
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define USER_PREFIX	"bytes_in_use_"
#define MAX_COLS	80	/* width of the text report */
#define NCOL		8	/* a table row: a name and seven figures */
#define CELL		24
#define MIN_WIDTH	6	/* of a figures' column */

enum {
	EXIT_CANNOT_READ = 1,	/* permission, I/O error */
	EXIT_USAGE = 2,
	EXIT_NO_JITALLOC = 3,
};

enum file_type { FILE_OTHER, FILE_POOL, FILE_BLOCKS, FILE_API };

struct kv {
	const char *key;
	const char *val;	/* rest of the line, "" when there is none */
};

struct stat_file {
	char name[NAME_MAX + 1];
	enum file_type type;
	char *buf;
	struct kv *kv;
	int nr;
};

struct snapshot {
	struct stat_file *files;
	int nr;
	bool full;		/* from debugfs, else reduced, from /proc */
	struct stat_file vmstat;
	long long jit_text;	/* JitText in bytes, -1 where there is none */
	struct timespec mono;	/* when it was taken */
	time_t time;
};

static const char *debugfs = "/sys/kernel/debug", *procfs = "/proc";
static char dir[PATH_MAX];
static bool show_bytes, show_all, show_addrs;
static unsigned long page_size, default_page_size;

/* Keys this tool computes with: their values must be numbers. */
static const char * const numeric_keys[] = {
	"enabled", "huge_pages", "spare_pages", "fallback_pages", "chunk_size",
	"chunks_total", "chunks_used", "chunks_free", "largest_free_run_bytes",
	"fragmentation_pct", "bytes_in_use", "high_water_bytes", "allocs",
	"frees", "fallbacks", "reclaims", "shrinker_reclaims", "alias_errors",
	"map_errors", "leaked_pages", "mapped_writable", "mapped_not_exec",
	"alias_writable", "block_pages", "blocks", "spare_blocks",
	"pages_in_use", "high_water_pages", "text_pokes", "exec_alias_writable",
};

/* Cumulative counters: -w shows how much they moved. */
static const char * const counter_keys[] = {
	"allocs", "frees", "fallbacks", "reclaims", "shrinker_reclaims",
	"alias_errors", "map_errors", "text_pokes",
};

/* Values that must be 0: a nonzero one is an error worth an alert. */
static const char * const error_keys[] = {
	"alias_errors", "map_errors", "leaked_pages", "mapped_writable",
	"mapped_not_exec", "alias_writable", "exec_alias_writable",
};

static void show_usage(void)
{
	printf("Usage: jitstat [OPTION]...\n"
	       "Report on the pools of the jit text allocator (jitalloc) from debugfs,\n"
	       "or a reduced report from /proc where debugfs cannot be read.\n\n"
	       "  -a, --all            also list users holding 0 bytes\n"
	       "  -b, --bytes          sizes in bytes, not K/M/G\n"
	       "  -j, --json           one JSON object (one a line with -w)\n"
	       "      --prometheus     node-exporter textfile format, base units\n"
	       "      --addresses      show kernel addresses (pool ranges, huge pages)\n"
	       "  -w, --wait SECONDS   since boot, then what changed every SECONDS\n"
	       "  -n, --count COUNT    stop after COUNT reports (-w 1 by default)\n"
	       "  -d, --debugfs DIR    debugfs is mounted on DIR (/sys/kernel/debug)\n"
	       "      --proc DIR       proc is mounted on DIR (/proc)\n"
	       "  -p, --page-size N    base page size of the kernel (%lu)\n"
	       "  -h, --help           this text\n\n"
	       "Exit status: 0 report made (also the reduced one), 1 cannot read\n"
	       "(permission, I/O error), 2 bad usage, 3 this kernel has no jitalloc.\n"
	       "See jitstat(8).\n", default_page_size);
}

static int usage_error(const char *what)
{
	fprintf(stderr, "jitstat: %s\nTry 'jitstat --help' for more information.\n",
		what);
	return EXIT_USAGE;
}

static void out_of_memory(void)
{
	fprintf(stderr, "jitstat: out of memory\n");
	exit(EXIT_CANNOT_READ);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool in_list(const char *s, const char * const *list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* A decimal integer as the kernel prints it (%lu, %ld, %d): valid JSON */
static bool is_number(const char *s)
{
	s += *s == '-';
	return *s && strspn(s, "0123456789") == strlen(s) &&
	       (*s != '0' || !s[1]);
}

/* Any printable word: unknown keys are carried, not judged */
static bool valid_key(const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!isgraph((unsigned char)*p))
			return false;
	return p != s;
}

static bool must_be_number(const char *key)
{
	return in_list(key, numeric_keys, ARRAY_SIZE(numeric_keys)) ||
	       starts_with(key, USER_PREFIX) || starts_with(key, "refused_");
}

static bool is_counter(const char *key)
{
	return in_list(key, counter_keys, ARRAY_SIZE(counter_keys)) ||
	       starts_with(key, "refused_") || starts_with(key, "jit_cache_") ||
	       (starts_with(key, "direct_map_") && ends_with(key, "_splits"));
}

/* The /proc/vmstat lines that belong to this report */
static bool is_vmstat_key(const char *key)
{
	return starts_with(key, "jit_cache_") ||
	       (starts_with(key, "direct_map_") && ends_with(key, "_splits"));
}

/* Kernel addresses: shown only with --addresses, never to Prometheus */
static bool is_address(const struct kv *kv)
{
	return !strcmp(kv->key, "range") || ends_with(kv->key, "_addr") ||
	       ends_with(kv->key, "_addrs") || starts_with(kv->val, "0x");
}

static const char *get(const struct stat_file *f, const char *key)
{
	int i;

	for (i = 0; f && i < f->nr; i++)
		if (!strcmp(f->kv[i].key, key))
			return f->kv[i].val;
	return NULL;
}

/* A key's value, 0 when the file does not have it (any more). */
static unsigned long long num(const struct stat_file *f, const char *key)
{
	const char *v = get(f, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* How much a counter moved since @old, all of it when @old has none. */
static unsigned long long delta(const struct stat_file *f,
				const struct stat_file *old, const char *key)
{
	unsigned long long v = num(f, key), o = num(old, key);

	return get(old, key) && v >= o ? v - o : v;
}

/*
 * Split the file into "key value" pairs.  Return 0, or the number of the
 * first line that is not one (-1 when there is no line at all).
 */
static int parse(struct stat_file *f, size_t len)
{
	char *p = f->buf, *nl, *sp, *nul = memchr(f->buf, '\0', len);
	int line = 0, lines = 1;
	size_t i;

	for (i = 0; i < len; i++) {
		lines += f->buf[i] == '\n';
		if (f->buf + i == nul)
			return lines;	/* binary */
	}
	f->kv = calloc(lines, sizeof(*f->kv));
	if (!f->kv)
		out_of_memory();
	while (*p) {
		line++;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p) {
			sp = strchr(p, ' ');
			if (sp)
				*sp++ = '\0';
			else
				sp = p + strlen(p);
			if (!valid_key(p) ||
			    (must_be_number(p) && !is_number(sp)))
				return line;
			f->kv[f->nr].key = p;
			f->kv[f->nr++].val = sp;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return f->nr ? 0 : -1;
}

/*
 * Read a whole file; debugfs and /proc files say nothing of their size.
 * NULL with errno set when it cannot be read.
 */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY), err = ENOMEM;
	size_t size = 0;
	char *buf = NULL, *b;
	ssize_t n;

	*len = 0;
	if (fd < 0)
		return NULL;
	for (;;) {
		if (*len + 1 >= size) {
			b = realloc(buf, size += 4096);
			if (!b)
				goto fail;
			buf = b;
		}
		n = read(fd, buf + *len, size - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			goto fail;
		}
		if (!n)
			break;
		*len += n;
	}
	close(fd);
	buf[*len] = '\0';
	return buf;
fail:
	free(buf);
	close(fd);
	errno = err;
	return NULL;
}

static void free_file(struct stat_file *f)
{
	free(f->buf);
	free(f->kv);
	memset(f, 0, sizeof(*f));
}

static void free_snapshot(struct snapshot *s)
{
	int i;

	for (i = 0; i < s->nr; i++)
		free_file(&s->files[i]);
	free(s->files);
	free_file(&s->vmstat);
	memset(s, 0, sizeof(*s));
	s->jit_text = -1;
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static bool no_permission(int err)
{
	return err == EACCES || err == EPERM;
}

/*
 * Fill @s with the files of <debugfs>/jitalloc.  Return 0; -1 when debugfs
 * cannot be read, with *@why saying why, for the reduced report; or the
 * exit status after saying on stderr what is wrong.
 */
static int load_debugfs(struct snapshot *s, const char **why)
{
	static char mounted[PATH_MAX + 64], absent[PATH_MAX + 32];
	char path[PATH_MAX + NAME_MAX + 2], bad[32];
	struct dirent **names, *e = NULL;
	DIR *d = opendir(debugfs);
	int i, n, line, ret = 0, err = errno;
	struct stat_file *f;
	struct stat st;
	size_t len;

	snprintf(mounted, sizeof(mounted), "debugfs is not mounted on %s",
		 debugfs);
	snprintf(absent, sizeof(absent), "there is no %s", dir);
	/* An unmounted debugfs is an empty directory (or none) */
	while (d && (e = readdir(d)) && e->d_name[0] == '.')
		;
	if (d)
		closedir(d);
	if (!d && no_permission(err)) {
		*why = "debugfs is not readable (run as root for per-pool figures)";
		return -1;
	}
	if (!e && (d || err == ENOENT || err == ENOTDIR)) {
		*why = mounted;
		return -1;
	}
	if (!e) {
		fprintf(stderr, "jitstat: cannot read %s: %s\n", debugfs,
			strerror(err));
		return EXIT_CANNOT_READ;
	}

	n = scandir(dir, &names, skip_dots, alphasort);
	if (n < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*why = absent;
			return -1;
		}
		if (no_permission(errno)) {
			*why = "debugfs is not readable (run as root for per-pool figures)";
			return -1;
		}
		fprintf(stderr, "jitstat: cannot read %s: %s\n", dir,
			strerror(errno));
		return EXIT_CANNOT_READ;
	}
	s->files = calloc(n ? n : 1, sizeof(*s->files));
	if (!s->files)
		out_of_memory();
	for (i = 0; i < n && !ret; i++) {
		f = &s->files[s->nr];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		/* fault injection knobs (fail_huge_page ...) are directories */
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		f->buf = slurp(path, &len);
		if (!f->buf && no_permission(errno)) {
			*why = "debugfs is not readable (run as root for per-pool figures)";
			ret = -1;
		} else if (!f->buf && errno != ENOENT) {
			fprintf(stderr, "jitstat: cannot read %s: %s\n", path,
				strerror(errno));
			ret = EXIT_CANNOT_READ;
		}
		if (!f->buf)
			continue;	/* ENOENT: a pool went away since */
		snprintf(f->name, sizeof(f->name), "%s", names[i]->d_name);
		line = parse(f, len);
		if (line) {
			snprintf(bad, sizeof(bad), "malformed (line %d)", line);
			fprintf(stderr, "jitstat: warning: %s is %s, skipped\n",
				path, line < 0 ? "empty" : bad);
			free_file(f);
			continue;
		}
		if (!strcmp(f->name, "api") || !strcmp(f->name, "execmem"))
			f->type = FILE_API;
		else if (get(f, "block_pages"))
			f->type = FILE_BLOCKS;
		else if (get(f, "chunk_size") && get(f, "huge_pages"))
			f->type = FILE_POOL;
		s->nr++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

/*
 * JitText of meminfo and the vmstat counters.  Return 0, or the exit status
 * after saying what is wrong: only when @needed, for the reduced report.
 */
static int load_proc(struct snapshot *s, bool needed)
{
	char path[PATH_MAX + 16], *p;
	size_t len;

	snprintf(path, sizeof(path), "%s/meminfo", procfs);
	p = slurp(path, &len);
	if (!p && needed)
		goto fail;
	if (p) {
		char *line = starts_with(p, "JitText:") ? p :
			     strstr(p, "\nJitText:");

		if (line)
			s->jit_text = strtoll(line + 8 + (*line == '\n'),
					      NULL, 10) * 1024;
		free(p);
	}

	snprintf(path, sizeof(path), "%s/vmstat", procfs);
	s->vmstat.buf = slurp(path, &len);
	if (!s->vmstat.buf && needed && errno != ENOENT)
		goto fail;
	if (s->vmstat.buf && parse(&s->vmstat, len))
		free_file(&s->vmstat);	/* not what vmstat looks like */
	return 0;
fail:
	fprintf(stderr, "jitstat: cannot read %s: %s\n", path, strerror(errno));
	return EXIT_CANNOT_READ;
}

static bool has_prefix_key(const struct stat_file *f, const char *prefix)
{
	int i;

	for (i = 0; i < f->nr; i++)
		if (starts_with(f->kv[i].key, prefix))
			return true;
	return false;
}

/* Take a snapshot.  Return 0, or the exit status after saying why not. */
static int load(struct snapshot *s)
{
	static char noted[PATH_MAX + 128];
	const char *why = "";
	int ret;

	free_snapshot(s);
	clock_gettime(CLOCK_MONOTONIC, &s->mono);
	s->time = time(NULL);
	ret = load_debugfs(s, &why);
	if (ret > 0)
		return ret;
	if (ret < 0) {
		/* keep no half of a snapshot */
		free_snapshot(s);
		clock_gettime(CLOCK_MONOTONIC, &s->mono);
		s->time = time(NULL);
	}
	s->full = !ret;
	ret = load_proc(s, !s->full);
	if (ret || s->full)
		return ret;
	if (s->jit_text < 0 && !has_prefix_key(&s->vmstat, "jit_cache_")) {
		fprintf(stderr,
			"jitstat: this kernel has no jitalloc (no JitText in %s/meminfo; %s)\n",
			procfs, why);
		return EXIT_NO_JITALLOC;
	}
	if (strcmp(noted, why)) {
		fprintf(stderr, "jitstat: %s; reduced report from %s\n", why,
			procfs);
		snprintf(noted, sizeof(noted), "%s", why);
	}
	return 0;
}

static const struct stat_file *find(const struct snapshot *s,
				    enum file_type type, const char *name)
{
	int i;

	for (i = 0; s && i < s->nr; i++)
		if (s->files[i].type == type &&
		    (!name || !strcmp(s->files[i].name, name)))
			return &s->files[i];
	return NULL;
}

/* The pool's cache was switched off at boot (jitalloc_cache=off). */
static bool pool_off(const struct stat_file *f)
{
	const char *v = get(f, "enabled");

	return v && !strtoull(v, NULL, 10);
}

/* Bytes of huge pages a pool holds. */
static unsigned long long pool_huge(const struct stat_file *f)
{
	return num(f, "chunks_total") * num(f, "chunk_size");
}

/* Its executable memory: huge pages and page-granular (fallback) text. */
static unsigned long long pool_held(const struct stat_file *f)
{
	return pool_huge(f) + num(f, "fallback_pages") * page_size;
}

static unsigned long long block_bytes(const struct stat_file *f)
{
	return num(f, "block_pages") * page_size;
}

static unsigned long long exec_held(const struct snapshot *s)
{
	unsigned long long total = 0;
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->files[i].type == FILE_POOL)
			total += pool_held(&s->files[i]);
	return total;
}

static double elapsed(const struct snapshot *old, const struct snapshot *s)
{
	return s->mono.tv_sec - old->mono.tv_sec +
	       (s->mono.tv_nsec - old->mono.tv_nsec) / 1e9;
}

/* Sizes the way vmstat and slabinfo show them, or in bytes with -b. */
static const char *size_str(char *buf, size_t len, unsigned long long v)
{
	static const char units[] = "KMGTPE";
	double d = v;
	int u = -1;

	if (show_bytes || v < 1024) {
		snprintf(buf, len, "%llu", v);
		return buf;
	}
	while (d >= 1024 && units[u + 1]) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, d < 100 ? "%.1f%c" : "%.0f%c", d, units[u]);
	return buf;
}

/*
 * The text report is a table: rows of a name and figures, right-aligned in
 * columns as wide as their widest cell, and lines of their own.  A name too
 * long for 80 columns has a line of its own, the figures under it.
 */
struct trow {
	char *text;		/* a line of its own instead of a row */
	const char *name;
	int indent;
	char cell[NCOL][CELL];	/* [0] unused: the name is @name */
};

struct table {
	struct trow *rows;
	int nr, size;
};

/* Kept from one report to the next with -w: columns only grow. */
static int width[NCOL];

static const char * const pool_head[NCOL] = {
	"Pool", "Huge", "Held", "InUse", "Peak", "Frag%", "Fallbk", "Reclaim",
};

static const char * const blocks_head[NCOL] = {
	"Page blocks", "Blocks", "Held", "InUse", "Peak", "Spare", "Fallbk",
	"Reclaim",
};

static const char * const watch_head[NCOL] = {
	"Pool", "Huge", "Held", "InUse", "Allocs", "Frees", "Fallbk", "Reclaim",
};

static struct trow *add_row(struct table *t, const char *name, int indent)
{
	struct trow *r;

	if (t->nr == t->size) {
		t->size = t->size ? 2 * t->size : 16;
		r = realloc(t->rows, t->size * sizeof(*r));
		if (!r)
			out_of_memory();
		t->rows = r;
	}
	r = &t->rows[t->nr++];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->indent = indent;
	return r;
}

static void add_text(struct table *t, const char *line)
{
	struct trow *r = add_row(t, NULL, 0);

	r->text = strdup(line);
	if (!r->text)
		out_of_memory();
}

static void add_head(struct table *t, const char * const *head)
{
	struct trow *r = add_row(t, head[0], 0);
	int c;

	for (c = 1; c < NCOL; c++)
		snprintf(r->cell[c], CELL, "%s", head[c]);
}

static void free_table(struct table *t)
{
	int i;

	for (i = 0; i < t->nr; i++)
		free(t->rows[i].text);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static void cell_num(struct trow *r, int c, unsigned long long v)
{
	snprintf(r->cell[c], CELL, "%llu", v);
}

static void cell_size(struct trow *r, int c, unsigned long long v)
{
	size_str(r->cell[c], CELL, v);
}

static void cell_str(struct trow *r, int c, const char *s)
{
	snprintf(r->cell[c], CELL, "%s", s);
}

static int figures_width(void)
{
	int c, w = 0;

	for (c = 1; c < NCOL; c++)
		w += 1 + width[c];
	return w;
}

/*
 * Widen the columns for @t; true when one grew.  The names' column is as
 * wide as the longest name that fits in 80 columns with the figures.
 */
static bool fit_widths(const struct table *t)
{
	const struct trow *r;
	bool grew = false;
	int c, len;

	for (c = 1; c < NCOL; c++)
		if (width[c] < MIN_WIDTH)
			width[c] = MIN_WIDTH;
	for (r = t->rows; r < t->rows + t->nr; r++) {
		for (c = 1; !r->text && c < NCOL; c++) {
			len = strlen(r->cell[c]);
			if (len > width[c]) {
				width[c] = len;
				grew = true;
			}
		}
	}
	for (r = t->rows; r < t->rows + t->nr; r++) {
		if (r->text)
			continue;
		len = r->indent + strlen(r->name);
		if (len > width[0] && len + figures_width() <= MAX_COLS) {
			width[0] = len;
			grew = true;
		}
	}
	return grew;
}

/* How many lines printing @t takes: names too long have one of their own */
static int table_lines(const struct table *t)
{
	const struct trow *r;
	int lines = t->nr;

	for (r = t->rows; r < t->rows + t->nr; r++)
		lines += !r->text && r->indent + (int)strlen(r->name) > width[0];
	return lines;
}

/* Print @t, return how many lines that took. */
static int print_table(const struct table *t)
{
	char line[NAME_MAX + NCOL * (CELL + 2) + 8];
	int c, n, len, name_width, lines = 0;
	const struct trow *r;

	name_width = width[0] > 4 ? width[0] : 4;
	for (r = t->rows; r < t->rows + t->nr; r++, lines++) {
		if (r->text) {
			puts(r->text);
			continue;
		}
		len = r->indent + strlen(r->name);
		if (len > name_width) {
			printf("%*s%s\n", r->indent, "", r->name);
			lines++;
			n = snprintf(line, sizeof(line), "%*s", name_width, "");
		} else {
			n = snprintf(line, sizeof(line), "%*s%-*s", r->indent,
				     "", name_width - r->indent, r->name);
		}
		for (c = 1; c < NCOL; c++)
			n += snprintf(line + n, sizeof(line) - n, " %*s",
				      width[c], r->cell[c]);
		while (n > 0 && line[n - 1] == ' ')
			line[--n] = '\0';
		puts(line);
	}
	return lines;
}

/* Lines of items, wrapped before 80 columns, as text of a table */
struct para {
	struct table *t;
	int indent;		/* of the lines after the first */
	char line[2 * NAME_MAX];
};

static void para_add(struct para *p, const char *sep, const char *item)
{
	size_t len = strlen(p->line);

	if ((int)len > p->indent &&
	    len + strlen(sep) + strlen(item) > MAX_COLS) {
		/* "a, b" wraps as "a," and "b" */
		snprintf(p->line + len, sizeof(p->line) - len, "%.*s",
			 (int)strcspn(sep, " "), sep);
		add_text(p->t, p->line);
		snprintf(p->line, sizeof(p->line), "%*s", p->indent, "");
		len = p->indent;
		sep = "";
	}
	snprintf(p->line + len, sizeof(p->line) - len, "%s%s", sep, item);
}

static void para_end(struct para *p)
{
	if ((int)strlen(p->line) > p->indent)
		add_text(p->t, p->line);
	p->line[0] = '\0';
}

/* Held and in use: the first figures of a row, in both tables */
static void pool_gauges(struct trow *r, const struct stat_file *f)
{
	if (pool_off(f))
		cell_str(r, 1, "off");
	else
		cell_num(r, 1, num(f, "huge_pages"));
	cell_size(r, 2, pool_held(f));
	cell_size(r, 3, num(f, "bytes_in_use"));
}

static void blocks_gauges(struct trow *r, const struct stat_file *f)
{
	cell_num(r, 1, num(f, "blocks"));
	cell_size(r, 2, num(f, "blocks") * block_bytes(f));
	cell_size(r, 3, num(f, "pages_in_use") * page_size);
}

/* From /proc: huge pages mapped now and JitText, for all pools */
static void proc_gauges(struct trow *r, const struct snapshot *s)
{
	const struct stat_file *v = &s->vmstat;
	unsigned long long map = num(v, "jit_cache_page_map");
	unsigned long long unmap = num(v, "jit_cache_page_unmap");

	if (get(v, "jit_cache_page_map") && get(v, "jit_cache_page_unmap"))
		cell_num(r, 1, map > unmap ? map - unmap : 0);
	else
		cell_str(r, 1, "-");
	if (s->jit_text >= 0)
		cell_size(r, 2, s->jit_text);
	else
		cell_str(r, 2, "-");
	cell_str(r, 3, "-");
}

/* A vmstat counter, or what it moved since @old, "-" without one */
static void cell_vmstat(struct trow *r, int c, const struct snapshot *s,
			const struct snapshot *old, const char *key)
{
	if (get(&s->vmstat, key))
		cell_num(r, c, delta(&s->vmstat, old ? &old->vmstat : NULL,
				     key));
	else
		cell_str(r, c, "-");
}

static void add_users(struct table *t, const struct stat_file *f)
{
	unsigned long long v;
	struct trow *r;
	int i;

	for (i = 0; i < f->nr; i++) {
		if (!starts_with(f->kv[i].key, USER_PREFIX))
			continue;
		v = strtoull(f->kv[i].val, NULL, 10);
		if (!v && !show_all)
			continue;
		r = add_row(t, f->kv[i].key + strlen(USER_PREFIX), 2);
		cell_size(r, 3, v);
	}
}

static void add_addresses(struct table *t, const struct stat_file *f)
{
	struct para p = { .t = t, .indent = 4 };
	char item[NAME_MAX + 8], *tok, *save, *copy;
	int i;

	for (i = 0; i < f->nr; i++) {
		if (!is_address(&f->kv[i]) || !*f->kv[i].val)
			continue;
		snprintf(item, sizeof(item), "  %s", f->kv[i].key);
		para_add(&p, "", item);
		copy = strdup(f->kv[i].val);
		if (!copy)
			out_of_memory();
		for (tok = strtok_r(copy, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			para_add(&p, " ", tok);
		free(copy);
		para_end(&p);
	}
}

static const char off_note[] =
	"off: cache switched off at boot (jitalloc_cache=off); its text is page-granular";
static const char off_note_execmem[] =
	"off: execmem caches no type (execmem_cache=off); its text is page-granular";

/*
 * Where the cache is an execmem backend, switching it off (execmem_cache=off)
 * creates no pool at all: execmem's file says no type is read-only from the
 * start (every rox_<type> 0).
 */
static bool execmem_off(const struct stat_file *api)
{
	bool any = false;
	int i;

	if (!api || strcmp(api->name, "execmem"))
		return false;
	for (i = 0; i < api->nr; i++) {
		if (!starts_with(api->kv[i].key, "rox_"))
			continue;
		if (strtoull(api->kv[i].val, NULL, 10))
			return false;
		any = true;
	}
	return any;
}

/* The lines under the table: what is off, wrong, refused, held */
static void add_notes(struct table *t, const struct snapshot *s)
{
	struct para p = { .t = t, .indent = 2 };
	char item[2 * NAME_MAX], a[CELL], b[CELL], c[CELL];
	unsigned long long held = 0, exec = exec_held(s);
	const struct stat_file *f, *v = &s->vmstat;
	bool off = false, first = true;
	int i;

	for (f = s->files; f < s->files + s->nr; f++) {
		if (f->type == FILE_POOL) {
			off |= pool_off(f);
			held += pool_huge(f);
		}
	}
	f = find(s, FILE_API, NULL);
	if (execmem_off(f))
		add_text(t, off_note_execmem);
	else if (off)
		add_text(t, off_note);

	for (f = s->files; f < s->files + s->nr; f++) {
		for (i = 0; f->type != FILE_OTHER && i < f->nr; i++) {
			if (!in_list(f->kv[i].key, error_keys,
				     ARRAY_SIZE(error_keys)) ||
			    !strtoull(f->kv[i].val, NULL, 10) ||
			    (f->type == FILE_API &&
			     !strcmp(f->kv[i].key, "alias_errors")))
				continue;
			snprintf(item, sizeof(item), "%s %s %s", f->name,
				 f->kv[i].key, f->kv[i].val);
			para_add(&p, first ? "Errors: " : ", ", item);
			first = false;
		}
	}
	if (!first)
		para_add(&p, " ", "(see jitstat(8))");
	para_end(&p);

	f = find(s, FILE_API, NULL);
	first = true;
	for (i = 0; f && i < f->nr; i++) {
		if ((!starts_with(f->kv[i].key, "refused_") &&
		     strcmp(f->kv[i].key, "alias_errors")) ||
		    !strtoull(f->kv[i].val, NULL, 10))
			continue;
		snprintf(item, sizeof(item), "%s %s", f->kv[i].key,
			 f->kv[i].val);
		para_add(&p, first ? "Refused calls: " : ", ", item);
		first = false;
	}
	if (!first)
		para_add(&p, " ", "(callers' bugs, see jitstat(8))");
	para_end(&p);

	if (s->full) {
		snprintf(item, sizeof(item),
			 "Executable bytes held: %s (huge pages %s, fallback pages %s)",
			 size_str(a, sizeof(a), exec),
			 size_str(b, sizeof(b), held),
			 size_str(c, sizeof(c), exec - held));
		add_text(t, item);
		return;
	}
	if (get(v, "jit_cache_page_map")) {
		snprintf(item, sizeof(item),
			 "Huge pages since boot: mapped %llu, unmapped %llu, reclaimed %llu (%llu by the shrinker)",
			 num(v, "jit_cache_page_map"),
			 num(v, "jit_cache_page_unmap"),
			 num(v, "jit_cache_reclaim"),
			 num(v, "jit_cache_shrink"));
		add_text(t, item);
	}
	if (get(v, "direct_map_level2_splits")) {
		snprintf(item, sizeof(item),
			 "Direct map splits since boot: of 2M pages %llu, of 1G pages %llu",
			 num(v, "direct_map_level2_splits"),
			 num(v, "direct_map_level3_splits"));
		add_text(t, item);
	}
	if (s->jit_text >= 0) {
		snprintf(item, sizeof(item),
			 "Executable bytes held: %s (JitText in %s/meminfo)",
			 size_str(a, sizeof(a), s->jit_text), procfs);
		add_text(t, item);
	}
}

static void print_text(const struct snapshot *s)
{
	struct table t = { }, notes = { };
	const struct stat_file *f;
	bool blocks = false;
	struct trow *r;

	memset(width, 0, sizeof(width));
	add_head(&t, pool_head);
	if (!s->full) {
		r = add_row(&t, "(all pools)", 0);
		proc_gauges(r, s);
		cell_str(r, 4, "-");
		cell_str(r, 5, "-");
		cell_vmstat(r, 6, s, NULL, "jit_cache_fallback");
		cell_vmstat(r, 7, s, NULL, "jit_cache_reclaim");
	}
	for (f = s->files; f < s->files + s->nr; f++) {
		if (f->type != FILE_POOL)
			continue;
		r = add_row(&t, f->name, 0);
		pool_gauges(r, f);
		cell_size(r, 4, num(f, "high_water_bytes"));
		if (pool_off(f))
			cell_str(r, 5, "-");
		else
			cell_num(r, 5, num(f, "fragmentation_pct"));
		cell_num(r, 6, num(f, "fallbacks"));
		cell_num(r, 7, num(f, "reclaims"));
		add_users(&t, f);
		if (show_addrs)
			add_addresses(&t, f);
	}
	for (f = s->files; f < s->files + s->nr; f++) {
		if (f->type != FILE_BLOCKS)
			continue;
		if (!blocks)
			add_head(&t, blocks_head);
		blocks = true;
		r = add_row(&t, f->name, 0);
		blocks_gauges(r, f);
		cell_size(r, 4, num(f, "high_water_pages") * page_size);
		cell_num(r, 5, num(f, "spare_blocks"));
		cell_num(r, 6, num(f, "fallbacks"));
		cell_num(r, 7, num(f, "reclaims"));
	}
	fit_widths(&t);
	print_table(&t);
	add_notes(&notes, s);
	print_table(&notes);
	free_table(&t);
	free_table(&notes);
}

static void rate_str(char *buf, size_t len, unsigned long long d, double sec)
{
	double r = sec > 0 ? d / sec : 0;

	snprintf(buf, len, r < 10 ? "%.1f" : "%.0f", r);
}

/* -w: the interval's line, with the rates of all pools together */
static void add_rates(struct table *t, const struct snapshot *s,
		      const struct snapshot *old)
{
	static const char * const keys[] = {
		"allocs", "frees", "fallbacks", "reclaims",
	};
	static const char * const vm_keys[][2] = {
		{ "jit_cache_fallback", "fallbacks" },
		{ "jit_cache_reclaim", "reclaims" },
		{ "jit_cache_page_map", "huge page maps" },
	};
	struct para p = { .t = t, .indent = 2 };
	double sec = elapsed(old, s);
	const struct stat_file *f;
	unsigned long long d;
	char item[64], rate[32];
	size_t k;

	strftime(rate, sizeof(rate), "%H:%M:%S", localtime(&s->time));
	snprintf(item, sizeof(item), "%s +%.2fs:", rate, sec);
	para_add(&p, "", item);
	for (k = 0; s->full && k < ARRAY_SIZE(keys); k++) {
		d = 0;
		for (f = s->files; f < s->files + s->nr; f++)
			if (f->type == FILE_POOL)
				d += delta(f, find(old, FILE_POOL, f->name),
					   keys[k]);
		rate_str(rate, sizeof(rate), d, sec);
		snprintf(item, sizeof(item), "%s/s %s", keys[k], rate);
		para_add(&p, k ? ", " : " ", item);
	}
	for (k = 0; !s->full && k < ARRAY_SIZE(vm_keys); k++) {
		if (!get(&s->vmstat, vm_keys[k][0]))
			continue;
		rate_str(rate, sizeof(rate),
			 delta(&s->vmstat, &old->vmstat, vm_keys[k][0]), sec);
		snprintf(item, sizeof(item), "%s/s %s", vm_keys[k][1], rate);
		para_add(&p, k ? ", " : " ", item);
	}
	para_end(&p);
}

/* Every so many lines the header again, as vmstat does */
static int header_every(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
	    ws.ws_row > 4)
		return ws.ws_row - 2;
	return 20;
}

/*
 * -w: a row per pool, gauges as they are and counters since boot first,
 * then what they moved in each interval.
 */
static void print_watch(const struct snapshot *s, const struct snapshot *old)
{
	static int lines = -1, every;
	struct table head = { }, t = { };
	const struct stat_file *f, *o;
	char when[64], line[96];
	struct trow *r;
	bool grew;

	if (!every)
		every = header_every();
	add_head(&head, watch_head);
	if (old) {
		add_rates(&t, s, old);
	} else {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z",
			 localtime(&s->time));
		snprintf(line, sizeof(line), "%s: totals since boot", when);
		add_text(&t, line);
	}
	if (!s->full) {
		r = add_row(&t, "(all pools)", 0);
		proc_gauges(r, s);
		cell_str(r, 4, "-");
		cell_str(r, 5, "-");
		cell_vmstat(r, 6, s, old, "jit_cache_fallback");
		cell_vmstat(r, 7, s, old, "jit_cache_reclaim");
	}
	for (f = s->files; f < s->files + s->nr; f++) {
		if (f->type != FILE_POOL && f->type != FILE_BLOCKS)
			continue;
		o = find(old, f->type, f->name);
		r = add_row(&t, f->name, 0);
		if (f->type == FILE_POOL)
			pool_gauges(r, f);
		else
			blocks_gauges(r, f);
		cell_num(r, 4, delta(f, o, "allocs"));
		cell_num(r, 5, delta(f, o, "frees"));
		cell_num(r, 6, delta(f, o, "fallbacks"));
		cell_num(r, 7, delta(f, o, "reclaims"));
	}
	grew = fit_widths(&head);
	grew |= fit_widths(&t);
	if (lines < 0 || grew || lines + table_lines(&t) > every) {
		print_table(&head);
		lines = 0;
	}
	lines += print_table(&t);
	free_table(&head);
	free_table(&t);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Numbers as numbers, address lists as arrays, anything else a string. */
static void json_value(const char *key, const char *val)
{
	char tok[64];
	int n, off = 0;
	bool first = true;

	if (ends_with(key, "_addrs")) {
		putchar('[');
		while (sscanf(val + off, "%63s%n", tok, &n) == 1) {
			printf("%s", first ? "" : ",");
			json_string(tok);
			first = false;
			off += n;
		}
		putchar(']');
		return;
	}
	if (is_number(val))
		printf("%s", val);
	else
		json_string(val);
}

static void json_file(const struct stat_file *f)
{
	int i;

	printf("{\"name\":");
	json_string(f->name);
	for (i = 0; i < f->nr; i++) {
		if (!show_addrs && is_address(&f->kv[i]))
			continue;
		putchar(',');
		json_string(f->kv[i].key);
		putchar(':');
		json_value(f->kv[i].key, f->kv[i].val);
	}
	putchar('}');
}

static void json_files(const struct snapshot *s, enum file_type type)
{
	const char *sep = "";
	int i;

	putchar('[');
	for (i = 0; i < s->nr; i++) {
		if (s->files[i].type != type)
			continue;
		printf("%s", sep);
		json_file(&s->files[i]);
		sep = ",";
	}
	putchar(']');
}

/* The counters of @f, or what they moved since @old */
static void json_counters(const struct stat_file *f,
			  const struct stat_file *old, bool vmstat)
{
	const char *sep = "";
	int i;

	putchar('{');
	for (i = 0; i < f->nr; i++) {
		if (!is_counter(f->kv[i].key) || !is_number(f->kv[i].val) ||
		    (vmstat && !is_vmstat_key(f->kv[i].key)))
			continue;
		printf("%s", sep);
		json_string(f->kv[i].key);
		printf(":%llu", delta(f, old, f->kv[i].key));
		sep = ",";
	}
	putchar('}');
}

static void json_deltas(const struct snapshot *s, const struct snapshot *old,
			enum file_type type)
{
	const char *sep = "";
	int i;

	putchar('{');
	for (i = 0; i < s->nr; i++) {
		if (s->files[i].type != type)
			continue;
		printf("%s", sep);
		json_string(s->files[i].name);
		putchar(':');
		json_counters(&s->files[i],
			      find(old, type, s->files[i].name), false);
		sep = ",";
	}
	putchar('}');
}

static void print_json(const struct snapshot *s, const struct snapshot *old)
{
	const struct stat_file *api = find(s, FILE_API, NULL);

	printf("{\"time\":%lld,\"source\":\"%s\",\"debugfs\":",
	       (long long)s->time, s->full ? "debugfs" : "proc");
	json_string(debugfs);
	printf(",\"proc\":");
	json_string(procfs);
	printf(",\"page_size\":%lu,\"pools\":", page_size);
	json_files(s, FILE_POOL);
	printf(",\"blocks\":");
	json_files(s, FILE_BLOCKS);
	printf(",\"api\":");
	if (api)
		json_file(api);
	else
		printf("null");
	if (s->full)
		printf(",\"exec_bytes_held\":%llu", exec_held(s));
	else
		printf(",\"exec_bytes_held\":null");
	if (s->jit_text >= 0)
		printf(",\"jit_text_bytes\":%lld", s->jit_text);
	else
		printf(",\"jit_text_bytes\":null");
	printf(",\"vmstat\":");
	json_counters(&s->vmstat, NULL, true);
	if (old) {
		printf(",\"delta\":{\"interval\":%.3f,\"pools\":",
		       elapsed(old, s));
		json_deltas(s, old, FILE_POOL);
		printf(",\"blocks\":");
		json_deltas(s, old, FILE_BLOCKS);
		printf(",\"api\":");
		if (api)
			json_counters(api, find(old, FILE_API, NULL), false);
		else
			printf("null");
		printf(",\"vmstat\":");
		json_counters(&s->vmstat, &old->vmstat, true);
		putchar('}');
	}
	printf("}\n");
}

/*
 * --prometheus: the text format of node-exporter's textfile collector.
 * Sizes in bytes, ratios from 0 to 1, counters named *_total; no address.
 */
enum unit {
	U_ONE,		/* as it is */
	U_ON,		/* a flag, 1 when the file does not have it */
	U_PAGE,		/* base pages */
	U_CHUNK,	/* chunks of a pool */
	U_HUGE,		/* huge pages of a pool */
	U_BLOCK,	/* page blocks */
	U_PCT,		/* percent */
};

struct metric {
	const char *name;	/* after "jitalloc_" */
	const char *key;
	enum unit unit;
	bool counter;
	const char *help;
};

static const struct metric pool_metrics[] = {
	{ "pool_enabled", "enabled", U_ON, false,
	  "1 when the pool's cache is on, 0 when switched off at boot (jitalloc_cache=off)" },
	{ "pool_huge_page_bytes", "chunks_total", U_CHUNK, false,
	  "Bytes of huge pages the pool holds, in use or spare" },
	{ "pool_spare_bytes", "spare_pages", U_HUGE, false,
	  "Bytes of fully free huge pages the pool keeps for reuse" },
	{ "pool_fallback_bytes", "fallback_pages", U_PAGE, false,
	  "Bytes of live text of the pool's types allocated page by page instead" },
	{ "pool_in_use_bytes", "bytes_in_use", U_ONE, false,
	  "Bytes handed out from huge pages, rounded up to chunks" },
};

static const struct metric pool_metrics2[] = {
	{ "pool_peak_in_use_bytes", "high_water_bytes", U_ONE, false,
	  "Most bytes in use at any time since boot" },
	{ "pool_free_bytes", "chunks_free", U_CHUNK, false,
	  "Free bytes in the pool's huge pages" },
	{ "pool_largest_free_run_bytes", "largest_free_run_bytes", U_ONE, false,
	  "Longest free run in any one huge page" },
	{ "pool_fragmentation_ratio", "fragmentation_pct", U_PCT, false,
	  "1 - largest free run / free bytes" },
	{ "pool_allocs_total", "allocs", U_ONE, true,
	  "Allocations served from huge pages" },
	{ "pool_frees_total", "frees", U_ONE, true,
	  "Frees of allocations served from huge pages" },
	{ "pool_fallbacks_total", "fallbacks", U_ONE, true,
	  "Requests passed to the page-granular path (climbing: the cache fails a user)" },
	{ "pool_reclaims_total", "reclaims", U_ONE, true,
	  "Huge pages given back to vmalloc" },
	{ "pool_shrinker_reclaims_total", "shrinker_reclaims", U_ONE, true,
	  "Huge pages given back by the shrinker (part of reclaims)" },
	{ "pool_alias_errors_total", "alias_errors", U_ONE, true,
	  "Huge pages not used: their linear alias could not be made read-only" },
	{ "pool_map_errors_total", "map_errors", U_ONE, true,
	  "Huge pages not used: they could not be mapped executable" },
	{ "pool_leaked_bytes", "leaked_pages", U_PAGE, false,
	  "Bytes kept from the page allocator: alias not writable again" },
	{ "pool_writable_huge_pages", "mapped_writable", U_ONE, false,
	  "Huge pages with a writable byte (must be 0)" },
	{ "pool_not_exec_huge_pages", "mapped_not_exec", U_ONE, false,
	  "Huge pages with a byte not executable (must be 0)" },
	{ "pool_writable_alias_huge_pages", "alias_writable", U_ONE, false,
	  "Huge pages whose linear alias has a writable byte (must be 0)" },
};

static const struct metric blocks_metrics[] = {
	{ "page_blocks_held_bytes", "blocks", U_BLOCK, false,
	  "Bytes of page blocks held, in use or spare" },
	{ "page_blocks_spare_bytes", "spare_blocks", U_BLOCK, false,
	  "Bytes of fully free page blocks kept for reuse" },
	{ "page_blocks_in_use_bytes", "pages_in_use", U_PAGE, false,
	  "Bytes of page blocks mapped by live allocations" },
	{ "page_blocks_peak_in_use_bytes", "high_water_pages", U_PAGE, false,
	  "Most bytes of page blocks in use at any time since boot" },
	{ "page_blocks_allocs_total", "allocs", U_ONE, true,
	  "Allocations served from page blocks" },
	{ "page_blocks_frees_total", "frees", U_ONE, true,
	  "Frees of allocations served from page blocks" },
	{ "page_blocks_fallbacks_total", "fallbacks", U_ONE, true,
	  "Requests served by vmalloc for want of a block" },
	{ "page_blocks_reclaims_total", "reclaims", U_ONE, true,
	  "Page blocks given back to the page allocator" },
	{ "page_blocks_shrinker_reclaims_total", "shrinker_reclaims", U_ONE,
	  true, "Page blocks given back by the shrinker (part of reclaims)" },
	{ "page_blocks_leaked_bytes", "leaked_pages", U_PAGE, false,
	  "Bytes kept out of use: their direct map could not be reset" },
};

static const struct metric api_metrics[] = {
	{ "alias_errors_total", "alias_errors", U_ONE, true,
	  "Page-granular text refused: a direct-map alias could not be made read-only" },
	{ "free_calls_total", "frees", U_ONE, true, "jit_free() calls" },
	{ "text_pokes_total", "text_pokes", U_ONE, true,
	  "jit_update_copy()/_set() calls that poked text" },
	{ "exec_alias_writable_pages", "exec_alias_writable", U_ONE, false,
	  "Page-granular text pages with a writable linear alias (must be 0)" },
};

static const struct metric vmstat_metrics[] = {
	{ "cache_page_maps_total", "jit_cache_page_map", U_ONE, true,
	  "Huge pages mapped into a pool (vmstat, all pools)" },
	{ "cache_page_unmaps_total", "jit_cache_page_unmap", U_ONE, true,
	  "Huge pages unmapped from a pool (vmstat, all pools)" },
	{ "cache_reclaims_total", "jit_cache_reclaim", U_ONE, true,
	  "Free huge pages given back (vmstat, all pools)" },
	{ "cache_shrinker_reclaims_total", "jit_cache_shrink", U_ONE, true,
	  "Huge pages the shrinker gave back (vmstat, all pools)" },
	{ "cache_fallbacks_total", "jit_cache_fallback", U_ONE, true,
	  "Text allocations no pool could serve, served page by page (vmstat)" },
};

static void prom_head(const char *name, bool counter, const char *help)
{
	printf("# HELP jitalloc_%s %s\n# TYPE jitalloc_%s %s\n", name, help,
	       name, counter ? "counter" : "gauge");
}

static void prom_label(const char *label, const char *s)
{
	printf("%s=\"", label);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
	putchar('"');
}

static bool metric_value(const struct metric *m, const struct stat_file *f,
			 char *buf, size_t len)
{
	unsigned long long v = num(f, m->key), huge = num(f, "huge_pages");

	if (!get(f, m->key) && m->unit != U_ON)
		return false;
	switch (m->unit) {
	case U_ON:
		v = get(f, m->key) ? v : 1;
		break;
	case U_PAGE:
		v *= page_size;
		break;
	case U_CHUNK:
		v *= num(f, "chunk_size");
		break;
	case U_HUGE:
		v = huge ? v * (pool_huge(f) / huge) : 0;
		break;
	case U_BLOCK:
		v *= block_bytes(f);
		break;
	case U_PCT:
		snprintf(buf, len, "%g", v / 100.0);
		return true;
	default:
		break;
	}
	snprintf(buf, len, "%llu", v);
	return true;
}

/* One metric of files @f, labelled with the pool when @pool */
static void prom_metric(const struct metric *m,
			const struct stat_file * const *f, int nr, bool pool)
{
	bool head = false;
	char v[32];
	int i;

	for (i = 0; i < nr; i++) {
		if (!metric_value(m, f[i], v, sizeof(v)))
			continue;
		if (!head)
			prom_head(m->name, m->counter, m->help);
		head = true;
		printf("jitalloc_%s", m->name);
		if (pool) {
			putchar('{');
			prom_label("pool", f[i]->name);
			putchar('}');
		}
		printf(" %s\n", v);
	}
}

static void prom_metrics(const struct metric *m, size_t nr_metrics,
			 const struct stat_file * const *f, int nr, bool pool)
{
	size_t i;

	for (i = 0; i < nr_metrics; i++)
		prom_metric(&m[i], f, nr, pool);
}

static void prom_users(const struct stat_file * const *pools, int nr)
{
	const struct stat_file *f;
	bool head = false;
	int i, j;

	for (i = 0; i < nr; i++) {
		f = pools[i];
		for (j = 0; j < f->nr; j++) {
			if (!starts_with(f->kv[j].key, USER_PREFIX))
				continue;
			if (!head)
				prom_head("pool_user_in_use_bytes", false,
					  "Bytes handed out to one user (type) of the pool");
			head = true;
			printf("jitalloc_pool_user_in_use_bytes{");
			prom_label("pool", f->name);
			putchar(',');
			prom_label("user", f->kv[j].key + strlen(USER_PREFIX));
			printf("} %s\n", f->kv[j].val);
		}
	}
}

/* refused_<call>: jitalloc_refused_<call>_total */
static void prom_refused(const struct stat_file *api)
{
	char name[NAME_MAX + 8], *p;
	struct metric m = {
		.name = name, .unit = U_ONE, .counter = true,
		.help = "Calls the API refused: bugs in callers (see jitstat(8))",
	};
	int i;

	for (i = 0; api && i < api->nr; i++) {
		if (!starts_with(api->kv[i].key, "refused_"))
			continue;
		snprintf(name, sizeof(name), "%s_total", api->kv[i].key);
		for (p = name; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_')
				*p = '_';
		m.key = api->kv[i].key;
		prom_metric(&m, &api, 1, false);
	}
}

static void print_prometheus(const struct snapshot *s)
{
	const struct stat_file **pools, *blocks = find(s, FILE_BLOCKS, NULL);
	const struct stat_file *api = find(s, FILE_API, NULL), *v = &s->vmstat;
	bool head = false;
	char key[48];
	int i, nr = 0;

	pools = calloc(s->nr ? s->nr : 1, sizeof(*pools));
	if (!pools)
		out_of_memory();
	for (i = 0; i < s->nr; i++)
		if (s->files[i].type == FILE_POOL)
			pools[nr++] = &s->files[i];

	prom_head("debugfs_readable", false,
		  "1 with per-pool figures from debugfs, 0 for the reduced report from /proc");
	printf("jitalloc_debugfs_readable %d\n", s->full);
	if (s->jit_text >= 0) {
		prom_head("text_bytes", false,
			  "Executable memory the allocator holds (JitText in /proc/meminfo)");
		printf("jitalloc_text_bytes %lld\n", s->jit_text);
	}
	prom_metrics(vmstat_metrics, ARRAY_SIZE(vmstat_metrics), &v, 1,
		     false);
	for (i = 2; i <= 3; i++) {
		snprintf(key, sizeof(key), "direct_map_level%d_splits", i);
		if (!get(v, key))
			continue;
		if (!head)
			prom_head("direct_map_splits_total", true,
				  "Direct-map large pages split (vmstat direct_map_level<level>_splits, all causes)");
		head = true;
		printf("jitalloc_direct_map_splits_total{level=\"%d\"} %s\n",
		       i, get(v, key));
	}
	if (s->full) {
		prom_head("exec_held_bytes", false,
			  "Executable bytes the pools hold: huge pages and page-granular text");
		printf("jitalloc_exec_held_bytes %llu\n", exec_held(s));
	}
	prom_metrics(pool_metrics, ARRAY_SIZE(pool_metrics), pools, nr, true);
	prom_users(pools, nr);
	prom_metrics(pool_metrics2, ARRAY_SIZE(pool_metrics2), pools, nr,
		     true);
	if (blocks)
		prom_metrics(blocks_metrics, ARRAY_SIZE(blocks_metrics),
			     &blocks, 1, false);
	prom_refused(api);
	if (api)
		prom_metrics(api_metrics, ARRAY_SIZE(api_metrics), &api, 1,
			     false);
	free(pools);
}

static bool parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s && *s != '-' && !*end && !errno;
}

/* Sleep until @start + @n times @wait seconds: no drift over the intervals */
static void sleep_until(const struct timespec *start, unsigned long n,
			double wait)
{
	double t = start->tv_nsec / 1e9 + n * wait;
	struct timespec ts;

	ts.tv_sec = start->tv_sec + (time_t)t;
	ts.tv_nsec = (t - (time_t)t) * 1e9;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

enum { OPT_PROMETHEUS = 256, OPT_ADDRESSES, OPT_PROC };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "addresses", no_argument, NULL, OPT_ADDRESSES },
		{ "wait", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "proc", required_argument, NULL, OPT_PROC },
		{ "page-size", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct snapshot snap[2] = { }, *s, *old = NULL;
	bool json = false, prometheus = false;
	unsigned long count = 0, i;
	char what[PATH_MAX + 64];
	struct timespec start;
	const char *arg;
	double wait = 0;
	int c, ret = 0;
	char *end;

	page_size = sysconf(_SC_PAGESIZE);
	default_page_size = page_size;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":abjw:n:d:p:h", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'a':
			show_all = true;
			break;
		case 'b':
			show_bytes = true;
			break;
		case 'j':
			json = true;
			break;
		case OPT_PROMETHEUS:
			prometheus = true;
			break;
		case OPT_ADDRESSES:
			show_addrs = true;
			break;
		case 'w':
			wait = strtod(optarg, &end);
			if (*end || end == optarg || !(wait > 0) || wait > 1e6) {
				snprintf(what, sizeof(what),
					 "-w %s: the interval must be a number of seconds, more than 0",
					 optarg);
				return usage_error(what);
			}
			break;
		case 'n':
			if (!parse_ulong(optarg, &count) || !count) {
				snprintf(what, sizeof(what),
					 "-n %s: the count must be a whole number, 1 or more",
					 optarg);
				return usage_error(what);
			}
			break;
		case 'd':
			debugfs = optarg;
			break;
		case OPT_PROC:
			procfs = optarg;
			break;
		case 'p':
			if (!parse_ulong(optarg, &page_size) ||
			    page_size < 1024 || page_size > (1UL << 20) ||
			    (page_size & (page_size - 1))) {
				snprintf(what, sizeof(what),
					 "-p %s: the page size must be a power of two (4096, 16384, 65536)",
					 optarg);
				return usage_error(what);
			}
			break;
		case 'h':
			show_usage();
			return 0;
		default:
			arg = argv[optind - 1];
			if (c == ':' && starts_with(arg, "--"))
				snprintf(what, sizeof(what),
					 "option '%s' needs an argument", arg);
			else if (c == ':')
				snprintf(what, sizeof(what),
					 "option '-%c' needs an argument",
					 optopt);
			else if (starts_with(arg, "--") || !optopt)
				snprintf(what, sizeof(what),
					 "unrecognized option '%s'", arg);
			else
				snprintf(what, sizeof(what),
					 "unrecognized option '-%c'", optopt);
			return usage_error(what);
		}
	}
	if (optind < argc) {
		snprintf(what, sizeof(what), "unexpected argument '%s'",
			 argv[optind]);
		return usage_error(what);
	}
	if (json && prometheus)
		return usage_error("--json and --prometheus: one format at a time");
	if (prometheus && (wait || count))
		return usage_error("--prometheus makes one report: not with -w or -n");
	if (prometheus && show_addrs)
		return usage_error("--prometheus never shows addresses: not with --addresses");
	if (count && !wait)
		wait = 1;
	if (wait && !count)
		count = ULONG_MAX;
	if (!count)
		count = 1;
	snprintf(dir, sizeof(dir), "%s/jitalloc", debugfs);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < count; i++) {
		if (i)
			sleep_until(&start, i, wait);
		s = &snap[i & 1];
		ret = load(s);
		if (ret)
			break;
		if (old && old->full != s->full)
			old = NULL;	/* nothing to compare with */
		if (json)
			print_json(s, old);
		else if (prometheus)
			print_prometheus(s);
		else if (wait)
			print_watch(s, old);
		else
			print_text(s);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "jitstat: cannot write the report: %s\n",
				strerror(errno));
			ret = EXIT_CANNOT_READ;
			break;
		}
		old = s;
	}
	free_snapshot(&snap[0]);
	free_snapshot(&snap[1]);
	return ret;
}
