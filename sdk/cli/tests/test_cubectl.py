#!/usr/bin/python3
"""Integration: cubectl against a real cubed serving the testkinds plugin
(Widget: project scope, columns Size and Phase; Gadget: cluster scope).

Exits 77 (skipped) while the server has no resource API or the plugin is
not built. Stdlib only; cubectl_harness starts cubed and runs cubectl."""
import json
import os
import queue
import stat
import subprocess
import sys
import threading
import time

from cubectl_harness import CUBECTL, TOKEN, CubectlTest, main
from cubetest import free_port


class Basics(CubectlTest):
    def test_version_shows_client_and_server(self):
        r = self.ok("version")
        self.assertIn("Client Version: ", r.out)
        self.assertIn("Server Version: ", r.out)

    def test_login_saves_a_private_config_used_later(self):
        r = self.ok("login", self.url + "/", "--token", TOKEN, auth=False)
        self.assertIn("Logged in to " + self.url, r.out)
        self.assertEqual(stat.S_IMODE(os.stat(self.config).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(self.config)).st_mode), 0o700)
        name = self.url[len("http://"):]   # the context is named after host:port
        # the project is the server's default project, not a "default"
        # that the server never made
        self.assertEqual(self.read_config(), {
            "contexts": [{"name": name, "server": self.url, "token": TOKEN,
                          "project": "public"}],
            "current-context": name})
        self.ok("get", "widgets", auth=False)

    def test_login_reads_the_token_from_stdin(self):
        self.ok("login", self.url, stdin=TOKEN + "\n", auth=False)
        self.assertEqual(self.read_config()["contexts"][0]["token"], TOKEN)

    def test_environment_configures_jobs(self):
        r = self.ok("get", "widgets", "-o", "json", auth=False,
                    env={"CUBE_API": self.url, "CUBE_TOKEN": TOKEN})
        self.assertEqual(json.loads(r.out)["kind"], "WidgetList")

    def test_kinds_lists_the_test_kinds(self):
        r = self.ok("kinds")
        self.assertRegex(r.out, r"widgets\s+widget\s+Widget\s+project")
        self.assertRegex(r.out, r"gadgets\s+gadget\s+Gadget\s+cluster")

    def test_usage_errors_exit_2(self):
        self.fails(2, "get")
        self.fails(2, "get", "widgets", "--bogus")
        self.fails(2, "get", "widgets", "-o", "xml")
        self.fails(2, "frobnicate")
        self.fails(2, "apply")
        r = self.ok("get", "--help")
        self.assertIn("Usage: cubectl get", r.out)

    def test_unknown_kind_fails(self):
        r = self.fails(1, "get", "sprockets")
        self.assertIn('"sprockets"', r.err)

    def test_unreachable_server_names_the_url(self):
        url = f"http://127.0.0.1:{free_port()}"
        r = self.fails(1, "-s", url, "get", "widgets", auth=False)
        self.assertIn(url + "/api/v1/kinds", r.err)

    def test_missing_server_says_how_to_set_one(self):
        r = self.fails(1, "get", "widgets", auth=False)
        self.assertIn("cubectl login", r.err)


