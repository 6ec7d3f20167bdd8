// SPDX-License-Identifier: GPL-2.0
/*
 * jitstat - report on the jit text allocator's pools, as slabinfo does slabs
 *
 * Reads what jitalloc shows in debugfs (root only): <debugfs>/jitalloc/api,
 * one file per cache pool, named after the types it serves
 * ("modules+kprobes+ftrace+bpf", "kprobes+bpf", "modules" ...), and the page
 * blocks ("page_blocks", x86).  Each holds "key value" lines, explained in
 * Documentation/mm/jitalloc.rst.  A file is told apart by its keys, not its
 * name; keys this tool does not know go into --json and are otherwise
 * ignored, so that it keeps working when the kernel adds some.
 *
 * Build with "make -C tools/mm" (LDFLAGS=-static for a guest without libc).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_USERS	64
#define USER_PREFIX	"bytes_in_use_"

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
};

struct user {
	const char *name;
	unsigned long long bytes;
};

static const char *debugfs = "/sys/kernel/debug";
static char dir[PATH_MAX];
static bool show_bytes, json;
static unsigned long page_size;

/* Keys this tool computes with: their values must be numbers. */
static const char * const numeric_keys[] = {
	"huge_pages", "spare_pages", "fallback_pages", "chunk_size",
	"chunks_total", "chunks_used", "fragmentation_pct", "bytes_in_use",
	"high_water_bytes", "fallbacks", "reclaims", "shrinker_reclaims",
	"block_pages", "blocks", "spare_blocks", "pages_in_use",
	"high_water_pages", "alias_errors",
};

static void show_usage(FILE *out)
{
	fprintf(out,
		"Usage: jitstat [-b] [--json] [-w SECONDS] [-n COUNT] [--debugfs DIR]\n"
		"Report on the pools of the jit text allocator (jitalloc).\n\n"
		"  -b, --bytes          sizes in bytes, not K/M/G\n"
		"  -j, --json           one JSON object (per line with -w)\n"
		"  -w, --wait SECONDS   repeat every SECONDS, a timestamp first\n"
		"  -n, --count COUNT    stop after COUNT reports (-w 1 by default)\n"
		"  -d, --debugfs DIR    debugfs is mounted on DIR (%s)\n"
		"  -p, --page-size N    base page size of the dumped kernel (%lu)\n"
		"  -h, --help           this text\n\n"
		"Exit status: 0, 1 when debugfs cannot be read, 2 without jitalloc\n"
		"or for bad usage.\n", "/sys/kernel/debug", page_size);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
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
	size_t i;

	for (i = 0; i < ARRAY_SIZE(numeric_keys); i++)
		if (!strcmp(key, numeric_keys[i]))
			return true;
	return starts_with(key, USER_PREFIX) || starts_with(key, "refused_");
}

