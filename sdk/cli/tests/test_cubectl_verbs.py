#!/usr/bin/python3
"""Integration: cubectl get over several kinds and objects (KIND/NAME,
a,b, -o jsonpath=, --sort-by, -o wide refused), delete -l/--all and
--ignore-not-found for a dev, wait, kinds' actions (stop a Job, any
action as a verb), help and shell completion.

Exits 77 (skipped) while the testkinds plugin is not built."""
import json
import os
import shutil
import subprocess
import sys
import time

from cubectl_harness import CUBECTL, TOKEN, CubectlTest, main


def setup(server):
    server.make_user("bob", password="bob-password-1")
    server.make_project("team", [("bob", "dev")])


class Get(CubectlTest):
    @classmethod
    def setUpClass(cls):
        # three widgets and a gadget, shared by the tests of this class
        r = cls.server.bearer(TOKEN)
        for name, size in (("g-a", 5), ("g-b", 2), ("g-c", 9)):
            r.request("POST", "/api/v1/projects/public/widgets",
                      {"metadata": {"name": name, "labels": {"app": "g"}}, "spec": {"size": size}})
        r.request("POST", "/api/v1/gadgets", {"metadata": {"name": "g-g"}, "spec": {}})

    def test_kind_slash_name_and_several_names(self):
        r = self.ok("get", "widget/g-a")
        self.assertEqual(r.out.splitlines()[1].split()[:2], ["g-a", "5"])
        r = self.ok("get", "widget/g-a", "gadget/g-g", "-o", "name")
        self.assertEqual(r.out.splitlines(), ["widget/g-a", "gadget/g-g"])
        r = self.ok("get", "widgets", "g-a", "g-b", "-o", "json")
        doc = json.loads(r.out)
        self.assertEqual([i["metadata"]["name"] for i in doc["items"]], ["g-a", "g-b"])
        self.fails(2, "get", "widgets", "widget/g-a")

    def test_several_kinds_print_one_table_each(self):
        r = self.ok("get", "widgets,gadgets", "-l", "app=g")
        out = r.out.split("\n\n")
        self.assertEqual(out[0].splitlines()[0].split()[:2], ["NAME", "SIZE"])
        self.assertIn("widget/g-a", out[0].split())
        r = self.ok("get", "widgets,gadgets", "-o", "json")
        kinds = {i["kind"] for i in json.loads(r.out)["items"]}
        self.assertEqual(kinds, {"Widget", "Gadget"})
        self.assertEqual(json.loads(r.out)["kind"], "List")

    def test_a_missing_object_is_reported_and_the_rest_printed(self):
        r = self.fails(1, "get", "widget/g-a", "widget/nope", "-o", "name")
        self.assertEqual(r.out, "widget/g-a\n")
        self.assertIn("NotFound", r.err)

    def test_jsonpath(self):
        r = self.ok("get", "widgets", "-l", "app=g", "--sort-by", ".metadata.name",
                    "-o", "jsonpath={.items[*].metadata.name}")
        self.assertEqual(r.out, "g-a g-b g-c")
        r = self.ok("get", "widget", "g-b", "-o", "jsonpath={.spec.size}")
        self.assertEqual(r.out, "2")
        tmpl = '{range .items[*]}{.metadata.name}={.spec.size}{"\\n"}{end}'
        r = self.ok("get", "widgets", "-l", "app=g", "--sort-by", "{.spec.size}",
                    "-o", "jsonpath=" + tmpl)
        self.assertEqual(r.out, "g-b=2\ng-a=5\ng-c=9\n")
        r = self.fails(2, "get", "widgets", "-o", "jsonpath={.items[*")
        self.assertIn("jsonpath", r.err)

    def test_sort_by_orders_table_rows(self):
        r = self.ok("get", "widgets", "-l", "app=g", "--sort-by", ".spec.size")
        self.assertEqual([l.split()[0] for l in r.out.splitlines()[1:]], ["g-b", "g-a", "g-c"])
        self.fails(2, "get", "widgets", "--sort-by", "spec.size")

    def test_wide_is_refused_clearly(self):
        r = self.fails(2, "get", "widgets", "-o", "wide")
        self.assertIn("-o wide", r.err)
        self.assertIn("jsonpath", r.err)


