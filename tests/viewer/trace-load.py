#!/usr/bin/env python3
"""Load Chrome Trace Event JSON files in speedscope (npm release build) running
in headless Chromium, driven over the DevTools protocol (--remote-debugging-pipe,
python3 stdlib only).  Called by trace-load.sh; see there for usage.

Usage: trace-load.py VIEWER_DIR WORK DEADLINE_S JOBS
JOBS: one job a line, TRACE and its EXPECT names separated by tabs. One
Chromium loads them all, each in a tab of its own, in turn (a start of
Chromium costs about a second of CPU). Prints one line a job, "RC<tab>result":
RC 0: speedscope imported the file as a trace and every EXPECT name shows up
      (profile names "PROCESS (pid N), THREAD (tid M)" or frame names in the
      sandwich table); result "loaded: ...".
RC 1: anything else; result "FAIL: reason".
RC 3: harness problem (protocol error, chromium gone before this job).
Each job has DEADLINE_S seconds. Exit 0 once each job has its line.
"""
import functools
import http.server
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time

VIEWER_DIR, WORK, DEADLINE_S, JOBS = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
JOB_LIST = [line.rstrip("\n").split("\t") for line in open(JOBS) if line.strip()]
# The job now loading: its start and deadline.
T0 = time.monotonic()
DEADLINE = T0 + DEADLINE_S


class Fail(Exception):
    pass


def left():
    return DEADLINE - time.monotonic()


def job_start():
    global T0, DEADLINE
    T0 = time.monotonic()
    DEADLINE = T0 + DEADLINE_S


# ---------------------------------------------------------------- HTTP server
serve = os.path.join(WORK, "serve")
os.makedirs(serve)
os.symlink(VIEWER_DIR, os.path.join(serve, "viewer"))
# A plain name: speedscope picks some importers by file name (".chrome.json",
# "Trace-YYYYMMDDTHHMMSS"), "trace.json" leaves it to content sniffing. Job k's
# file is /k/trace.json.
for k, job in enumerate(JOB_LIST):
    os.makedirs(os.path.join(serve, str(k)))
    try:
        shutil.copyfile(job[0], os.path.join(serve, str(k), "trace.json"))
    except OSError:
        pass  # its job says so


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


httpd = http.server.ThreadingHTTPServer(
    ("127.0.0.1", 0), functools.partial(Quiet, directory=serve))
port = httpd.server_address[1]
threading.Thread(target=httpd.serve_forever, daemon=True).start()

# ---------------------------------------------------------------- Chromium
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()
# move the child's ends out of the 3/4 range so the dup2s below cannot clobber them
import fcntl
a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 20)
b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 20)
os.close(to_chrome_r)
os.close(from_chrome_w)


def child_fds():
    os.dup2(a, 3)
    os.dup2(b, 4)


chrome_cmd = [
    os.environ.get("CHROMIUM", "chromium"),
    "--headless", "--no-sandbox", "--disable-gpu",
    # speedscope needs WebGL; with no GPU only SwiftShader provides it
    "--enable-unsafe-swiftshader",
    "--remote-debugging-pipe",
    "--user-data-dir=" + os.path.join(WORK, "chrome-profile"),
    "--disable-quic", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-default-apps", "--mute-audio",
    "--window-size=1280,2000",
    "about:blank",
]
chrome_log = open(os.path.join(WORK, "chrome.log"), "wb")
chrome = subprocess.Popen(chrome_cmd, stdin=subprocess.DEVNULL, stdout=chrome_log,
                          stderr=chrome_log, pass_fds=(3, 4, a, b),
                          preexec_fn=child_fds, start_new_session=True)
os.close(a)
os.close(b)
with open(os.path.join(WORK, "chrome.pgid"), "w") as f:
    f.write(str(chrome.pid))


def kill_chrome():
    try:
        os.killpg(chrome.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        chrome.wait(timeout=5)
        os.unlink(os.path.join(WORK, "chrome.pgid"))  # nothing left for the trap to kill
    except Exception:
        pass


def on_term(signum, frame):
    kill_chrome()
    os._exit(3)


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)

# ---------------------------------------------------------------- CDP over pipe
inbox = queue.Queue()
gone = [False]  # chromium's pipe closed


