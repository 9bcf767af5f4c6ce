"""Integration: the generic resource API over a real cubed — CRUD, schema
errors with field paths, optimistic concurrency, merge patch, selectors,
paging, watch, status, events, actions, finalizers, cascading delete,
restart. Runs on SQLite, and on PostgreSQL when CUBE_TEST_PG_URL is set
(the suite runs twice; see meson.build)."""
import http.client
import json
import os
import signal
import subprocess
import threading
import time
import unittest

from cubetest import Cubed

TOKEN = "resources-admin-token"
ADMIN = {"Authorization": "Bearer " + TOKEN}
PG_URL = os.environ.get("CUBE_TEST_PG_URL")
DRIVER = os.environ.get("CUBE_TEST_DRIVER", "sqlite")
P = "/api/v1/projects/demo/widgets"
# Every project the tests write into: objects need an existing project.
PROJECTS = ("demo", "paging", "watchp", "resume", "lw")


def make_projects(c, *names):
    """Creates projects with the admin token (project kinds need them). On
    PostgreSQL the database outlives each cubed: a project may be there."""
    for name in names:
        r = c.request("POST", "/api/v1/projects", headers=ADMIN,
                      body={"metadata": {"name": name}, "spec": {}})
        assert r.status == 201 or (r.status == 409 and DRIVER == "postgres"), r.body


def start(**kw):
    cube = {"limits": {"max_body_bytes": 65536},
            "log": {"level": os.environ.get("CUBE_TEST_LOG_LEVEL", "info")}}
    if DRIVER == "postgres":
        cube["database"] = PG_URL
    return Cubed(plugins={"testkinds": None}, cube=cube,
                 env={"CUBE_ADMIN_TOKEN": TOKEN}, **kw)