class Objects(CubectlTest):
    def test_apply_creates_then_configures_or_keeps(self):
        docs = self.widget("ap-a", 3, {"app": "ap"}) + "---\n" + self.widget("ap-b", 5)
        r = self.apply(docs)
        self.assertEqual(r.out.splitlines(), ["widget/ap-a created", "widget/ap-b created"])
        r = self.apply(docs)
        self.assertEqual(r.out.splitlines(), ["widget/ap-a unchanged", "widget/ap-b unchanged"])
        r = self.apply(docs.replace("size: 5", "size: 6"))
        self.assertEqual(r.out.splitlines(), ["widget/ap-a unchanged", "widget/ap-b configured"])
        r = self.apply(docs.replace('"ap"', '"ap2"'))
        self.assertIn("widget/ap-a configured", r.out)

    def test_apply_relying_on_defaults_stays_unchanged(self):
        self.apply(self.widget("def-a", extra="  color: red\n"))
        r = self.apply(self.widget("def-a", extra="  color: red\n"))
        self.assertEqual(r.out.strip(), "widget/def-a unchanged")

    def test_apply_json_from_stdin(self):
        doc = {"kind": "Widget", "metadata": {"name": "js-a"}, "spec": {"size": 2}}
        r = self.apply(json.dumps(doc))
        self.assertEqual(r.out.strip(), "widget/js-a created")

    def test_get_table_json_yaml_name(self):
        self.apply(self.widget("gt-a", 7, {"app": "gt"}))
        r = self.ok("get", "widgets", "-l", "app=gt")
        lines = r.out.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "SIZE", "PHASE", "AGE"])
        self.assertEqual(lines[1].split()[:2], ["gt-a", "7"])
        self.assertRegex(lines[1].split()[-1], r"^\d+[smhdy]$")
        obj = json.loads(self.ok("get", "widget", "gt-a", "-o", "json").out)
        self.assertEqual(obj["spec"]["size"], 7)
        self.assertEqual(obj["metadata"]["name"], "gt-a")
        y = self.ok("get", "Widget", "gt-a", "-o", "yaml").out
        self.assertIn("kind: Widget\n", y)
        self.assertIn("  name: gt-a\n", y)
        self.assertIn("  size: 7\n", y)
        self.assertIn('resourceVersion: "', y)
        r = self.ok("get", "widgets", "-l", "app=gt", "-o", "name")
        self.assertEqual(r.out, "widget/gt-a\n")

    def test_selectors(self):
        self.apply(self.widget("sel-a", 1, {"app": "sel", "tier": "web"}) + "---\n" +
                   self.widget("sel-b", 1, {"app": "sel", "tier": "db"}))
        r = self.ok("get", "widgets", "-l", "app=sel,tier!=db", "-o", "name")
        self.assertEqual(r.out, "widget/sel-a\n")

    def test_paging_follows_continue(self):
        docs = "---\n".join(self.widget(f"pg-{i}", i, {"app": "pg"}) for i in range(5))
        self.apply(docs)
        r = self.ok("get", "widgets", "-l", "app=pg", "--limit", "2", "-o", "json", "-v")
        names = [o["metadata"]["name"] for o in json.loads(r.out)["items"]]
        self.assertEqual(sorted(names), [f"pg-{i}" for i in range(5)])
        self.assertGreaterEqual(r.err.count("continue="), 2, r.err)

    def test_patch_merges(self):
        self.apply(self.widget("pa-a", 1, extra="  color: red\n"))
        r = self.ok("patch", "widget", "pa-a", "--merge", '{"spec":{"size":4}}')
        self.assertEqual(r.out.strip(), "widget/pa-a patched")
        spec = json.loads(self.ok("get", "widget", "pa-a", "-o", "json").out)["spec"]
        self.assertEqual((spec["size"], spec["color"]), (4, "red"))
        self.fails(2, "patch", "widget", "pa-a", "--merge", "{not json")

    def test_create_refuses_existing(self):
        doc = self.widget("cr-a", 1)
        r = self.ok("create", "-f", "-", stdin=doc)
        self.assertEqual(r.out.strip(), "widget/cr-a created")
        r = self.fails(1, "create", "-f", "-", stdin=doc)
        self.assertIn("Error from server (AlreadyExists)", r.err)

    def test_invalid_spec_names_the_field(self):
        r = self.fails(1, "apply", "-f", "-", stdin=self.widget("bad-a", -1))
        self.assertIn("spec.size", r.err)
        bad = self.widget("bad-b", 1, extra="  tasks:\n  - name: t\n  - name: u\n    retries: 99\n")
        r = self.fails(1, "apply", "-f", "-", stdin=bad)
        self.assertIn("spec.tasks[1].retries", r.err)

    def test_yaml_errors_name_line_and_column(self):
        r = self.fails(1, "apply", "-f", "-", stdin="kind: Widget\nmetadata: {name: x\n")
        self.assertRegex(r.err, r"<stdin>:\d+:\d+: ")

    def test_delete_by_name_and_file(self):
        doc = self.widget("del-a", 1) + "---\n" + self.widget("del-b", 1)
        self.apply(doc)
        r = self.ok("delete", "widget", "del-a")
        self.assertEqual(r.out.strip(), "widget/del-a deleted")
        r = self.fails(1, "get", "widget", "del-a")
        self.assertIn("Error from server (NotFound)", r.err)
        path = os.path.join(self.tmp.name, "w.yaml")
        with open(path, "w") as f:
            f.write(doc)
        r = self.fails(1, "delete", "-f", path)   # del-a is gone already
        self.assertIn("widget/del-b deleted", r.out)
        self.ok("delete", "-f", path, "--ignore-not-found")

    def test_cluster_kind(self):
        r = self.apply("kind: Gadget\nmetadata:\n  name: cl-g\nspec: {}\n")
        self.assertEqual(r.out.strip(), "gadget/cl-g created")
        r = self.ok("get", "gadgets", "-p", "elsewhere", "-o", "name")
        self.assertIn("gadget/cl-g", r.out.splitlines())
        self.ok("delete", "gadget", "cl-g")

    def test_describe_shows_yaml_and_events(self):
        self.apply(self.widget("ds-a", 2))
        r = self.ok("describe", "widget", "ds-a")
        self.assertIn("kind: Widget\n", r.out)
        self.assertIn("\nEvents:", r.out)
        self.ok("describe", "widget/ds-a")

    def test_logs_reports_the_server(self):
        self.apply(self.widget("lg-a", 2))
        r = self.cubectl("logs", "widget/lg-a")
        self.assertIn(r.rc, (0, 1), r)
        if r.rc:
            self.assertIn("Error from server", r.err)


