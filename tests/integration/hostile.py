#!/usr/bin/env python3
# hostile.py: clients of the metrics endpoint that misbehave, on loopback only,
# bounded in count and time. Used by endpoint.sh.
#   hostile.py PORT trickle N SECS        N clients send a byte every 3 s; prints
#                                         "held H closed C" (C: closed by blktop)
#   hostile.py PORT noread N REQS SECS    N clients (4 KiB receive buffer) send
#                                         REQS pipelined GETs and never read
#   hostile.py PORT halfclose [1.0|1.1]   GET, shutdown(SHUT_WR), read to the end:
#                                         prints "LEN BODYLEN" (Content-Length, body)
#   hostile.py PORT headkeep              GET, HEAD, GET on one connection: prints
#                                         "HEADLEN LEN1 LEN2 SCRAPES1 SCRAPES2 clean|dirty"
import socket, sys, time

port = int(sys.argv[1])
mode = sys.argv[2]
ADDR = ("127.0.0.1", port)


def connect(rcvbuf=None, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect(ADDR)
    return s


def read_reply(s, head=False):
    """One reply: (headers dict, body bytes); body by Content-Length."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            raise EOFError("closed before the headers")
        buf += d
    hdr, rest = buf.split(b"\r\n\r\n", 1)
    lines = hdr.decode("latin-1").split("\r\n")
    h = {"status": lines[0]}
    for l in lines[1:]:
        if ":" in l:
            k, v = l.split(":", 1)
            h[k.strip().lower()] = v.strip()
    n = 0 if head else int(h["content-length"])
    while len(rest) < n:
        d = s.recv(65536)
        if not d:
            break
        rest += d
    return h, rest[:n], rest[n:]


def scrapes(body):
    for l in body.decode().splitlines():
        if l.startswith("blktop_scrapes_total "):
            return int(float(l.split()[1]))
    return -1


if mode == "trickle":
    n, secs = int(sys.argv[3]), float(sys.argv[4])
    socks = []
    for _ in range(n):
        try:
            s = connect(timeout=0.2)
            s.setblocking(False)
            socks.append(s)
        except OSError:
            pass
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
    sent = [0] * len(socks)
    alive = [True] * len(socks)
    t0 = time.time()
    while time.time() - t0 < secs:
        for i, s in enumerate(socks):
            if not alive[i]:
                continue
            try:
                s.send(req[sent[i] % len(req):sent[i] % len(req) + 1])
                sent[i] += 1
                d = s.recv(4096)
                if d == b"":
                    alive[i] = False
            except BlockingIOError:
                pass
            except OSError:
                alive[i] = False
        time.sleep(3)
    # what blktop closed shows as EOF or a reset on the next read
    for i, s in enumerate(socks):
        if alive[i]:
            try:
                while True:
                    d = s.recv(65536)
                    if d == b"":
                        alive[i] = False
                        break
            except BlockingIOError:
                pass
            except OSError:
                alive[i] = False
    print("connected %d held %d closed %d" % (len(socks), sum(alive), len(socks) - sum(alive)))
elif mode == "noread":
    n, reqs, secs = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * reqs
    socks = []
    for _ in range(n):
        try:
            s = connect(rcvbuf=4096, timeout=0.5)
            s.setblocking(False)
            try:
                s.send(req)
            except OSError:
                pass
            socks.append(s)
        except OSError:
            pass
    time.sleep(secs)
    print("connected %d" % len(socks))
elif mode == "halfclose":
    ver = sys.argv[3] if len(sys.argv) > 3 else "1.1"
    s = connect(timeout=10)
    s.sendall(("GET /metrics HTTP/%s\r\nHost: x\r\n\r\n" % ver).encode())
    s.shutdown(socket.SHUT_WR)
    buf = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        buf += d
    hdr, body = buf.split(b"\r\n\r\n", 1)
    cl = [l for l in hdr.decode().split("\r\n") if l.lower().startswith("content-length:")]
    print(cl[0].split(":")[1].strip() if cl else "none", len(body))
elif mode == "headkeep":
    s = connect(timeout=10)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    h0, body0, _ = read_reply(s)
    s.sendall(b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    h1, _, rest = read_reply(s, head=True)
    time.sleep(0.5)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    # a HEAD reply with a body shows here: the GET's reply must start clean
    h2, body2, _ = read_reply(s)
    ok = not rest and h2["status"].startswith("HTTP/1.1 200") and body2.startswith(b"# HELP")
    print(h1.get("content-length", "none"), len(body0), len(body2),
          scrapes(body0), scrapes(body2), "clean" if ok else "dirty")
else:
    sys.exit("unknown mode " + mode)