def wait_for(fn, timeout=5.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    return fn()


class Api(unittest.TestCase):
    n = 0  # names are unique across the whole run

    @classmethod
    def setUpClass(cls):
        if DRIVER == "postgres" and not PG_URL:
            raise unittest.SkipTest("no PostgreSQL for this run")
        cls.c = start()
        try:
            make_projects(cls.c, *PROJECTS)
        except BaseException:
            cls.c.close()  # tearDownClass does not run when setUpClass fails
            raise

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def name(self, prefix="w"):
        Api.n += 1
        return f"{prefix}{os.getpid() % 1000}-{Api.n}"

    def get(self, path):
        """Reads need a signed-in caller: the admin token."""
        return self.c.get(path, headers=ADMIN)

    def post(self, body, path=P):
        return self.c.request("POST", path, body=body, headers=ADMIN)

    def create(self, name, spec=None, labels=None, path=P, **meta):
        md = {"name": name, **meta}
        if labels:
            md["labels"] = labels
        r = self.post({"metadata": md, "spec": spec or {}}, path)
        self.assertEqual(r.status, 201, r.body)
        return r.json()

    def count(self, path=P):
        return len(self.get(path).json()["items"])

class Crud(Api):
    def test_create_get_replace_delete(self):
        n = self.name()
        obj = self.create(n, {"color": "red"}, {"app": "x"})
        md = obj["metadata"]
        self.assertEqual(obj["kind"], "Widget")
        self.assertEqual(md["project"], "demo")
        self.assertEqual(md["generation"], 1)
        self.assertEqual(obj["spec"], {"color": "red", "size": 1})  # default applied
        for key in ("uid", "created", "updated", "resourceVersion", "owner"):
            self.assertIn(key, md)
        # Wait for the controller's status write, so the PUT below does not
        # race it (a race would rightly be a 409).
        got = wait_for(lambda: (lambda o: o if "status" in o else None)(
            self.get(f"{P}/{n}").json()))
        self.assertEqual(got["metadata"]["uid"], md["uid"])
        got["spec"]["size"] = 4
        r = self.c.request("PUT", f"{P}/{n}", body=got, headers=ADMIN)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()["metadata"]["generation"], 2)
        self.assertGreater(int(r.json()["metadata"]["resourceVersion"]),
                           int(got["metadata"]["resourceVersion"]))
        r = self.c.request("DELETE", f"{P}/{n}", headers=ADMIN)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.get(f"{P}/{n}").status, 404)

    def test_duplicate_name_is_409(self):
        n = self.name()
        self.create(n)
        r = self.post({"metadata": {"name": n}, "spec": {}})
        self.assertEqual(r.status, 409)
        self.assertEqual(r.json()["error"]["code"], "AlreadyExists")

    def test_stale_resource_version_is_409(self):
        # Gadgets have no controller, so only this test writes them.
        n, gp = self.name("g"), "/api/v1/gadgets"
        obj = self.create(n, {"model": "a"}, path=gp)
        fresh = json.loads(json.dumps(obj))
        fresh["spec"]["model"] = "b"
        r = self.c.request("PUT", f"{gp}/{n}", body=fresh, headers=ADMIN)
        self.assertEqual(r.status, 200, r.body)
        obj["spec"]["model"] = "c"  # still carries the old resourceVersion
        r = self.c.request("PUT", f"{gp}/{n}", body=obj, headers=ADMIN)
        self.assertEqual(r.status, 409)
        self.assertEqual(r.json()["error"]["code"], "Conflict")
        self.assertEqual(self.get(f"{gp}/{n}").json()["spec"]["model"], "b")

    def test_generation_bumps_only_on_spec_change(self):
        n = self.name()
        self.create(n, labels={"a": "1"})
        r = self.c.request("PATCH", f"{P}/{n}", body={"metadata": {"labels": {"a": "2"}}},
                           headers=ADMIN)
        self.assertEqual(r.json()["metadata"]["generation"], 1)
        r = self.c.request("PATCH", f"{P}/{n}", body={"spec": {"note": "hi"}}, headers=ADMIN)
        self.assertEqual(r.json()["metadata"]["generation"], 2)

    def test_merge_patch_null_removes(self):
        n = self.name()
        self.create(n, {"color": "red", "note": "x"}, {"a": "1", "b": "2"})
        r = self.c.request("PATCH", f"{P}/{n}", headers=ADMIN,
                           body={"metadata": {"labels": {"a": None}}, "spec": {"note": None}})
        self.assertEqual(r.status, 200, r.body)
        obj = r.json()
        self.assertEqual(obj["metadata"]["labels"], {"b": "2"})
        self.assertNotIn("note", obj["spec"])
        self.assertEqual(obj["spec"]["color"], "red")
        r = self.c.request("PATCH", f"{P}/{n}", headers=ADMIN, body={"status": {"phase": "x"}})
        self.assertEqual(r.status, 422)

    def test_cluster_kind(self):
        n = self.name("g")
        r = self.post({"metadata": {"name": n}, "spec": {"model": "x"}}, "/api/v1/gadgets")
        self.assertEqual(r.status, 201, r.body)
        self.assertNotIn("project", r.json()["metadata"])
        self.assertEqual(self.get(f"/api/v1/gadgets/{n}").status, 200)
        self.assertEqual(self.get("/api/v1/projects/demo/gadgets").status, 404)
        self.assertEqual(self.get("/api/v1/widgets").status, 404)

    def test_kinds_document(self):
        kinds = {k["plural"]: k for k in self.c.get("/api/v1/kinds").json()["items"]}
        self.assertEqual(kinds["widgets"]["scope"], "project")
        self.assertEqual(kinds["gadgets"]["scope"], "cluster")
        self.assertEqual(kinds["widgets"]["printerColumns"][0]["jsonPath"], ".spec.size")
        self.assertIn("poke", [a["name"] for a in kinds["widgets"]["actions"]])
        self.assertIn("size", kinds["widgets"]["schema"]["properties"])

    def test_anonymous_callers_get_401(self):
        r = self.c.request("POST", P, body={"metadata": {"name": "nope"}, "spec": {}})
        self.assertEqual(r.status, 401)
        self.assertEqual(self.c.get(P).status, 401)  # reads need a caller too
        self.assertEqual(self.c.get(f"{P}/nope").status, 401)
        self.assertEqual(self.c.get("/api/v1/gadgets").status, 401)
        self.assertEqual(self.get(f"{P}/nope").status, 404)  # nothing was written

    def test_non_members_and_users(self):
        u = self.c.make_user(self.name("u"))
        gadget = {"metadata": {"name": self.name("g")}, "spec": {"model": "x"}}
        # Not a member of the project: 404 both ways (names do not leak).
        self.assertEqual(u.get(P).status, 404)
        r = u.request("POST", P, body={"metadata": {"name": "nope"}, "spec": {}})
        self.assertEqual(r.status, 404)
        self.assertEqual(self.get(f"{P}/nope").status, 404)
        # Cluster kinds: any signed-in user reads, only administrators write.
        self.assertEqual(u.get("/api/v1/gadgets").status, 200)
        self.assertEqual(u.request("POST", "/api/v1/gadgets", body=gadget).status, 403)
        self.assertEqual(self.get(f"/api/v1/gadgets/{gadget['metadata']['name']}").status, 404)

    def test_create_in_missing_project_is_404(self):
        path = "/api/v1/projects/no-such-project/widgets"
        r = self.post({"metadata": {"name": "x"}, "spec": {}}, path)
        self.assertEqual(r.status, 404, r.body)
        self.assertEqual(r.json()["error"]["code"], "NotFound")
        self.assertEqual(self.get(path + "/x").status, 404)


