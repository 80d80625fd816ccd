#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""audit-reader: the facts `xpuinit audit` reads, read by a straightforward Python 3 program.

    audit-reader.py ROOT                 one line per object: path, soname, SASS, PTX, ...
    audit-reader.py --check JSON ROOT    the same, then compared with `xpuinit audit --json ROOT`

The baseline of the audit's speed budget (tests/bench/run.sh, docs/performance.md): the same work
as probes/devcode/object.c, fatbin.c and bundle.c, written the way a Python programmer would, with
the standard library only. The walk follows no link (os.walk) and reads each regular file once
(hard links once). Per file: the first 64 bytes; for an ELF64 little-endian object the section
headers and names, DT_NEEDED and DT_SONAME, and the sections the audit scans, by the same rule
(.nv_fatbin, __nv_relfatbin, .hip_fatbin, and every allocated non-executable PROGBITS section of
an NVIDIA-tied object but those object.c's section_skipped() lists). The file is mapped once
(mmap) and the fatbin magic found with mmap.find() (C underneath) at every byte offset; each
container's entry headers are walked (kind, SM, flags), a valid container is skipped whole, a
stored SASS cubin of at most 64 KiB is opened for a .text.<kernel> section (device-link stubs
count for nothing), and .dynstr/.strtab are searched for Thrust/CUB names, as the audit does.
Offload bundles: plain bundle tables; a CCOB's head is decompressed with zlib (the standard
library has no zstd, so of a zstd CCOB only its compression is known). Standalone cubins, fatbin
and bundle files and .ptx text are read as the audit reads them.

