#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile inputs for `xpuinit audit` and the start-time device-code check (tests/attack/audit.sh).

Each one cost the reader minutes to hours before it had a work budget (docs/audit.md, "Limits"):

  ccob-flood.so     an ELF whose .hip_fatbin holds COPIES version-1 zlib CCOBs of about 2 KiB,
                    each inflating to a 2 MiB bundle table (version 1 states no total size)
  overlap.so        an ELF with HEADERS section headers that all name one .nv_fatbin region
  index-gfx.json    a device-code index as large as a start reads (2 MiB) whose one object lists
                    700,000 "" in "gfx" (the report's had 5.6 million in 16 MiB)
  index-300.json    an index whose "gfx" lists 300 names, more than the audit ever writes
  many-values.json  an index of 2 MiB of small objects (the most values the size cap allows)
  index-largest.json   the largest index a start accepts by its number of values: objects as the
                    audit writes them, just under 131,072 JSON values
  index-long-strings.json  the largest by size: 2 MiB of long path and reason strings

Usage: mkhostile.py DIR [COPIES [HEADERS]]   (defaults 500 and 65280, as in the report)
       mkhostile.py --seeds DIR                small ones (under 64 KiB) for the fuzz corpora:
                    tests/fuzz/corpus/object/hostile-* and tests/fuzz/corpus/index/hostile-*
Standard library only; the layouts are those of probes/devcode/bundle.h, fatbin.h and elf(5).
"""
import struct
import sys
import zlib

SHT_PROGBITS, SHT_STRTAB = 1, 3
SHF_ALLOC = 2


def elf(sections, repeat=None):
    """An ELF64 LE shared object with SECTIONS [(name, type, flags, data)] and no program
    headers; REPEAT = (index, count) adds COUNT more headers identical to section INDEX."""
    names = b"\0"
    name_off = []
    for name, _, _, _ in sections:
        name_off.append(len(names))
        names += name.encode() + b"\0"
    shstr_name = len(names)
    names += b".shstrtab\0"
    body = b""
    offs = []
    for _, _, _, data in sections:
        while (64 + len(body)) % 8:
            body += b"\0"
        offs.append(64 + len(body))
        body += data
    shstr_off = 64 + len(body)
    body += names
    while (64 + len(body)) % 8:
        body += b"\0"
    shoff = 64 + len(body)
    hdrs = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    for i, (_, typ, flags, data) in enumerate(sections):
        hdrs.append(struct.pack("<IIQQQQIIQQ", name_off[i], typ, flags, 0, offs[i], len(data), 0, 0, 8, 0))
    if repeat:
        index, count = repeat
        hdrs += [hdrs[1 + index]] * count
    shstrndx = len(hdrs)
    hdrs.append(struct.pack("<IIQQQQIIQQ", shstr_name, SHT_STRTAB, 0, 0, shstr_off, len(names), 0, 0, 1, 0))
    if len(hdrs) >= 0xFF00:
        raise SystemExit("mkhostile: too many section headers for e_shnum")
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 56, 0, 64, len(hdrs), shstrndx)
    return ehdr + body + b"".join(hdrs)


def ccob_v1(table):
    """A version-1 zlib CCOB of TABLE: magic, version, method, uncompressed size, hash, stream."""
    return b"CCOB" + struct.pack("<HHI", 1, 0, len(table)) + bytes(8) + zlib.compress(table, 9)


def bundle_table(entries, id_len):
    """A plain bundle's head: magic, count, then ENTRIES table entries of ID_LEN-byte IDs."""
    ident = b"hipv4-amdgcn-amd-amdhsa--gfx90a:"
    ident = (ident + b"x" * id_len)[:id_len]
    entry = struct.pack("<QQQ", 0, 0, id_len) + ident
    return b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", entries) + entry * entries


def fatbin(containers, entries):
    """CONTAINERS fatbin containers of ENTRIES stored SASS entries (sm_80) of no payload each."""
    entry = bytearray(64)
    struct.pack_into("<H", entry, 0, 2)  # kind: SASS
    struct.pack_into("<I", entry, 4, 64)  # header size; padded payload (8) and flags (0x28) 0
    struct.pack_into("<I", entry, 0x1C, 80)  # sm_80
    entry = bytes(entry)
    one = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, entries * 64) + entry * entries
    return one * containers


def nested_fatbin(n):
    """N entries, each holding in its unused bytes 48..63 the header of a container whose entries
    are the ones after it: every container found is walked again (O(N^2) entry headers)."""
    buf = bytearray(32 + 64 * n)
    for i in range(n):
        at = 32 + 64 * i
        struct.pack_into("<H", buf, at, 2)
        struct.pack_into("<I", buf, at + 4, 64)
        struct.pack_into("<I", buf, at + 0x1C, 80)
    for k in range(n):
        struct.pack_into("<IHHQ", buf, 16 + 64 * k, 0xBA55ED50, 1, 16, 64 * (n - k))
    return bytes(buf)