class BadInput(Api):
    def assert_nothing_written(self, before):
        self.assertEqual(self.count(), before)

    def test_schema_error_names_the_field(self):
        before = self.count()
        r = self.post({"metadata": {"name": self.name()},
                       "spec": {"tasks": [{"name": "a"}, {"name": "b"},
                                          {"name": "c", "retries": "x"}]}})
        self.assertEqual(r.status, 422)
        err = r.json()["error"]
        self.assertEqual(err["field"], "spec.tasks[2].retries")
        self.assertIn("integer", err["message"])
        self.assert_nothing_written(before)

    def test_each_bad_input_is_4xx_json_and_writes_nothing(self):
        before = self.count()
        cases = [
            ("{not json", 400, None),
            ('{"metadata":{"name":"ok"},"spec":{}} trailing', 400, None),
            ('[1,2]', 400, None),
            ({"metadata": {"name": "x"}, "spec": {"size": "big"}}, 422, "spec.size"),
            ({"metadata": {"name": "x"}, "spec": {"colour": "red"}}, 422, "spec.colour"),
            ({"metadata": {"name": "x"}, "spec": {"color": "pink"}}, 422, "spec.color"),
            ({"metadata": {"name": "x"}, "spec": {"size": -1}}, 422, "spec.size"),
            ({"metadata": {"name": "x"}, "spek": {}}, 422, "spek"),
            ({"metadata": {"name": "Bad_Name"}, "spec": {}}, 422, "metadata.name"),
            ({"metadata": {"name": "a" * 64}, "spec": {}}, 422, "metadata.name"),
            ({"metadata": {}, "spec": {}}, 422, "metadata.name"),
            ({"metadata": {"name": "x", "labels": {"bad key!": "v"}}, "spec": {}}, 422,
             "metadata.labels"),
            ({"metadata": {"name": "x", "project": "other"}, "spec": {}}, 400,
             "metadata.project"),
            ({"kind": "Gadget", "metadata": {"name": "x"}, "spec": {}}, 400, "kind"),
            ({"metadata": {"name": "x"}, "spec": {"color": "blue", "size": 13}}, 422,
             "spec.size"),
            ({"metadata": {"name": "x"}, "spec": {"note": "n" * 70000}}, 413, None),
        ]
        for body, status, field in cases:
            r = self.post(body if isinstance(body, str) else json.dumps(body))
            self.assertEqual(r.status, status, f"{str(body)[:80]}: {r.body}")
            err = r.json()["error"]
            self.assertTrue(err["message"])
            if field:
                self.assertEqual(err.get("field"), field, str(body)[:80])
        deep = '{"metadata":{"name":"deep"},"spec":{"note":' + "[" * 2000 + "]" * 2000 + "}}"
        self.assertIn(self.post(deep).status, (400, 422))
        self.assertEqual(self.post("\x00").status, 400)
        self.assert_nothing_written(before)

    def test_bad_query_parameters(self):
        self.assertEqual(self.get(P + "?limit=abc").status, 400)
        self.assertEqual(self.get(P + "?labelSelector=a%20in%20(").status, 400)
        self.assertEqual(self.get(P + "?continue=zz").status, 400)
        self.assertEqual(self.get("/api/v1/projects/Bad_P/widgets").status, 400)
        self.assertEqual(self.get("/api/v1/projects/demo/nothings").status, 404)


