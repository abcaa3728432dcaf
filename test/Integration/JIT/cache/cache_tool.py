#!/usr/bin/python3
"""Helpers of the compile cache tests (docs/compile-cache.md).

  cache_tool.py entries DIR          prints "N entries, M other files": the
                                     <key>.a/<key>.json pairs in DIR (a key is
                                     64 hex digits) and anything else
                                     (temporary files left behind)
  cache_tool.py corrupt KIND DIR     damages the one entry of DIR:
      truncate   the archive cut to half its size
      flip       one byte in the middle of the archive inverted
      manifest   the manifest replaced by text that is not JSON
      library    the manifest names a library that does not exist
      garbage    the archive replaced by bytes that are no archive, the
                 manifest's size and SHA-256 updated to match (an entry that
                 passes the checks and does not parse)
      member     the archive replaced by one whose one member is no object
                 file, the manifest updated to match (an entry that parses
                 and fails to link)
      members    prints the names of the archive's members (its objects)
  cache_tool.py same A B ...         the .npy files A, B, ... hold the same
                                     dtype, shape and bytes; prints SAME
"""
import glob
import hashlib
import json
import os
import re
import sys

import numpy as np

KEY = re.compile(r"^[0-9a-f]{64}$")


def entries(directory):
    keys = set()
    other = []
    for name in sorted(os.listdir(directory)):
        stem, ext = os.path.splitext(name)
        if KEY.match(stem) and ext in (".a", ".json"):
            keys.add(stem)
        else:
            other.append(name)
    complete = [k for k in sorted(keys)
                if all(os.path.exists(os.path.join(directory, k + e))
                       for e in (".a", ".json"))]
    return complete, other


def the_entry(directory):
    complete, _ = entries(directory)
    if len(complete) != 1:
        sys.exit(f"expected one entry in {directory}, found {len(complete)}")
    return os.path.join(directory, complete[0])


def corrupt(kind, directory):
    path = the_entry(directory)
    obj, manifest = path + ".a", path + ".json"
    data = bytearray(open(obj, "rb").read())
    if kind == "truncate":
        open(obj, "wb").write(data[: len(data) // 2])
    elif kind == "flip":
        data[len(data) // 2] ^= 0xFF
        open(obj, "wb").write(data)
    elif kind == "manifest":
        open(manifest, "w").write("{\"format\": 1, \"key\": ")
    elif kind in ("library", "garbage", "member"):
        m = json.load(open(manifest))
        if kind == "library":
            m["libraries"].append("/nonexistent/libgone.so")
        else:
            garbage = bytes(range(256)) * 16
            if kind == "member":
                header = f"{'0.o/':<16}{0:<12}{0:<6}{0:<6}{644:<8}{len(garbage):<10}`\n"
                garbage = b"!<arch>\n" + header.encode() + garbage
            open(obj, "wb").write(garbage)
            m["archive_bytes"] = len(garbage)
            m["archive_sha256"] = hashlib.sha256(garbage).hexdigest()
        json.dump(m, open(manifest, "w"))
    else:
        sys.exit(f"unknown corruption {kind}")


def members(path):
    """The member names of the GNU ar archive at `path`."""
    data = open(path, "rb").read()
    if not data.startswith(b"!<arch>\n"):
        sys.exit(f"{path} is not an ar archive")
    names, at = [], 8
    while at + 60 <= len(data):
        header = data[at:at + 60]
        size = int(header[48:58].decode().strip())
        name = header[:16].decode().strip()
        if name not in ("/", "//"):
            names.append(name.rstrip("/"))
        at += 60 + size + (size & 1)
    return names


def same(paths):
    arrays = [np.load(p) for p in paths]
    for p, a in zip(paths[1:], arrays[1:]):
        if a.dtype != arrays[0].dtype or a.shape != arrays[0].shape or \
                a.tobytes() != arrays[0].tobytes():
            sys.exit(f"DIFFERENT: {paths[0]} and {p}")
    print("SAME")


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "entries":
        complete, other = entries(args[0])
        print(f"{len(complete)} entries, {len(other)} other files")
    elif command == "corrupt":
        corrupt(args[0], args[1])
    elif command == "members":
        print(" ".join(members(the_entry(args[0]) + ".a")))
    elif command == "same":
        same([p for a in args for p in sorted(glob.glob(a))])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
