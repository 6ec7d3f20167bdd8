#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot ARCH/VARIANT under QEMU and run SCENARIO in the guest.
# Usage: harness/boot.sh ARCH VARIANT SCENARIO [interactive]
# Console log: build/logs/console-ARCH-VARIANT-SCENARIO.log
# Exit non-zero on timeout, panic, oops, BUG, WARNING, KASAN, lockdep or a
# W+X report, printing the last 50 console lines.
# Environment: ACCEL=tcg (default) or kvm; BOOT_TIMEOUT seconds (default 600);
# BOOT_RETRY=0: no second boot after a silent x86_64 TCG hang;
# GUEST_ARGS: more kernel command-line words (the guest's /init sees
# name=value words as environment, e.g. jt_soak=600); TCG_THREAD=single.
# The bench, sweep and itlb scenarios run with the iTLB model plugin
# (bench/itlb_model.c); its figures go to build/logs/itlb-ARCH-VARIANT-
# SCENARIO.txt.  ITLB_MODEL=0 leaves it out, ITLB_MODEL=1 adds it to any
# scenario.
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2 scenario=$3 mode=$4
check_arch "$arch"
check_variant "$variant"
[ -n "$scenario" ] || die "usage: harness/boot.sh ARCH VARIANT SCENARIO"
O=$(outdir "$arch" "$variant")
# KERNEL= boots another image of this build (make deb: the packaged one)
kernel=${KERNEL:-$O/$(kimage "$arch")}
# INITRD= another initramfs (make series-check: one with a step's module)
initrd=${INITRD:-$O/initramfs.cpio.gz}
[ -f "$kernel" ] || die "no kernel at ${kernel#$TOP/}: build it first"
[ -f "$initrd" ] || die "no initramfs at ${initrd#$TOP/}: build it first"
accel=${ACCEL:-tcg}
timeout=${BOOT_TIMEOUT:-600}
log=$LOGS/console-$arch-$variant-$scenario.log

# TCG_THREAD=single: both vCPUs in one host thread, taking turns (QEMU's
# MTTCG runs one thread per vCPU); what a boot sees of code that another
# vCPU patches then changes.  The default on 6.12 x86_64, stock or not:
# with MTTCG its boots ran int3s that text_poke_bp() had already taken
# out (QEMU's stale translations, at __schedule's static keys: 2 debug
# boots in a row, 3 soaks of 3, stock 6.12's control boots), and one
# thread cost no time there (57 s against 50-55 s).  TCG_THREAD=multi
# keeps MTTCG.
tcg_opts=
tcg_thread=${TCG_THREAD:-}
[ -z "$tcg_thread" ] && [ "$BASE" = 6.12 ] && [ "$arch" = x86_64 ] && tcg_thread=single
case "$tcg_thread" in
'' | multi) ;;
single) [ "$accel" = tcg ] && tcg_opts=,thread=single ;;
*) die "TCG_THREAD is single or multi, not '$TCG_THREAD'" ;;
esac
case "$accel" in
tcg) cpu_x86=max cpu_arm=cortex-a57 ;;
kvm) cpu_x86=host cpu_arm=host ;;
*) die "unknown ACCEL '$accel' (tcg or kvm)" ;;
esac
# Cortex-A57 has no 16K translation granule: a 16K-page kernel would not
# print a line.  Cortex-A76 (ARMv8.2) has all three.
[ "$accel" = tcg ] && [ "$variant" = 16k ] && cpu_arm=cortex-a76
# The kpti scenario: a CPU with BTI and pointer authentication (QEMU's
# cheap implementation-defined PAC), KPTI forced on once the CPUs are up.
[ "$accel" = tcg ] && [ "$scenario" = kpti ] && cpu_arm=max,pauth-impdef=on

