# SPDX-License-Identifier: GPL-2.0
# The modules the jitalloc selftests load, for the Makefile next to this
# one (after ../lib.mk): built out of tree against the kernel in KDIR, by
# default the one these selftests sit in, or its O= build directory; the
# livepatch one gets its klp relocation as klp-convert would write it.
MODS_SRC := $(abspath test_modules)
KDIR ?= $(if $(KBUILD_OUTPUT),$(KBUILD_OUTPUT),$(abspath ../../../..))

# A kernel without modules gets an empty ko/: the tests that load one skip.
$(OUTPUT)/ko: $(wildcard test_modules/*.[ch] test_modules/Makefile)
	if grep -qs '^CONFIG_MODULES=y' $(KDIR)/.config; then \
		$(MAKE) -C $(KDIR) M=$(MODS_SRC) modules && \
		{ [ ! -f $(MODS_SRC)/jitalloc_klp.ko ] || \
		  python3 $(MODS_SRC)/klp_fixup.py $(MODS_SRC)/jitalloc_klp.ko; } && \
		mkdir -p $@ && cp $(MODS_SRC)/*.ko $@/; \
	else \
		echo "jitalloc: $(KDIR) has no modules: no test modules"; \
		mkdir -p $@; \
	fi

EXTRA_CLEAN := $(wildcard $(MODS_SRC)/*.ko $(MODS_SRC)/*.o $(MODS_SRC)/*.mod* \
		$(MODS_SRC)/.*.cmd $(MODS_SRC)/Module.symvers $(MODS_SRC)/modules.order)
