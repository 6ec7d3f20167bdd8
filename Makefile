# SPDX-License-Identifier: GPL-2.0
# jitalloc: thin entry points; the work is done by harness/*.sh.
#
#   make run      build + boot the patched x86_64 kernel, run the demo
#                 (v2 on 6.12 unless BASE=6.1 asks for the RFC series)
#   make test     static checks, x86_64 and arm64 booted with their tests, and
#                 the stock control; ends "N passed, N failed, N skipped"
#   make test-all make test plus the debug (KASAN, lockdep, kmemleak, fault
#                 injection) kernels of both arches, arm64 16K, no modules
#   make bench    side-by-side with stock 6.1: harness/bench.sh
#   make modtext  BASE=6.12: v2's module-text designs (writable copy vs
#                 temporarily writable text) against stock 6.12, one run
#   make kaslr    module KASLR entropy over 50 boots, stock vs the series
#   make hangrate two-CPU guests that do not come back, stock vs the series,
#                 30 boots each with the same churn (BOOTS=, HANG_SECONDS=)
#   make soak     10 minutes of churn under memory pressure (SOAK_SECONDS=)
#   make shell    interactive guest (ARCH=, VARIANT=)
#   make check    checkpatch --strict and kernel-doc on what the series adds,
#                 sparse on what it touches against the base (builds x86_64)
#   make series   git format-patch series with a cover letter in build/series
#   make series-check  git am the exported series on a pristine base and
#                 build x86_64 after every patch (slow, not in make test)
#   make patches  regenerate patches/ from commits in build/src/jitalloc
#   make cross    compile-test the series on other architectures
#   make deb      Debian's config + the series: .deb packages, booted with
#                 the selftests and the demo (x86_64; slow, not in make test)
#
# ARCH=x86_64|arm64  VARIANT=default|debug|nomodules|hugevmap|16k|stock  ACCEL=tcg|kvm
# BASE=6.1|6.12: the kernel the series is made against (v2/README.md)

ARCH ?= x86_64
VARIANT ?= default
export ACCEL BASE

.PHONY: run test test-all bench modtext kaslr hangrate soak shell check series series-check patches reset-tree cross deb deps clean

# make run shows v2 (6.12) unless BASE says otherwise; everything else
# defaults to 6.1 (harness/lib.sh)
run:
	@BASE=$${BASE:-6.12} harness/run.sh $(ARCH) $(VARIANT) demo

test:
	@harness/test.sh

test-all:
	@TEST_TIER=all harness/test.sh

bench:
	@harness/bench.sh $(ARCH)

modtext:
	@BASE=6.12 harness/modtext.sh

kaslr:
	@harness/kaslr.sh $(ARCH)

hangrate:
	@harness/hangrate.sh $(ARCH)

soak:
	@harness/soak.sh

shell:
	@harness/run.sh $(ARCH) $(VARIANT) shell interactive

check:
	@harness/fetch.sh >/dev/null && harness/deps.sh x86_64 && harness/apply.sh && \
		harness/check.sh && harness/sparse.sh x86_64 --build

series:
	@harness/series.sh

series-check:
	@harness/series-check.sh

patches:
	@harness/patches.sh

reset-tree:
	@harness/reset-tree.sh

cross:
	@harness/cross.sh $(CROSS_ARCHES)

deb:
	@harness/deb.sh $(ARCH)

deps:
	@harness/deps.sh x86_64 arm64

clean:
	rm -rf build/out build/logs
