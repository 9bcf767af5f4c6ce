"""Integration: the ABI 1.5 streamed request bodies and file slots in a real
cubed, driven by the streamprobe plugin. An upload (256 MiB; 2 GiB with
CUBE_TEST_BIG=1) streams into a file through file_write_at and is committed
with its sha256 while cubed's memory stays flat; the download honours Range
(206, 416) and ETag (304); 413 past a route's limit, declared or chunked;
401/403 before any body byte is read; a client gone mid-upload leaves no
file, and the upload resumes where it broke; a wrong sha256 publishes
nothing; one writer at a time; the plugin's own area."""
import hashlib
import json
import os
import socket
import struct
import time
import unittest

from cubetest import Cubed

TOKEN = "streams-admin-token"
ADMIN = {"Authorization": "Bearer " + TOKEN}
MIB = 1 << 20
BIG = (2048 if os.environ.get("CUBE_TEST_BIG") == "1" else 256) * MIB
BASE = "/api/v1/projects/data/streamprobe"


def blocks(size, seed=1):
    """The test's bytes, made on the fly one MiB at a time (never kept):
    block i is a fixed random MiB with i written over its first 8 bytes."""
    base = bytearray(hashlib.shake_256(b"cube-%d" % seed).digest(MIB))
    for i in range((size + MIB - 1) // MIB):
        struct.pack_into("<Q", base, 0, i)
        n = min(MIB, size - i * MIB)
        yield bytes(base[:n]) if n < MIB else bytes(base)


def content(size, seed=1):
    return b"".join(blocks(size, seed))


def rss_kib(pid):
    """(VmHWM, VmRSS) of a process, in KiB."""
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmHWM", "VmRSS"):
                vals[k] = int(v.split()[0])
    return vals["VmHWM"], vals["VmRSS"]


class Raw:
    """A request written by hand on a socket, so a test decides when (and
    whether) the body goes."""

    def __init__(self, port, method, path, headers, length=None, chunked=False):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=60)
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        if chunked:
            head.append("Transfer-Encoding: chunked")
        elif length is not None:
            head.append(f"Content-Length: {length}")
        self.chunked = chunked
        self.s.sendall(("\r\n".join(head) + "\r\n\r\n").encode())

    def send(self, data):
        if self.chunked:
            self.s.sendall(b"%x\r\n" % len(data) + data + b"\r\n")
        else:
            self.s.sendall(data)

    def finish(self):
        if self.chunked:
            self.s.sendall(b"0\r\n\r\n")

    def response(self):
        """(status, headers, body) of the answer; reads what Content-Length says."""
        buf = b""
        while b"\r\n\r\n" not in buf:
            got = self.s.recv(65536)
            if not got:
                raise ConnectionError("closed before an answer: %r" % buf)
            buf += got
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        hdrs = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        n = int(hdrs.get("content-length", "0"))
        while len(body) < n:
            got = self.s.recv(65536)
            if not got:
                break
            body += got
        return status, hdrs, body

    def stream(self, sink):
        """Reads the answer's head, then hands its body to sink as it comes;
        (status, headers, body bytes)."""
        buf = b""
        while b"\r\n\r\n" not in buf:
            got = self.s.recv(65536)
            if not got:
                raise ConnectionError("closed before an answer")
            buf += got
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        hdrs = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        want, n = int(hdrs.get("content-length", "0")), len(body)
        sink(body)
        while n < want:
            got = self.s.recv(1 << 20)
            if not got:
                break
            sink(got)
            n += len(got)
        return int(lines[0].split()[1]), hdrs, n

    def close(self):
        self.s.close()