class Delete(CubectlTest):
    def test_by_selector_and_all(self):
        self.apply(self.widget("dl-a", 1, {"app": "dl"}) + "---\n" +
                   self.widget("dl-b", 1, {"app": "dl"}) + "---\n" +
                   self.widget("dl-keep", 1, {"app": "keep"}), "-p", "team")
        r = self.ok("-p", "team", "delete", "widgets", "-l", "app=dl")
        self.assertEqual(sorted(r.out.splitlines()), ["widget/dl-a deleted", "widget/dl-b deleted"])
        r = self.ok("-p", "team", "get", "widgets", "-o", "name")
        self.assertEqual(r.out, "widget/dl-keep\n")
        r = self.ok("-p", "team", "delete", "widgets", "-l", "app=dl")
        self.assertIn("No resources found", r.err)
        self.ok("-p", "team", "delete", "widgets", "--all")
        self.assertEqual(self.ok("-p", "team", "get", "widgets", "-o", "name").out, "")
        self.fails(2, "delete", "widgets", "a", "-l", "app=x")
        self.fails(2, "delete", "widgets")
        self.fails(2, "delete", "widgets", "-l", "a", "--all")

    def test_kind_slash_name(self):
        self.apply(self.widget("dl-s", 1))
        r = self.ok("delete", "widget/dl-s")
        self.assertEqual(r.out.strip(), "widget/dl-s deleted")

    def test_ignore_not_found_for_a_dev(self):
        bob = self.server.login("bob", "bob-password-1")
        token = bob.request("POST", "/api/v1/auth/tokens", {"name": "t"}).json()["token"]
        # the server refuses a dev the delete of an object it cannot find
        # the owner of (403 today): missing is still missing
        r = self.ok("-p", "team", "delete", "widget", "never-was", "--ignore-not-found",
                    token=token)
        self.assertEqual((r.out, r.err), ("", ""))
        # but a real refusal (someone else's widget) is no "not found"
        self.apply(self.widget("dl-admins", 1), "-p", "team")
        r = self.fails(1, "-p", "team", "delete", "widget", "dl-admins", "--ignore-not-found",
                       token=token)
        self.assertIn("Forbidden", r.err)
        r = self.ok("-p", "team", "delete", "widget/never-was", "--ignore-not-found")
        self.assertEqual((r.out, r.err), ("", ""))


class Wait(CubectlTest):
    def test_for_a_field_value(self):
        self.apply(self.widget("wt-a", 4))
        r = self.ok("wait", "widget/wt-a", "--for=jsonpath={.status.phase}=Ready",
                    "--timeout", "20s")
        self.assertEqual(r.out.strip(), "widget/wt-a condition met")
        self.ok("wait", "widget", "wt-a", "--for", "jsonpath=.status.observedSize=4")
        self.ok("wait", "widget/wt-a", "--for=jsonpath={.status.phase}")   # set at all
        t0 = time.time()
        r = self.fails(1, "wait", "widget/wt-a", "--for=jsonpath={.status.phase}=Gone",
                       "--timeout", "1s")
        self.assertIn("timed out waiting for the condition on widget/wt-a", r.err)
        self.assertLess(time.time() - t0, 10)

    def test_for_delete(self):
        self.apply(self.widget("wt-d", 1))
        self.fails(1, "wait", "widget/wt-d", "--for=delete", "--timeout", "0")
        subprocess.Popen([CUBECTL, "-s", self.url, "--token", TOKEN, "delete", "widget/wt-d"],
                         stdout=subprocess.DEVNULL, env=self.env).wait(10)
        r = self.ok("wait", "widget/wt-d", "--for=delete", "--timeout", "10s")
        self.assertEqual(r.out.strip(), "widget/wt-d condition met")

    def test_usage(self):
        r = self.fails(2, "wait", "widget/x", "--for=condition=Ready")
        self.assertIn("status.conditions", r.err)
        self.fails(2, "wait", "widget/x")
        self.fails(2, "wait", "widget/x", "--for=jsonpath={.a}=b", "--timeout", "soon")
        r = self.fails(1, "wait", "widget/nope", "--for=jsonpath={.a}=b")
        self.assertIn("NotFound", r.err)


