#!/usr/bin/env python3
"""Bytecode size of classes in jars or class directories.

    code_size.py ORIGINAL WOVEN [WOVEN...]

For each WOVEN archive: the total `code_length` of every method of the classes
that are also in ORIGINAL (the input classes; aspect, runtime and extra
classes are left out), and how much that grew over ORIGINAL. Prints one line
per archive: `<archive> <original bytes> <woven bytes> <added bytes>`, and a
line per method that grew past 65535 bytes (none should: such a method cannot
load). Standard library only.
"""

import struct
import sys
import zipfile
from pathlib import Path


def code_lengths(data):
    """{method name+descriptor: code_length} of one class file."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a class file")
    count = struct.unpack_from(">H", data, 8)[0]
    utf8 = {}
    i, pos = 1, 10
    while i < count:
        tag = data[pos]
        if tag == 1:
            n = struct.unpack_from(">H", data, pos + 1)[0]
            utf8[i] = data[pos + 3 : pos + 3 + n].decode("utf-8", "replace")
            pos += 3 + n
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            pos += 5
        elif tag in (5, 6):
            pos += 9
            i += 1
        elif tag in (7, 8, 16, 19, 20):
            pos += 3
        elif tag == 15:
            pos += 4
        else:
            raise ValueError(f"constant pool tag {tag} at offset {pos}")
        i += 1
    pos += 6  # access, this, super
    n = struct.unpack_from(">H", data, pos)[0]
    pos += 2 + 2 * n

    def members(pos, want_code):
        n = struct.unpack_from(">H", data, pos)[0]
        pos += 2
        out = {}
        for _ in range(n):
            _, name, desc, attrs = struct.unpack_from(">HHHH", data, pos)
            pos += 8
            for _ in range(attrs):
                an, alen = struct.unpack_from(">HI", data, pos)
                if want_code and utf8.get(an) == "Code":
                    out[utf8[name] + utf8[desc]] = struct.unpack_from(">I", data, pos + 10)[0]
                pos += 6 + alen
        return pos, out

    pos, _ = members(pos, False)
    _, methods = members(pos, True)
    return methods


def classes(path):
    """{entry name: bytes} of the .class entries of a jar or directory."""
    p = Path(path)
    if p.is_dir():
        return {
            str(f.relative_to(p)): f.read_bytes()
            for f in sorted(p.rglob("*.class"))
        }
    with zipfile.ZipFile(p) as z:
        return {
            n: z.read(n)
            for n in z.namelist()
            if n.endswith(".class") and not n.startswith("META-INF/")
        }


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    original = {n: code_lengths(b) for n, b in classes(argv[1]).items()}
    before = sum(sum(m.values()) for m in original.values())
    for woven_path in argv[2:]:
        woven = classes(woven_path)
        after = 0
        for name in original:
            if name not in woven:
                continue
            methods = code_lengths(woven[name])
            after += sum(methods.values())
            for m, n in methods.items():
                if n > 65535:
                    print(f"  too large: {name} {m} {n}")
        print(f"{woven_path} {before} {after} {after - before}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
