"""watch_latency.py — watch delivery latency for tests/bench/resources.sh.

Opens WATCHERS Server-Sent-Events watches (GET PATH?watch=1) on cubed at
127.0.0.1:PORT, then a child process PATCHes existing objects (names
PREFIX0 .. PREFIX<N-1>, picked at random) UPDATES times, one every
INTERVAL ms, each setting spec.note to "bench-watch-<send time in ns>",
stamped just before the request goes out. Every watcher notes when each
of those events arrives (the time recv() returned the bytes that hold it;
all sockets are read before any is parsed) and the latency is the receive
time minus the stamp, both from the same wall clock.

Prints one JSON line: watchers, updates, patched (200s), events received,
expected (patched x watchers), p50/p99/max delivery latency in ms, the
PATCH round trip p50/p99, and errors. Stdlib only.

Usage: python3 watch_latency.py PORT PATH TOKEN PREFIX N WATCHERS UPDATES INTERVAL_MS
"""
import http.client
import json
import os
import random
import re
import selectors
import socket
import sys
import time

NOTE_RE = re.compile(rb'"note":"bench-watch-(\d+)"')


def pct(sorted_vals, p):
    if not sorted_vals:
        return None
    return sorted_vals[min(len(sorted_vals) - 1, int(p * (len(sorted_vals) - 1)))]


class Watch:
    """One SSE connection: de-chunks the body and splits it into events."""

    def __init__(self, port, path, token):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Authorization: Bearer {token}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.raw = b""   # bytes not yet de-chunked
        self.body = b""  # de-chunked bytes not yet split into events
        self.left = 0    # bytes left in the current chunk
        self.state = "size"
        self.chunked = False
        self.ended = False
        self.count = 0
        self.error = None

    def read_head(self):
        head = b""
        while b"\r\n\r\n" not in head:
            data = self.sock.recv(65536)
            if not data:
                raise OSError("connection closed before the response head")
            head += data
        head, rest = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        if status != 200:
            raise OSError(f"watch answered {status}")
        for line in lines[1:]:
            k, _, v = line.partition(":")
            if k.strip().lower() == "transfer-encoding" and "chunked" in v.lower():
                self.chunked = True
        self.sock.setblocking(False)
        return rest

    def dechunk(self, data):
        if not self.chunked:
            return data
        self.raw += data
        out = []
        while self.raw:
            if self.state == "data":
                take = self.raw[:self.left]
                out.append(take)
                self.raw = self.raw[len(take):]
                self.left -= len(take)
                if self.left == 0:
                    self.state = "crlf"
            elif self.state == "crlf":
                if len(self.raw) < 2:
                    break
                self.raw = self.raw[2:]
                self.state = "size"
            else:
                i = self.raw.find(b"\r\n")
                if i < 0:
                    break
                n = int(self.raw[:i].split(b";")[0], 16)
                self.raw = self.raw[i + 2:]
                if n == 0:
                    self.ended = True
                    self.raw = b""
                    break
                self.left = n
                self.state = "data"
        return b"".join(out)

    def feed(self, data, t_ns, lat):
        self.body += self.dechunk(data)
        while b"\n\n" in self.body:
            ev, self.body = self.body.split(b"\n\n", 1)
            if ev.startswith(b"event: ERROR"):
                self.error = ev[:200].decode("utf-8", "replace")
                continue
            m = NOTE_RE.search(ev)
            if m:
                self.count += 1
                lat.append((t_ns - int(m.group(1))) / 1e6)


def updater(port, path, token, prefix, n, updates, interval_ms, out_fd):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    hdrs = {"Authorization": "Bearer " + token,
            "Content-Type": "application/merge-patch+json"}
    ok, bad, first_bad, rtt = 0, 0, None, []
    time.sleep(0.3)  # the parent is waiting in select() by now
    next_t = time.monotonic()
    for _ in range(updates):
        name = f"{prefix}{random.randrange(n)}"
        t0 = time.time_ns()
        body = '{"spec":{"note":"bench-watch-%d"}}' % t0
        try:
            conn.request("PATCH", f"{path}/{name}", body=body, headers=hdrs)
            r = conn.getresponse()
            r.read()
            status = r.status
        except (OSError, http.client.HTTPException):
            status = -1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rtt.append((time.time_ns() - t0) / 1e6)
        if status == 200:
            ok += 1
        else:
            bad += 1
            first_bad = first_bad or status
        next_t += interval_ms / 1000.0
        delay = next_t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    rtt.sort()
    os.write(out_fd, json.dumps({"patched": ok, "failed": bad, "first_bad": first_bad,
                                 "patch_p50_ms": pct(rtt, 0.5),
                                 "patch_p99_ms": pct(rtt, 0.99)}).encode())


def main():
    if len(sys.argv) != 9:
        sys.exit(__doc__.split("\n\n")[-1])
    port, path, token, prefix = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    n, watchers, updates = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    interval_ms = float(sys.argv[8])

    ws = [Watch(port, f"{path}?watch=1", token) for _ in range(watchers)]
    lat = []
    sel = selectors.DefaultSelector()
    for w in ws:
        rest = w.read_head()
        if rest:
            w.feed(rest, time.time_ns(), lat)
        sel.register(w.sock, selectors.EVENT_READ, w)
    lat.clear()  # nothing sent yet: only heartbeats could have come

    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            for w in ws:
                w.sock.close()
            updater(port, path, token, prefix, n, updates, interval_ms, wfd)
        finally:
            os._exit(0)
    os.close(wfd)
    sel.register(rfd, selectors.EVENT_READ, None)

    result, child_buf, done_at = None, b"", None
    while True:
        timeout = 1.0
        if result is not None:
            expected = result["patched"] * watchers
            if sum(w.count for w in ws) >= expected or time.monotonic() - done_at > 3:
                break
            timeout = 0.2
        ready = sel.select(timeout)
        got = []
        for key, _ in ready:  # read everything first, stamping each read
            if key.data is None:
                chunk = os.read(rfd, 65536)
                if chunk:
                    child_buf += chunk
                else:
                    sel.unregister(rfd)
                    os.close(rfd)
                    os.waitpid(pid, 0)
                    result = json.loads(child_buf or b'{"patched":0,"failed":0}')
                    done_at = time.monotonic()
                continue
            try:
                data = key.data.sock.recv(1 << 18)
            except BlockingIOError:
                continue
            t = time.time_ns()
            if not data:
                sel.unregister(key.data.sock)
                key.data.ended = True
                continue
            got.append((key.data, data, t))
        for w, data, t in got:
            w.feed(data, t, lat)

    for w in ws:
        w.sock.close()
    lat.sort()
    errors = [w.error for w in ws if w.error]
    ended = sum(1 for w in ws if w.ended)
    out = dict(result, watchers=watchers, updates=updates, events=len(lat),
               expected=result["patched"] * watchers,
               p50_ms=pct(lat, 0.5), p99_ms=pct(lat, 0.99),
               max_ms=lat[-1] if lat else None,
               errors=len(errors), first_error=errors[0] if errors else None,
               ended_early=ended)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
