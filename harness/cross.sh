#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compile-test the series on architectures we do not boot: for each, a
# defconfig-based kernel (plus MODULES=n where kprobes must survive it) is
# configured and the files the series touches for that arch, plus the core,
# are compiled with Debian's cross compiler.
# Usage: harness/cross.sh [ARCH...]   (default: every arch below)
# loongarch and nios2 have no Debian cross compiler and are reported so.
. "$(dirname "$0")/lib.sh"

. "$TOP/harness/crosslib.sh"

arches=${*:-"${!CROSS[*]}"}
"$TOP/harness/fetch.sh" >/dev/null || exit 1
"$TOP/harness/apply.sh" || exit 1

cross_install $arches

pass=0 fail=0
for a in $arches; do
	case " $UNAVAILABLE " in *" $a "*)
		echo "cross $a: no Debian cross compiler, not compile-tested"; continue ;;
	esac
	for variant in modules nomodules; do
		O=$OUT/cross-$a-$variant
		log=$LOGS/cross-$a-$variant.log
		: >"$log"
		mkdir -p "$O"
		km() { make -C "$SRC_PATCHED" O="$O" ARCH="$a" CROSS_COMPILE="${CROSS[$a]}" "$@"; }
		if stage "cross $a-$variant config" "$log" cross_config "$a" "$O" "$variant" &&
		   objs=$(objects_for "$a" "$O/.config") &&
		   echo "objects:" $objs >>"$log" &&
		   stage "cross $a-$variant compile" "$log" km -j"$(nproc)" $objs; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	done
done
echo "cross: $pass passed, $fail failed"
[ $fail -eq 0 ]