def reader():
    buf = b""
    while True:
        try:
            chunk = os.read(from_chrome_r, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            inbox.put(None)
            return
        buf += chunk
        while b"\0" in buf:
            msg, buf = buf.split(b"\0", 1)
            inbox.put(json.loads(msg))


threading.Thread(target=reader, daemon=True).start()
next_id = [0]
session = [None]
console, exceptions, dialogs = [], [], []


def handle_event(m):
    if m.get("sessionId") != session[0]:
        return  # a closed tab's, or the browser's own
    meth, p = m.get("method"), m.get("params", {})
    if meth == "Runtime.consoleAPICalled":
        parts = []
        for arg in p.get("args", []):
            parts.append(str(arg.get("value", arg.get("description", ""))))
        console.append((p.get("type"), " ".join(parts)))
    elif meth == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        exceptions.append(d.get("exception", {}).get("description") or d.get("text", "?"))
    elif meth == "Page.javascriptDialogOpening":
        dialogs.append(p.get("message", ""))
        send("Page.handleJavaScriptDialog", {"accept": True}, wait=False)


def send(method, params=None, wait=True, sess=True):
    if gone[0]:
        raise Fail("chromium exited (see its log)")
    next_id[0] += 1
    mid = next_id[0]
    msg = {"id": mid, "method": method, "params": params or {}}
    if sess and session[0]:
        msg["sessionId"] = session[0]
    os.write(to_chrome_w, json.dumps(msg).encode() + b"\0")
    if not wait:
        return None
    while True:
        try:
            m = inbox.get(timeout=max(0.1, left()))
        except queue.Empty:
            raise Fail("timed out after %.0f s, viewer still busy (last console: %s)" % (
                time.monotonic() - T0, console[-1][1][:80] if console else "nothing"))
        if m is None:
            gone[0] = True
            raise Fail("chromium exited (see its log)")
        if m.get("id") == mid:
            if "error" in m:
                raise RuntimeError("%s: %s" % (method, m["error"]))
            return m.get("result", {})
        handle_event(m)


def pump(seconds):
    end = time.monotonic() + seconds
    while True:
        t = end - time.monotonic()
        if t <= 0:
            return
        try:
            m = inbox.get(timeout=t)
        except queue.Empty:
            return
        if m is None:
            gone[0] = True
            raise Fail("chromium exited (see its log)")
        handle_event(m)


def evaluate(expr):
    r = send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
    if "exceptionDetails" in r:
        raise RuntimeError("evaluate: %s" % r["exceptionDetails"].get("text"))
    return r["result"].get("value")


STATE_JS = r"""(() => {
  const body = document.body ? document.body.innerText : "";
  const frames = [...document.querySelectorAll('td > span[style*="background-color"]')]
      .map(s => s.parentElement.textContent.trim());
  const rows = [...document.querySelectorAll('tr[title]')].map(r => r.title);
  // toolbar centre: "<profile name> (i/N)" or just "<profile name>"
  // (one profile: a bare text node between the view tabs and Export/Import)
  let current = null, index = null, count = null;
  for (const sp of document.querySelectorAll('div > span')) {
    const t = sp.textContent, m = /^(.*) \((\d+)\/(\d+)\)$/s.exec(t);
    if (m && sp.children.length === 1) { current = m[1]; index = +m[2]; count = +m[3]; break; }
  }
  if (current === null) {
    const tab = [...document.querySelectorAll('div')].find(
        d => d.children.length === 1 && d.textContent.trim().endsWith('Sandwich'));
    const bar = tab && tab.parentElement && tab.parentElement.parentElement;
    const txt = bar ? [...bar.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim()) : [];
    if (txt.length === 1) { current = txt[0].textContent.trim(); index = 1; count = 1; }
  }
  return {title: document.title, error: body.includes("Something went wrong"),
          landing: body.includes("Drag and drop"), frames, rows, current, index, count,
          canvases: document.querySelectorAll("canvas").length};
})()"""


def result_line_names(names, n=6):
    names = list(names)
    s = "; ".join(names[:n])
    return s + ("; ... (+%d)" % (len(names) - n) if len(names) > n else "")


def load(k, expect):
    """Job k: its trace loaded in a tab of its own; the result line."""
    del console[:], exceptions[:], dialogs[:]
    if not os.path.isfile(os.path.join(serve, str(k), "trace.json")):
        raise Fail("cannot read %s" % JOB_LIST[k][0])
    t = send("Target.createTarget", {"url": "about:blank"}, sess=False)
    try:
        r = send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}, sess=False)
        session[0] = r["sessionId"]
        return show(k, expect)
    finally:
        session[0] = None
        if not gone[0]:
            send("Target.closeTarget", {"targetId": t["targetId"]}, sess=False, wait=False)


