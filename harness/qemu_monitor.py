#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where every vCPU of a stuck guest is: ask QEMU's human monitor (a unix
socket, -monitor unix:PATH,server,nowait) for "info cpus" and
"info registers -a", and name each vCPU's program counter with the
kernel's System.map.

Usage: qemu_monitor.py SOCKET SYSTEM_MAP OUT CONSOLE_LOG
Writes the monitor's answers and one line per vCPU, "vcpu N: pc=ADDR
SYMBOL+OFF (halted|running)", to OUT; prints those lines.  The KASLR
offset comes from the line "### kernel _stext ADDR" the guest's /init
prints to CONSOLE_LOG.  Exit status 1 when the monitor cannot be reached.
"""
import bisect
import re
import socket
import sys
import time

PROMPT = b"(qemu) "


def ask(sock, command, timeout=10.0):
    """Send @command and read up to the next prompt."""
    if command:
        sock.sendall(command.encode() + b"\n")
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
    regs = ask(sock, "info registers -a", timeout=20.0)
    sock.close()

    addrs, names = load_symbols(sysmap)
    offset = kaslr_offset(sysmap, console)
    halted = {}
    for m in re.finditer(r"CPU #(\d+):[^\n]*", cpus):
        halted[int(m.group(1))] = "halted" in m.group(0)
    lines = []
    # x86: "CPU#1" then RIP=...; arm64: "CPU#1" then " PC=..."
    for block in re.split(r"\n(?=CPU#\d+)", regs):
        m = re.match(r"CPU#(\d+)", block)
        pc = re.search(r"\b(?:RIP|PC)=([0-9a-fA-F]+)", block)
        if not m or not pc:
            continue
        n, addr = int(m.group(1)), int(pc.group(1), 16)
        # x86 shows HLT=1 in its registers, other targets in "info cpus"
        hlt = re.search(r"\bHLT=1\b", block) or halted.get(n)
        lines.append("vcpu %d: pc=0x%x %s (%s)" %
                     (n, addr, symbolize(addr - offset, addrs, names),
                      "halted" if hlt else "running"))
    with open(out, "w") as f:
        f.write(cpus + "\n" + regs + "\n" + "\n".join(lines) + "\n")
    for line in lines or ["vcpu dump: the monitor listed no vCPU registers"]:
        print(line)


if __name__ == "__main__":
    main()
