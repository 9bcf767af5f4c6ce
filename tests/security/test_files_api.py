"""The project files API (GET/PUT/DELETE /api/v1/projects/{p}/files/...)
played by hostile members: traversal through `..`, encoded dots and
slashes, absolute and hidden paths; symlinks and a hard link planted in the
project directory (as root, standing for a member's job) pointing outside
it; files a member's job keeps private by their mode; a viewer writing, a
non-member probing, writes into the subtrees Cube manages for one user's
run, and bodies over the limit. Also the plain behaviour: a binary round
trip, ranges, listings, nested directories, modes and group of what is
written, deletes, and the audit events naming the user and the path.

cubed runs as whoever runs the suite; the checks of other owners' files
need root (to make such files) and are skipped without it."""
import http.client
import json
import os
import stat
import tempfile
import unittest

from cubetest import Cubed

P = "/api/v1/projects/proj/files"
MIB = 1 << 20


class FilesApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(cube={"limits": {"max_body_bytes": 2 * MIB}})
        cls.alice = cls.c.make_user("alice")
        cls.vera = cls.c.make_user("vera")
        cls.mallory = cls.c.make_user("mallory")
        cls.c.make_project("proj", [("alice", "dev"), ("vera", "viewer")])
        cls.root = os.path.join(cls.c.dir, "var", "projects", "proj")
        r = cls.alice.request("PUT", P + "/readme.txt", b"hello\n")
        assert r.status == 201, r.body
        cls.outside = tempfile.mkdtemp(prefix="cube-files-outside-")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def put(self, path, data, who=None):
        return (who or self.alice).request("PUT", P + "/" + path, data,
                                           headers={"Content-Type": "application/octet-stream"})

    def refused(self, r, status, words=()):
        self.assertEqual(r.status, status, r.body)
        err = r.json()["error"]
        for w in words:
            self.assertIn(w, err["message"])
        return err

    # -- what members do ------------------------------------------------

    def test_binary_round_trip_and_ranges(self):
        data = os.urandom(MIB)
        r = self.put("data/bin/blob.bin", data)
        self.assertEqual(r.status, 201, r.body)
        entry = r.json()
        self.assertEqual((entry["name"], entry["path"], entry["size"], entry["dir"]),
                         ("blob.bin", "data/bin/blob.bin", MIB, False))
        self.assertRegex(entry["modified"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        r = self.alice.get(P + "/data/bin/blob.bin")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.raw, data)
        self.assertEqual(r.header("content-length"), str(MIB))
        self.assertEqual(r.header("content-type"), "application/octet-stream")
        self.assertEqual(r.header("x-content-type-options"), "nosniff")
        r = self.alice.get(P + "/data/bin/blob.bin", headers={"Range": "bytes=10-19"})
        self.assertEqual((r.status, r.raw), (206, data[10:20]))
        self.assertEqual(r.header("content-range"), f"bytes 10-19/{MIB}")
        r = self.alice.get(P + "/data/bin/blob.bin", headers={"Range": "bytes=-5"})
        self.assertEqual((r.status, r.raw), (206, data[-5:]))
        r = self.alice.get(P + "/data/bin/blob.bin", headers={"Range": f"bytes={MIB}-"})
        self.assertEqual(r.status, 416, r.body)
        self.assertEqual(r.header("content-range"), f"bytes */{MIB}")
        # replacing answers 200; HEAD gives the length alone
        self.assertEqual(self.put("data/bin/blob.bin", data[:100]).status, 200)
        r = self.alice.request("HEAD", P + "/data/bin/blob.bin")
        self.assertEqual((r.status, r.header("content-length"), r.raw), (200, "100", b""))

    def test_listing_and_nested_directories(self):
        self.assertEqual(self.put("nest/a/b/c/deep.txt", b"deep").status, 201)
        self.assertEqual(self.put("nest/a/top.txt", b"top!").status, 201)
        r = self.vera.get(P + "/nest/a")
        self.assertEqual(r.status, 200, r.body)
        doc = r.json()
        self.assertEqual(doc["path"], "nest/a")
        self.assertEqual([(i["name"], i["dir"], i["size"]) for i in doc["items"]],
                         [("b", True, 0), ("top.txt", False, 4)])
        names = [i["name"] for i in self.vera.get(P).json()["items"]]
        self.assertIn("nest", names)
        self.assertIn("readme.txt", names)
        self.assertEqual(self.vera.get(P + "/nest/a/b/c/deep.txt").raw, b"deep")
        r = self.vera.get(P + "/nest/nope")
        self.refused(r, 404, ["nest/nope", "does not exist"])

    def test_modes_and_group_of_what_is_written(self):
        self.assertEqual(self.put("modes/sub/f.sh", b"#!/bin/sh\n").status, 201)
        f = os.stat(os.path.join(self.root, "modes", "sub", "f.sh"))
        d = os.stat(os.path.join(self.root, "modes", "sub"))
        top = os.stat(self.root)
        self.assertEqual(stat.S_IMODE(f.st_mode), 0o664)
        self.assertEqual(stat.S_IMODE(d.st_mode), 0o2775)
        self.assertEqual((f.st_gid, d.st_gid), (top.st_gid, top.st_gid))
        # a file that had exec and set-id bits is replaced without them
        path = os.path.join(self.root, "modes", "x")
        with open(path, "wb") as fh:
            fh.write(b"old")
        os.chmod(path, 0o6755)
        self.assertEqual(self.put("modes/x", b"new").status, 200)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o664)

    def test_delete(self):
        self.assertEqual(self.put("del/d/f", b"1").status, 201)
        self.refused(self.alice.request("DELETE", P + "/del/d"), 409, ["not empty"])
        r = self.alice.request("DELETE", P + "/del/d/f")
        self.assertEqual(r.status, 200, r.body)
        self.assertFalse(os.path.exists(os.path.join(self.root, "del", "d", "f")))
        self.assertEqual(self.alice.request("DELETE", P + "/del/d").status, 200)
        self.refused(self.alice.request("DELETE", P + "/del/d"), 404)

    def test_conflicts(self):
        self.assertEqual(self.put("cf/file", b"x").status, 201)
        self.refused(self.put("cf", b"x"), 409, ["is a directory"])
        self.refused(self.put("cf/file/under", b"x"), 409, ["cf/file", "not a directory"])
        self.refused(self.alice.get(P + "/cf/file/under"), 404)
        # the root takes no PUT or DELETE
        self.assertEqual(self.alice.request("PUT", P, b"x").status, 405)

    def test_audit_events_name_the_user_and_the_path(self):
        self.assertEqual(self.put("audit/a.txt", b"a").status, 201)
        self.assertEqual(self.alice.request("DELETE", P + "/audit/a.txt").status, 200)
        self.assertEqual(self.put("pipeline-runs/r/x", b"x").status, 403)
        items = self.c.admin().get("/api/v1/projects/proj/events?limit=1000").json()["items"]
        seen = {(e["verb"], e["involvedObject"]["name"], e["user"], e["result"])
                for e in items if e["involvedObject"].get("kind") == "File"}
        self.assertIn(("write", "audit/a.txt", "alice", 201), seen)
        self.assertIn(("delete", "audit/a.txt", "alice", 200), seen)
        self.assertIn(("write", "pipeline-runs/r/x", "alice", 403), seen)

    # -- what members may not do ----------------------------------------

    def test_traversal_is_refused(self):
        for raw in ("../../../etc/passwd", "%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                    "a/%2E%2E/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "a%2F..%2F..%2F..%2Fetc%2Fpasswd",
                    "%2Fetc%2Fpasswd", "./readme.txt", "nest/./a", ".hidden",
                    "nest%2F%2Fa"):
            for who, method, body in ((self.alice, "GET", None), (self.alice, "PUT", b"x"),
                                      (self.alice, "DELETE", None)):
                r = who.request(method, P + "/" + raw, body)
                self.assertEqual(r.status, 400, f"{method} {raw}: {r.status} {r.body}")
                self.assertEqual(r.json()["error"]["field"], "path")
                self.assertNotIn("root:", r.body)
        # a NUL never reaches the files (the router refuses it)
        r = self.alice.get(P + "/readme.txt%00.png")
        self.assertIn(r.status, (400, 404))
        self.assertFalse(os.path.exists(os.path.join(self.c.dir, "var", "x")))

    @unittest.skipUnless(os.geteuid() == 0, "planting other owners' files needs root")
    def test_symlinks_out_of_the_project_are_never_followed(self):
        os.symlink("/etc", os.path.join(self.root, "etc-link"))
        os.symlink("/etc/passwd", os.path.join(self.root, "pw"))
        with open("/etc/passwd", "rb") as f:
            before = f.read()
        for path in ("etc-link", "etc-link/passwd", "pw"):
            r = self.alice.get(P + "/" + path)
            self.refused(r, 403, ["symbolic link"])
            self.assertNotIn("root:", r.body)
        self.refused(self.put("etc-link/cube-evil", b"x"), 403, ["symbolic link"])
        self.assertFalse(os.path.exists("/etc/cube-evil"))
        self.refused(self.put("pw", b"pwned"), 403, ["symbolic link"])
        self.refused(self.alice.request("DELETE", P + "/etc-link/passwd"), 403)
        with open("/etc/passwd", "rb") as f:
            self.assertEqual(f.read(), before)
        names = [i["name"] for i in self.alice.get(P).json()["items"]]
        self.assertNotIn("etc-link", names)
        # deleting the link removes the link alone
        self.assertEqual(self.alice.request("DELETE", P + "/etc-link").status, 200)
        self.assertTrue(os.path.isdir("/etc"))
        self.assertFalse(os.path.lexists(os.path.join(self.root, "etc-link")))

    @unittest.skipUnless(os.geteuid() == 0, "planting other owners' files needs root")
    def test_a_hard_link_to_an_outside_file_is_not_read(self):
        secret = os.path.join(self.outside, "secret")
        with open(secret, "w") as f:
            f.write("outside secret")
        try:
            os.link(secret, os.path.join(self.root, "hl"))
        except OSError as e:
            self.skipTest(f"cannot hard-link across these directories: {e}")
        r = self.alice.get(P + "/hl")
        self.refused(r, 403, ["hard links"])
        self.assertNotIn("outside secret", r.body)

    @unittest.skipUnless(os.geteuid() == 0, "planting other owners' files needs root")
    def test_a_member_jobs_private_files_stay_private(self):
        gid = os.stat(self.root).st_gid
        priv = os.path.join(self.root, "bobs")
        os.mkdir(priv)
        os.chmod(priv, 0o700)
        os.chown(priv, 54321, gid)
        key = os.path.join(self.root, "key.pem")
        with open(key, "w") as f:
            f.write("private key")
        os.chmod(key, 0o600)
        os.chown(key, 54321, gid)
        shared = os.path.join(self.root, "shared.txt")
        with open(shared, "w") as f:
            f.write("for the team")
        os.chmod(shared, 0o640)
        os.chown(shared, 54321, gid)
        r = self.alice.get(P + "/key.pem")
        self.refused(r, 403, ["key.pem", "mode 0600"])
        self.assertNotIn("private key", r.body)
        self.refused(self.alice.get(P + "/bobs"), 403, ["bobs"])
        self.refused(self.put("bobs/planted", b"x"), 403, ["bobs"])
        self.assertFalse(os.path.exists(os.path.join(priv, "planted")))
        self.assertEqual(self.alice.get(P + "/shared.txt").raw, b"for the team")

    def test_a_viewer_cannot_write_or_delete(self):
        self.refused(self.put("v.txt", b"x", who=self.vera), 403, ["dev"])
        self.refused(self.vera.request("DELETE", P + "/readme.txt"), 403)
        self.assertFalse(os.path.exists(os.path.join(self.root, "v.txt")))
        self.assertEqual(self.vera.get(P + "/readme.txt").raw, b"hello\n")

    def test_an_anonymous_caller_gets_401(self):
        for method, path, body in (("GET", P, None), ("GET", P + "/readme.txt", None),
                                   ("PUT", P + "/anon.txt", b"x"),
                                   ("DELETE", P + "/readme.txt", None)):
            r = self.c.request(method, path, body)
            self.assertEqual(r.status, 401, f"{method} {path}: {r.body}")
            self.assertNotIn("hello", r.body)
        self.assertFalse(os.path.exists(os.path.join(self.root, "anon.txt")))
        self.assertTrue(os.path.exists(os.path.join(self.root, "readme.txt")))

    def test_a_non_member_gets_404(self):
        for method, path, body in (("GET", P, None), ("GET", P + "/readme.txt", None),
                                   ("PUT", P + "/m.txt", b"x"),
                                   ("DELETE", P + "/readme.txt", None)):
            r = self.mallory.request(method, path, body)
            self.refused(r, 404)
            self.assertNotIn("hello", r.body)
        self.assertFalse(os.path.exists(os.path.join(self.root, "m.txt")))
        # an administrator gets 404 for a project that does not exist
        r = self.c.admin().request("PUT", "/api/v1/projects/nope/files/x", b"x")
        self.refused(r, 404, ["nope"])
        self.assertFalse(os.path.exists(os.path.join(self.c.dir, "var", "projects", "nope")))

    def test_managed_subtrees_are_read_only(self):
        for path in ("pipeline-runs/r1/work/x", "pipeline-runs", "cube-jobs/j/hostfile"):
            self.refused(self.put(path, b"x"), 403, [path.split("/")[0] + "/", "read-only"])
        os.makedirs(os.path.join(self.root, "pipeline-runs", "r2", "results"))
        with open(os.path.join(self.root, "pipeline-runs", "r2", "results", "m.json"), "w") as f:
            f.write("{}")
        self.refused(self.alice.request("DELETE", P + "/pipeline-runs/r2/results/m.json"), 403,
                     ["pipeline-runs/"])
        self.refused(self.alice.request("DELETE", P + "/pipeline-runs"), 403)
        self.assertEqual(self.alice.get(P + "/pipeline-runs/r2/results/m.json").raw, b"{}")
        # the same name lower down is an ordinary directory
        self.assertEqual(self.put("mine/pipeline-runs/x", b"x").status, 201)

    def test_oversize_bodies_get_413(self):
        # announced with Expect: 100-continue (as curl does), the refusal
        # comes before the body
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        try:
            conn.putrequest("PUT", P + "/big.bin")
            for k, v in self.alice.headers.items():
                conn.putheader(k, v)
            conn.putheader("Content-Length", str(2 * MIB + 1))
            conn.putheader("Expect", "100-continue")
            conn.endheaders()
            r = conn.getresponse()
            self.assertEqual(r.status, 413)
            self.assertEqual(json.loads(r.read())["error"]["code"], "PayloadTooLarge")
        finally:
            conn.close()
        # a body just under the limit is written
        self.assertEqual(self.put("big.bin", b"\0" * (2 * MIB - 1)).status, 201)
        self.assertEqual(os.path.getsize(os.path.join(self.root, "big.bin")), 2 * MIB - 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
