#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn jitalloc_klp.ko's slot relocation into a livepatch relocation.

What klp-convert (not in 6.1) would do for one section: the relocation
section of .text.jt_klp_site takes the name of the empty section
.klp.rela.jitalloc_testmod..text.jt_klp_site and the SHF_RELA_LIVEPATCH
and SHF_ALLOC flags (livepatch applies it after the load, so it must stay
in module memory), and the .klp.sym.* symbols become SHN_LIVEPATCH, so
that the module loader leaves them to livepatch.  64-bit little-endian ELF only; running
it again changes nothing.

Usage: klp_fixup.py MODULE.ko
"""
import struct
import sys

SHT_SYMTAB, SHT_RELA = 2, 4
SHF_ALLOC = 0x2
SHF_RELA_LIVEPATCH = 0x00100000
SHN_LIVEPATCH = 0xff20
SITE = b'.text.jt_klp_site'
KLP_RELA = b'.klp.rela.jitalloc_testmod..text.jt_klp_site'


def fail(msg):
    print(f'klp_fixup.py: {msg}', file=sys.stderr)
    sys.exit(1)


def cstr(data, off):
    return data[off:data.index(b'\0', off)]


def main():
    if len(sys.argv) != 2:
        fail('usage: klp_fixup.py MODULE.ko')
    path = sys.argv[1]
    try:
        elf = bytearray(open(path, 'rb').read())
    except OSError as e:
        fail(f'{path}: {e.strerror}')
    if elf[:4] != b'\x7fELF' or elf[4] != 2 or elf[5] != 1:
        fail(f'{path}: not a 64-bit little-endian ELF file')
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)

    def shdr(i):
        return struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)

    names = shdr(shstrndx)
    shstr = bytes(elf[names[4]:names[4] + names[5]])
    secs = [shdr(i) for i in range(shnum)]
    by_name = {}
    for i, s in enumerate(secs):
        by_name.setdefault(cstr(shstr, s[0]), []).append(i)
    klp = [i for i in by_name.get(KLP_RELA, []) if secs[i][1] == SHT_RELA]
    if klp:
        return  # done before
    site = by_name.get(SITE)
    rela = [i for i in by_name.get(b'.rela' + SITE, []) if secs[i][1] == SHT_RELA]
    dummy = by_name.get(KLP_RELA)
    if not site or not rela or not dummy:
        fail(f'{path}: no {SITE.decode()} relocations to convert')
    r = rela[0]
    name_off = secs[dummy[0]][0]
    flags = secs[r][2] | SHF_RELA_LIVEPATCH | SHF_ALLOC
    struct.pack_into('<I', elf, shoff + r * shentsize, name_off)
    struct.pack_into('<Q', elf, shoff + r * shentsize + 8, flags)

    symtab = [i for i, s in enumerate(secs) if s[1] == SHT_SYMTAB]
    if len(symtab) != 1:
        fail(f'{path}: expected one symbol table')
    st = secs[symtab[0]]
    strtab = secs[st[6]]
    strs = bytes(elf[strtab[4]:strtab[4] + strtab[5]])
    converted = 0
    for off in range(st[4], st[4] + st[5], 24):
        st_name, = struct.unpack_from('<I', elf, off)
        if cstr(strs, st_name).startswith(b'.klp.sym.'):
            struct.pack_into('<H', elf, off + 6, SHN_LIVEPATCH)
            struct.pack_into('<Q', elf, off + 8, 0)
            converted += 1
    if not converted:
        fail(f'{path}: no .klp.sym symbol')
    open(path, 'wb').write(elf)


if __name__ == '__main__':
    main()
