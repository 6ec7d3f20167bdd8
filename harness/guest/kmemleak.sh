# SPDX-License-Identifier: GPL-2.0
# kmemleak checks for the test scenarios (sourced): kmemleak_boot_check
# before the tests, kmemleak_after_tests after them.  Both do nothing on a
# kernel without kmemleak.  What the tests allocated must be older than
# kmemleak's minimum age (5 s) to be reported, and a report is echoed as
# "kmemleak: N new suspected memory leaks", which fails the boot
# (harness/boot.sh).
leaks=/sys/kernel/debug/kmemleak

# What kmemleak suspects after boot is judged before it is cleared: the
# KUnit suites ran at boot, and an object they or jitalloc leaked (a frame
# jit_*, execmem_* or kunit_* in its allocation's backtrace) fails the
# boot.  Other
# boot suspects (e.g. ACPI's early kmem_caches, a known false positive)
# are printed with their first frame, then forgotten, so that the tests
# below are judged on their own.  A first scan only records each object's
# checksum (a changed checksum makes an object grey for that scan); the
# second one reports, and only reported objects are cleared.
kmemleak_boot_check() {
	if [ -w $leaks ]; then
		echo scan > $leaks
		echo scan > $leaks
		awk '
		function done() {
			if (!obj)
				return
			if (ours)
				n++
			print "### kmemleak boot suspect" (ours ? " (jitalloc or KUnit)" : "") ": " first
		}
		/^unreferenced object/ { done(); obj = 1; ours = 0; first = ""; next }
		/\[<[0-9a-f]+>\]/ {
			if (first == "" && $0 !~ /kmemleak_|slab_post_alloc_hook|kmalloc|kmem_cache_alloc|__alloc|alloc_pages|__vmalloc|vmalloc|vzalloc|kvmalloc|kzalloc|kcalloc|krealloc|kstrdup/)
				first = $2
			if ($2 ~ /^(jit_|execmem_|kunit_)/)
				ours = 1
		}
		END {
			done()
			if (n)
				print "kmemleak: " n " new suspected memory leaks (at boot, with a jitalloc or KUnit frame)"
		}' $leaks
		echo clear > $leaks
	fi
}

# After the tests: leaks of anything they did.
kmemleak_after_tests() {
	if [ -w $leaks ]; then
		sleep 6
		echo scan > $leaks
		echo scan > $leaks
		n=$(grep -c '^unreferenced object' $leaks)
		if [ "$n" -gt 0 ]; then
			cat $leaks
			echo "kmemleak: $n new suspected memory leaks (after the tests)"
		else
			echo "### kmemleak: no leaks after the tests"
		fi
	fi
}
