// SPDX-License-Identifier: GPL-2.0-only
/*
 * parisc constraints on memory for code: anywhere in vmalloc space, with
 * text mapped read-write-execute.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init = {
	/* the default range, VMALLOC_START..VMALLOC_END */
	.text.prot	= JIT_PROT_RWX,
};

/**
 * jit_alloc_arch_params() - parisc placement and protections of jit memory
 *
 * Return: the parameters.  Text goes anywhere in vmalloc space, mapped
 * RWX as module_alloc() did: the module loader maps text and data and
 * the stubs, GOT and function descriptors it puts into the text layout
 * no more finely than that.  Data uses the same range, non-executable.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	return &jit_alloc_params;
}