class Lists(Api):
    def test_label_selectors(self):
        base = self.name("sel")
        self.create(base + "a", labels={"tier": "web", "env": "prod"})
        self.create(base + "b", labels={"tier": "db", "env": "prod"})
        self.create(base + "c", labels={"tier": "web", "env": "dev"})

        def names(sel):
            r = self.get(P + "?labelSelector=" + sel.replace(" ", "%20").replace("=", "%3D"))
            self.assertEqual(r.status, 200, r.body)
            return sorted(i["metadata"]["name"] for i in r.json()["items"]
                          if i["metadata"]["name"].startswith(base))
        self.assertEqual(names("tier=web"), [base + "a", base + "c"])
        self.assertEqual(names("tier=web,env!=dev"), [base + "a"])
        self.assertEqual(names("env in (dev,prod),tier notin (web)"), [base + "b"])
        self.assertEqual(names("!tier"), [])

    def test_paging_is_stable_under_concurrent_inserts(self):
        path = "/api/v1/projects/paging/widgets"
        existing = {f"p{i:03d}" for i in range(60)}
        for n in existing:
            self.create(n, path=path)
        stop = threading.Event()

        def writer():
            i = 0
            while not stop.is_set():
                for prefix in ("a", "z"):
                    self.post({"metadata": {"name": f"{prefix}-new-{i}"}, "spec": {}}, path)
                i += 1
        t = threading.Thread(target=writer)
        t.start()
        seen, cont, pages = [], None, 0
        try:
            while True:
                q = "?limit=7" + (f"&continue={cont}" if cont else "")
                doc = self.get(path + q).json()
                seen += [i["metadata"]["name"] for i in doc["items"]]
                pages += 1
                cont = doc["metadata"].get("continue")
                if not cont:
                    break
        finally:
            stop.set()
            t.join()
        self.assertEqual(len(seen), len(set(seen)), "an item came twice")
        self.assertTrue(existing <= set(seen), sorted(existing - set(seen)))
        self.assertGreater(pages, 8)


class Watcher:
    """Reads Server-Sent Events from a watch URL on a thread."""

    def __init__(self, port, path, headers=ADMIN):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.conn.request("GET", path, headers=headers)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.events, self.lock = [], threading.Lock()
        if self.status == 200:
            threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        data = None
        try:
            for raw in iter(self.resp.readline, b""):
                line = raw.decode().rstrip("\n")
                if line.startswith("event: ERROR"):
                    break
                if line.startswith("data: "):
                    data = json.loads(line[6:])
                elif line == "" and data is not None:
                    with self.lock:
                        self.events.append(data)
                    data = None
        except (OSError, ValueError, AttributeError):
            pass  # the test closed the connection

    def wait(self, n, timeout=5.0):
        ok = wait_for(lambda: len(self.events) >= n, timeout)
        with self.lock:
            return list(self.events) if ok else list(self.events)

    def close(self):
        self.conn.close()