class Streams(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"streamprobe": None},
                      cube={"log": {"level": os.environ.get("CUBE_TEST_LOG_LEVEL", "warn"),
                                    "access": "off"}},
                      env={"CUBE_ADMIN_TOKEN": TOKEN})
        cls.dev = cls.c.make_user("dana")
        cls.viewer = cls.c.make_user("vic")
        cls.c.make_project("data", [("dana", "dev"), ("vic", "viewer")])
        cls.dev_auth = {"Authorization": cls.dev.headers["Authorization"]}
        cls.viewer_auth = {"Authorization": cls.viewer.headers["Authorization"]}

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def stats(self):
        r = self.c.request("GET", "/api/v1/streamprobe/stats", headers=ADMIN)
        self.assertEqual(r.status, 200, r.body)
        return r.json()

    def upload(self, name, data_iter, length, query="", route="uploads", headers=None):
        raw = Raw(self.c.port, "PUT", f"{BASE}/{route}/{name}{query}",
                  headers or self.dev_auth, length)
        try:
            for b in data_iter:
                raw.send(b)
            return raw.response()
        finally:
            raw.close()

    def put_small(self, name, data, query="", headers=None):
        r = self.c.request("PUT", f"{BASE}/uploads/{name}{query}", body=data,
                           headers=headers or self.dev_auth, timeout=60)
        return r

    def get(self, name, headers=None, query=""):
        h = dict(self.dev_auth, **(headers or {}))
        return self.c.request("GET", f"{BASE}/uploads/{name}{query}", headers=h, timeout=120)

    def wait_closes(self, n, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.stats()
            if st["closes"] >= n:
                return st
            time.sleep(0.05)
        self.fail("the body's close did not run: %r" % self.stats())

    def test_big_upload_flat_rss_sha_and_range(self):
        pid = self.c.proc.pid
        hwm0, rss0 = rss_kib(pid)
        sha = hashlib.sha256()

        def hashed():
            for b in blocks(BIG):
                sha.update(b)
                yield b
        t0 = time.time()
        status, _, body = self.upload("big", hashed(), BIG)
        secs = time.time() - t0
        self.assertEqual(status, 200, body)
        doc = json.loads(body)
        self.assertEqual(doc["sha256"], sha.hexdigest())
        self.assertEqual(doc["size"], BIG)
        hwm1, rss1 = rss_kib(pid)
        print(f"\n  {BIG // MIB} MiB in {secs:.2f} s ({BIG / MIB / secs:.0f} MiB/s); "
              f"cubed VmHWM {hwm0 // 1024} -> {hwm1 // 1024} MiB, "
              f"VmRSS {rss0 // 1024} -> {rss1 // 1024} MiB; largest chunk "
              f"{self.stats()['max_chunk']} bytes", flush=True)
        self.assertLess(hwm1 - hwm0, 64 * 1024, "cubed's peak RSS grew with the upload")
        self.assertLess(rss1 - rss0, 64 * 1024)
        # A range near the end, the last bytes, and one past the end.
        last = BIG // MIB - 1
        want = b"".join(b for i, b in enumerate(blocks(BIG)) if i == last)
        r = self.get("big", {"Range": f"bytes={last * MIB + 5}-{last * MIB + 4100}"})
        self.assertEqual(r.status, 206, r.body)
        self.assertEqual(r.raw, want[5:4101])
        self.assertEqual(r.header("content-range"),
                         f"bytes {last * MIB + 5}-{last * MIB + 4100}/{BIG}")
        r = self.get("big", {"Range": "bytes=-7"})
        self.assertEqual((r.status, r.raw), (206, want[-7:]))
        r = self.get("big", {"Range": f"bytes={BIG}-"})
        self.assertEqual(r.status, 416, r.body)
        self.assertEqual(r.header("content-range"), f"bytes */{BIG}")
        # The whole file back, hashed as it comes (streamed from the disk).
        got = hashlib.sha256()
        raw = Raw(self.c.port, "GET", f"{BASE}/uploads/big", self.dev_auth)
        try:
            status, hdrs, n = raw.stream(got.update)
        finally:
            raw.close()
        self.assertEqual((status, n, hdrs.get("content-length")), (200, BIG, str(BIG)))
        self.assertEqual(got.hexdigest(), sha.hexdigest())
        hwm3, _ = rss_kib(pid)
        self.assertLess(hwm3 - hwm0, 64 * 1024, "cubed's peak RSS grew with the download")

    def test_download_etag_304_and_if_range(self):
        data = content(3 * MIB + 17, seed=2)
        r = self.put_small("etag", data)
        self.assertEqual(r.status, 200, r.body)
        r = self.get("etag")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.raw, data)
        etag = r.header("etag")
        self.assertTrue(etag and etag.startswith('"'), etag)
        self.assertEqual(r.header("accept-ranges"), "bytes")
        self.assertEqual(r.header("x-content-type-options"), "nosniff")
        r = self.get("etag", {"If-None-Match": etag})
        self.assertEqual((r.status, r.raw), (304, b""))
        self.assertEqual(r.header("etag"), etag)
        r = self.get("etag", {"If-None-Match": f'"x", W/{etag}'})
        self.assertEqual(r.status, 304)
        r = self.get("etag", {"If-None-Match": '"other"'})
        self.assertEqual(r.status, 200)
        r = self.get("etag", {"Range": "bytes=10-19", "If-Range": etag})
        self.assertEqual((r.status, r.raw), (206, data[10:20]))
        r = self.get("etag", {"Range": "bytes=10-19", "If-Range": '"stale"'})
        self.assertEqual((r.status, len(r.raw)), (200, len(data)))
        r = self.c.request("HEAD", f"{BASE}/uploads/etag", headers=self.dev_auth)
        self.assertEqual((r.status, r.header("content-length")), (200, str(len(data))))
        # Published again: a new ETag, the old one no longer matches.
        self.assertEqual(self.put_small("etag", b"new").status, 200)
        r = self.get("etag", {"If-None-Match": etag})
        self.assertEqual((r.status, r.raw), (200, b"new"))
        self.assertNotEqual(r.header("etag"), etag)

    def test_413_declared_before_the_body(self):
        before = self.stats()["handlers"]
        raw = Raw(self.c.port, "PUT", f"{BASE}/small/too-big", self.dev_auth, 2 * MIB)
        try:
            status, _, body = raw.response()   # no body byte sent
        finally:
            raw.close()
        self.assertEqual(status, 413, body)
        self.assertIn(b"1048576 bytes", body)
        self.assertEqual(self.stats()["handlers"], before, "the handler ran")

    def test_413_chunked_past_the_limit(self):
        closes = self.stats()["closes"]
        raw = Raw(self.c.port, "PUT", f"{BASE}/small/chunky", self.dev_auth, chunked=True)
        try:
            for b in blocks(2 * MIB, seed=3):
                raw.send(b)
            raw.finish()
            status, _, body = raw.response()
        finally:
            raw.close()
        self.assertEqual(status, 413, body)
        st = self.wait_closes(closes + 1)
        self.assertEqual(st["last_close"], -10)   # CUBE_ETOOBIG
        self.assertEqual(self.get("chunky").status, 404)
        # Within the limit, chunked is fine.
        raw = Raw(self.c.port, "PUT", f"{BASE}/small/chunky", self.dev_auth, chunked=True)
        try:
            raw.send(b"a" * 1000)
            raw.send(b"b" * 24)
            raw.finish()
            status, _, body = raw.response()
        finally:
            raw.close()
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["sha256"],
                         hashlib.sha256(b"a" * 1000 + b"b" * 24).hexdigest())

    def test_401_403_before_any_body_byte(self):
        before = self.stats()
        for headers, want in (({}, 401), (self.viewer_auth, 403)):
            raw = Raw(self.c.port, "PUT", f"{BASE}/uploads/denied", headers, 1 << 30)
            try:
                status, _, body = raw.response()   # answered with no body sent
            finally:
                raw.close()
            self.assertEqual(status, want, body)
        after = self.stats()
        self.assertEqual((after["handlers"], after["bytes"]),
                         (before["handlers"], before["bytes"]))
        self.assertEqual(self.get("denied").status, 404)

    def test_disconnect_leaves_no_file_then_resume(self):
        size = 24 * MIB
        data = content(size, seed=4)
        closes = self.stats()["closes"]
        raw = Raw(self.c.port, "PUT", f"{BASE}/uploads/cut", self.dev_auth, size)
        raw.send(data[:9 * MIB])
        time.sleep(0.3)
        raw.close()   # gone mid-body
        st = self.wait_closes(closes + 1)
        self.assertEqual(st["last_close"], -6)   # CUBE_EIO: the client left
        self.assertEqual(self.get("cut").status, 404)
        r = self.c.request("GET", "/api/v1/projects/data/files/uploads", headers=ADMIN)
        names = [i["name"] for i in r.json().get("items", [])] if r.status == 200 else []
        self.assertNotIn("cut", names)
        r = self.c.request("GET", f"{BASE}/uploads/cut/pending", headers=self.dev_auth)
        self.assertEqual(r.status, 200, r.body)
        have = r.json()["size"]
        self.assertTrue(0 < have <= 9 * MIB, have)
        # A wrong offset is refused before the body is read.
        r = self.put_small("cut", b"x", query="?offset=1")
        self.assertEqual(r.status, 409, r.body)
        # Resume where it broke, checking the whole file's sha256.
        want = hashlib.sha256(data).hexdigest()
        status, _, body = self.upload("cut", [data[have:]], size - have,
                                      query=f"?offset={have}&sha256={want}")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body), {"sha256": want, "size": size})
        r = self.get("cut")
        self.assertEqual(r.raw, data)

    def test_wrong_sha256_publishes_nothing(self):
        data = b"model weights " * 1000
        r = self.put_small("digest", data, query="?sha256=" + "0" * 64)
        self.assertEqual(r.status, 422, r.body)
        self.assertIn(hashlib.sha256(data).hexdigest(), r.body)
        self.assertEqual(self.get("digest").status, 404)
        r = self.c.request("GET", f"{BASE}/uploads/digest/pending", headers=self.dev_auth)
        self.assertEqual(r.json()["size"], len(data))   # still pending
        r = self.c.request("DELETE", f"{BASE}/uploads/digest/pending", headers=self.dev_auth)
        self.assertEqual(r.status, 200, r.body)
        r = self.c.request("GET", f"{BASE}/uploads/digest/pending", headers=self.dev_auth)
        self.assertEqual(r.json()["size"], 0)   # aborted: a new, empty one
        r = self.put_small("digest", data, query="?sha256=" + hashlib.sha256(data).hexdigest().upper())
        self.assertEqual(r.status, 200, r.body)

    def test_one_writer_at_a_time(self):
        raw = Raw(self.c.port, "PUT", f"{BASE}/uploads/busy", self.dev_auth, 4 * MIB)
        try:
            raw.send(b"z" * MIB)
            time.sleep(0.2)
            r = self.put_small("busy", b"other")
            self.assertEqual(r.status, 409, r.body)
            raw.send(b"z" * (3 * MIB))
            status, _, body = raw.response()
        finally:
            raw.close()
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["size"], 4 * MIB)

    def test_plugin_refuses_mid_body(self):
        status, _, body = self.upload("refused", blocks(3 * MIB, seed=5), 3 * MIB,
                                      query="?fail_at=1048577")
        self.assertEqual(status, 409, body)
        self.assertIn(b"fail_at", body)
        self.assertEqual(self.get("refused").status, 404)

    def test_error_channel_mid_body(self):
        status, _, body = self.upload("said", blocks(3 * MIB, seed=6), 3 * MIB,
                                      query="?refuse_at=2000000")
        self.assertEqual(status, 400, body)
        err = json.loads(body)["error"]
        self.assertEqual(err["message"], "refused past byte 2000000")
        self.assertEqual(err.get("field"), "body")
        self.assertEqual(self.get("said").status, 404)

    def test_plugin_area_is_private(self):
        r = self.put_small("mine", b"private bytes", query="?area=plugin")
        self.assertEqual(r.status, 200, r.body)
        r = self.get("mine", query="?area=plugin")
        self.assertEqual((r.status, r.raw), (200, b"private bytes"))
        self.assertEqual(self.get("mine").status, 404)   # not in the project's files
        r = self.c.request("GET", "/api/v1/projects/data/files/uploads/mine", headers=ADMIN)
        self.assertEqual(r.status, 404)

    def test_empty_and_uncommitted(self):
        r = self.put_small("empty", b"")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()["sha256"], hashlib.sha256(b"").hexdigest())
        r = self.get("empty")
        self.assertEqual((r.status, r.raw), (200, b""))
        r = self.put_small("later", b"half", query="?commit=0")
        self.assertEqual((r.status, r.json()), (200, {"pending": 4}))
        self.assertEqual(self.get("later").status, 404)


if __name__ == "__main__":
    unittest.main(verbosity=2)
