"""Integration: the ABI 1.5 watch and paged-list slots in a real cubed,
driven by the watchprobe plugin — ADDED/MODIFIED/DELETED in order, Events
by reason, cancel from inside a callback, overflow gives ERROR, resume from
a list's resourceVersion, and a 10,000-object list read in pages of 500
(every object exactly once while writes go on; project NULL lists every
project)."""
import json
import os
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

from cubetest import Cubed

TOKEN = "watch-admin-token"
ADMIN = {"Authorization": "Bearer " + TOKEN}
W = "/api/v1/watchprobe/watches"


def wait_for(fn, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    return fn()


class Watch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"watchprobe": None},
                      cube={"log": {"level": os.environ.get("CUBE_TEST_LOG_LEVEL", "info")}},
                      env={"CUBE_ADMIN_TOKEN": TOKEN})
        for p in ("demo", "other", "big", "big2"):
            r = cls.req("POST", "/api/v1/projects", {"metadata": {"name": p}, "spec": {}})
            assert r.status == 201, r.body

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    @classmethod
    def req(cls, method, path, body=None):
        h = dict(ADMIN)
        if body is not None:
            h["Content-Type"] = ("application/merge-patch+json" if method == "PATCH"
                                 else "application/json")
        return cls.c.request(method, path, body=body, headers=h, timeout=60)

    def tick(self, project, name, labels=None):
        r = self.req("POST", f"/api/v1/projects/{project}/ticks",
                     {"metadata": {"name": name, "labels": labels or {}}, "spec": {}})
        self.assertEqual(r.status, 201, r.body)
        return r.json()

    def watch(self, **q):
        qs = "&".join(f"{k}={v}" for k, v in q.items())
        r = self.req("POST", f"{W}?{qs}")
        self.assertEqual(r.status, 201, r.body)
        return r.json()["id"]

    def seen(self, wid):
        r = self.req("GET", f"{W}/{wid}")
        self.assertEqual(r.status, 200, r.body)
        return r.json()["seen"]

    def cancel(self, wid):
        self.assertEqual(self.req("DELETE", f"{W}/{wid}").status, 200)

    def test_added_modified_deleted_in_order(self):
        wid = self.watch(kind="Tick", project="demo", selector="tier%3Dweb")
        other = self.watch(kind="Tick", project="other")
        self.tick("demo", "a1", {"tier": "web"})
        self.tick("demo", "a2", {"tier": "db"})
        self.tick("other", "b1", {"tier": "web"})
        r = self.req("PATCH", "/api/v1/projects/demo/ticks/a1", {"spec": {"v": 2}})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.req("DELETE", "/api/v1/projects/demo/ticks/a1").status // 100, 2)
        got = wait_for(lambda: len(self.seen(wid)) >= 3 and self.seen(wid))
        self.assertEqual([(s["type"], s["name"]) for s in got],
                         [("ADDED", "a1"), ("MODIFIED", "a1"), ("DELETED", "a1")])
        rvs = [int(s["rv"]) for s in got]
        self.assertEqual(rvs, sorted(rvs))
        self.assertFalse(any("overlap" in s for s in got))
        o = wait_for(lambda: self.seen(other))
        self.assertEqual([(s["type"], s["name"]) for s in o], [("ADDED", "b1")])
        self.cancel(wid)
        self.cancel(other)

    def test_events_by_reason(self):
        wid = self.watch(kind="Event", involved="Tick", reason="Poked")
        self.tick("demo", "e1")
        for reason in ("Poked", "Ignored", "Poked"):
            r = self.req("POST", f"/api/v1/watchprobe/events?project=demo&name=e1&reason={reason}")
            self.assertEqual(r.status, 201, r.body)
        got = wait_for(lambda: len(self.seen(wid)) >= 2 and self.seen(wid))
        time.sleep(0.2)
        got = self.seen(wid)
        self.assertEqual([(s["type"], s["name"]) for s in got], [("ADDED", "Poked")] * 2)
        self.assertLess(int(got[0]["rv"]), int(got[1]["rv"]))
        self.cancel(wid)

    def test_cancel_from_inside_the_callback(self):
        wid = self.watch(kind="Tick", project="demo", cancel_in_cb=1)
        for i in range(3):
            self.tick("demo", f"c{i}")
        wait_for(lambda: self.seen(wid))
        time.sleep(0.3)
        self.tick("demo", "c-late")
        time.sleep(0.3)
        self.assertEqual(len(self.seen(wid)), 1)
        self.cancel(wid)

    def test_overflow_gives_relist(self):
        wid = self.watch(kind="Tick", project="demo", max=5, slow_ms=300)
        for i in range(40):
            self.tick("demo", f"o{i}")
        got = wait_for(lambda: any(s["type"] == "ERROR" for s in self.seen(wid)) and self.seen(wid))
        self.assertTrue(got, "no ERROR after overflow")
        self.assertEqual(got[-1]["type"], "ERROR")
        self.assertEqual(got[-1]["name"], "Gone")
        self.assertLess(len(got), 40)
        n = len(got)
        self.tick("demo", "o-late")
        time.sleep(0.5)
        self.assertEqual(len(self.seen(wid)), n)  # nothing after the ERROR
        self.cancel(wid)

    def test_resume_from_a_list(self):
        self.tick("other", "r1")
        rv = self.req("GET", "/api/v1/projects/other/ticks").json()["metadata"]["resourceVersion"]
        self.tick("other", "r2")
        wid = self.watch(kind="Tick", project="other", rv=rv)
        got = wait_for(lambda: [s for s in self.seen(wid) if s["name"] == "r2"] and
                       self.seen(wid))
        # The contract (cube_host.h obj_list_page): a watch from a list's
        # resourceVersion never misses a change after it and may repeat one
        # the list already shows (the list's version is the last one every
        # earlier write has finished by, so a write still in flight
        # elsewhere, an Event, holds it back). So r2 exactly once, last; r1
        # at most once before it.
        pairs = [(s["type"], s["name"]) for s in got]
        self.assertEqual(pairs[-1], ("ADDED", "r2"), pairs)
        self.assertIn(pairs[:-1], ([], [("ADDED", "r1")]), pairs)
        self.cancel(wid)
        r = self.req("POST", f"{W}?kind=Tick&rv=12x")
        self.assertEqual(r.status, 400)

    def test_ten_thousand_in_pages_while_writing(self):
        n = 10000
        with ThreadPoolExecutor(8) as ex:
            list(ex.map(lambda i: self.tick("big" if i % 3 else "big2", f"p{i:05d}"), range(n)))
        stop = threading.Event()
        writes = [0]

        def writer():
            i = 0
            while not stop.is_set():
                self.tick("big", f"zz-new-{i}")
                self.req("PATCH", f"/api/v1/projects/big2/ticks/p{(i * 3) % n:05d}",
                         {"metadata": {"labels": {"touched": str(i)}}})
                i += 1
            writes[0] = i

        t = threading.Thread(target=writer)
        t.start()
        try:
            r = self.req("GET", "/api/v1/watchprobe/pages?kind=Tick&limit=500&pause_ms=30")
        finally:
            stop.set()
            t.join()
        self.assertEqual(r.status, 200, r.body[:300])
        doc = r.json()
        self.assertGreaterEqual(doc["pages"], n // 500)
        mine = [x for x in doc["items"] if x.split("/", 1)[1].startswith("p")]
        self.assertEqual(len(mine), n)
        self.assertEqual(len(set(mine)), n)
        self.assertGreater(writes[0], 0)
        self.assertTrue(any(x.startswith("big2/") for x in mine))  # NULL: every project


if __name__ == "__main__":
    unittest.main(verbosity=2)
