"""Integration: the SDK's streams against a real cubed (testkinds) seen
through a proxy that can drop connections — a watch resumes from the last
resourceVersion after a forced disconnect and after going silent, and
after 410 Gone (cubed restarted while the watch was cut off) lists again
and yields only what changed; a followed log resumes at the byte it
reached; close() ends a watch from another thread."""
import sys
import threading
import time

import cube
from sdktest import CutProxy, Test, main, url, wait_for

P = "streams"


def note(name):
    return {"metadata": {"name": name}, "spec": {}}


class Collector:
    """Runs an iterator on a thread, keeping what it yields."""

    def __init__(self, it):
        self.it, self.got, self.error, self.done = it, [], None, False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        try:
            for x in self.it:
                self.got.append(x)
        except BaseException as e:   # reported by the test
            self.error = e
        self.done = True

    def names(self, typ=None):
        return [e.object.name for e in self.got if typ is None or e.type == typ]


class Streams(Test):
    def setUp(self):
        self.direct = self.client(project=P)
        self.proxy = CutProxy(self.server.port)
        self.c = self.client(api=url(self.server, self.proxy.port), project=P)

    def tearDown(self):
        self.proxy.close()

    def test_watch_resumes_after_a_forced_disconnect(self):
        _, rv, _ = self.direct.list_page("notes")
        w = self.c.watch("notes", selector="w=cut", resource_version=rv)   # no race
        col = Collector(w)
        self.direct.create("notes", dict(note("cut1"), metadata={"name": "cut1",
                                                                 "labels": {"w": "cut"}}))
        self.assertTrue(wait_for(lambda: col.names() == ["cut1"]), col.got)
        self.proxy.hold()                  # cut, and refuse new connections for a while
        for n in ("cut2", "cut3"):
            self.direct.create("notes", {"metadata": {"name": n, "labels": {"w": "cut"}},
                                         "spec": {}})
        self.direct.patch("notes", "cut1", {"spec": {"size": 7}})
        time.sleep(0.3)
        self.proxy.release()
        self.assertTrue(wait_for(lambda: len(col.got) == 4, 20), (col.got, col.error))
        self.assertEqual([(e.type, e.object.name) for e in col.got],
                         [("ADDED", "cut1"), ("ADDED", "cut2"), ("ADDED", "cut3"),
                          ("MODIFIED", "cut1")])
        self.assertGreaterEqual(w.reconnects, 1)
        self.assertEqual(w.relists, 0)
        self.direct.delete("notes", "cut2")
        self.assertTrue(wait_for(lambda: col.names("DELETED") == ["cut2"]), col.got)
        w.close()
        self.assertTrue(wait_for(lambda: col.done), "close() did not end the watch")
        self.assertIsNone(col.error)

    def test_watch_relists_after_410(self):
        self.direct.create("notes", {"metadata": {"name": "old", "labels": {"w": "gone"}},
                                     "spec": {}})
        w = self.c.watch("notes", selector="w=gone", send_initial=True)
        col = Collector(w)
        self.assertTrue(wait_for(lambda: col.names() == ["old"]), col.got)
        self.direct.create("notes", {"metadata": {"name": "g1", "labels": {"w": "gone"}},
                                     "spec": {}})
        self.assertTrue(wait_for(lambda: col.names() == ["old", "g1"]), col.got)
        self.proxy.hold()
        # while cut off: a change, a deletion, then a restart that loses
        # the watch history (the watch's version is now too old: 410)
        self.direct.create("notes", {"metadata": {"name": "g2", "labels": {"w": "gone"}},
                                     "spec": {}})
        self.direct.delete("notes", "old")
        self.server.stop()
        self.server.start()
        self.direct.create("notes", {"metadata": {"name": "g3", "labels": {"w": "gone"}},
                                     "spec": {}})
        self.proxy.release()
        self.assertTrue(wait_for(lambda: len(col.got) >= 4, 30), (col.got, col.error))
        got = sorted((e.type, e.object.name) for e in col.got[2:])
        self.assertEqual(got, [("ADDED", "g2"), ("ADDED", "g3"), ("DELETED", "old")])
        self.assertEqual(w.relists, 1)
        # and it goes on watching
        self.direct.create("notes", {"metadata": {"name": "g4", "labels": {"w": "gone"}},
                                     "spec": {}})
        self.assertTrue(wait_for(lambda: col.names()[-1:] == ["g4"]), col.got)
        self.assertEqual(len(col.got), 6, col.got)      # nothing twice
        w.close()

    def test_a_silent_watch_is_resumed_and_a_timeout_ends_it(self):
        _, rv, _ = self.direct.list_page("notes")
        w = self.c.watch("notes", selector="w=idle", idle_timeout=0.3, timeout=4,
                         resource_version=rv)
        col = Collector(w)
        time.sleep(1.2)                    # silent: resumed a few times
        self.direct.create("notes", {"metadata": {"name": "quiet", "labels": {"w": "idle"}},
                                     "spec": {}})
        self.assertTrue(wait_for(lambda: col.names() == ["quiet"]), col.got)
        self.assertGreaterEqual(w.reconnects, 2)
        self.assertTrue(wait_for(lambda: col.done, 10), "timeout= did not end the watch")
        self.assertIsNone(col.error)
        self.assertEqual(col.names(), ["quiet"])

    def test_watch_from_a_resource_version(self):
        self.direct.create("notes", {"metadata": {"name": "rv1", "labels": {"w": "rv"}},
                                     "spec": {}})
        _, rv, _ = self.direct.list_page("notes")
        self.direct.create("notes", {"metadata": {"name": "rv2", "labels": {"w": "rv"}},
                                     "spec": {}})
        w = self.c.watch("notes", selector="w=rv", resource_version=rv)
        col = Collector(w)
        self.assertTrue(wait_for(lambda: col.names() == ["rv2"]), col.got)
        self.assertGreater(int(w.resource_version), int(rv))
        w.close()

    def test_a_followed_log_resumes_where_it_was(self):
        self.direct.create("widgets", note("talker"))
        say = self.direct.path("widgets", "talker", None, "say")
        self.direct.request("POST", say, query={"text": "one"}, body={})
        lines = Collector(self.c.logs("widgets", "talker", follow=True, idle_timeout=0.4))
        self.direct.request("POST", say, query={"text": "two"}, body={})
        self.assertTrue(wait_for(lambda: lines.got == ["one", "two"]), lines.got)
        self.proxy.hold()
        self.direct.request("POST", say, query={"text": "three"}, body={})
        time.sleep(0.3)
        self.proxy.release()
        time.sleep(1.0)                    # silent a while: resumed, not ended
        self.direct.request("POST", say, query={"text": "four"}, body={})
        self.direct.request("POST", say, query={"close": "1"}, body={})
        self.assertTrue(wait_for(lambda: lines.done, 20), lines.got)
        self.assertIsNone(lines.error)
        self.assertEqual(lines.got, ["one", "two", "three", "four"])
        # not followed: what is there, from an offset
        self.assertEqual(list(self.c.logs("widgets", "talker")), lines.got)
        self.assertEqual(list(self.c.logs("widgets", "talker", offset=4)),
                         ["two", "three", "four"])
        with self.assertRaises(cube.NotFound):
            list(self.c.logs("widgets", "talker", stream="nosuch"))


def setup(server):
    r = server.admin().request("POST", "/api/v1/projects", {"metadata": {"name": P},
                                                            "spec": {}})
    assert r.status == 201, r.body


if __name__ == "__main__":
    sys.exit(main({"testkinds": None}, setup=setup))