class Watch(Api):
    def test_added_modified_deleted_in_order(self):
        path = "/api/v1/projects/watchp/widgets"
        w = Watcher(self.c.port, path + "?watch=1&labelSelector=w%3D1")
        self.assertEqual(w.status, 200)
        try:
            self.create("ww", path=path, labels={"w": "1"})
            self.create("other", path=path, labels={"w": "2"})  # filtered out
            self.c.request("PATCH", f"{path}/ww", body={"spec": {"size": 9}}, headers=ADMIN)
            self.c.request("DELETE", f"{path}/ww", headers=ADMIN)
            wait_for(lambda: any(e["type"] == "DELETED" for e in w.wait(0)))
            evs = w.wait(0)
            types = [e["type"] for e in evs if e["object"]["metadata"]["name"] == "ww"]
            # MODIFIED may come more than once (the controller writes status).
            self.assertEqual(types[0], "ADDED")
            self.assertEqual(types[-1], "DELETED")
            self.assertIn("MODIFIED", types)
            self.assertFalse(any(e["object"]["metadata"]["name"] == "other" for e in evs))
            rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
            self.assertEqual(rvs, sorted(rvs))
        finally:
            w.close()

    def test_resume_from_resource_version(self):
        path = "/api/v1/projects/resume/widgets"
        first = self.create("r1", path=path)
        rv = first["metadata"]["resourceVersion"]
        self.create("r2", path=path)
        self.create("r3", path=path)
        w = Watcher(self.c.port, f"{path}?watch=1&resourceVersion={rv}")

        def added():
            return [e["object"]["metadata"]["name"] for e in w.wait(0) if e["type"] == "ADDED"]
        try:
            # The controller's status writes (MODIFIED) interleave; wait for both ADDs.
            wait_for(lambda: len(added()) >= 2)
            self.assertEqual(added()[:2], ["r2", "r3"])
        finally:
            w.close()

    def test_list_then_watch_misses_nothing(self):
        path = "/api/v1/projects/lw/widgets"
        self.create("before", path=path)
        rv = self.get(path).json()["metadata"]["resourceVersion"]
        w = Watcher(self.c.port, f"{path}?watch=1&resourceVersion={rv}")
        try:
            self.create("after", path=path)
            self.assertTrue(wait_for(lambda: any(
                e["object"]["metadata"]["name"] == "after" for e in w.wait(0))))
        finally:
            w.close()


class ErrorChannel(Api):
    """ABI 1.5: a kind's check explains itself with set_error_field, and a
    reconcile that polls returns CUBE_EAGAIN after retry_after."""
    G = "/api/v1/projects/demo/gauges"

    def test_check_names_the_field(self):
        r = self.post({"metadata": {"name": self.name("g")}, "spec": {"target": 5, "step": 2}},
                      self.G)
        self.assertEqual(r.status, 422, r.body)
        err = r.json()["error"]
        self.assertEqual(err["field"], "spec.target")
        self.assertIn("multiple of spec.step (2)", err["message"])
        # An update is checked too, and the stored object is untouched.
        n = self.name("g")
        self.create(n, {"target": 4, "step": 2, "everyMs": 0}, path=self.G)
        r = self.c.request("PATCH", f"{self.G}/{n}", body={"spec": {"target": 7}},
                           headers=ADMIN)
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(self.get(f"{self.G}/{n}").json()["spec"]["target"], 4)

    def test_eagain_polls_after_the_delay(self):
        n = self.name("g")
        t0 = time.time()
        self.create(n, {"target": 4, "everyMs": 150}, path=self.G)
        obj = wait_for(lambda: (lambda o: o if o.get("status", {}).get("phase") == "Done"
                                else None)(self.get(f"{self.G}/{n}").json()))
        took = time.time() - t0
        self.assertEqual(obj["status"]["calls"], 4)
        # Three waits of 150 ms between four calls: no back-off growth (that
        # would be 100+200+400 ms and more), no call before its delay.
        self.assertGreaterEqual(took, 0.4)
        print(f"four polls 150 ms apart took {took:.2f} s")

    def test_failure_message_is_logged(self):
        n = self.name("g")
        self.create(n, {"target": 1, "fail": True}, path=self.G)
        wait_for(lambda: f"gauge {n} asked to fail" in self.c.output())
        self.assertIn(f"gauge {n} asked to fail", self.c.output())


