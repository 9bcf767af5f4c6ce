"""A project member sends bodies that cJSON reads one way and strict
clients another: duplicate keys (the server read the first, clients the
last: owner, name, uid or a status could be spoofed), "\\u0000" (the name
was cut there: "tg5\\u0000evil" created user tg5) and bytes that are not
UTF-8 (stored and served raw, they broke whole lists for strict readers).
Every body the API accepts is refused with 400 naming the field, before
any handler acts on it: resource creates, replaces, patches and status
writes, auth routes, plugin routes, and the pipeline import's YAML."""
import http.client
import json
import os
import tempfile
import unittest

from cubetest import Cubed

P = "/api/v1/projects/sec"


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-sec-plugins-")
    for src in (os.path.join(os.environ["CUBE_TEST_PLUGIN_DIR"], "pipeline", "cube-pipeline.so"),
                os.path.join(os.environ["CUBE_TESTKINDS_DIR"], "cube-testkinds.so")):
        os.symlink(src, os.path.join(d, os.path.basename(src)))
    return d


class Bodies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"testkinds": None, "pipeline": {"templates_dir": "none"}},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.c.make_project("sec")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def send(self, method, path, body, ctype="application/json"):
        return self.a.request(method, path, body, headers={"Content-Type": ctype})

    def refused(self, method, path, body, field, words, ctype="application/json"):
        r = self.send(method, path, body, ctype)
        self.assertEqual(r.status, 400, f"{body[:120]!r}: {r.body}")
        err = r.json()["error"]
        if field is not None:
            self.assertEqual(err.get("field"), field, err)
        self.assertIn(words, err["message"])
        return err

    def raw_get(self, path):
        """The body's bytes as sent (no decoding with replacement)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        try:
            conn.request("GET", path, headers=dict(self.a.headers))
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    # -- "\u0000" ------------------------------------------------------------

    def test_nul_escapes_are_refused_and_create_nothing(self):
        self.refused("POST", "/api/v1/users",
                     b'{"metadata":{"name":"tg5\\u0000evil"},"spec":{"role":"user"}}',
                     "metadata.name", "NUL")
        self.assertEqual(self.a.get("/api/v1/users/tg5").status, 404)
        self.refused("POST", P + "/notes",
                     b'{"metadata":{"name":"n1","labels":{"tg5\\u0000evil":"x"}},"spec":{}}',
                     "metadata.labels", "a member name contains a NUL")
        self.refused("POST", P + "/notes",
                     b'{"metadata":{"name":"n1","labels":{"k":"v\\u0000"}},"spec":{}}',
                     "metadata.labels.k", "NUL")
        self.refused("POST", P + "/notes",
                     b'{"metadata":{"name":"n1"},"spec":{"note":"a","x":[{"y":"\\u0000"}]}}',
                     "spec.x[0].y", "NUL")
        self.assertEqual(self.a.get(P + "/notes/n1").status, 404)
        # an escaped backslash followed by "u0000" is text, not a NUL
        r = self.send("POST", P + "/notes", b'{"metadata":{"name":"bs"},"spec":{"note":"\\\\u0000"}}')
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["spec"]["note"], "\\u0000")

    # -- duplicate keys ------------------------------------------------------

    def test_duplicate_keys_in_every_write(self):
        self.refused("POST", P + "/notes",
                     b'{"metadata":{"name":"d1","name":"d2"},"spec":{}}', "metadata.name",
                     "duplicate key")
        for n in ("d1", "d2"):
            self.assertEqual(self.a.get(f"{P}/notes/{n}").status, 404)
        self.refused("POST", P + "/notes",
                     b'{"metadata":{"name":"d3","owner":"someone","owner":"admin"},"spec":{}}',
                     "metadata.owner", "duplicate key")
        r = self.send("POST", P + "/notes", {"metadata": {"name": "d4"}, "spec": {"size": 1}})
        self.assertEqual(r.status, 201, r.body)
        obj = r.json()
        uid = obj["metadata"]["uid"]
        body = json.dumps(obj).replace('"uid": ', '"uid": "forged", "uid": ', 1).encode()
        self.refused("PUT", P + "/notes/d4", body, "metadata.uid", "duplicate key")
        self.refused("PATCH", P + "/notes/d4", b'{"spec":{"size":2,"size":3}}', "spec.size",
                     "duplicate key", ctype="application/merge-patch+json")
        self.refused("PATCH", P + "/notes/d4", b'{"spec":{"size":2},"spec":{"size":3}}', "spec",
                     "duplicate key", ctype="application/merge-patch+json")
        got = self.a.get(P + "/notes/d4").json()
        self.assertEqual((got["metadata"]["uid"], got["spec"]["size"]), (uid, 1))

    def test_a_status_cannot_be_spoofed(self):
        r = self.send("POST", P + "/widgets", {"metadata": {"name": "w1"}, "spec": {"size": 1}})
        self.assertEqual(r.status, 201, r.body)
        self.refused("PUT", P + "/widgets/w1/status",
                     b'{"status":{"phase":"Failed","phase":"Succeeded"}}', "status.phase",
                     "duplicate key")
        self.refused("PUT", P + "/widgets/w1/status",
                     b'{"status":{"phase":"Failed"},"status":{"phase":"Succeeded"}}', "status",
                     "duplicate key")

    def test_auth_and_plugin_routes(self):
        self.refused("POST", "/api/v1/auth/login",
                     b'{"username":"nobody","username":"admin","password":"x"}', "username",
                     "duplicate key")
        self.refused("POST", "/api/v1/auth/tokens", b'{"name":"a","name":"b"}', "name",
                     "duplicate key")
        self.refused("POST", P + "/pipelines/import",
                     b'{"metadata":{"name":"j1","name":"j2"},"spec":{"tasks":[]}}',
                     "metadata.name", "duplicate key")
        self.refused("POST", P + "/pipelines/import",
                     b'{"metadata":{"name":"j1"},"spec":{"tasks":[],"x":"\xff"}}',
                     "spec.x", "UTF-8")

    def test_pipeline_import_yaml(self):
        task = '  tasks:\n  - name: a\n    command: ["true"]\n'
        ok = "kind: Pipeline\nmetadata:\n  name: y0\nspec:\n" + task
        r = self.send("POST", P + "/pipelines/import", ok.encode(), "application/yaml")
        self.assertEqual(r.status, 201, r.body)
        for body, words in (
                ("metadata:\n  name: y1\n  name: y2\nspec:\n" + task, 'duplicate key "name"'),
                ("metadata:\n  name: y1\nspec:\n" + task + "spec:\n" + task,
                 'duplicate key "spec"'),
                ('metadata:\n  name: "y1\\u0000evil"\nspec:\n' + task, "\\u0000"),
                ('metadata:\n  name: y1\n  labels: {"a": "1", "a": "2"}\nspec:\n' + task,
                 'duplicate key "a"'),
                ('metadata:\n  name: y1\n  "k\\u0000": v\nspec:\n' + task, "\\u0000")):
            err = self.refused("POST", P + "/pipelines/import", body.encode(), None, words,
                               ctype="application/yaml")
            self.assertIn("line ", err["message"])
        self.refused("POST", P + "/pipelines/import",
                     b"metadata:\n  name: y1\n  labels:\n    k: \xc0\xaf\nspec:\n" +
                     task.encode(), None, "line 4: not valid UTF-8", ctype="application/yaml")
        self.assertEqual(self.a.get(P + "/pipelines/y1").status, 404)

    # -- UTF-8 -----------------------------------------------------------------

    def test_invalid_utf8_is_refused_and_lists_stay_strict_json(self):
        for body, field in (
                (b'{"metadata":{"name":"u1"},"spec":{"note":"caf\xe9"}}', "spec.note"),
                (b'{"metadata":{"name":"u1","annotations":{"a":"\xed\xa0\x80"}},"spec":{}}',
                 "metadata.annotations.a"),
                (b'{"metadata":{"name":"u1","annotations":{"\xc0\x80":"x"}},"spec":{}}',
                 "metadata.annotations"),
                (b'{"metadata":{"name":"u1"},"spec":{"note":"\xf4\x90\x80\x80"}}', "spec.note")):
            self.refused("POST", P + "/notes", body, field, "not valid UTF-8")
        good = "caf\u00e9 \u4e2d\u6587 \U0001f600"
        r = self.send("POST", P + "/notes",
                      json.dumps({"metadata": {"name": "u2", "annotations": {"k": good}},
                                  "spec": {"note": good}}, ensure_ascii=False).encode())
        self.assertEqual(r.status, 201, r.body)
        status, raw = self.raw_get(P + "/notes?limit=1000")
        self.assertEqual(status, 200)
        items = json.loads(raw.decode("utf-8"))["items"]   # strict: no replacement
        note = next(i for i in items if i["metadata"]["name"] == "u2")
        self.assertEqual(note["spec"]["note"], good)
        self.assertEqual(note["metadata"]["annotations"], {"k": good})


if __name__ == "__main__":
    unittest.main()