Fairness: --check compares, object by object, the soname and the SASS, PTX, LTO-IR, relocatable
and AMD target sets with the audit's JSON and exits 1 on any difference; run.sh runs it before the
timing. On /usr/local/cuda/lib64 (CUDA 13 with cuDNN 9 and NCCL: 32 objects) every set matches,
and on tests/fixtures/devcode all but the targets inside the zstd CCOBs (libhip.so,
two-v2-zstd.ccob)."""

import mmap
import os
import re
import stat
import struct
import sys
import zlib

FATBIN_MAGIC = struct.pack("<I", 0xBA55ED50)
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB_MAGIC = b"CCOB"
SASS, PTX, LTO = 2, 1, 8
STUB_MAX = 64 << 10
SM_MAX = 255
SECTION_SCAN_MAX = 4 << 30
NAMES_MAX = 256  # names one list of an object keeps (object.c)

SHT_PROGBITS, SHT_STRTAB, SHT_DYNAMIC, SHT_NOTE, SHT_NOBITS = 1, 3, 6, 7, 8
SHF_ALLOC, SHF_EXECINSTR = 2, 4
DT_NEEDED, DT_SONAME = 1, 14
EM_CUDA, EM_AMDGPU = 190, 224

SKIPPED = {
    ".interp", ".dynsym", ".dynstr", ".gnu.hash", ".hash", ".eh_frame", ".eh_frame_hdr",
    ".gcc_except_table", ".gnu.version", ".gnu.version_r", ".gnu.version_d", ".dynamic", ".got",
    ".got.plt", ".init_array", ".fini_array", ".preinit_array", ".data.rel.ro", ".tdata", ".ctors",
    ".dtors", ".nvFatBinSegment",
}
PARALLEL_MARKS = (b"_ZN6thrust", b"_ZN3cub", b"_ZN7rocprim", b"_ZN6hipcub", b"_ZNK6thrust")

# Vendor libraries by the soname up to ".so" (probes/devcode/libraries.c); "*" ends a prefix.
NVIDIA_LIBS = """libcuda libnvidia-ml libnvidia-ptxjitcompiler libnvidia-nvvm libnvidia-* libcudart
libcudnn libcudnn_* libnvinfer* libnvonnxparser libcublas libcublasLt libcublasmp libnvblas
libcutensor* libcusparse libcusparseLt libcufft libcufftw libcufftMp libcurand libcusolver
libcusolverMg libcudss libnccl libnvshmem* libnvrtc libnvrtc.alt libnvrtc-builtins
libnvrtc-builtins.alt libnvJitLink libnvvm libnvfatbin libnvptxcompiler libcupti libnvperf_host
libnvperf_target libpcsamplingutil libcheckpoint libnvtx3interop libnvToolsExt libnpp* libnvjpeg
libcufile libcufile_rdma""".split()
AMD_LIBS = """libamdhip64 libhsa-runtime64 libhsakmt libamdocl64 libMIOpen libmigraphx* librocblas
libhipblas libhipblaslt librocsparse libhipsparse libhipsparselt librocfft librocfft-device*
libhipfft librocrand libhiprand librocsolver libhipsolver librccl libhiprtc libhiprtc-builtins
libamd_comgr librocprofiler* libroctracer64 libroctx64 librocm_smi64 libamd_smi""".split()


def vendor_of(soname):
    """'nvidia', 'amd' or None for a soname or file name."""
    if not soname or not soname.startswith("lib"):
        return None
    i = soname.find(".so")
    if i < 0 or soname[i + 3:i + 4] not in ("", "."):
        return None
    base = soname[:i]
    prefix = None
    for vendor, names in (("nvidia", NVIDIA_LIBS), ("amd", AMD_LIBS)):
        for n in names:
            if n.endswith("*"):
                if prefix is None and base.startswith(n[:-1]):
                    prefix = vendor
            elif n == base:
                return vendor
    return prefix


class Obj:
    def __init__(self, path):
        self.path = path
        self.soname = None
        self.needed = []
        self.sass, self.ptx, self.lto = set(), set(), set()
        self.rel_sass, self.rel_ptx = set(), set()
        self.gfx, self.amd_compression = set(), set()
        self.nv_sections, self.amd_sections = [], []
        self.parallel = False
        self.malformed = None

    def bad(self, why):
        if self.malformed is None:
            self.malformed = why


def add(names, name):
    if len(names) < NAMES_MAX:
        names.add(name)


def code_name(kind, sm, flags):
    prefix = "compute" if kind == PTX else "lto" if kind == LTO else "sm"
    suffix = "a" if flags & 0x100000 else "f" if flags & 0x200000 else ""
    return "%s_%d%s" % (prefix, sm, suffix)


def cubin_has_kernels(b):
    """(has kernels, readable) for the stored cubin B (a memoryview or bytes)."""
    if len(b) < 64 or b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
        return True, False
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
    if shentsize < 64 or shnum == 0 or shstrndx >= shnum or shoff > len(b) or shnum * shentsize > len(b) - shoff:
        return True, False
    str_off, str_size = struct.unpack_from("<QQ", b, shoff + shstrndx * shentsize + 0x18)
    if str_off > len(b) or str_size > len(b) - str_off:
        return True, False
    for i in range(shnum):
        name, = struct.unpack_from("<I", b, shoff + i * shentsize)
        if name < str_size and str_size - name >= 6 and b[str_off + name:str_off + name + 6] == b".text.":
            return True, True
    return False, True


def scan_fatbin(o, m, start, end, section, rel):
    """Every fatbin container in M[START:END): entry headers into O's name sets."""
    found = 0
    pos = start
    while pos + 16 <= end:
        off = m.find(FATBIN_MAGIC, pos, end)
        if off < 0 or end - off < 16:
            break
        version, hsize, fat = struct.unpack_from("<HHQ", m, off + 4)
        if version != 1 or hsize != 16:
            pos = off + 1
            continue
        found += 1
        avail = end - off - 16
        malformed = fat > avail
        left, at, n = min(fat, avail), off + 16, 0
        while left > 0:
            if n == 4096:
                malformed = True
                break
            if left < 64:
                malformed = True
                break
            kind, header, padded, compressed, minor, major, sm = struct.unpack_from("<HxxIIxxxxIxxxxHHI", m, at)
            flags, = struct.unpack_from("<Q", m, at + 0x28)
            if header < 64 or header > 4096 or header > left or padded > left - header:
                malformed = True
                break
            n += 1
            if sm == 0 or sm > SM_MAX:
                o.bad("%s: a fatbin entry names SM %d" % (section, sm))
            else:
                name = code_name(kind, sm, flags)
                if kind == LTO:
                    add(o.lto, name)
                elif kind in (SASS, PTX):
                    if rel:
                        add(o.rel_sass if kind == SASS else o.rel_ptx, name)
                    elif kind == PTX:
                        add(o.ptx, name)
                    else:
                        kernels = True
                        if not flags & (0x2000 | 0x8000) and padded <= STUB_MAX:
                            kernels, _ = cubin_has_kernels(m[at + header:at + header + padded])
                        if kernels:
                            add(o.sass, name)
            at += header + padded
            left -= header + padded
        if malformed:
            o.bad("%s: the fatbin container at offset %d is malformed" % (section, off - start))
        pos = off + 1 if malformed else off + 16 + fat
    return found