class StatusEventsActions(Api):
    def test_controller_writes_status(self):
        n = self.name()
        self.create(n, {"size": 3})
        obj = wait_for(lambda: (lambda o: o if o.get("status", {}).get("observedSize") == 3
                                else None)(self.get(f"{P}/{n}").json()))
        self.assertEqual(obj["status"]["phase"], "Ready")

    def test_status_endpoint_validates(self):
        n = self.name()
        self.create(n)
        r = self.c.request("PUT", f"{P}/{n}/status", headers=ADMIN,
                           body={"status": {"phase": 5}})
        self.assertEqual(r.status, 422)
        self.assertEqual(r.json()["error"]["field"], "status.phase")

    def test_audit_events_per_object_and_project(self):
        n = self.name()
        self.create(n)
        self.c.request("PATCH", f"{P}/{n}", body={"spec": {"size": 2}}, headers=ADMIN)
        evs = self.get(f"{P}/{n}/events").json()["items"]
        verbs = [(e.get("verb"), e.get("user")) for e in evs]
        self.assertIn(("create", "admin"), verbs)
        self.assertIn(("update", "admin"), verbs)
        self.assertTrue(all(e["involvedObject"]["name"] == n for e in evs))
        r = self.c.request("PUT", f"{P}/{n}", headers=ADMIN,
                           body={"metadata": {"name": n}, "spec": {"size": "big"}})
        self.assertEqual(r.status, 422)
        refused = [e for e in self.get(f"{P}/{n}/events").json()["items"]
                   if e["reason"] == "Refused"]
        self.assertEqual((refused[0]["verb"], refused[0]["result"], refused[0]["type"]),
                         ("update", 422, "Warning"))
        proj = self.get("/api/v1/projects/demo/events?limit=500").json()["items"]
        self.assertTrue(any(e["involvedObject"]["name"] == n for e in proj))

    def test_action(self):
        n = self.name()
        self.create(n)
        self.assertEqual(self.c.request("POST", f"{P}/{n}/poke").status, 401)
        r = self.c.request("POST", f"{P}/{n}/poke", headers=ADMIN)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json(), {"poked": True})
        reasons = [e["reason"] for e in self.get(f"{P}/{n}/events").json()["items"]]
        self.assertIn("Poked", reasons)
        self.assertEqual(self.c.request("POST", f"{P}/{n}/nope", headers=ADMIN).status, 404)
        self.assertEqual(self.c.request("POST", f"{P}/missing/poke", headers=ADMIN).status, 404)

    def test_logs_read_and_follow(self):
        n = self.name()
        self.create(n)
        self.assertEqual(self.get(f"{P}/{n}/logs").status, 404)
        for word in ("one", "two"):
            r = self.c.request("POST", f"{P}/{n}/say?text={word}", headers=ADMIN)
            self.assertEqual(r.status, 200, r.body)
        r = self.get(f"{P}/{n}/logs")
        self.assertEqual((r.status, r.body), (200, "one\ntwo\n"))
        self.assertEqual(self.get(f"{P}/{n}/logs?offset=4").body, "two\n")
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        conn.request("GET", f"{P}/{n}/logs?follow=1", headers=ADMIN)
        resp = conn.getresponse()
        self.assertEqual(resp.readline(), b"one\n")
        self.assertEqual(resp.readline(), b"two\n")
        self.c.request("POST", f"{P}/{n}/say?text=three&close=1", headers=ADMIN)
        self.assertEqual(resp.read(), b"three\n")  # then the stream ends
        conn.close()
        self.assertEqual(self.get(f"{P}/missing/logs").status, 404)

    def test_finalizer_holds_deletion(self):
        lp = "/api/v1/projects/demo/locks"
        self.create("held", {"holdFinalizer": True}, path=lp)
        r = self.c.request("DELETE", f"{lp}/held", headers=ADMIN)
        self.assertEqual(r.status, 202, r.body)
        obj = self.get(f"{lp}/held").json()
        self.assertIn("deletionTimestamp", obj["metadata"])
        self.c.request("PATCH", f"{lp}/held", body={"spec": {"holdFinalizer": False}},
                       headers=ADMIN)
        self.assertTrue(wait_for(lambda: self.get(f"{lp}/held").status == 404, 10))

    def test_cascading_delete(self):
        owner = self.create(self.name("own"))
        ref = {"kind": "Widget", "name": owner["metadata"]["name"],
               "uid": owner["metadata"]["uid"], "controller": False}
        # only Cube's controllers own objects: a request may not claim it
        r = self.c.request("POST", P, headers=ADMIN, body={"metadata": {
            "name": self.name("ctl"), "ownerReferences": [dict(ref, controller=True)]},
            "spec": {}})
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], "metadata.ownerReferences[0].controller")
        child = self.create(self.name("kid"), ownerReferences=[ref])
        self.c.request("DELETE", f"{P}/{owner['metadata']['name']}", headers=ADMIN)
        self.assertTrue(wait_for(
            lambda: self.get(f"{P}/{child['metadata']['name']}").status == 404))