append="panic=-1 oops=panic jt_scenario=$scenario"
# Fault injection (the churn's fault variants) fails kmalloc caches only:
# stock 6.1 WARNs when vmalloc's own vmap_area allocation fails
# (mm/vmalloc.c:1603), whoever calls vmalloc.
[ "$variant" = debug ] && append="$append kmemleak=on slub_debug=A,kmalloc-*"
# failslab's cache filter: only the kmalloc-* caches may fail (16k injects
# faults too)
[ "$variant" = 16k ] && append="$append slub_debug=A,kmalloc-*"
# The bench compares two kernels: no KUnit suites at boot in either.
[ "$scenario" = bench ] && append="$append kunit.enable=0"
[ "$scenario" = timed ] && append="$append kunit.enable=0"
# The demo shows what a production kernel would: no KUnit calls counted.
[ "$scenario" = demo ] && append="$append kunit.enable=0"
[ "$scenario" = sweep ] && append="$append kunit.enable=0"
[ "$scenario" = kaslr ] && append="$append kunit.enable=0"
[ "$scenario" = soak ] && append="$append kunit.enable=0"
[ "$scenario" = hangrate ] && append="$append kunit.enable=0"
[ "$scenario" = kpti ] && append="$append kunit.enable=0 nokaslr kpti=1"
[ "$scenario" = cacheoff ] && append="$append jitalloc_cache=off"
[ "$scenario" = execmemoff ] && append="$append execmem_cache=off"
[ -n "$GUEST_ARGS" ] && append="$append $GUEST_ARGS"
case "$arch" in
x86_64)
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (make deps)"
	qemu=(qemu-system-x86_64 -accel "$accel$tcg_opts" -cpu "$cpu_x86" -M pc)
	# mitigations as on the Intel parts distributions run on: TCG
	# emulates none of the bugs, so ask for ITS's aligned thunks
	append="console=ttyS0 indirect_target_selection=force $append"
	# Rates are compared across two boots: keep them on the TSC (TCG's
	# is monotonic; its watchdog would switch some boots to HPET).
	case "$scenario" in bench | sweep | timed) append="$append tsc=reliable" ;; esac
	;;
arm64)
	command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 not found (make deps)"
	qemu=(qemu-system-aarch64 -accel "$accel$tcg_opts" -M virt -cpu "$cpu_arm")
	append="console=ttyAMA0 $append"
	;;
esac
qemu+=(-m 2G -smp 2 -nographic -no-reboot -kernel "$kernel" -initrd "$initrd"
       -append "$append")
itlb_out=$LOGS/itlb-$arch-$variant-$scenario.txt
rm -f "$itlb_out"
case "${ITLB_MODEL:-}:$scenario" in
0:*) ;;
1:* | *:bench | *:sweep | *:itlb)
	[ "$accel" = tcg ] || die "the iTLB model needs ACCEL=tcg (ITLB_MODEL=0 to boot without it)"
	qemu+=(-plugin "$(itlb_model_so),log=$log,out=$itlb_out") ;;
esac

if [ "$mode" = interactive ]; then
	exec "${qemu[@]}"
fi

start=$(date +%s)
printf '==> %-42s ' "boot $arch-$variant ($scenario, $accel${tcg_opts:+, one thread})"
# the QEMU it ran on, for whoever compares timings across boots
echo "### qemu accel $accel${tcg_opts:+ thread=single}" >"$log"
# the long bench boots show the workload's progress lines as they come
progress=
case "$scenario" in
bench | sweep)
	echo
	(tail -n +1 -f "$log" 2>/dev/null | grep --line-buffered -a '^jitload: ' |
		sed -u 's/^/    /') &
	progress=$!
	;;
esac
# What is wrong on the console, one line, or nothing.  Nothing is
# excused: the bad-input cases of the KUnit suites make refused calls,
# which jitalloc counts and reports without a WARNING, and check the
# counts themselves.
console_problem() {
	{
		# a protection the allocator could not apply, outside the KUnit
		# cases that inject that failure into pools of their own (named
		# after the case: cache_test_* on 6.1, execmem_test_* on 6.12)
		tr -d '\r' <"$log" |
		grep -E 'jitalloc_cache: [^ ]+: (cannot protect the linear alias|linear alias of .* stays read-only)|jitalloc: cannot make the direct-map alias|jitalloc_blocks: .* keep a non-default direct map' |
		grep -v -m1 -E 'jitalloc_cache: (cache|execmem)_test_'
		tr -d '\r' <"$log" |
		grep -m1 -E 'Kernel panic|Oops|BUG:|WARNING:|Unable to handle kernel|general protection fault|KASAN: |possible recursive locking|possible circular locking|inconsistent lock state|W\+X mappings: FAILED|insecure W\+X|kmemleak: .* new suspected|rcu: INFO: .*detected stall|rcu_tasks.* detected stalls|INFO: rcu_tasks|soft lockup|workqueue lockup|INFO: task .* blocked for more than|self check failed|placement drawn at boot is not used|the kernel.s placement is invalid'
	} | head -n1
}