class Watcher:
    """cubectl running in the background; its stdout lines in a queue."""

    def __init__(self, test, *args):
        argv = [CUBECTL, "-s", test.url, "--token", TOKEN] + list(args)
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=test.env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)

    def wait_for(self, pred, timeout=15):
        deadline = time.time() + timeout
        seen = []
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.p.poll() is not None:
                    break
                continue
            seen.append(line)
            if pred(line):
                return line
        raise AssertionError("no matching line; saw:\n" + "".join(seen) +
                             ("" if self.p.poll() is None else self.p.stderr.read()))

    def stop(self):
        self.p.terminate()
        self.p.wait(10)
        self.p.stdout.close()
        self.p.stderr.close()


class Watch(CubectlTest):
    def test_watch_prints_json_lines_for_each_change(self):
        self.apply(self.widget("wj-a", 1, {"app": "wj"}))
        w = Watcher(self, "get", "widgets", "-l", "app=wj", "-w", "-o", "json")
        try:
            def event(t, name, size=None):
                def pred(line):
                    ev, obj = json.loads(line), json.loads(line)["object"]
                    return (ev["type"] == t and obj["metadata"]["name"] == name and
                            size in (None, obj["spec"].get("size")))
                return pred
            w.wait_for(event("ADDED", "wj-a"))
            self.apply(self.widget("wj-b", 2, {"app": "wj"}))
            w.wait_for(event("ADDED", "wj-b"))
            self.ok("patch", "widget", "wj-b", "--merge", '{"spec":{"size":3}}')
            w.wait_for(event("MODIFIED", "wj-b", 3))   # after any status updates
            self.ok("delete", "widget", "wj-b")
            w.wait_for(event("DELETED", "wj-b"))
        finally:
            w.stop()

    def test_watch_table_prints_rows(self):
        w = Watcher(self, "get", "widgets", "-l", "app=wt", "-w")
        try:
            time.sleep(0.5)
            self.apply(self.widget("wt-a", 8, {"app": "wt"}))
            w.wait_for(lambda l: l.split()[:1] == ["NAME"])
            w.wait_for(lambda l: l.split()[:2] == ["wt-a", "8"])
        finally:
            w.stop()


class Projects(CubectlTest):
    def projects_api(self):
        return self.server.get("/api/v1/projects",
                          headers={"Authorization": "Bearer " + TOKEN}).status != 404

    def test_projects_and_all_projects(self):
        self.apply(self.widget("pr-a", 1, {"app": "pr"}))
        if not self.projects_api():
            r = self.fails(1, "projects")
            self.assertIn("/api/v1/projects", r.err)
            r = self.fails(1, "get", "widgets", "-A")
            self.assertIn("/api/v1/projects", r.err)
            return
        r = self.ok("projects")
        self.assertIn("public", r.out.split())  # made on the server's first start
        r = self.ok("get", "widgets", "-A", "-l", "app=pr")
        self.assertEqual(r.out.splitlines()[0].split()[:2], ["PROJECT", "NAME"])
        self.assertEqual(r.out.splitlines()[1].split()[:2], ["public", "pr-a"])


if __name__ == "__main__":
    sys.exit(main({"testkinds": None}, kinds=("Widget", "Gadget")))