static const char *get(const struct stat_file *f, const char *key)
{
	int i;

	for (i = 0; i < f->nr; i++)
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
		return -1;
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

/* Read a whole file; debugfs files say nothing of their size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t size = 0;
	char *buf = NULL, *b;

	*len = 0;
	while (f && !feof(f) && !ferror(f)) {
		b = realloc(buf, size += 4096);
		if (!b)
			break;
		buf = b;
		*len += fread(buf + *len, 1, size - *len - 1, f);
	}
	if (!f || ferror(f) || !feof(f)) {
		free(buf);
		buf = NULL;
	} else {
		buf[*len] = '\0';
	}
	if (f)
		fclose(f);
	return buf;
}

static void free_snapshot(struct snapshot *s)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		free(s->files[i].buf);
		free(s->files[i].kv);
	}
	free(s->files);
	s->files = NULL;
	s->nr = 0;
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * Fill @s with the files of <debugfs>/jitalloc.  Return 0, or the exit
 * status after saying on stderr what is wrong.
 */
static int load(struct snapshot *s)
{
	char path[PATH_MAX + NAME_MAX + 2], why[32];
	struct dirent **names, *e = NULL;
	struct stat_file *f;
	DIR *d = opendir(debugfs);
	int i, n, line, ret = 0, err = d ? 0 : errno;
	bool opened = d;
	struct stat st;
	size_t len;

	/* An unmounted debugfs is an empty directory (or none) */
	while (d && (e = readdir(d)) && e->d_name[0] == '.')
		;
	if (d)
		closedir(d);
	if (!e) {
		fprintf(stderr, "jitstat: %s %s (%s)\n",
			err == EACCES ? "cannot read" : "debugfs is not mounted on",
			debugfs, opened ? "empty directory" : strerror(err));
		return 1;
	}

	n = scandir(dir, &names, skip_dots, alphasort);
	if (n < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			fprintf(stderr, "jitstat: this kernel has no jitalloc (no %s)\n",
				dir);
			return 2;
		}
		fprintf(stderr, "jitstat: cannot read %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	s->files = calloc(n ? n : 1, sizeof(*s->files));
	if (!s->files) {
		fprintf(stderr, "jitstat: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		f = &s->files[s->nr];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		/* fault injection knobs (fail_huge_page ...) are directories */
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		f->buf = slurp(path, &len);
		if (!f->buf) {
			if (errno == EACCES || errno == EPERM) {
				fprintf(stderr, "jitstat: cannot read %s: %s (run as root)\n",
					path, strerror(errno));
				ret = 1;
				break;
			}
			continue;	/* a pool went away since scandir() */
		}
		snprintf(f->name, sizeof(f->name), "%s", names[i]->d_name);
		line = parse(f, len);
		if (line) {
			snprintf(why, sizeof(why), "malformed (line %d)", line);
			fprintf(stderr, "jitstat: warning: %s is %s, skipped\n",
				path, line < 0 ? "empty" : why);
			free(f->buf);
			free(f->kv);
			memset(f, 0, sizeof(*f));
			continue;
		}
		if (!strcmp(f->name, "api"))
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

/* Sum bytes_in_use_<user> over the pools, users in the kernel's order. */
static int sum_users(const struct snapshot *s, struct user *users)
{
	const struct stat_file *f;
	int i, j, u, nr = 0;

	for (i = 0; i < s->nr; i++) {
		f = &s->files[i];
		if (f->type != FILE_POOL)
			continue;
		for (j = 0; j < f->nr; j++) {
			if (!starts_with(f->kv[j].key, USER_PREFIX))
				continue;
			for (u = 0; u < nr; u++)
				if (!strcmp(users[u].name, f->kv[j].key))
					break;
			if (u == nr) {
				if (nr == MAX_USERS)
					continue;
				users[nr].name = f->kv[j].key;
				users[nr++].bytes = 0;
			}
			users[u].bytes += strtoull(f->kv[j].val, NULL, 10);
		}
	}
	return nr;
}

/* Bytes of huge pages a pool holds. */
static unsigned long long pool_held(const struct stat_file *f)
{
	return num(f, "chunks_total") * num(f, "chunk_size");
}

/* Executable memory the pools hold: their huge pages and fallback pages. */
static unsigned long long exec_held(const struct snapshot *s)
{
	unsigned long long total = 0;
	const struct stat_file *f;

	for (f = s->files; f < s->files + s->nr; f++)
		if (f->type == FILE_POOL)
			total += pool_held(f) +
				 num(f, "fallback_pages") * page_size;
	return total;
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

static int name_width, size_width;

static void print_header(const char *name, const char *count,
			 const char *col5)
{
	printf("%-*s %6s %*s %*s %5s %9s %11s %*s\n", name_width, name, count,
	       size_width, "Held", size_width, "InUse", col5, "Fallbacks",
	       "Reclaim g+s", size_width, "HighW");
}

/*
 * Pools and page blocks share columns: sizes in bytes, reclaims split into
 * those after the grace period and those of the shrinker.
 */
static void print_row(const char *name, unsigned long long count,
		      unsigned long long held, unsigned long long in_use,
		      unsigned long long col5, unsigned long long fallbacks,
		      unsigned long long reclaims, unsigned long long shrinker,
		      unsigned long long high)
{
	char a[32], b[32], c[32], r[48];

	snprintf(r, sizeof(r), "%llu+%llu",
		 reclaims > shrinker ? reclaims - shrinker : 0, shrinker);
	printf("%-*s %6llu %*s %*s %5llu %9llu %11s %*s\n", name_width, name,
	       count, size_width, size_str(a, sizeof(a), held),
	       size_width, size_str(b, sizeof(b), in_use), col5, fallbacks,
	       r, size_width, size_str(c, sizeof(c), high));
}

static void print_text(const struct snapshot *s)
{
	unsigned long long ps = page_size, bp, held = 0;
	struct user users[MAX_USERS];
	const struct stat_file *f;
	char n[32], x[32], y[32];
	bool refused = false;
	int i, j, nr_users;

	name_width = 12;
	size_width = show_bytes ? 11 : 6;
	for (i = 0; i < s->nr; i++)
		if ((int)strlen(s->files[i].name) > name_width)
			name_width = strlen(s->files[i].name);

	print_header("Pool", "Huge", "Frag%");
	for (i = 0; i < s->nr; i++) {
		f = &s->files[i];
		if (f->type != FILE_POOL)
			continue;
		print_row(f->name, num(f, "huge_pages"), pool_held(f),
			  num(f, "bytes_in_use"), num(f, "fragmentation_pct"),
			  num(f, "fallbacks"), num(f, "reclaims"),
			  num(f, "shrinker_reclaims"),
			  num(f, "high_water_bytes"));
		held += pool_held(f);
	}

	nr_users = sum_users(s, users);
	if (nr_users)
		printf("%-*s %6s %*s %*s\n", name_width, "User", "",
		       size_width, "", size_width, "InUse");
	for (i = 0; i < nr_users; i++)
		printf("%-*s %6s %*s %*s\n", name_width,
		       users[i].name + strlen(USER_PREFIX), "", size_width, "",
		       size_width, size_str(x, sizeof(x), users[i].bytes));

	for (i = 0, j = 0; i < s->nr; i++) {
		f = &s->files[i];
		if (f->type != FILE_BLOCKS)
			continue;
		if (!j++)
			print_header("Blocks", "Blocks", "Spare");
		bp = num(f, "block_pages") * ps;
		print_row(f->name, num(f, "blocks"), num(f, "blocks") * bp,
			  num(f, "pages_in_use") * ps, num(f, "spare_blocks"),
			  num(f, "fallbacks"), num(f, "reclaims"),
			  num(f, "shrinker_reclaims"),
			  num(f, "high_water_pages") * ps);
	}

	for (i = 0; i < s->nr; i++) {
		f = &s->files[i];
		if (f->type != FILE_API)
			continue;
		for (j = 0; j < f->nr; j++) {
			if ((!starts_with(f->kv[j].key, "refused_") &&
			     strcmp(f->kv[j].key, "alias_errors")) ||
			    !strtoll(f->kv[j].val, NULL, 10))
				continue;
			printf("%s %s %s", refused ? "," : "Refused calls:",
			       f->kv[j].key, f->kv[j].val);
			refused = true;
		}
	}
	if (refused)
		printf("\n");
	bp = exec_held(s);
	printf("Executable bytes held: %s (huge pages %s, fallback pages %s)\n",
	       size_str(n, sizeof(n), bp), size_str(x, sizeof(x), held),
	       size_str(y, sizeof(y), bp - held));
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

	n = strlen(key);
	if (n >= 6 && !strcmp(key + n - 6, "_addrs")) {
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
		putchar(',');
		json_string(f->kv[i].key);
		putchar(':');
		json_value(f->kv[i].key, f->kv[i].val);
	}
	putchar('}');
}

static void json_files(const struct snapshot *s, enum file_type type)
{
	bool first = true;
	int i;

	putchar('[');
	for (i = 0; i < s->nr; i++) {
		if (s->files[i].type != type)
			continue;
		printf("%s", first ? "" : ",");
		json_file(&s->files[i]);
		first = false;
	}
	putchar(']');
}

static void print_json(const struct snapshot *s)
{
	struct user users[MAX_USERS];
	int i, nr_users = sum_users(s, users);
	bool api = false;

	printf("{\"time\":%lld,\"debugfs\":", (long long)time(NULL));
	json_string(debugfs);
	printf(",\"page_size\":%lu,\"pools\":", page_size);
	json_files(s, FILE_POOL);
	printf(",\"users\":{");
	for (i = 0; i < nr_users; i++) {
		printf("%s", i ? "," : "");
		json_string(users[i].name + strlen(USER_PREFIX));
		printf(":%llu", users[i].bytes);
	}
	printf("},\"blocks\":");
	json_files(s, FILE_BLOCKS);
	printf(",\"api\":");
	for (i = 0; i < s->nr && !api; i++) {
		if (s->files[i].type != FILE_API)
			continue;
		json_file(&s->files[i]);
		api = true;
	}
	printf("%s,\"exec_bytes_held\":%llu}\n", api ? "" : "null",
	       exec_held(s));
}

static void print_time(void)
{
	char buf[64];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %Z", localtime(&t));
	printf("%s\n", buf);
}

static bool parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s && *s != '-' && !*end && !errno;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bytes", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "wait", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned long count = 0, i;
	struct snapshot s = { };
	double wait = 0;
	struct timespec ts;
	char *end;
	int c, ret = 0;

	page_size = sysconf(_SC_PAGESIZE);
	while ((c = getopt_long(argc, argv, "bjw:n:d:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			show_bytes = true;
			break;
		case 'j':
			json = true;
			break;
		case 'w':
			wait = strtod(optarg, &end);
			if (*end || !(wait > 0) || wait > 1e6)
				goto bad;
			break;
		case 'n':
			if (!parse_ulong(optarg, &count) || !count)
				goto bad;
			break;
		case 'd':
			debugfs = optarg;
			break;
		case 'p':
			if (!parse_ulong(optarg, &page_size) || !page_size)
				goto bad;
			break;
		case 'h':
			show_usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind < argc)
		goto bad;
	if (count && !wait)
		wait = 1;
	if (wait && !count)
		count = ULONG_MAX;
	if (!count)
		count = 1;
	snprintf(dir, sizeof(dir), "%s/jitalloc", debugfs);

	for (i = 0; i < count; i++) {
		if (i) {
			ts.tv_sec = wait;
			ts.tv_nsec = (wait - ts.tv_sec) * 1e9;
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		ret = load(&s);
		if (ret)
			break;
		if (json) {
			print_json(&s);
		} else {
			if (wait) {
				printf("%s", i ? "\n" : "");
				print_time();
			}
			print_text(&s);
		}
		fflush(stdout);
		free_snapshot(&s);
	}
	free_snapshot(&s);
	return ret;
bad:
	show_usage(stderr);
	return 2;
}
