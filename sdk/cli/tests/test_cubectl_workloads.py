#!/usr/bin/python3
"""Integration: cubectl's verbs for workloads against a real cubed with
executor-local running them: for pipelines run, wait, logs --task, rerun,
stop, backfill, export and import; a Job's metrics (push, show); for notebooks (when Jupyter is
installed) stop, restart and renew.

Exits 77 (skipped) while those plugins are not built."""
import json
import os
import sys
import time

from cubectl_harness import CubectlTest, main

GATE = 'echo gate-says-hi; test -f "$CUBE_RUN_DIR/ok"'


def sh(script):
    return ["/bin/sh", "-c", script]


class Pipelines(CubectlTest):
    def pipeline(self, name, spec):
        doc = {"kind": "Pipeline", "metadata": {"name": name}, "spec": spec}
        r = self.apply(json.dumps(doc))
        self.assertEqual(r.out.strip(), f"pipeline/{name} created")

    def run_name(self, out):
        """The run a `cubectl run` printed as pipelinerun/NAME created."""
        line = out.strip()
        self.assertRegex(line, r"^pipelinerun/\S+ created$")
        return line.split()[0].split("/")[1]

    def wait_phase(self, run, phase, timeout="60s"):
        self.ok("wait", f"pipelinerun/{run}", f"--for=jsonpath={{.status.phase}}={phase}",
                "--timeout", timeout, timeout=90)

    def test_run_logs_and_rerun(self):
        self.pipeline("gated", {"tasks": [{"name": "gate", "command": sh(GATE)},
                                          {"name": "after", "upstream": ["gate"],
                                           "command": ["true"]}]})
        run = self.run_name(self.ok("run", "gated").out)
        self.wait_phase(run, "Failed")
        r = self.ok("logs", f"pipelinerun/{run}", "--task", "gate")
        self.assertIn("gate-says-hi", r.out)
        r = self.fails(1, "logs", f"pipelinerun/{run}", "--task", "nope")
        self.assertIn("NotFound", r.err)
        self.fails(2, "logs", f"pipelinerun/{run}", "--task", "gate", "--replica", "0")
        r = self.fails(1, "rerun", run, "--from", "nope")
        self.assertIn("from", r.err)
        ok = os.path.join(self.server.dir, "var", "projects", "public", "pipeline-runs", run,
                          "work", "ok")
        open(ok, "w").close()
        r = self.ok("rerun", f"pipelinerun/{run}")
        self.assertEqual(r.out.strip(), f"pipelinerun/{run} rerun")
        self.wait_phase(run, "Succeeded")
        r = self.fails(1, "rerun", run)   # nothing failed: nothing to run again
        self.assertIn("Conflict", r.err)

    def test_run_with_a_date_then_stop(self):
        self.pipeline("long", {"tasks": [{"name": "t", "command": sh("exec sleep 60")}]})
        r = self.ok("run", "pipeline/long", "--date", "2026-03-01", "-o", "json")
        run = json.loads(r.out)
        self.assertEqual(run["kind"], "PipelineRun")
        self.assertTrue(run["spec"]["executionDate"].startswith("2026-03-01"), run["spec"])
        name = run["metadata"]["name"]
        self.wait_phase(name, "Running", "30s")
        r = self.ok("stop", f"pipelinerun/{name}")
        self.assertEqual(r.out.strip(), f"pipelinerun/{name} stopped")
        self.wait_phase(name, "Stopped", "30s")
        r = self.fails(1, "run", "long", "--date", "someday")
        self.assertIn("executionDate", r.err)

    def test_backfill(self):
        self.pipeline("daily", {"schedule": "0 0 * * *", "paused": True,
                                "tasks": [{"name": "t", "command": ["true"]}]})
        r = self.ok("backfill", "daily", "--start", "2026-01-01", "--end", "2026-01-03")
        lines = r.out.splitlines()
        self.assertEqual(len(lines), 3, r)
        self.assertTrue(all(l.startswith("pipelinerun/") and l.endswith(" created")
                            for l in lines), r)
        r = self.ok("backfill", "pipeline/daily", "--start", "2026-01-02", "--end", "2026-01-04")
        self.assertEqual(r.out.splitlines()[-1], "2 run(s) existed already")
        self.fails(2, "backfill", "daily", "--start", "2026-01-01")
        r = self.fails(1, "backfill", "daily", "--start", "2026-01-05", "--end", "2026-01-01")
        self.assertIn("end", r.err)

    def test_export_then_import(self):
        self.pipeline("exp", {"description": "to be copied",
                              "tasks": [{"name": "only", "command": ["true"]}]})
        yaml_text = self.ok("export", "pipeline/exp").out
        self.assertRegex(yaml_text, r'(^|\n)kind: "?Pipeline"?\n')
        self.assertRegex(yaml_text, r'\n  name: "?exp"?\n')
        doc = json.loads(self.ok("export", "exp", "-o", "json").out)
        self.assertEqual(doc["spec"]["tasks"][0]["name"], "only")
        path = os.path.join(self.tmp.name, "exp.yaml")
        with open(path, "w") as f:
            f.write(yaml_text)
        r = self.ok("import", "-f", path, "--name", "exp-copy")
        self.assertEqual(r.out.strip(), "pipeline/exp-copy created")
        r = self.ok("get", "pipeline", "exp-copy", "-o", "jsonpath={.spec.tasks[0].name}")
        self.assertEqual(r.out, "only")
        r = self.ok("import", "-f", "-", "--name", "exp-json", stdin=json.dumps(doc))
        self.assertEqual(r.out.strip(), "pipeline/exp-json created")
        r = self.fails(1, "import", "-f", path)   # exp exists
        self.assertIn("Error from server", r.err)
        r = self.fails(1, "import", "-f", "-", stdin="kind: Pipeline\nmetadata: {name: bad}\n")
        self.assertIn("spec", r.err)
        self.fails(2, "import")