def show(k, expect):
    """The tab's page: speedscope on job k's trace; the result line."""
    send("Page.enable")
    send("Runtime.enable")
    url = "http://127.0.0.1:%d/viewer/index.html#profileURL=/%d/trace.json&view=sandwich" % (
        port, k)
    send("Page.navigate", {"url": url})

    # wait for the import to finish one way or another
    st = None
    while True:
        if left() <= 0:
            raise Fail("timed out: viewer never finished loading (console: %s)" %
                       (console[-1][1] if console else "nothing"))
        pump(0.1)
        if dialogs:
            raise Fail("viewer alert: %s" % dialogs[0])
        if exceptions:
            raise Fail("uncaught exception in viewer: %s" % exceptions[0].splitlines()[0])
        st = evaluate(STATE_JS)
        if st["error"]:
            why = [c[1] for c in console if c[1].startswith("Failed to load")]
            raise Fail("viewer shows 'Something went wrong' (%s)" % (why[0] if why else "no detail"))
        if st["current"] is not None and st["count"] and \
                any(c[1].startswith("import:") for c in console):
            break
        if st["landing"] and any(c[1].startswith("import:") for c in console):
            raise Fail("viewer finished the import but shows no profile")
    importer = [c[1] for c in console if c[1].startswith("Importing as")]
    if not importer:
        raise Fail("viewer shows a profile but logged no importer")
    importer = importer[0][len("Importing as "):]
    if "Trace Event" not in importer and "Chrome" not in importer:
        raise Fail("viewer read the file as %r, not as a trace" % importer)

    # walk every profile ('n' = next profile) and collect the sandwich frame names
    count = st["count"] or 1
    profiles, frames = [], set()
    for k in range(count):
        if k:
            evaluate("window.dispatchEvent(new KeyboardEvent('keypress', {key: 'n'})), 1")
            for _ in range(50):
                pump(0.05)
                st = evaluate(STATE_JS)
                if (st["index"] or 1) == k + 1:
                    break
            else:
                raise Fail("could not switch to profile %d/%d" % (k + 1, count))
            if st["error"] or dialogs or exceptions:
                raise Fail("viewer failed while showing profile %d/%d: %s" %
                           (k + 1, count, (dialogs + exceptions + ["error page"])[0]))
        name = st["current"] if st["current"] is not None else (st["rows"][0] if st["rows"] else "?")
        profiles.append(name)
        # a profile exists only for a thread with slices: its sandwich table
        # lists at least one frame once rendered
        while not st["frames"]:
            if left() <= 0:
                raise Fail("profile %r shows no frames" % name)
            pump(0.05)
            st = evaluate(STATE_JS)
        frames.update(st["frames"])
    profiles = list(dict.fromkeys(profiles + st["rows"]))
    pump(0.1)
    if dialogs or exceptions or evaluate(STATE_JS)["error"]:
        raise Fail("viewer failed after loading: %s" % (dialogs + exceptions + ["error page"])[0])

    missing = [e for e in expect
               if not any(e in p for p in profiles) and not any(e in f for f in frames)]
    if missing:
        raise Fail("viewer loaded the trace but does not show %s (profiles: %s; frames: %s)" % (
            ", ".join(repr(m) for m in missing), result_line_names(profiles),
            result_line_names(sorted(frames))))
    imp_ms = [c[1] for c in console if c[1].startswith("import:")]
    imp_ms = (" in %.0f ms" % float(imp_ms[0].split()[1])) if imp_ms else ""
    ver = [c[1] for c in console if c[1].startswith("speedscope v")]
    return ("loaded: %s imported %s%s: %d profile(s) [%s], %d frame name(s)%s" % (
        ver[0] if ver else "speedscope", importer, imp_ms, len(profiles),
        result_line_names(profiles, 4), len(frames),
        ("; shows " + ", ".join(repr(e) for e in expect)) if expect else ""))


rc = 3
try:
    for k, job in enumerate(JOB_LIST):
        job_start()
        rc = 0
        try:
            if gone[0]:
                raise RuntimeError("chromium exited before this job")
            line = load(k, job[1:])
        except Fail as e:
            line, rc = "FAIL: %s" % e, 1
        except Exception as e:  # harness trouble, not a verdict about the trace
            line, rc = "ERROR: harness: %s: %s" % (type(e).__name__, e), 3
        print("%d\t%s" % (rc, line), flush=True)
    rc = 0
finally:
    try:  # a clean close lets chromium reap its own children
        session[0] = None
        send("Browser.close", sess=False, wait=False)
        chrome.wait(timeout=5)
    except Exception:
        pass
    kill_chrome()  # whatever is left of its process group
    httpd.shutdown()
sys.stdout.flush()
os._exit(rc)
