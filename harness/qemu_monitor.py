#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where every vCPU of a stuck guest is: ask QEMU's human monitor (a unix
socket, -monitor unix:PATH,server,nowait) for "info cpus" and, three times
a second apart, "info registers -a"; name each vCPU's program counter with
the kernel's System.map and read the byte there ("x /1bx", through that
vCPU's page tables).

Usage: qemu_monitor.py SOCKET SYSTEM_MAP OUT CONSOLE_LOG
Writes the monitor's answers and one line per vCPU to OUT and prints the
lines:

  vcpu N: pc=ADDR SYMBOL+OFF (halted|running) [irqs off] [pc fixed]
          [byte 0xNN]

"irqs off": x86's RFLAGS.IF clear in every sample; "pc fixed": the same
program counter in all three samples, or in every sample not taken at the
int3 entry (then the line names that instruction and says how many
samples were at int3).  The KASLR offset comes from the
line "### kernel _stext ADDR" the guest's /init prints to CONSOLE_LOG.
Exit status 1 when the monitor cannot be reached.
"""
import bisect
import re
import socket
import sys
import time

PROMPT = b"(qemu) "
SAMPLES = 3


def ask(sock, command, timeout=10.0):
    """Send @command and read up to the next prompt."""
    if command:
        try:
            sock.sendall(command.encode() + b"\n")
        except OSError:
            return ""  # QEMU has gone
    out = b""
    end = time.time() + timeout
    while time.time() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        out += data
        if out.endswith(PROMPT):
            break
    return out.decode(errors="replace").replace("\r", "")


def kaslr_offset(sysmap, console):
    """Runtime _stext (from the console) minus System.map's, or 0."""
    try:
        with open(console, errors="replace") as f:
            m = re.search(r"### kernel _stext 0x([0-9a-f]+)", f.read())
        with open(sysmap) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[2] == "_stext":
                    return int(m.group(1), 16) - int(parts[0], 16) if m else 0
    except OSError:
        pass
    return 0


def load_symbols(path):
    addrs, names = [], []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[1] in "tTwW":
                    addrs.append(int(parts[0], 16))
                    names.append(parts[2])
    except OSError:
        pass
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def symbolize(pc, addrs, names):
    i = bisect.bisect_right(addrs, pc) - 1
    if i < 0 or pc - addrs[i] > 1 << 20:
        return "?"
    return "%s+0x%x" % (names[i], pc - addrs[i])


def registers(text):
    """{cpu: (pc, irqs_off, halted)} from one "info registers -a"."""
    cpus = {}
    # x86: "CPU#1" then RIP=... RFL=...; arm64: "CPU#1" then " PC=..."
    for block in re.split(r"\n(?=CPU#\d+)", text):
        m = re.match(r"CPU#(\d+)", block)
        pc = re.search(r"\b(?:RIP|PC)=([0-9a-fA-F]+)", block)
        if not m or not pc:
            continue
        rfl = re.search(r"\bRFL=([0-9a-fA-F]+)", block)
        irqs_off = bool(rfl) and not int(rfl.group(1), 16) & 0x200
        cpus[int(m.group(1))] = (int(pc.group(1), 16), irqs_off,
                                 bool(re.search(r"\bHLT=1\b", block)))
    return cpus


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: qemu_monitor.py SOCKET SYSTEM_MAP OUT CONSOLE_LOG")
    path, sysmap, out, console = sys.argv[1:]
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(1.0)
    try:
        sock.connect(path)
    except OSError as e:
        print("vcpu dump: cannot reach the QEMU monitor at %s: %s" % (path, e))
        sys.exit(1)
    ask(sock, "")
    cpus = ask(sock, "info cpus")
    raw, samples = [], []
    for i in range(SAMPLES):
        if i:
            time.sleep(1.0)
        raw.append(ask(sock, "info registers -a", timeout=20.0))
        samples.append(registers(raw[-1]))
    first = samples[0]
    code = {}
    for n, (pc, _, _) in first.items():
        ask(sock, "cpu %d" % n)
        m = re.search(r":\s*0x([0-9a-fA-F]{2})\b", ask(sock, "x /1bx 0x%x" % pc))
        if m:
            code[n] = int(m.group(1), 16)
    sock.close()

    addrs, names = load_symbols(sysmap)
    offset = kaslr_offset(sysmap, console)
    halted = {}
    for m in re.finditer(r"CPU #(\d+):[^\n]*", cpus):
        halted[int(m.group(1))] = "halted" in m.group(0)
    lines = []
    for n, (pc, _, hlt) in sorted(first.items()):
        seen = [s.get(n) for s in samples]
        # a vCPU that traps again and again at one instruction: every
        # sample there or at the int3 entry (QEMU TCG running a stale
        # translation of code text_poke_bp() has already restored) is
        # reported at that instruction, "pc fixed" with the int3 count
        stay = {s[0] for s in seen if s and
                not symbolize(s[0] - offset, addrs, names).startswith("asm_exc_int3+0x0")}
        trapping = len(stay) == 1 and all(seen) and \
            not all(s[0] == pc for s in seen)
        at = stay.pop() if trapping else pc
        # x86 shows HLT=1 in its registers, other targets in "info cpus"
        line = "vcpu %d: pc=0x%x %s (%s)" % (
            n, at, symbolize(at - offset, addrs, names),
            "halted" if hlt or halted.get(n) else "running")
        if all(s and s[1] for s in seen):
            line += " irqs off"
        if all(s and s[0] == pc for s in seen):
            line += " pc fixed"
        elif trapping:
            line += " pc fixed (int3 at it in %d of %d samples)" % (
                SAMPLES - sum(s[0] == at for s in seen), SAMPLES)
        if n in code:
            line += " byte 0x%02x" % code[n]
        lines.append(line)
    with open(out, "w") as f:
        f.write(cpus + "\n" + "\n".join(raw) + "\n" + "\n".join(lines) + "\n")
    for line in lines or ["vcpu dump: the monitor listed no vCPU registers"]:
        print(line)


if __name__ == "__main__":
    main()