class JobMetrics(CubectlTest):
    def test_push_then_show(self):
        doc = {"kind": "Job", "metadata": {"name": "mtrain"}, "spec": {"command": ["true"]}}
        self.apply(json.dumps(doc))
        r = self.ok("metrics", "push", "job/mtrain", "loss=0.5", "acc=0.75", "--step", "1")
        self.assertEqual(r.out.strip(), "2 point(s) reported to job/mtrain")
        self.ok("metrics", "push", "mtrain", "loss=0.25", "--step", "2")
        out = self.ok("metrics", "job/mtrain").out.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "STEP", "VALUE", "TIME"])
        self.assertEqual([ln.split()[:3] for ln in out[1:]],
                         [["acc", "1", "0.75"], ["loss", "1", "0.5"], ["loss", "2", "0.25"]])
        last = self.ok("metrics", "mtrain", "--last").out.splitlines()[1:]
        self.assertEqual([ln.split()[:3] for ln in last], [["acc", "1", "0.75"],
                                                           ["loss", "2", "0.25"]])
        only = self.ok("metrics", "mtrain", "--name", "loss", "--since-step", "1").out
        self.assertEqual([ln.split()[:3] for ln in only.splitlines()[1:]],
                         [["loss", "2", "0.25"]])
        doc = json.loads(self.ok("metrics", "mtrain", "-o", "json").out)
        self.assertEqual((doc["kind"], doc["job"], len(doc["metrics"])), ("JobMetrics", "mtrain", 3))
        # bad input: a clear error, nothing sent
        r = self.fails(2, "metrics", "push", "mtrain", "loss=abc")
        self.assertIn("NAME=VALUE", r.err)
        self.fails(2, "metrics", "push", "mtrain", "loss=1", "--step", "-1")
        self.fails(2, "metrics", "mtrain", "--step", "3")
        r = self.fails(1, "metrics", "push", "mtrain", "bad name=1")
        self.assertIn("metrics[0].name", r.err)
        r = self.fails(1, "metrics", "nosuchjob")
        self.assertIn("NotFound", r.err)
        self.assertEqual(len(json.loads(self.ok("metrics", "mtrain", "-o", "json").out)
                             ["metrics"]), 3)


def have_jupyter():
    return os.path.exists("/usr/bin/jupyter-notebook") or os.path.exists("/usr/bin/jupyter-lab")


class Notebooks(CubectlTest):
    def setUp(self):
        if not have_jupyter():
            self.skipTest("Jupyter is not installed (apt-get install jupyter-notebook)")
        super().setUp()
        c = self.server.login("nina", "nina-password-1")
        self.token = c.request("POST", "/api/v1/auth/tokens", {"name": "t"}).json()["token"]

    def nb(self, *args, **kw):
        return self.ok("-p", "nbs", *args, token=self.token, **kw)

    def wait_phase(self, name, phase):
        self.nb("wait", f"notebook/{name}", f"--for=jsonpath={{.status.phase}}={phase}",
                "--timeout", "90s", timeout=120)

    def test_stop_restart_renew(self):
        doc = {"kind": "Notebook", "metadata": {"name": "cyc"},
               "spec": {"expiresAfterSeconds": 3600}}
        self.nb("apply", "-f", "-", stdin=json.dumps(doc))
        try:
            self.wait_phase("cyc", "Running")
            before = json.loads(self.nb("get", "notebook", "cyc", "-o", "json").out)["status"]
            time.sleep(1.1)   # expiry times are in seconds
            r = self.nb("renew", "cyc")   # a bare name is a notebook
            self.assertEqual(r.out.strip(), "notebook/cyc renewed")
            after = json.loads(self.nb("get", "notebook", "cyc", "-o", "json").out)["status"]
            self.assertGreater(after["expires"], before["expires"])
            r = self.nb("stop", "notebook/cyc")
            self.assertEqual(r.out.strip(), "notebook/cyc stopped")
            self.wait_phase("cyc", "Stopped")
            r = self.fails(1, "-p", "nbs", "renew", "cyc", token=self.token)
            self.assertIn("Running", r.err)
            r = self.nb("restart", "notebook/cyc")
            self.assertEqual(r.out.strip(), "notebook/cyc restarted")
            self.wait_phase("cyc", "Running")
            self.assertEqual(self.nb("get", "notebook", "cyc", "-o",
                                     "jsonpath={.status.generation}").out, "2")
        finally:
            self.cubectl("-p", "nbs", "delete", "notebook/cyc", "--ignore-not-found")
            time.sleep(0.5)


def setup(server):
    server.make_user("nina", password="nina-password-1")
    server.make_project("nbs", [("nina", "dev")])


if __name__ == "__main__":
    sys.exit(main({"executor-local": {"poll_ms": 10}, "pipeline": {"templates_dir": "none"},
                   "notebook": {"idle_timeout_seconds": 3600}},
                  kinds=("Pipeline", "PipelineRun", "Notebook"), setup=setup))
