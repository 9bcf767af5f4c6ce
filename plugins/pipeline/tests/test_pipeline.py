"""Pipelines through a running cubed with executor-local: DAG semantics
(fan-out, fan-in, skip, retries, timeout, a failure stops what is
downstream, parallelism), outputs passed between tasks, result files,
logs, stop and rerun, cron ticks, backfill, dependsOnPast, expiredLimit,
maxActiveRuns, export/import/copy, a restart in the middle of a run, and
bad specs answered 422 naming the field."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

P = "/api/v1/projects/public"
DONE = ("Succeeded", "Failed", "Stopped")


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-pipeline-plugins-")
    for var, name in (("CUBE_LOCAL_PLUGIN_DIR", "cube-executor-local.so"),
                      ("CUBE_PIPELINE_PLUGIN_DIR", "cube-pipeline.so")):
        os.symlink(os.path.join(os.environ[var], name), os.path.join(d, name))
    return d


def start_cubed(**kw):
    return Cubed(plugins={"executor-local": {"poll_ms": 10},
                          "pipeline": {"templates_dir": "none"}},
                 plugin_dir=plugin_dir(), **kw)


def sh(script, *args):
    return ["/bin/sh", "-c", script, *args]


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = start_cubed()
        cls.a = cls.c.admin()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def pipeline(self, name, spec, status=201):
        r = self.a.request("POST", P + "/pipelines", {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def run_now(self, name):
        r = self.a.request("POST", f"{P}/pipelines/{name}/run", {})
        self.assertEqual(r.status, 201, r.body)
        return r.json()["metadata"]["name"]

    def run_status(self, run):
        return self.a.get(f"{P}/pipelineruns/{run}").json().get("status", {})

    def wait_run(self, run, timeout=60, phases=DONE):
        deadline = time.time() + timeout
        st = {}
        while time.time() < deadline:
            st = self.run_status(run)
            if st.get("phase") in phases:
                return st
            time.sleep(0.05)
        self.fail(f"run {run} did not reach {phases}: {json.dumps(st)}\n" +
                  self.c.output()[-3000:])

    def runs_of(self, pipeline):
        r = self.a.get(f"{P}/pipelineruns?labelSelector=pipeline%3D{pipeline}")
        self.assertEqual(r.status, 200, r.body)
        return r.json()["items"]

    def wait_runs(self, pipeline, n, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            items = self.runs_of(pipeline)
            if len(items) >= n and all(i.get("status", {}).get("phase") in DONE
                                       for i in items):
                return items
            time.sleep(0.1)
        self.fail(f"{pipeline}: runs did not finish: " +
                  json.dumps([(i["metadata"]["name"], i.get("status", {}).get("phase"))
                              for i in self.runs_of(pipeline)]))

    def files_dir(self):
        return os.path.join(self.c.dir, "var", "projects", "public")


class Dag(Base):
    def test_fan_out_fan_in_skip_failure_and_outputs(self):
        self.pipeline("dag", {"parallelism": 4, "tasks": [
            {"name": "a", "command": sh("echo rows=150 > $CUBE_OUTPUTS; echo from-a")},
            {"name": "b", "upstream": ["a"],
             "command": sh('echo "{\\"got\\": \\"$1\\"}" > $CUBE_OUTPUTS', "b",
                           "{{ tasks.a.outputs.rows }}")},
            {"name": "c", "upstream": ["a"], "command": ["false"]},
            {"name": "s", "upstream": ["a"], "command": ["false"], "skip": True},
            {"name": "d", "upstream": ["b", "c"], "command": ["true"]},
            {"name": "e", "upstream": ["b", "s"], "command": ["true"]},
            {"name": "f", "upstream": ["d"], "command": ["true"]}]})
        run = self.run_now("dag")
        st = self.wait_run(run)
        t = st["tasks"]
        phases = {k: v["phase"] for k, v in t.items()}
        self.assertEqual(phases, {"a": "Succeeded", "b": "Succeeded", "c": "Failed",
                                  "s": "Skipped", "d": "UpstreamFailed", "e": "Succeeded",
                                  "f": "UpstreamFailed"}, json.dumps(st))
        self.assertEqual(st["phase"], "Failed")
        self.assertEqual(st["progress"], "7/7")
        self.assertEqual(t["a"]["outputs"], {"rows": "150"})
        self.assertEqual(t["b"]["outputs"], {"got": "150"}, "an upstream's output rendered")
        self.assertIn("exited with code 1", t["c"]["message"])
        self.assertNotIn("job", t["d"], "nothing downstream of a failure runs")
        log = self.a.get(f"{P}/pipelineruns/{run}/tasks/a/logs")
        self.assertEqual(log.status, 200)
        self.assertIn("from-a", log.body)
        self.assertEqual(self.a.get(f"{P}/pipelineruns/{run}/tasks/nope/logs").status, 404)
        jobs = self.a.get(f"{P}/jobs?labelSelector=pipelinerun%3D{run}").json()["items"]
        self.assertEqual(sorted(j["metadata"]["labels"]["task"] for j in jobs),
                         ["a", "b", "c", "e"])
        for j in jobs:
            self.assertEqual(j["metadata"]["ownerReferences"][0]["kind"], "PipelineRun")

    def test_later_tasks_run_without_the_wrapper(self):
        """Tasks whose directories were made ahead run their command itself,
        in the run's work directory, with their result directory there."""
        probe = sh('pwd; test -d "$CUBE_OUTPUT_DIR" && echo results-ok; '
                   'echo x > "$CUBE_OUTPUT_DIR/r.md"')
        self.pipeline("chain", {"parallelism": 1, "tasks": [
            {"name": "a", "command": probe},
            {"name": "b", "upstream": ["a"], "command": probe},
            {"name": "c", "upstream": ["b"], "command": probe},
            {"name": "d", "upstream": ["c"], "command": probe}]})
        run = self.run_now("chain")
        st = self.wait_run(run)
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        work = os.path.join(self.files_dir(), "pipeline-runs", run, "work")
        jobs = {j["metadata"]["labels"]["task"]: j for j in
                self.a.get(f"{P}/jobs?labelSelector=pipelinerun%3D{run}").json()["items"]}
        self.assertIn("cube-task", jobs["a"]["spec"]["command"], "the first task's wrapper")
        direct = [t for t, j in jobs.items() if "cube-task" not in j["spec"]["command"]]
        self.assertIn("d", direct, json.dumps({t: j["spec"] for t, j in jobs.items()}))
        for t in "abcd":
            log = self.a.get(f"{P}/pipelineruns/{run}/tasks/{t}/logs").body
            self.assertIn(os.path.realpath(work), log, f"task {t} runs in the work dir")
            self.assertIn("results-ok", log, f"task {t} has its result directory")
        for t in direct:
            self.assertEqual(jobs[t]["spec"]["workdir"], work)

    def test_result_directory_removed_after_made_ahead(self):
        """A task whose directories were made ahead, then removed, still gets
        them (its wrapper makes them): passes remember what they made, but the
        Job's command is chosen on what is on disk."""
        drop = sh('sleep 0.5; rm -rf "$CUBE_OUTPUT_DIR/../b"')   # results/b
        probe = sh('test -d "$CUBE_OUTPUT_DIR" && echo results-ok')
        self.pipeline("gone", {"parallelism": 1, "tasks": [
            {"name": "a", "command": drop},
            {"name": "b", "upstream": ["a"], "command": probe}]})
        run = self.run_now("gone")
        st = self.wait_run(run)
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        log = self.a.get(f"{P}/pipelineruns/{run}/tasks/b/logs").body
        self.assertIn("results-ok", log, "task b has its result directory")
        job = self.a.get(f"{P}/jobs?labelSelector=pipelinerun%3D{run},task%3Db").json()["items"]
        self.assertIn("cube-task", job[0]["spec"]["command"], "b's wrapper made them")

    def test_parallelism_bounds_running_tasks(self):
        stamp = 'date +%s.%N > "$CUBE_RUN_DIR/$CUBE_TASK.start"; sleep 0.4; ' \
                'date +%s.%N > "$CUBE_RUN_DIR/$CUBE_TASK.end"'
        self.pipeline("par", {"parallelism": 2, "tasks": [
            {"name": f"t{i}", "command": sh(stamp)} for i in range(5)]})
        run = self.run_now("par")
        self.assertEqual(self.wait_run(run)["phase"], "Succeeded")
        work = os.path.join(self.files_dir(), "pipeline-runs", run, "work")
        spans = []
        for i in range(5):
            with open(os.path.join(work, f"t{i}.start")) as f1, \
                 open(os.path.join(work, f"t{i}.end")) as f2:
                spans.append((float(f1.read()), float(f2.read())))
        most = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
        self.assertEqual(most, 2, f"at most 2 at once, and 2 did run together: {spans}")

    def test_retries_and_timeout(self):
        flaky = 'test -f "$CUBE_RUN_DIR/once" && exit 0; touch "$CUBE_RUN_DIR/once"; exit 3'
        self.pipeline("retry", {"parallelism": 2, "tasks": [
            {"name": "flaky", "command": sh(flaky), "retries": 2, "retryBackoffSeconds": 0},
            {"name": "slow", "command": ["sleep", "30"], "timeoutSeconds": 1}]})
        run = self.run_now("retry")
        st = self.wait_run(run, timeout=60)
        self.assertEqual(st["tasks"]["flaky"]["phase"], "Succeeded", json.dumps(st))
        self.assertEqual(st["tasks"]["flaky"]["attempts"], 2)
        self.assertEqual(st["tasks"]["slow"]["phase"], "Failed")
        self.assertIn("Timeout", st["tasks"]["slow"]["message"])

    def test_results_are_listed_and_served_safely(self):
        write = ('printf "\\211PNG fake" > "$CUBE_OUTPUT_DIR/cm.png"; '
                 'echo "# Report" > "$CUBE_OUTPUT_DIR/report.md"; '
                 'echo "{}" > "$CUBE_OUTPUT_DIR/cm.echarts.json"; '
                 'echo junk > "$CUBE_OUTPUT_DIR/model.bin"')
        self.pipeline("res", {"tasks": [{"name": "eval", "command": sh(write)}]})
        run = self.run_now("res")
        st = self.wait_run(run)
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        res = {r["name"]: r for r in st["tasks"]["eval"]["results"]}
        self.assertEqual(sorted(res), ["cm.echarts.json", "cm.png", "report.md"])
        self.assertEqual(res["cm.png"]["type"], "image")
        self.assertEqual(res["cm.echarts.json"]["type"], "echarts")
        r = self.a.get(res["cm.png"]["url"])
        self.assertEqual((r.status, r.header("content-type")), (200, "image/png"))
        base = f"{P}/pipelineruns/{run}/tasks/eval/results/"
        for bad in ("model.bin", "..%2F..%2Fwork", ".hidden.png", "nope.png"):
            self.assertEqual(self.a.get(base + bad).status, 404, bad)

    def test_stop_and_rerun(self):
        gate = 'test -f "$CUBE_RUN_DIR/ok"'
        self.pipeline("sr", {"parallelism": 2, "tasks": [
            {"name": "gate", "command": sh(gate)},
            {"name": "after", "upstream": ["gate"], "command": ["true"]}]})
        run = self.run_now("sr")
        st = self.wait_run(run)
        self.assertEqual(st["tasks"]["after"]["phase"], "UpstreamFailed")
        self.assertEqual(self.a.request("POST", f"{P}/pipelineruns/{run}/rerun",
                                        {"from": "nope"}).status, 422)
        open(os.path.join(self.files_dir(), "pipeline-runs", run, "work", "ok"), "w").close()
        r = self.a.request("POST", f"{P}/pipelineruns/{run}/rerun", {})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait_run(run)
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        self.assertTrue(st["tasks"]["gate"]["job"].endswith("gate-1"), st["tasks"]["gate"])
        self.assertEqual(self.a.request("POST", f"{P}/pipelineruns/{run}/rerun", {}).status,
                         409, "nothing failed: nothing to run again")
        # stop: the running task's Job is stopped (Cancelled, its log kept),
        # what had not run is Stopped
        self.pipeline("stopme", {"tasks": [
            {"name": "long", "command": sh("echo long-started; exec sleep 60")},
            {"name": "next", "upstream": ["long"], "command": ["true"]}]})
        run = self.run_now("stopme")
        deadline = time.time() + 30
        while "long-started" not in self.a.get(f"{P}/pipelineruns/{run}/tasks/long/logs").body:
            self.assertLess(time.time(), deadline, "the long task never ran")
            time.sleep(0.05)
        started = time.time()
        r = self.a.request("POST", f"{P}/pipelineruns/{run}/stop", {})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait_run(run, timeout=30)
        self.assertEqual(st["phase"], "Stopped")
        self.assertEqual({k: v["phase"] for k, v in st["tasks"].items()},
                         {"long": "Stopped", "next": "Stopped"})
        job = self.a.get(f"{P}/jobs/{st['tasks']['long']['job']}")
        self.assertEqual(job.status, 200, "the stopped task's Job is kept")
        self.assertEqual((job.json()["status"]["phase"], job.json()["status"]["reason"]),
                         ("Cancelled", "Stopped"), job.body)
        self.assertLess(time.time() - started, 20, "stopped by SIGTERM, not after the sleep")
        log = self.a.get(f"{P}/pipelineruns/{run}/tasks/long/logs")
        self.assertEqual(log.status, 200, log.body)
        self.assertIn("long-started", log.body, "the stopped task's log is kept")

    def test_deleting_a_pipeline_deletes_its_runs_and_jobs(self):
        self.pipeline("gone", {"tasks": [{"name": "long", "command": ["sleep", "60"]}]})
        run = self.run_now("gone")
        deadline = time.time() + 30
        while self.run_status(run).get("tasks", {}).get("long", {}).get("phase") != "Running":
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        self.assertEqual(self.a.request("DELETE", f"{P}/pipelines/gone").status, 200)
        deadline = time.time() + 30
        while True:
            left = (self.a.get(f"{P}/pipelineruns/{run}").status,
                    len(self.a.get(f"{P}/jobs?labelSelector=pipelinerun%3D{run}").json()["items"]))
            if left == (404, 0):
                break
            self.assertLess(time.time(), deadline, f"left behind: {left}")
            time.sleep(0.1)

    def test_export_import_copy(self):
        spec = {"description": "x: 'quoted' # not a comment", "parallelism": 3,
                "env": {"A": "1"}, "tasks": [
                    {"name": "one", "command": ["echo", "a: b", "- c"], "env": {"K": ""}},
                    {"name": "two", "upstream": ["one"], "command": ["true"],
                     "nodeSelector": {}}]}
        self.pipeline("exp", spec)
        r = self.a.get(f"{P}/pipelines/exp/export")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("content-type").startswith("application/yaml"))
        r2 = self.a.request("POST", f"{P}/pipelines/import?name=imp", r.body,
                            headers={"Content-Type": "application/yaml"})
        self.assertEqual(r2.status, 201, r2.body)
        got = self.a.get(f"{P}/pipelines/imp").json()["spec"]
        want = self.a.get(f"{P}/pipelines/exp").json()["spec"]
        self.assertEqual(got, want, "a YAML round trip keeps the spec")
        r = self.a.request("POST", f"{P}/pipelines/import", "metadata:\n  name: [x\n")
        self.assertEqual(r.status, 400, r.body)
        r = self.a.request("POST", f"{P}/pipelines/exp/copy", {"name": "exp-copy"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(self.a.get(f"{P}/pipelines/exp-copy").json()["spec"], want)


class Permissions(Base):
    def test_devs_operate_their_own_pipelines_and_runs(self):
        dev1, dev2, viewer = (self.c.make_user(n) for n in ("dev1", "dev2", "viewer1"))
        self.c.make_project("team", [("dev1", "dev"), ("dev2", "dev"), ("viewer1", "viewer")])
        T = "/api/v1/projects/team"
        r = dev1.request("POST", T + "/pipelines", {"metadata": {"name": "mine"}, "spec": {
            "tasks": [{"name": "t", "command": ["sleep", "30"]}]}})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(dev2.request("POST", T + "/pipelines/mine/run", {}).status, 403)
        self.assertEqual(viewer.request("POST", T + "/pipelines/mine/run", {}).status, 403)
        r = dev1.request("POST", T + "/pipelines/mine/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        self.assertEqual(r.json()["spec"]["creator"], "dev1")
        self.assertEqual(dev2.request("POST", f"{T}/pipelineruns/{run}/stop", {}).status, 403)
        self.assertEqual(viewer.get(f"{T}/pipelineruns/{run}").status, 200)
        r = dev1.request("POST", f"{T}/pipelineruns/{run}/stop", {})
        self.assertEqual(r.status, 200, r.body)
        r = dev2.request("POST", T + "/pipelines/mine/copy", {"name": "theirs"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(dev2.request("POST", T + "/pipelines/theirs/run", {}).status, 201,
                         "a copy is operated by whoever made it")


class Validation(Base):
    def expect_422(self, spec, field):
        r = self.a.request("POST", P + "/pipelines", {"metadata": {"name": "bad"},
                                                      "spec": spec})
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"].get("field"), field, r.body)
        return r.json()["error"]["message"]

    def test_bad_specs_name_the_field(self):
        t = lambda n, up=(), **kw: dict({"name": n, "command": ["true"],
                                          "upstream": list(up)}, **kw)
        msg = self.expect_422({"tasks": [t("a", ["c"]), t("b", ["a"]), t("c", ["b"])]},
                              "spec.tasks[0].upstream")
        self.assertIn("cycle", msg)
        self.expect_422({"tasks": [t("a"), t("b", ["zz"])]}, "spec.tasks[1].upstream[0]")
        self.expect_422({"tasks": [t("a"), t("a")]}, "spec.tasks[1].name")
        self.expect_422({"tasks": [t("a", ["a"])]}, "spec.tasks[0].upstream[0]")
        self.expect_422({"tasks": [{"name": "a", "template": "no-such"}]},
                        "spec.tasks[0].template")
        self.expect_422({"tasks": [{"name": "a"}]}, "spec.tasks[0].template")
        self.expect_422({"tasks": [t("a")], "schedule": "61 * * * *"}, "spec.schedule")
        self.expect_422({"tasks": [t("a")], "schedule": "@daily", "timezone": "Mars/Base"},
                        "spec.timezone")
        self.expect_422({"tasks": [t("a")], "startTime": "yesterday"}, "spec.startTime")
        self.expect_422({"tasks": [dict(t("a"), args={"--x": 1})]}, "spec.tasks[0].args")

    def test_template_args_are_checked(self):
        tmpl = {"metadata": {"name": "echo-args"}, "spec": {
            "command": ["echo"], "args": {"train": {"--n_estimators": {
                "type": "int", "label": "Trees", "require": 1, "default": 10,
                "range": "1,1000", "describe": "trees"}}}}}
        r = self.a.request("POST", P + "/projectjobtemplates", tmpl)
        if r.status == 422 and "not supported yet" in r.body:
            self.skipTest("argument schemas are not implemented yet (pipeline lib)")
        self.assertEqual(r.status, 201, r.body)
        self.expect_422({"tasks": [{"name": "t", "template": "echo-args",
                                    "args": {"--n_estimators": "many"}}]},
                        "spec.tasks[0].args.--n_estimators")
        self.pipeline("argsok", {"tasks": [{"name": "t", "template": "echo-args",
                                            "args": {"--n_estimators": 50}}]})
        run = self.run_now("argsok")
        self.assertEqual(self.wait_run(run)["phase"], "Succeeded")
        log = self.a.get(f"{P}/pipelineruns/{run}/tasks/t/logs").body
        self.assertIn("--n_estimators 50", log)


class Schedules(Base):
    def test_cron_ticks_since_start_time(self):
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 150))
        self.pipeline("cron", {"schedule": "* * * * *", "startTime": start,
                               "maxActiveRuns": 5, "tasks": [
                                   {"name": "t", "command": ["true"]}]})
        items = self.wait_runs("cron", 2)
        self.assertIn(len(items), (2, 3), "one run per minute since startTime")
        for i in items:
            self.assertEqual(i["spec"]["trigger"], "schedule")
            self.assertTrue(i["spec"]["executionDate"].endswith(":00Z"))
            self.assertEqual(i["status"]["phase"], "Succeeded")
        st = self.a.get(f"{P}/pipelines/cron").json()["status"]
        self.assertIn("nextTick", st)
        self.assertIn("lastTick", st)

    def backfill(self, name, start, end, status=201):
        r = self.a.request("POST", f"{P}/pipelines/{name}/backfill",
                           {"start": start, "end": end})
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def unpause(self, name):
        for _ in range(10):   # the controller writes status meanwhile: 409, retry
            obj = self.a.get(f"{P}/pipelines/{name}").json()
            obj["spec"]["paused"] = False
            r = self.a.request("PUT", f"{P}/pipelines/{name}", obj)
            if r.status != 409:
                break
        self.assertEqual(r.status, 200, r.body)

    def daily(self, name, tasks, **kw):
        spec = dict({"schedule": "0 0 * * *", "paused": True, "tasks": tasks}, **kw)
        self.pipeline(name, spec)

    def test_backfill_one_run_per_tick_and_max_active_runs(self):
        slow = 'date +%s.%N > "$CUBE_RUN_DIR/../../$CUBE_PIPELINE_RUN.start"; sleep 0.3; ' \
               'date +%s.%N > "$CUBE_RUN_DIR/../../$CUBE_PIPELINE_RUN.end"'
        self.daily("bf", [{"name": "t", "command": sh(slow)}], maxActiveRuns=2)
        out = self.backfill("bf", "2026-01-01", "2026-01-05T12:00:00Z")
        self.assertEqual((len(out["created"]), out["existing"]), (5, 0))
        again = self.backfill("bf", "2026-01-03", "2026-01-06")
        self.assertEqual((len(again["created"]), again["existing"]), (1, 3),
                         "one run per tick: ticks that have a run are not made again")
        self.backfill("bf", "2026-01-05", "2026-01-01", status=422)
        self.backfill("bf", "2026-01-01", "2099-01-01", status=422)  # over max_backfill
        time.sleep(0.3)
        self.assertTrue(all(i["status"]["phase"] == "Queued" for i in self.runs_of("bf")),
                        "a paused pipeline admits nothing")
        self.unpause("bf")
        items = self.wait_runs("bf", 6)
        self.assertEqual([i["status"]["phase"] for i in items], ["Succeeded"] * 6)
        d = os.path.join(self.files_dir(), "pipeline-runs")
        spans = []
        for i in items:
            n = i["metadata"]["name"]
            with open(f"{d}/{n}.start") as a, open(f"{d}/{n}.end") as b:
                spans.append((float(a.read()), float(b.read())))
        most = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
        self.assertLessEqual(most, 2, f"maxActiveRuns 2: {spans}")

    def test_backfill_dates_are_days_in_the_pipelines_time_zone(self):
        # 02:30 in Shanghai is 18:30 UTC of the day before: read as UTC
        # midnights, 25-27 Nov would hold 2 ticks; as Shanghai days, both
        # ends inclusive, it holds 3
        self.pipeline("bftz", {"schedule": "30 2 * * *", "timezone": "Asia/Shanghai",
                               "paused": True, "tasks": [{"name": "t", "command": sh("true")}]})
        out = self.backfill("bftz", "2026-11-25", "2026-11-27")
        self.assertEqual((len(out["created"]), out["ticks"]), (3, 3), out)
        dates = sorted(i["spec"]["executionDate"] for i in self.runs_of("bftz"))
        self.assertEqual([d[:16] for d in dates],
                         ["2026-11-24T18:30", "2026-11-25T18:30", "2026-11-26T18:30"], dates)
        # the console's "Last run": the pipeline's newest run
        st = self.a.get(f"{P}/pipelines/bftz").json()["status"]
        self.assertEqual(st.get("lastRun"), out["created"][-1], st)
        self.assertIn("lastRunCreated", st)
        manual = self.run_now("bftz")
        self.assertEqual(self.a.get(f"{P}/pipelines/bftz").json()["status"]["lastRun"], manual)
        # one day alone is that day's tick; instants stay instants
        self.assertEqual(self.backfill("bftz", "2026-11-28", "2026-11-28")["ticks"], 1)
        self.assertEqual(self.backfill("bftz", "2026-11-28T00:00:00Z",
                                       "2026-11-28T23:59:59Z")["ticks"], 1)
        self.backfill("bftz", "2026-11-27", "2026-11-26", status=422)
        bad = self.backfill("bftz", "25 Nov", "2026-11-26", status=422)
        self.assertIn("start", bad["error"]["message"])

    def test_depends_on_past_runs_in_order_and_stops_at_a_failure(self):
        task = 'echo "$CUBE_EXECUTION_DATE" >> "$CUBE_RUN_DIR/../../dop.order"; ' \
               'case "$CUBE_EXECUTION_DATE" in 2026-02-01*) sleep 2;; 2026-02-04*) exit 1;; esac'
        self.daily("dop", [{"name": "t", "command": sh(task)}], dependsOnPast=True,
                   maxActiveRuns=5)
        self.backfill("dop", "2026-02-01", "2026-02-05")
        self.unpause("dop")
        deadline = time.time() + 60
        waits = set()   # what the next run said while the first one ran
        while time.time() < deadline:
            items = self.runs_of("dop")
            ph = {i["spec"]["executionDate"][:10]: i.get("status", {}).get("phase")
                  for i in items}
            for i in items:
                if i["spec"]["executionDate"].startswith("2026-02-02"):
                    waits.add(i.get("status", {}).get("message"))
            if ph.get("2026-02-04") in DONE:
                break
            time.sleep(0.1)
        self.assertIn("dependsOnPast: waits for run dop-202602010000 to finish", waits)
        time.sleep(0.5)
        ph = {i["spec"]["executionDate"][:10]: i.get("status", {}).get("phase")
              for i in self.runs_of("dop")}
        self.assertEqual(ph, {"2026-02-01": "Succeeded", "2026-02-02": "Succeeded",
                              "2026-02-03": "Succeeded", "2026-02-04": "Failed",
                              "2026-02-05": "Queued"}, "the run after a failure waits")
        with open(os.path.join(self.files_dir(), "pipeline-runs", "dop.order")) as f:
            order = [l[:10] for l in f.read().split()]
        self.assertEqual(order, ["2026-02-01", "2026-02-02", "2026-02-03", "2026-02-04"])
        # the waiting run names the run it waits for; the others say nothing
        runs = {i["spec"]["executionDate"][:10]: i for i in self.runs_of("dop")}
        failed = runs["2026-02-04"]["metadata"]["name"]
        st = runs["2026-02-05"]["status"]
        self.assertEqual(st.get("reason"), "WaitingForPastRun", json.dumps(st))
        self.assertIn(f"waits for run {failed} ", st.get("message", ""))
        self.assertIn("it is Failed", st["message"])
        for d in ("2026-02-01", "2026-02-02", "2026-02-03", "2026-02-04"):
            self.assertNotIn("reason", runs[d]["status"], json.dumps(runs[d]["status"]))

    def test_expired_limit_keeps_the_newest(self):
        self.daily("exp", [{"name": "t", "command": ["true"]}], expiredLimit=2,
                   maxActiveRuns=3)
        self.backfill("exp", "2026-03-01", "2026-03-05")
        self.unpause("exp")
        items = self.wait_runs("exp", 2)
        self.assertEqual(sorted(i["spec"]["executionDate"][:10] for i in items),
                         ["2026-03-04", "2026-03-05"])
        ev = self.a.get(f"{P}/events?kind=Pipeline&name=exp")
        if ev.status == 200:
            self.assertIn("Expired", ev.body)


class SklearnEndToEnd(unittest.TestCase):
    """The built-in pack: import iris, split, train a random forest,
    evaluate: a confusion-matrix image among the results."""

    def test_split_train_evaluate(self):
        pack = os.environ.get("CUBE_PIPELINE_TEMPLATES", "")
        if not os.path.exists(os.path.join(pack, "data-split", "template.json")):
            self.skipTest("the built-in template pack is not in the build tree")
        c = Cubed(plugins={"executor-local": {"poll_ms": 10},
                           "pipeline": {"templates_dir": pack}}, plugin_dir=plugin_dir())
        try:
            a = c.admin()
            names = [i["metadata"]["name"] for i in a.get("/api/v1/jobtemplates").json()["items"]]
            self.assertIn("model-evaluate", names)
            tmpl = a.get("/api/v1/jobtemplates/data-split").json()
            self.assertEqual(tmpl["metadata"]["labels"]["builtin"], "true")
            r = a.request("POST", P + "/pipelines", {"metadata": {"name": "iris"}, "spec": {
                "parallelism": 2, "tasks": [
                    {"name": "load", "template": "data-import",
                     "args": {"--source": "sklearn", "--sklearn_dataset": "iris",
                              "--save_path": "datasets/iris.csv"}},
                    {"name": "split", "template": "data-split", "upstream": ["load"],
                     "args": {"--input_csv": "{{ tasks.load.outputs.path }}"}},
                    {"name": "train", "template": "sklearn-random-forest",
                     "upstream": ["split"],
                     "args": {"--train_csv": "{{ tasks.split.outputs.train_csv }}",
                              "--label_column": "label"}},
                    {"name": "evaluate", "template": "model-evaluate",
                     "upstream": ["train", "split"],
                     "args": {"--model_path": "{{ tasks.train.outputs.model_path }}",
                              "--model_sha256": "{{ tasks.train.outputs.model_sha256 }}",
                              "--test_csv": "{{ tasks.split.outputs.test_csv }}"}}]}})
            self.assertEqual(r.status, 201, r.body)
            run = a.request("POST", P + "/pipelines/iris/run", {}).json()["metadata"]["name"]
            deadline = time.time() + 240
            while True:
                st = a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
                if st.get("phase") in DONE:
                    break
                self.assertLess(time.time(), deadline, st)
                time.sleep(0.2)
            logs = {t: a.get(f"{P}/pipelineruns/{run}/tasks/{t}/logs").body[-1500:]
                    for t in st.get("tasks", {})}
            self.assertEqual(st["phase"], "Succeeded", json.dumps(st, indent=1) + str(logs))
            ev = st["tasks"]["evaluate"]
            self.assertGreater(float(ev["outputs"]["accuracy"]), 0.8, ev["outputs"])
            res = {x["name"]: x for x in ev["results"]}
            self.assertIn("confusion_matrix.png", res, res)
            png = a.get(res["confusion_matrix.png"]["url"])
            self.assertEqual(png.status, 200)
            self.assertEqual(png.header("content-type"), "image/png")
        finally:
            c.close()


class Restart(unittest.TestCase):
    def test_a_restart_mid_run_loses_nothing(self):
        c = start_cubed()
        try:
            a = c.admin()
            r = a.request("POST", P + "/pipelines", {"metadata": {"name": "rs"}, "spec": {
                "tasks": [{"name": "first", "command": ["true"]},
                          {"name": "mid", "upstream": ["first"], "command": ["sleep", "1.5"]},
                          {"name": "last", "upstream": ["mid"], "command": ["true"]}]}})
            self.assertEqual(r.status, 201, r.body)
            run = a.request("POST", P + "/pipelines/rs/run", {}).json()["metadata"]["name"]
            deadline = time.time() + 30
            while True:
                st = a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
                if st.get("tasks", {}).get("mid", {}).get("phase") == "Running":
                    break
                self.assertLess(time.time(), deadline, st)
                time.sleep(0.05)
            self.assertEqual(c.stop(), 0)
            c.start()
            a = c.admin()
            deadline = time.time() + 60
            while True:
                st = a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
                if st.get("phase") in DONE:
                    break
                self.assertLess(time.time(), deadline, st)
                time.sleep(0.1)
            self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
            self.assertEqual(st["tasks"]["mid"].get("attempts"), 1, "adopted, not run again")
            jobs = a.get(f"{P}/jobs?labelSelector=pipelinerun%3D{run}").json()["items"]
            self.assertEqual(len(jobs), 3)
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
