// SPDX-License-Identifier: GPL-2.0
/* A module that warns on load: the guest runner must report it as a failed test. */
#include <linux/bug.h>
#include <linux/module.h>

static int __init pmuser_broken_init(void)
{
	WARN(1, "pmuser_broken: deliberate warning for the runner's own test\n");
	return 0;
}

static void __exit pmuser_broken_exit(void)
{
}

module_init(pmuser_broken_init);
module_exit(pmuser_broken_exit);
MODULE_DESCRIPTION("pmuser test runner self-check: WARNs on load");
MODULE_LICENSE("GPL");