def seeds(out):
    junk = bytes((i * 131 + 7) & 0xFF for i in range(2048))
    files = {
        "object/hostile-ccob-flood.so": elf([(".hip_fatbin", SHT_PROGBITS, SHF_ALLOC,
                                              ccob_v1(bundle_table(4096, 500)) * 7)]),
        "object/hostile-overlap.so": elf([(".nv_fatbin", SHT_PROGBITS, SHF_ALLOC, fatbin(1, 40))], repeat=(0, 400)),
        "object/hostile-nested-containers.so": elf([(".nv_fatbin", SHT_PROGBITS, SHF_ALLOC, nested_fatbin(900))]),
        "object/hostile-garbage-nv-fatbin.so": elf([(".nv_fatbin", SHT_PROGBITS, SHF_ALLOC, junk)]),
        "index/hostile-list-300.json": b'{"version": 1, "objects": [{"path": "x", "kind": "elf", "amd": {"gfx": ['
        + b",".join(b'"gfx%d"' % i for i in range(300)) + b"]}}]}\n",
        "index/hostile-empty-names.json": b'{"version": 1, "objects": [{"path": "x", "kind": "elf", "amd": {"gfx": ['
        + b",".join([b'""'] * 20000) + b"]}}]}\n",
    }
    for name, data in files.items():
        if len(data) >= 64 << 10:
            raise SystemExit("mkhostile: seed %s is %d bytes, over 64 KiB" % (name, len(data)))
        with open(out + "/" + name, "wb") as f:
            f.write(data)


def main():
    if sys.argv[1] == "--seeds":
        seeds(sys.argv[2])
        return
    out = sys.argv[1]
    copies = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    headers = int(sys.argv[3]) if len(sys.argv) > 3 else 65280
    flood = ccob_v1(bundle_table(4096, 500)) * copies
    with open(out + "/ccob-flood.so", "wb") as f:
        f.write(elf([(".hip_fatbin", SHT_PROGBITS, SHF_ALLOC, flood)]))
    region = fatbin(3, 1000)
    with open(out + "/overlap.so", "wb") as f:
        f.write(elf([(".nv_fatbin", SHT_PROGBITS, SHF_ALLOC, region)], repeat=(0, headers - 4)))
    cap = 2 << 20
    head = b'{"version": 1, "objects": [{"path": "usr/lib/libx.so", "kind": "elf", "amd": {"gfx": ['
    tail = b"]}}]}\n"
    n = (cap - len(head) - len(tail) + 1) // 3
    with open(out + "/index-gfx.json", "wb") as f:
        f.write(head + b",".join([b'""'] * n) + tail)
    names = b",".join(b'"gfx%d"' % i for i in range(300))
    with open(out + "/index-300.json", "wb") as f:
        f.write(head + names + tail)
    obj = b'{"path":"a","kind":"elf"}'
    n = (cap - 40) // (len(obj) + 1)
    with open(out + "/many-values.json", "wb") as f:
        f.write(b'{"version":1,"objects":[' + b",".join([obj] * n) + b"]}\n")
    # An object as `xpuinit audit --write-index` writes one for a CUDA library (46 values).
    real = ('{"path": "usr/lib/x86_64-linux-gnu/libx%d.so.13", "size_bytes": 123456789, "kind": "elf", '
            '"vendor": "nvidia", "library": "libcublasLt", "layers": ["blas"], "needed": ["libcudart.so.13"], '
            '"nvidia": {"sass": ["sm_80", "sm_90", "sm_90a", "sm_100"], "ptx": ["compute_120"], '
            '"ptx_isa": {"compute_120": "9.0"}, "lto": [], "relocatable": {"sass": [], "ptx": []}, '
            '"compression": [], "sections": [".nv_fatbin"]}}')
    per = sum(real.count(c) for c in "{[,:") + 1
    n = (131072 - 16) // per
    with open(out + "/index-largest.json", "w") as f:
        f.write('{"version": 1, "generator": "mkhostile", "root": "/", "objects": [' +
                ", ".join(real % i for i in range(n)) + "]}\n")
    long_obj = '{"path": "%s%%d", "kind": "elf", "vendor": "amd", "malformed": "%s"}' % ("p" * 3000, "m" * 4000)
    n = (cap - 200) // (len(long_obj % 0) + 8)
    with open(out + "/index-long-strings.json", "w") as f:
        f.write('{"version": 1, "objects": [' + ", ".join(long_obj % i for i in range(n)) + "]}\n")


if __name__ == "__main__":
    main()