class Actions(CubectlTest):
    def test_kinds_list_their_actions(self):
        r = self.ok("kinds")
        self.assertRegex(r.out, r"jobs\s+job\s+Job\s+project\s+\S+\s+stop")
        self.assertEqual(r.out.splitlines()[0].split()[-1], "ACTIONS")
        self.assertIn("widgets", self.ok("kinds", "-o", "name").out.splitlines())

    def test_stop_a_job(self):
        self.apply("kind: Job\nmetadata: {name: st-j}\nspec: {command: [sleep, '60']}\n")
        r = self.ok("stop", "job/st-j", "--grace-period", "1")
        self.assertEqual(r.out.strip(), "job/st-j stopped")
        st = json.loads(self.ok("get", "job", "st-j", "-o", "json").out)["status"]
        self.assertTrue(st["stopRequested"])
        r = self.fails(1, "stop", "job/st-j", "--field", "graceSeconds=9999")
        self.assertIn("graceSeconds", r.err)
        self.fails(2, "stop", "job/st-j", "--grace-period", "soon")
        r = self.ok("stop", "job", "st-j", "-o", "json")
        self.assertEqual(json.loads(r.out)["kind"], "Job")

    def test_any_action_as_a_verb(self):
        self.apply(self.widget("ac-a", 1))
        r = self.ok("poke", "widget/ac-a")
        self.assertEqual(json.loads(r.out), {"poked": True})
        r = self.ok("describe", "widget", "ac-a")
        self.assertIn("Poked", r.out)
        r = self.fails(2, "frob", "widget/ac-a")
        self.assertIn('unknown command "frob"', r.err)
        self.assertIn("poke", r.err)
        r = self.fails(2, "stop", "widget/ac-a")
        self.assertIn('widget has no action "stop"', r.err)
        self.fails(2, "poke", "widget/ac-a", "--field", "novalue")
        self.fails(2, "frobnicate")
        r = self.fails(1, "restart", "ac-a")   # a notebook by default: none here
        self.assertIn("notebook", r.err)


class Help(CubectlTest):
    def test_help_names_the_commands_and_what_waits(self):
        r = self.ok("help", auth=False)
        for word in ("config", "wait", "stop", "rerun", "backfill", "export", "import",
                     "members", "passwd", "completion", "ACTION"):
            self.assertRegex(r.out, rf"\n  {word}\s")
        self.assertIn("'top'", r.out)
        self.assertIn("monitoring", r.out)
        self.assertEqual(self.ok("--help", auth=False).out, r.out)

    def test_bash_completion(self):
        script = os.path.join(self.tmp.name, "cubectl.bash")
        with open(script, "w") as f:
            f.write(self.ok("completion", "bash", auth=False).out)
        self.assertEqual(subprocess.run(["bash", "-n", script]).returncode, 0)
        self.apply(self.widget("cmp-a", 1))
        probe = os.path.join(self.tmp.name, "probe.sh")
        with open(probe, "w") as f:
            f.write(f'source "{script}"\n'
                    'comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));'
                    ' COMPREPLY=(); _cubectl; echo "${COMPREPLY[*]}"; }\n'
                    'comp cubectl ge\ncomp cubectl get wid\ncomp cubectl get widgets cmp\n'
                    'comp cubectl describe widget/cmp\ncomp cubectl completion ""\n')
        env = dict(self.env, PATH=os.path.dirname(CUBECTL) + ":" + os.environ["PATH"],
                   CUBE_API=self.url, CUBE_TOKEN=TOKEN)
        out = subprocess.run(["bash", probe], capture_output=True, text=True, env=env,
                             timeout=60).stdout.splitlines()
        self.assertEqual(out, ["get", "widgets", "cmp-a", "widget/cmp-a", "bash zsh"])

    def test_zsh_completion(self):
        r = self.ok("completion", "zsh", auth=False)
        self.assertTrue(r.out.startswith("#compdef cubectl\n"))
        self.assertIn("bashcompinit", r.out)
        self.fails(2, "completion", "fish", auth=False)
        if not shutil.which("zsh"):
            self.skipTest("zsh is not installed")
        script = os.path.join(self.tmp.name, "_cubectl")
        with open(script, "w") as f:
            f.write(r.out)
        p = subprocess.run(["zsh", "-c", f"autoload -U compinit && compinit -u && source {script}"
                            " && whence -w _cubectl"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    # executor-sim serves pool "default": a Job needs a pool some node serves
    SIM = {"pool": "default", "run_seconds": 600,
           "node_groups": [{"prefix": "n-", "count": 1, "cpu": "8", "memory": "8Gi"}]}
    sys.exit(main({"testkinds": None, "executor-sim": SIM}, kinds=("Widget", "Gadget"),
                  setup=setup))
