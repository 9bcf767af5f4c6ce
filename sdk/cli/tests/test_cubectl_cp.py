#!/usr/bin/python3
"""Integration: cubectl cp and ls over the project files API: a binary
file both ways, directories both ways (into an existing directory or as a
new one, what is not copied and the note saying so), standard input and
output, the errors (usage, a missing path, a viewer, a non-member, the
subtrees Cube manages, a file where a directory is wanted), ls's formats,
and the shell completion of paths on the server."""
import filecmp
import json
import os
import subprocess
import sys

from cubectl_harness import CUBECTL, TOKEN, CubectlTest, main

FILES = "/api/v1/projects/team/files"


def setup(server):
    server.make_user("bob", password="bob-password-1")
    server.make_user("vera", password="vera-password-1")
    server.make_user("nina", password="nina-password-1")   # not in team
    server.make_project("team", [("bob", "dev"), ("vera", "viewer")])


class Cp(CubectlTest):
    def path(self, *parts):
        return os.path.join(self.tmp.name, *parts)

    def write(self, rel, data):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return p

    def read(self, *parts):
        with open(self.path(*parts), "rb") as f:
            return f.read()

    def server_file(self, path):
        r = self.server.bearer(TOKEN).get(f"{FILES}/{path}")
        self.assertEqual(r.status, 200, r.body)
        return r.raw

    def token_of(self, user, password):
        r = self.server.login(user, password).request("POST", "/api/v1/auth/tokens",
                                                      {"name": "cp"})
        self.assertEqual(r.status, 201, r.body)
        return r.json()["token"]

    def test_a_binary_file_both_ways(self):
        data = os.urandom(1 << 20)
        src = self.write("blob.bin", data)
        self.ok("cp", src, ":up/", "-p", "team")           # into a new directory
        self.assertEqual(self.server_file("up/blob.bin"), data)
        self.ok("cp", src, ":up/renamed.bin", "-p", "team")
        self.ok("cp", src, ":up", "-p", "team")            # :up exists: into it
        self.assertEqual(self.server_file("up/renamed.bin"), data)
        self.ok("cp", ":up/blob.bin", self.path("down.bin"), "-p", "team")
        self.assertEqual(self.read("down.bin"), data)
        os.mkdir(self.path("dir"))
        self.ok("cp", ":up/blob.bin", self.path("dir"), "-p", "team")
        self.assertEqual(self.read("dir", "blob.bin"), data)
        # replaced, not appended to; no temp file left beside it
        self.write("small", "small")
        self.ok("cp", self.path("small"), ":up/blob.bin", "-p", "team")
        self.ok("cp", ":up/blob.bin", self.path("dir", "blob.bin"), "-p", "team")
        self.assertEqual(self.read("dir", "blob.bin"), b"small")
        self.assertEqual(os.listdir(self.path("dir")), ["blob.bin"])

    def test_directories_both_ways(self):
        self.write("tree/a.txt", "a")
        self.write("tree/sub/b.bin", os.urandom(3000))
        self.write("tree/sub/deeper/c.txt", "c")
        self.write("tree/.secret", "hidden")
        os.mkdir(self.path("tree", "empty"))
        os.symlink("/etc/passwd", self.path("tree", "link"))
        r = self.ok("cp", self.path("tree"), ":code", "-p", "team")
        for word in (".secret", "empty", "link"):
            self.assertIn(word, r.err)
        r = self.ok("ls", ":code", "-o", "name", "-p", "team")
        self.assertEqual(r.out.splitlines(), ["a.txt", "sub/"])
        self.assertEqual(self.server_file("code/sub/deeper/c.txt"), b"c")
        # again: :code exists now, so the tree goes into it
        self.ok("cp", self.path("tree"), ":code", "-p", "team")
        self.assertEqual(self.server_file("code/tree/a.txt"), b"a")
        # down into a new directory, then into it as an existing one
        self.ok("cp", ":code", self.path("out"), "-p", "team")
        cmp = filecmp.dircmp(self.path("tree"), self.path("out"), ignore=[])
        self.assertEqual(sorted(cmp.left_only), [".secret", "empty", "link"])
        self.assertEqual(cmp.right_only, ["tree"])
        self.assertEqual(cmp.diff_files, [])
        self.assertEqual(self.read("out", "sub", "b.bin"), self.read("tree", "sub", "b.bin"))
        self.ok("cp", ":code/sub", self.path("out"), "-p", "team")
        self.assertEqual(self.read("out", "sub", "deeper", "c.txt"), b"c")
        self.ok("cp", ":", self.path("whole"), "-p", "team")
        self.assertTrue(os.path.isfile(self.path("whole", "code", "tree", "sub", "b.bin")))

    def test_standard_input_and_output(self):
        self.ok("cp", "-", ":io/notes.txt", "-p", "team", stdin="from stdin\n")
        r = self.ok("cp", ":io/notes.txt", "-", "-p", "team")
        self.assertEqual(r.out, "from stdin\n")
        self.fails(2, "cp", "-", ":io/", "-p", "team", stdin="x")
        r = self.fails(1, "cp", ":io", "-", "-p", "team")
        self.assertIn("directory", r.err)

    def test_errors(self):
        src = self.write("e.txt", "e")
        self.fails(2, "cp", src, self.path("x"))
        self.fails(2, "cp", ":a", ":b")
        self.fails(2, "cp", src)
        r = self.fails(1, "cp", ":nope/none", self.path("n"), "-p", "team")
        self.assertIn("does not exist", r.err)
        self.assertFalse(os.path.exists(self.path("n")))
        r = self.fails(1, "cp", src, ":pipeline-runs/r1/x", "-p", "team")
        self.assertIn("read-only", r.err)
        self.ok("cp", src, ":plain.txt", "-p", "team")
        os.mkdir(self.path("d"))
        self.write("d/f", "f")
        r = self.fails(1, "cp", self.path("d"), ":plain.txt", "-p", "team")
        self.assertIn("is a file", r.err)
        r = self.fails(1, "cp", ":plain.txt/", self.path("y"), "-p", "team")
        self.assertIn("is a file", r.err)
        # a viewer reads but does not write; a non-member sees no project
        vera = self.token_of("vera", "vera-password-1")
        self.ok("cp", ":plain.txt", self.path("v.txt"), "-p", "team", token=vera)
        r = self.fails(1, "cp", src, ":v.txt", "-p", "team", token=vera)
        self.assertIn("dev", r.err)
        bob = self.token_of("bob", "bob-password-1")
        self.ok("cp", src, ":bob.txt", "-p", "team", token=bob)
        nina = self.token_of("nina", "nina-password-1")
        for args in (("cp", src, ":n.txt"), ("cp", ":bob.txt", self.path("n.txt")), ("ls",)):
            r = self.fails(1, *args, "-p", "team", token=nina)
            self.assertIn('project "team" not found', r.err)
        self.assertFalse(os.path.exists(self.path("n.txt")))

    def test_ls(self):
        self.ok("cp", self.write("l/one.txt", "12345"), ":ls/one.txt", "-p", "team")
        self.ok("cp", self.write("l/two.txt", "1"), ":ls/sub/two.txt", "-p", "team")
        r = self.ok("ls", ":ls", "-p", "team")
        rows = [line.split() for line in r.out.splitlines()]
        self.assertEqual(rows[0], ["NAME", "SIZE", "MODIFIED"])
        self.assertEqual([row[:2] for row in rows[1:]], [["one.txt", "5"], ["sub/", "-"]])
        r = self.ok("ls", "ls/one.txt", "-o", "json", "-p", "team")
        self.assertEqual([(i["name"], i["size"]) for i in json.loads(r.out)], [("one.txt", 5)])
        self.assertIn("ls/", self.ok("ls", "-o", "name", "-p", "team").out.splitlines())
        self.fails(2, "ls", "-o", "yaml", "-p", "team")
        r = self.fails(1, "ls", ":ls/none", "-p", "team")
        self.assertIn("does not exist", r.err)

    def test_help_and_completion(self):
        r = self.ok("help", auth=False)
        self.assertRegex(r.out, r"\n  cp\s")
        self.assertRegex(r.out, r"\n  ls\s")
        self.assertNotIn("files API", r.out)
        self.assertIn(":PATH", self.ok("cp", "--help", auth=False).out)
        self.ok("cp", self.write("c/x.txt", "x"), ":cmpl/inner/x.txt", "-p", "team")
        script = self.path("cubectl.bash")
        with open(script, "w") as f:
            f.write(self.ok("completion", "bash", auth=False).out)
        probe = self.path("probe.sh")
        with open(probe, "w") as f:
            f.write(f'source "{script}"\n'
                    'comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));'
                    ' COMPREPLY=(); _cubectl; echo "${COMPREPLY[*]}"; }\n'
                    'comp cubectl -p team cp x :cm\n'        # COMP_WORDBREAKS without ':'
                    'comp cubectl -p team cp x : cmpl/in\n'  # bash's split at ':'
                    'comp cubectl -p team ls :cmpl/inner/\n'
                    'comp cubectl c\n')
        env = dict(self.env, PATH=os.path.dirname(CUBECTL) + ":" + os.environ["PATH"],
                   CUBE_API=self.url, CUBE_TOKEN=TOKEN)
        out = subprocess.run(["bash", probe], capture_output=True, text=True, env=env,
                             timeout=60).stdout.splitlines()
        self.assertEqual(out, [":cmpl/", "cmpl/inner/", ":cmpl/inner/x.txt",
                               "config create cp completion"])


if __name__ == "__main__":
    sys.exit(main({}, setup=setup))
