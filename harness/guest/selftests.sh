# SPDX-License-Identifier: GPL-2.0
# Sourced by the test and soak scenarios: run the jitalloc kselftests in
# their order (harness/lib.sh's JT_SELFTESTS, written to /jitalloc/selftests
# by harness/initramfs.sh), each between the markers the parser reads.
# Sets rc to the first non-zero exit status, or 0.
run_selftests() {
	rc=0
	for t in $(cat /jitalloc/selftests); do
		echo "### selftest $t begin"
		JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko /jitalloc/$t
		trc=$?
		echo "### selftest $t end rc=$trc"
		[ $rc -eq 0 ] && rc=$trc
	done
}
