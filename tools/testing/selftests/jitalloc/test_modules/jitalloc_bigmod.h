/* SPDX-License-Identifier: GPL-2.0 */
/* Symbols of the asm blob in jitalloc_bigmod.c. */
#ifndef JITALLOC_BIGMOD_H
#define JITALLOC_BIGMOD_H

#include <linux/types.h>

extern const u8 jt_big_start[];
int jt_big_end(void);

#endif /* JITALLOC_BIGMOD_H */
