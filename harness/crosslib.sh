# SPDX-License-Identifier: GPL-2.0
# Sourced by harness/cross.sh and harness/series-check.sh: the cross
# compilers, defconfigs and Debian packages of the architectures we
# compile-test but do not boot, and which objects hold the series' code.

declare -A CROSS=(
	[arm]=arm-linux-gnueabihf-
	[mips]=mips-linux-gnu-
	[powerpc]=powerpc64le-linux-gnu-
	[riscv]=riscv64-linux-gnu-
	[s390]=s390x-linux-gnu-
	[sparc]=sparc64-linux-gnu-
	[parisc]=hppa-linux-gnu-
)
declare -A DEFCONFIG=(
	[arm]=multi_v7_defconfig
	[mips]=malta_defconfig
	[powerpc]=ppc64le_defconfig
	[riscv]=defconfig
	[s390]=defconfig
	[sparc]=sparc64_defconfig
	[parisc]=generic-32bit_defconfig
)
declare -A PKG=(
	[arm]=gcc-arm-linux-gnueabihf [mips]=gcc-mips-linux-gnu
	[powerpc]=gcc-powerpc64le-linux-gnu [riscv]=gcc-riscv64-linux-gnu
	[s390]=gcc-s390x-linux-gnu [sparc]=gcc-sparc64-linux-gnu
	[parisc]=gcc-hppa-linux-gnu
)
UNAVAILABLE="loongarch nios2"

# cross_install A...: install the cross compilers of the architectures
# A... that Debian has and this machine lacks
cross_install() {
	local a missing=
	for a in "$@"; do
		case " $UNAVAILABLE " in *" $a "*) continue ;; esac
		[ -n "${CROSS[$a]}" ] || die "unknown cross arch '$a' (known: ${!CROSS[*]})"
		command -v "${CROSS[$a]}gcc" >/dev/null || missing="$missing ${PKG[$a]}"
	done
	[ -n "$missing" ] || return 0
	[ "$(id -u)" = 0 ] || die "missing cross compilers:$missing"
	apt-get install -y -q $missing >"$LOGS/apt-cross.log" 2>&1 ||
		die "could not install:$missing (log: build/logs/apt-cross.log)"
}

# cross_config A O [nomodules]: A's defconfig in O with the users of jit
# memory switched on, and MODULES as asked
cross_config() {
	local a=$1 O=$2 variant=$3
	mkdir -p "$O" &&
	make -C "$SRC_PATCHED" O="$O" ARCH="$a" CROSS_COMPILE="${CROSS[$a]}" "${DEFCONFIG[$a]}" &&
	"$SRC_PATCHED/scripts/config" --file "$O/.config" -e KPROBES \
		-e FTRACE -e FUNCTION_TRACER -e DYNAMIC_FTRACE \
		-e BPF_SYSCALL -e BPF_JIT &&
	if [ "$variant" = nomodules ]; then
		"$SRC_PATCHED/scripts/config" --file "$O/.config" -d MODULES
	else
		"$SRC_PATCHED/scripts/config" --file "$O/.config" -e MODULES
	fi &&
	make -C "$SRC_PATCHED" O="$O" ARCH="$a" CROSS_COMPILE="${CROSS[$a]}" olddefconfig
}

# Is object $1 built by configuration $2?  Asking kbuild for an object
# its Makefile does not build (kernel/module/main.o without MODULES, a
# 32-bit JIT on a 64-bit kernel) compiles it anyway, and fails.
built_by_config() {
	local o=$1 cfg=$2 mk sym
	case "$o" in
	*comp32.o|*comp_32.o) ! grep -q '^CONFIG_64BIT=y' "$cfg"; return ;;
	*comp64.o|*comp_64.o) grep -q '^CONFIG_64BIT=y' "$cfg"; return ;;
	esac
	mk="$SRC_PATCHED/$(dirname "$o")/Makefile"
	[ -f "$mk" ] || return 0
	sym=$(grep -E "^obj-\\$\(CONFIG_[A-Z0-9_]+\).*[[:space:]]$(basename "$o")([[:space:]]|\$)" "$mk" |
	      head -1 | sed -E 's/^obj-\$\((CONFIG_[A-Z0-9_]+)\).*/\1/')
	[ -z "$sym" ] || grep -q "^$sym=y" "$cfg"
}

# Objects that hold the series' code for ARCH that configuration $2 builds.
objects_for() {
	local a=$1 cfg=$2 o
	for o in mm/jitalloc.o kernel/module/main.o kernel/kprobes.o kernel/bpf/core.o \
		 arch/$a/mm/jitalloc.o arch/$a/mm/init.o arch/$a/kernel/module.o \
		 arch/$a/kernel/kprobes.o arch/$a/kernel/ftrace.o arch/$a/net/bpf_jit_comp.o \
		 arch/$a/net/bpf_jit_comp32.o arch/$a/net/bpf_jit_comp64.o arch/$a/net/bpf_jit_core.o \
		 arch/$a/net/bpf_jit_comp_32.o arch/$a/mm/mem.o arch/$a/kernel/probes/kprobes.o \
		 arch/$a/kernel/patch.o; do
		[ -f "$SRC_PATCHED/${o%.o}.c" ] || continue
		case "$o" in
		kernel/module/main.o) grep -q '^CONFIG_MODULES=y' "$cfg" || continue ;;
		esac
		built_by_config "$o" "$cfg" && echo "$o"
	done
}
