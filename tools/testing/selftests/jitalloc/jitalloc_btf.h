/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's BTF (/sys/kernel/btf/vmlinux) to load BPF
 * programs that attach to kernel functions and struct_ops without libbpf:
 * a type's id by kind and name, and a struct member's index.
 */
#ifndef JITALLOC_BTF_H
#define JITALLOC_BTF_H

#include <linux/btf.h>
#include <stdint.h>

#define JT_BTF_PATH	"/sys/kernel/btf/vmlinux"

struct jt_btf {
	char *data;
	const char *strs;
	uint32_t str_len;
	/* offsets of the types in data, by id (id 0 is void) */
	uint32_t *type_off;
	uint32_t nr_types;
};

/* Bytes that follow a struct btf_type of @t's kind. */
static inline long jt_btf_extra(const struct btf_type *t)
{
	uint16_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return vlen * 12;
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

static inline void jt_btf_close(struct jt_btf *b)
{
	free(b->data);
	free(b->type_off);
	memset(b, 0, sizeof(*b));
}

/* Read and index the kernel's BTF: 0, or -errno. */
static inline int jt_btf_open(struct jt_btf *b)
{
	size_t size = 0, cap = 1 << 22;
	const struct btf_header *h;
	uint32_t off, end, cap_types = 1 << 16;
	ssize_t n;
	int fd;

	memset(b, 0, sizeof(*b));
	fd = open(JT_BTF_PATH, O_RDONLY);
	if (fd < 0)
		return -errno;
	b->data = malloc(cap);
	while (b->data && (n = read(fd, b->data + size, cap - size)) > 0) {
		size += n;
		if (size == cap)
			b->data = realloc(b->data, cap *= 2);
	}
	close(fd);
	if (!b->data || size < sizeof(*h))
		goto bad;
	h = (const struct btf_header *)b->data;
	if (h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > size ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > size)
		goto bad;
	b->strs = b->data + h->hdr_len + h->str_off;
	b->str_len = h->str_len;
	b->type_off = malloc(cap_types * sizeof(*b->type_off));
	if (!b->type_off)
		goto bad;
	b->type_off[0] = 0;
	b->nr_types = 1;
	off = h->hdr_len + h->type_off;
	end = off + h->type_len;
	while (off + sizeof(struct btf_type) <= end) {
		long extra = jt_btf_extra((const struct btf_type *)(b->data + off));

		if (extra < 0)
			goto bad;
		if (b->nr_types == cap_types) {
			cap_types *= 2;
			b->type_off = realloc(b->type_off,
					      cap_types * sizeof(*b->type_off));
			if (!b->type_off)
				goto bad;
		}
		b->type_off[b->nr_types++] = off;
		off += sizeof(struct btf_type) + extra;
	}
	if (off != end)
		goto bad;
	return 0;
bad:
	jt_btf_close(b);
	return -EINVAL;
}

static inline const struct btf_type *jt_btf_type(const struct jt_btf *b,
						 uint32_t id)
{
	if (!id || id >= b->nr_types)
		return NULL;
	return (const struct btf_type *)(b->data + b->type_off[id]);
}

static inline const char *jt_btf_name(const struct jt_btf *b, uint32_t off)
{
	return off < b->str_len ? b->strs + off : "";
}

/* Id of the type of @kind named @name, or -ENOENT. */
static inline long jt_btf_find(const struct jt_btf *b, int kind,
			       const char *name)
{
	uint32_t id;

	for (id = 1; id < b->nr_types; id++) {
		const struct btf_type *t = jt_btf_type(b, id);

		if (BTF_INFO_KIND(t->info) == kind &&
		    !strcmp(jt_btf_name(b, t->name_off), name))
			return id;
	}
	return -ENOENT;
}

/* Index of member @name in struct @id, or -ENOENT. */
static inline long jt_btf_member(const struct jt_btf *b, uint32_t id,
				 const char *name)
{
	const struct btf_type *t = jt_btf_type(b, id);
	const struct btf_member *m;
	int i;

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT)
		return -ENOENT;
	m = (const struct btf_member *)(t + 1);
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++)
		if (!strcmp(jt_btf_name(b, m[i].name_off), name))
			return i;
	return -ENOENT;
}

#endif /* JITALLOC_BTF_H */
