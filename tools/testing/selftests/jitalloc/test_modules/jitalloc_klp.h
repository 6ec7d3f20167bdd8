/* SPDX-License-Identifier: GPL-2.0 */
#ifndef JITALLOC_KLP_H
#define JITALLOC_KLP_H

#include <linux/types.h>

/* The 8-byte text slot of jitalloc_klp.c that a klp relocation fills. */
extern const u64 jt_klp_site;

#endif