# QEMU 7.2's TCG can stop delivering interrupts to a vCPU: it may not end
# a translation block after STI, so a CPU that re-enables interrupts in
# such a block never takes them (fixed in later QEMU: "target/i386: Fix
# interrupt inhibition", lore.kernel.org/qemu-devel/20231210190147.129734-
# 2-lrh2000@pku.edu.cn).  Two-CPU x86 guests here then go silent for good,
# about one boot in six.  The test kernels carry the hung-task, soft-lockup,
# workqueue and RCU stall detectors, so a hang prints a report, which fails
# the boot - unless it is that fault: RCU's stall report then says that a
# CPU's timer never fired ("Possible timer handling issue on cpu=N", "timer
# wakeup didn't happen"), and the other CPU waits for it in an IPI (seen
# here in text_poke_bp_batch() of a tracepoint's static call update, stock
# code, with the silent CPU idle in schedule()).  Only such an x86_64 TCG
# boot, or one that went silent, with no failed test ("not ok") on its
# console, is booted once more; it is counted as a flake (a line in
# build/logs/flakes that make test prints), and its console is kept as
# *-hung.log.  A second hang, or anything else wrong printed, fails.
# The same fault shows a second way, stock 6.1 included (make hangrate):
# a soft lockup or RCU stall of a CPU that waits in text_poke_bp_batch()'s
# IPI while the other vCPU sits at one instruction with interrupts off in
# every sample of the vCPU dump, outside any lock-spinning function (a
# deadlock of the kernel's own spins there, or a sleeping task - the
# hung-task report - is never taken for it).
# The first report of a hang detector on the console, or nothing.
hang_report() {
	tr -d '\r' <"$log" |
	grep -a -m1 -oE 'INFO: task .* blocked for more than [0-9]+ seconds|soft lockup - CPU#[0-9]+ stuck for [0-9]+s|workqueue lockup|rcu: INFO: [^(]*detected stalls?|rcu_tasks.* detected stalls|INFO: rcu_tasks[^(]*'
}
qemu_timer_fault() {
	tr -d '\r' <"$log" |
	grep -qaE "Possible timer handling issue on cpu=|kthread timer wakeup didn't happen"
}
qemu_ipi_fault() {
	local con vcpus
	con=$(tr -d '\r' <"$log")
	vcpus=$(echo "$con" | grep -a '^vcpu [0-9]*: ')
	echo "$con" |
		grep -qaE 'soft lockup - CPU#[0-9]+ stuck|rcu: INFO: [^(]*detected stall' &&
		echo "$con" | grep -qa 'text_poke_bp_batch' &&
		echo "$vcpus" | grep -q 'smp_call_function_many_cond+.*(running)' &&
		echo "$vcpus" | grep -v 'smp_call_function_many_cond' |
		grep -E 'irqs off pc fixed' |
		grep -qvE ' [^ ]*(spin|lock|mutex|rwsem|rwbase|bit_wait|csd)[^ ]*\+0x'
}
# And a third way: the CPU executes an int3 that text_poke_bp() already
# replaced - "Oops: int3" in kernel code whose bytes, as the oops dumps
# them, hold no int3 before the trapping address ("Code: ... 66 <90>"):
# memory says the trap cannot have happened, the stale translation did.
# An int3 still in memory (a real leftover, "cc <..>") is never taken for
# it.  This one, which memory proves stale, may be booted a third time:
# 6.12 x86_64 kernels, stock ones too, hit it at __schedule+0x343 in
# about one boot in four of make test here.
qemu_stale_int3() {
	local code
	tr -d '\r' <"$log" | grep -qa 'Oops: int3' || return 1
	code=$(tr -d '\r' <"$log" | grep -a -m1 -A12 'Oops: int3' | grep -a -m1 'Code: ' |
		sed 's/.*Code: //')
	echo "$code" | grep -q '<' || return 1
	! echo "$code" | grep -qiE '(^| )cc <'
}
# QEMU's monitor on a socket of its own, to ask a stuck guest where each
# vCPU is (harness/qemu_monitor.py).
mon=$LOGS/monitor-$arch-$variant-$scenario.sock
qemu+=(-monitor "unix:$mon,server,nowait")

# Run QEMU until it exits.  At the boot timeout, or as soon as an x86_64
# TCG console shows QEMU's timer fault, write where every vCPU is (its
# program counter and function, halted or not) into the console log, the
# monitor's whole answer into *-vcpus.txt beside it, and stop QEMU:
# status 124, as timeout(1) gives.
run_qemu() {
	local pid rc why t0 reported=
	t0=$(date +%s)
	rm -f "$mon"
	"${qemu[@]}" </dev/null >>"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		# a hang detector's report fails the boot whatever follows: stop
		# 15 s after it (the rest of the report, and on x86 the timer
		# fault's own lines, come first), not at the timeout
		[ -z "$reported" ] && hang_report && reported=$(date +%s)
		if [ "$arch" = x86_64 ] && [ "$accel" = tcg ] && qemu_timer_fault; then
			why="QEMU TCG timer fault after $(($(date +%s) - t0))s"
		elif [ -n "$reported" ] && [ $(($(date +%s) - reported)) -ge 15 ]; then
			why="hang detector's report after $((reported - t0))s: $(hang_report)"
		elif [ $(($(date +%s) - t0)) -ge "$timeout" ]; then
			why="no end after ${timeout}s"
		else
			continue
		fi
		{
			echo "### vcpu dump: $why"
			python3 "$TOP/harness/qemu_monitor.py" "$mon" "$O/System.map" \
				"${log%.log}-vcpus.txt" "$log"
		} >>"$log" 2>&1
		kill "$pid" 2>/dev/null
		sleep 3
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		rm -f "$mon"
		return 124
	done
	wait "$pid"
	rc=$?
	rm -f "$mon"
	return $rc
}