def read_plain_bundle(o, b, avail, code_limit, section):
    """The plain bundle at the start of B. Returns (bytes it spans, malformed)."""
    if avail < 32:
        return 24, True
    count, = struct.unpack_from("<Q", b, 24)
    if count == 0 or count > 4096:
        return 24, True
    at = end = 32
    for _ in range(count):
        if avail - at < 24:
            return max(end, at), True
        off, size, idlen = struct.unpack_from("<QQQ", b, at)
        at += 24
        if idlen == 0 or idlen > 1024 or idlen > avail - at or off > code_limit or size > code_limit - off:
            return max(end, at), True
        ident = bytes(b[at:at + idlen])
        at += idlen
        if b"\0" in ident:
            return max(end, at), True
        parts = ident.decode("latin-1").split("-", 5)
        if len(parts) < 2 or not parts[0]:
            return max(end, at), True
        if len(parts) == 6 and parts[0].startswith("hip") and parts[1].startswith("amdgcn") and parts[5]:
            add(o.gfx, parts[5])
        end = max(end, at, off + size)
    return max(end, at), False


def scan_bundles(o, m, start, end, section):
    """Every plain and compressed offload bundle in M[START:END)."""
    found = 0
    pos = start
    while pos + 4 <= end:
        p = m.find(BUNDLE_MAGIC, pos, end)
        c = m.find(CCOB_MAGIC, pos, p + 3 if p >= 0 else end)
        at = p if p >= 0 and (c < 0 or p < c) else c
        if at < 0:
            break
        avail = end - at
        if at == p:
            found += 1
            size, malformed = read_plain_bundle(o, memoryview(m)[at:end], avail, avail, section)
            pos = at + (1 if malformed else size)
            continue
        version, method = struct.unpack_from("<HH", m, at + 4) if avail >= 8 else (0, 9)
        header = {1: 20, 2: 24, 3: 32}.get(version, 0)
        if not header or method not in (0, 1):
            pos = at + 1
            continue
        found += 1
        total, usize = (0, struct.unpack_from("<I", m, at + 8)[0]) if version == 1 else \
            struct.unpack_from("<II" if version == 2 else "<QQ", m, at + 8)
        o.amd_compression.add("ccob-v%d-%s" % (version, "zstd" if method else "zlib"))
        stream_end = end if version == 1 or total <= header else at + total
        if method == 0 and stream_end <= end:
            head = zlib.decompressobj().decompress(m[at + header:stream_end], 1 << 20)
            read_plain_bundle(o, head, len(head), usize, section)
        pos = at + (total if header <= total <= avail else 1)
    return found


