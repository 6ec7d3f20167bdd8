// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_initonly - a module with only __init code: no core text at all
 * once its data has a layout of its own.  It must load as it does on stock
 * kernels.  It has no exit function, so it is removed with a forced
 * unload (CONFIG_MODULE_FORCE_UNLOAD).
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static bool ran;
module_param(ran, bool, 0444);

static int __init jitalloc_initonly_init(void)
{
	ran = true;
	return 0;
}

module_init(jitalloc_initonly_init);
MODULE_DESCRIPTION("jitalloc test module without core text");
MODULE_LICENSE("GPL");
