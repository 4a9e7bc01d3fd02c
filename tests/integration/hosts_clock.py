"""hosts_clock.py: a copy of a capture whose header says another clock offset.

Usage: hosts_clock.py IN OUT SECONDS. The header body's field 5 (the clock
offset, a zigzag varint: doc/capture-format.md) gains SECONDS; the body's
length and CRC are written again, the chunks copied as they are. The copy's
records keep their CLOCK_MONOTONIC times: their wall times move by SECONDS,
as a capture of a host whose clock started SECONDS earlier would.
"""
import struct
import sys
import zlib


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def put_varint(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


data = open(sys.argv[1], "rb").read()
blen = struct.unpack_from("<I", data, 12)[0]
body = data[20:20 + blen]
i = 1
for _ in range(3):                      # version, host, kernel
    n, i = varint(body, i)
    i += n
start = i
z, i = varint(body, i)
off = (z >> 1) ^ -(z & 1)
off += int(float(sys.argv[3]) * 1e9)
z = (off << 1) ^ (off >> 63)
body = body[:start] + put_varint(z) + body[i:]
head = data[:12] + struct.pack("<II", len(body), zlib.crc32(body))
open(sys.argv[2], "wb").write(head + body + data[20 + blen:])