attempt=1
while :; do
	run_qemu
	rc=$?
	if [ "${BOOT_RETRY:-1}" = 1 ] && [ "$accel" = tcg ] && [ "$arch" = x86_64 ] &&
	   { [ $attempt -eq 1 ] || { [ $attempt -eq 2 ] && qemu_stale_int3; }; } &&
	   ! grep -qa "### jitalloc scenario $scenario end" "$log" &&
	   { qemu_stale_int3 ||
	     { { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } &&
	       ! tr -d '\r' <"$log" | grep -qaE '^ *not ok ' &&
	       { [ -z "$(console_problem)" ] || qemu_timer_fault || qemu_ipi_fault; }; }; }; then
		hung=${log%.log}-hung.log
		cp "$log" "$hung"
		# what it was, read from the console before it is emptied
		why="silent hang"
		qemu_timer_fault && why="a CPU's timer stopped (QEMU TCG)"
		qemu_ipi_fault &&
			why="a vCPU stopped at one instruction, interrupts off, under text_poke_bp_batch()'s IPI (QEMU TCG)"
		qemu_stale_int3 &&
			why="an int3 trap where memory holds no int3 any more (QEMU TCG's stale translation)"
		: >"$log"
		printf '(%s, console kept in %s; booting again) ' \
			"$why" "${hung#$TOP/}"
		echo "flake: $arch-$variant $scenario: $why, booted again (console: ${hung#$TOP/}; $(grep -a '^vcpu ' "$hung" | tr -d '\r' | paste -sd ';' -))" \
			>>"$LOGS/flakes"
		attempt=$((attempt + 1))
		continue
	fi
	break
done
if [ -n "$progress" ]; then
	sleep 1
	pkill -P "$progress" 2>/dev/null
	kill "$progress" 2>/dev/null
	wait "$progress" 2>/dev/null
	printf '    %-42s ' "(boot $arch-$variant $scenario)"
fi
dur=$(($(date +%s) - start))

problem=
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	problem="guest did not finish within ${timeout}s"
	grep -qa '^### vcpu dump: QEMU TCG timer fault' "$log" &&
		problem="guest stopped at QEMU's TCG timer fault (a vCPU's timer never fired)"
	grep -qa "^### vcpu dump: hang detector's report" "$log" &&
		problem="guest stopped: $(grep -a -m1 "^### vcpu dump: hang detector's report" "$log" | sed 's/^### vcpu dump: //')"
elif [ $rc -ne 0 ]; then
	problem="qemu exited with status $rc"
fi
bad=$(console_problem)
[ -n "$bad" ] && problem="${problem:+$problem; }console: $(echo "$bad" | tr -d '\r' | sed 's/^\[ *[0-9.]*\] //')"
end=$(grep -a "### jitalloc scenario $scenario end" "$log" | tr -d '\r' | tail -n1)
if [ -z "$end" ]; then
	problem="${problem:+$problem; }scenario '$scenario' did not reach its end marker"
else
	# test, control, soak, cacheoff and execmem(off) print TAP that parse_results.py judges; the
	# others (demo, bench, kaslr) fail with their workload
	case "$scenario" in
	test | control | soak | cacheoff | execmem | execmemoff) ;;
	*) [ "${end##*rc=}" = 0 ] ||
		problem="${problem:+$problem; }scenario '$scenario' ended with ${end##* }" ;;
	esac
fi

# why the boot failed, for the totals of make test (harness/test.sh)
why_file=$LOGS/why-$arch-$variant-$scenario
rm -f "$why_file"
if [ -n "$problem" ]; then
	echo "$problem" | cut -c1-300 >"$why_file"
	echo "FAILED after ${dur}s"
	echo "boot $arch-$variant: $problem (log: ${log#$TOP/})"
	echo "--- last 50 console lines:"
	tail -n 50 "$log" | tr -d '\r'
	exit 1
fi
echo "done in ${dur}s"