def read_elf(o, f, m, name, size):
    if m[4] != 2 or m[5] != 1:
        return False
    if size < 64:
        o.bad("shorter than an ELF header")
        return True
    e_type, machine, _, _, _, shoff, e_flags, _, _, _, shentsize, shnum, shstrndx = \
        struct.unpack_from("<HHIQQQIHHHHHH", m, 16)
    osabi = m[7]
    sections = []
    if shoff or shnum:
        if shentsize != 64 or shnum == 0 or shoff + shnum * 64 > size:
            o.bad("the section header table does not fit the file")
            return True
        names = b""
        if shstrndx:
            s = struct.unpack_from("<IIQQQQIIQQ", m, shoff + shstrndx * 64)
            names = m[s[4]:s[4] + s[5]]
        for i in range(shnum):
            nm, typ, flags, _, off, sz, link, _, _, _ = struct.unpack_from("<IIQQQQIIQQ", m, shoff + i * 64)
            z = names.find(b"\0", nm)
            sections.append((names[nm:z].decode("latin-1") if nm < len(names) else "", typ, flags, off, sz, link))
    if machine == EM_CUDA:
        sm = (e_flags >> 8) & 0xff if osabi == 0x41 else e_flags & 0xff
        o.nv_sections.append("file")
        if any(s[0].startswith(".text.") for s in sections) and sm:
            o.sass.add("sm_%d" % sm)
        return True
    if machine == EM_AMDGPU:
        o.amd_sections.append("file")
        for s in sections:
            if s[1] == SHT_NOTE:
                note = m[s[3]:s[3] + min(s[4], 64 << 10)]
                i = note.find(b"amdgcn-amd-amdhsa--")
                if i >= 0:
                    t = re.match(rb"[a-z0-9:+-]*", note[i + 19:]).group().decode()
                    if t:
                        o.gfx.add(t)
                        break
        return True
    if not sections and e_type in (2, 3):
        o.bad("no section headers")
        return True
    by_name = {s[0]: s for s in sections}
    for s in sections:
        if s[1] == SHT_DYNAMIC:
            strtab = sections[s[5]]
            for i in range(s[4] // 16):
                tag, val = struct.unpack_from("<qQ", m, s[3] + i * 16)
                if tag == 0:
                    break
                if tag in (DT_NEEDED, DT_SONAME):
                    z = m.find(b"\0", strtab[3] + val)
                    v = m[strtab[3] + val:z].decode("latin-1")
                    if tag == DT_SONAME:
                        o.soname = v
                    else:
                        o.needed.append(v)
            break
    vendors = {vendor_of(o.soname or name)} | {vendor_of(n) for n in o.needed}
    if ".nv_fatbin" in by_name or "__nv_relfatbin" in by_name or ".nvFatBinSegment" in by_name:
        vendors.add("nvidia")
    if ".hip_fatbin" in by_name:
        vendors.add("amd")
    nv = "nvidia" in vendors
    for sname, typ, flags, off, sz, _ in sections:
        if typ == SHT_NOBITS or sz == 0 or sz > SECTION_SCAN_MAX:
            continue
        if sname == ".hip_fatbin":
            if scan_bundles(o, m, off, off + sz, sname):
                o.amd_sections.append(sname)
        elif sname == "__nv_relfatbin":
            if scan_fatbin(o, m, off, off + sz, sname, True):
                o.nv_sections.append(sname)
        elif sname == ".nv_fatbin" or (nv and flags & SHF_ALLOC and not flags & SHF_EXECINSTR and
                                       typ == SHT_PROGBITS and sname not in SKIPPED and
                                       not sname.startswith((".rela", ".rel.", ".note"))):
            if scan_fatbin(o, m, off, off + sz, sname or "(unnamed)", False):
                o.nv_sections.append(sname)
    if nv or "amd" in vendors:
        for t in (".dynstr", ".strtab"):
            s = by_name.get(t)
            if s and s[1] == SHT_STRTAB and 0 < s[4] <= 8 << 20:
                strings = os.pread(f.fileno(), s[4], s[3])
                if any(mark in strings for mark in PARALLEL_MARKS):
                    o.parallel = True
                    break
    return True


def read_object(path, rel, size):
    """An Obj for the file at PATH, or None when it holds no object the audit reads."""
    with open(path, "rb") as f:
        head = f.read(64)
        name = os.path.basename(rel)
        if head[:4] == b"\x7fELF" or head[:4] == FATBIN_MAGIC or head[:24] == BUNDLE_MAGIC or head[:4] == CCOB_MAGIC:
            o = Obj(rel)
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                if head[:4] == b"\x7fELF":
                    return o if read_elf(o, f, m, name, size) else None
                if head[:4] == FATBIN_MAGIC:
                    if scan_fatbin(o, m, 0, size, "file", False):
                        o.nv_sections.append("file")
                elif scan_bundles(o, m, 0, size, "file"):
                    o.amd_sections.append("file")
            return o
        if not name.endswith(".ptx"):
            return None
        text = (head + f.read((64 << 10) - len(head))).decode("latin-1")
    version = target = None
    for line in text.split("\n"):
        words = line.split("//")[0].split()
        if len(words) >= 2 and words[0] == ".version" and version is None:
            version = words[1]
        if len(words) >= 2 and words[0] == ".target" and target is None:
            target = words[1].rstrip(",")
    if not version or not target or not target.startswith("sm_"):
        return None
    o = Obj(rel)
    o.nv_sections.append("file")
    o.ptx.add("compute_" + target[3:])
    return o


def walk(root):
    """(path, path relative to ROOT, size) of every regular file, no link followed, hard links once."""
    st = os.lstat(root)
    if stat.S_ISREG(st.st_mode):
        yield root, os.path.basename(root), st.st_size
        return
    seen = set()
    for top, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for fn in sorted(files):
            p = os.path.join(top, fn)
            st = os.lstat(p)
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            yield p, os.path.relpath(p, root), st.st_size


def key(s):
    digits = "".join(ch for ch in s.split("_", 1)[-1] if ch.isdigit())
    return (int(digits) if digits else 0, s)


def sets_of(o):
    return {"soname": o.soname, "sass": o.sass, "ptx": o.ptx, "lto": o.lto, "relocatable.sass": o.rel_sass,
            "relocatable.ptx": o.rel_ptx, "gfx": o.gfx}


def check(objs, path):
    """Compare with the audit's JSON at PATH; returns the number of differences (printed)."""
    import json
    with open(path) as f:
        audit = {j["path"]: j for j in json.load(f)["objects"]}
    diffs = 0
    for o in objs:
        j = audit.pop(o.path, None)
        if j is None:
            print("check: %s: not in the audit" % o.path)
            diffs += 1
            continue
        nv, amd = j.get("nvidia") or {}, j.get("amd") or {}
        rel = nv.get("relocatable") or {}
        theirs = {"soname": j.get("soname"), "sass": set(nv.get("sass", [])), "ptx": set(nv.get("ptx", [])),
                  "lto": set(nv.get("lto", [])), "relocatable.sass": set(rel.get("sass", [])),
                  "relocatable.ptx": set(rel.get("ptx", [])), "gfx": set(amd.get("gfx", []))}
        for k, v in sets_of(o).items():
            if v != theirs[k]:
                print("check: %s: %s: this reader %s, the audit %s" % (o.path, k, v, theirs[k]))
                diffs += 1
    for p in audit:
        print("check: %s: only in the audit" % p)
        diffs += 1
    return diffs


def main(argv):
    against = None
    if len(argv) >= 3 and argv[1] == "--check":
        against = argv[2]
        argv = argv[2:]
    if len(argv) != 2:
        sys.stderr.write("usage: audit-reader.py [--check AUDIT_JSON] ROOT\n")
        return 2
    objs = []
    for p, rel, size in walk(argv[1]):
        try:
            o = read_object(p, rel, size)
        except (OSError, ValueError, struct.error, IndexError, zlib.error) as e:
            o = Obj(rel)
            o.bad(str(e))
        if o is not None:
            objs.append(o)
    out = []
    for o in objs:
        out.append("%s soname=%s sass=%s ptx=%s lto=%s rel=%s gfx=%s parallel=%s%s" % (
            o.path, o.soname or "-", ",".join(sorted(o.sass, key=key)), ",".join(sorted(o.ptx, key=key)),
            ",".join(sorted(o.lto, key=key)), ",".join(sorted(o.rel_sass | o.rel_ptx, key=key)),
            ",".join(sorted(o.gfx)), "yes" if o.parallel else "no",
            " malformed" if o.malformed else ""))
    sys.stdout.write("\n".join(out) + "\n")
    if against is not None:
        diffs = check(objs, against)
        print("check: %d objects, %d differences from the audit" % (len(objs), diffs))
        return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
