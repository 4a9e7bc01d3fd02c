# unescape.py: the decoder of doc/blktop.8, NAMES, for the tests that read names back (names.sh, escapes.sh).
def unescape(s):
    b = s.encode("utf-8")
    out = bytearray()
    i = 0
    while i < len(b):
        if b[i] != 0x5c:
            out.append(b[i]); i += 1; continue
        j = i
        while j < len(b) and b[j] == 0x5c:
            j += 1
        run = j - i
        if j < len(b) and b[j] == ord("X"):
            out += b"\\" * (run // 2)
            if run % 2:
                out.append(int(b[j + 1:j + 3], 16)); i = j + 3
            else:
                out.append(ord("X")); i = j + 1
        else:
            out += b[i:j]; i = j
    return bytes(out)