class Outage(unittest.TestCase):
    def test_database_outage_is_503_then_recovers(self):
        pg_dir = os.environ.get("CUBE_TEST_PG_DIR")
        if DRIVER != "postgres" or not PG_URL or not pg_dir:
            self.skipTest("needs the throwaway PostgreSQL")
        pg = os.path.join(os.environ.get("CUBE_SOURCE_ROOT", "."), "tests", "pg", "pg.sh")
        c = start()
        try:
            path = "/api/v1/projects/outage/widgets"
            make_projects(c, "outage")
            self.assertEqual(c.request("POST", path, headers=ADMIN,
                                       body={"metadata": {"name": "o1"}, "spec": {}}).status, 201)
            subprocess.run([pg, "stop", pg_dir], check=True, capture_output=True)
            try:
                r = c.get(path, headers=ADMIN)
                self.assertEqual(r.status, 503, r.body)
                self.assertEqual(r.json()["error"]["code"], "Unavailable")
                self.assertEqual(c.get("/readyz").status, 503)
            finally:
                subprocess.run([pg, "start", pg_dir], check=True, capture_output=True)
            ok = wait_for(lambda: c.get(path, headers=ADMIN).status == 200 or
                          c.get(path, headers=ADMIN).status == 200, 10)
            self.assertTrue(ok)
            self.assertEqual(c.request("POST", path, headers=ADMIN,
                                       body={"metadata": {"name": "o2"}, "spec": {}}).status, 201)
            self.assertEqual(c.get("/readyz").status, 200)
        finally:
            c.close()


class Restart(unittest.TestCase):
    def test_kill_9_keeps_objects_and_reconciles_each_once(self):
        if DRIVER == "postgres" and not PG_URL:
            self.skipTest("no PostgreSQL for this run")
        c = start()
        try:
            names = [f"keep{i}" for i in range(5)]
            make_projects(c, "rs")
            for n in names:
                r = c.request("POST", "/api/v1/projects/rs/widgets", headers=ADMIN,
                              body={"metadata": {"name": n}, "spec": {"size": 2}})
                self.assertEqual(r.status, 201, r.body)
            # Let the controller settle first (its status write triggers it
            # once more), so the restart is the only reason to reconcile.
            self.assertTrue(wait_for(lambda: all(
                i.get("status", {}).get("phase") == "Ready"
                for i in c.get("/api/v1/projects/rs/widgets", headers=ADMIN).json()["items"])))
            time.sleep(0.3)
            old_rv = int(c.get("/api/v1/projects/rs/widgets", headers=ADMIN)
                         .json()["metadata"]["resourceVersion"])
            c.proc.send_signal(signal.SIGKILL)
            c.proc.wait()
            c.log.close()
            c.start()
            items = c.get("/api/v1/projects/rs/widgets", headers=ADMIN).json()["items"]
            self.assertEqual(sorted(i["metadata"]["name"] for i in items), names)
            counts = wait_for(lambda: (lambda d: d if all(f"rs/{n}" in d for n in names)
                                       else None)(c.get("/api/v1/testkinds/reconciles").json()))
            time.sleep(0.5)
            counts = c.get("/api/v1/testkinds/reconciles").json()
            for n in names:
                self.assertEqual(counts.get(f"rs/{n}"), 1, counts)
            r = c.get(f"/api/v1/projects/rs/widgets?watch=1&resourceVersion={old_rv - 2}",
                      headers=ADMIN)
            self.assertEqual(r.status, 410)
            new = c.request("POST", "/api/v1/projects/rs/widgets", headers=ADMIN,
                            body={"metadata": {"name": "after"}, "spec": {}}).json()
            self.assertGreater(int(new["metadata"]["resourceVersion"]), old_rv)
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
