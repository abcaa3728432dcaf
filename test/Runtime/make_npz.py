"""Writes the crafted .npz archives of npz-overlap.test and npz-inflate.test.

usage: make_npz.py CASE OUT.npz

The zip records are written by hand (Python's zipfile would not write most of
these): local headers, the central directory and its end record, laid out as
NumPy's np.savez writes them, then bent as CASE says.
"""

import io
import struct
import sys
import zlib

import numpy as np

MiB = 1 << 20


def npy_bytes(array):
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def zeros_npy_header(shape, dtype=np.float32):
    """The .npy header of a zero array of `shape`, and its data size."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
              "fortran_order": False, "shape": tuple(shape)})
    return out.getvalue(), int(np.prod(shape)) * np.dtype(dtype).itemsize


def deflate_zeros(shape):
    """A deflated .npy of zeros of `shape`, without holding it whole."""
    header, size = zeros_npy_header(shape)
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    crc = zlib.crc32(header)
    parts = [z.compress(header)]
    chunk = bytes(MiB)
    left = size
    while left:
        piece = chunk[: min(left, MiB)]
        crc = zlib.crc32(piece, crc)
        parts.append(z.compress(piece))
        left -= len(piece)
    parts.append(z.flush())
    return b"".join(parts), len(header) + size, crc


def deflate(data):
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return z.compress(data) + z.flush()


def local_header(name, method, crc, packed, size):
    return (
        struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, packed,
            size, len(name), 0,
        )
        + name
    )


def central_entry(name, method, crc, packed, size, offset):
    return (
        struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc,
            packed, size, len(name), 0, 0, 0, 0, 0, offset,
        )
        + name
    )


def end_record(entries, directory_size, directory_offset):
    return struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, directory_size,
        directory_offset, 0,
    )


class Archive:
    """Members written one after another; directory entries added freely."""

    def __init__(self):
        self.body = b""
        self.directory = b""
        self.entries = 0

    def add_member(self, name, method, crc, packed_data, size):
        """Writes a local header and data; returns the header's offset."""
        offset = len(self.body)
        self.body += local_header(name, method, crc, len(packed_data), size)
        self.body += packed_data
        return offset

    def add_entry(self, name, method, crc, packed, size, offset):
        self.directory += central_entry(name, method, crc, packed, size, offset)
        self.entries += 1

    def member(self, name, method, crc, packed_data, size):
        offset = self.add_member(name, method, crc, packed_data, size)
        self.add_entry(name, method, crc, len(packed_data), size, offset)

    def bytes(self):
        return (
            self.body
            + self.directory
            + end_record(self.entries, len(self.directory), len(self.body))
        )


def stored(archive, name, array):
    data = npy_bytes(array)
    archive.member(name, 0, zlib.crc32(data), data, len(data))


def deflated(archive, name, data, crc=None):
    archive.member(name, 8, zlib.crc32(data) if crc is None else crc,
                   deflate(data), len(data))


def make(case):
    a = Archive()
    small = np.arange(32, dtype=np.float32).reshape(8, 4)
    if case == "bomb-overlap":
        # Issue 20's attack: one 64 MiB member deflated to 64 KiB, and 80
        # directory entries pointing at it: 5 GiB from a file of 70 KiB.
        packed, size, crc = deflate_zeros((16 * MiB,))
        offset = a.add_member(b"x0.npy", 8, crc, packed, size)
        for i in range(80):
            a.add_entry(b"x%d.npy" % i, 8, crc, len(packed), size, offset)
    elif case == "stored-overlap":
        # Two stored members, the first's stated size covering the second.
        x, y = npy_bytes(small), npy_bytes(np.ones(3, np.float32))
        x_at = a.add_member(b"x.npy", 0, zlib.crc32(x), x, len(x))
        y_at = a.add_member(b"y.npy", 0, zlib.crc32(y), y, len(y))
        covered = len(a.body) - x_at - 30 - len(b"x.npy")
        a.add_entry(b"x.npy", 0, zlib.crc32(x), covered, covered, x_at)
        a.add_entry(b"y.npy", 0, zlib.crc32(y), len(y), len(y), y_at)
    elif case == "into-directory":
        # A member whose stated size reaches into the central directory.
        data = npy_bytes(small)
        offset = a.add_member(b"x.npy", 0, zlib.crc32(data), data, len(data))
        a.add_entry(b"x.npy", 0, zlib.crc32(data), len(data) + 20,
                    len(data) + 20, offset)
    elif case == "over-limit":
        # Three real, disjoint members of 64 MiB: 192 MiB in all.
        for name in (b"x.npy", b"y.npy", b"z.npy"):
            packed, size, crc = deflate_zeros((4 * MiB, 4))
            a.member(name, 8, crc, packed, size)
    elif case == "big":
        # One real member of 256 MiB (and x for the model), deflated.
        packed, size, crc = deflate_zeros((16 * MiB, 4))
        a.member(b"big.npy", 8, crc, packed, size)
        deflated(a, b"x.npy", npy_bytes(small))
    elif case == "small":
        # As "big" with a member of 64 bytes.
        deflated(a, b"big.npy", npy_bytes(np.zeros((4, 4), np.float32)))
        deflated(a, b"x.npy", npy_bytes(small))
    elif case == "deflated-crc":
        deflated(a, b"x.npy", npy_bytes(small), crc=12345)
    elif case == "deflated-bad-npy-and-crc":
        # A bad .npy and a bad CRC: the CRC is reported, as when the member
        # was inflated whole before its .npy was read.
        deflated(a, b"x.npy", b"not an npy file at all" * 4, crc=12345)
    elif case == "deflated-bad-npy":
        deflated(a, b"x.npy", npy_bytes(small)[:-4])
    elif case == "deflated-truncated":
        data = npy_bytes(small)
        packed = deflate(data)[:-6]
        a.member(b"x.npy", 8, zlib.crc32(data), packed, len(data))
    elif case == "deflated-longer":
        # The stream holds more than the directory says.
        data = npy_bytes(small)
        a.member(b"x.npy", 8, zlib.crc32(data[:-4]), deflate(data),
                 len(data) - 4)
    elif case == "deflated-good":
        # Deflated and stored members side by side, as the trainer reads them.
        deflated(a, b"x.npy", npy_bytes(small))
        stored(a, b"w.npy", np.ones(4, np.float32))
    else:
        sys.exit("make_npz.py: unknown case '%s'" % case)
    return a.bytes()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], "wb") as f:
        f.write(make(sys.argv[1]))
