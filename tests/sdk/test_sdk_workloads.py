"""Integration: the SDK's helpers against a real cubed whose Jobs run on
this machine (executor-local), as a dev: jobs.submit / wait / logs /
metrics / stop, with the SDK on every Job's PYTHONPATH by default; `import
nni` inside a real Job reporting 5 intermediate results and a final one
that the Job's metrics route lists; an NNI example trial running unchanged
in a Job and standalone; the pipeline DSL building, submitting and running
a 3-task DAG with outputs passed downstream, exported and imported as the
console does; notebooks (when Jupyter is installed) created, opened, with
the SDK on their PYTHONPATH."""
import json
import os
import subprocess
import sys

import cube
from cube import jobs, notebooks, pipelines
from cube.pipelines import Pipeline
from sdktest import PY, SOURCE_ROOT, Test, main, url

P = "lab"
SDK_DIR = os.path.realpath(os.path.join(SOURCE_ROOT, "sdk", "python"))
HERE = os.path.dirname(os.path.abspath(__file__))
USER = {}

NNI_TRIAL = r"""
import json, nni
p = nni.get_next_parameter()
assert p == {"lr": 0.1, "layers": 3}, p
for i in range(5):
    nni.report_intermediate_result(p["lr"] * (i + 1))
nni.report_final_result({"default": 0.93, "loss": 0.07, "note": "not a number"})
print("ids", json.dumps([nni.get_experiment_id(), nni.get_trial_id(), nni.get_sequence_id()]))
"""


class Workloads(Test):
    def setUp(self):
        self.c = self.client(token=USER["token"], project=P)

    # -- jobs ---------------------------------------------------------------

    def test_submit_follow_logs_wait(self):
        j = jobs.submit("echo hello from $CUBE_JOB; "
                        "python3 -c 'import cube, nni, os; "
                        "print(\"sdk\", cube.__version__, os.environ[\"PYTHONPATH\"])'",
                        name="hello", client=self.c, labels={"suite": "sdk"})
        self.assertEqual(j.name, "hello")
        lines = list(j.logs(follow=True))       # until the Job ends
        self.assertIn("hello from hello", lines)
        self.assertIn(f"sdk {cube.__version__} {SDK_DIR}", lines)
        final = j.wait(timeout=60, check=True)
        self.assertEqual(final.status.phase, "Succeeded")
        self.assertEqual(jobs.get("hello", client=self.c).obj.metadata.labels.suite, "sdk")
        self.assertEqual([x.name for x in jobs.list_jobs("suite=sdk", client=self.c)],
                         ["hello"])

    def test_the_jobs_pythonpath_comes_first(self):
        j = jobs.submit(["/bin/sh", "-c", "echo $PYTHONPATH"], name="ownpath",
                        env={"PYTHONPATH": "/opt/mine"}, client=self.c)
        j.wait(timeout=60, check=True)
        self.assertEqual(list(j.logs()), [f"/opt/mine:{SDK_DIR}"])

    def test_failure_stop_and_metrics(self):
        bad = jobs.submit("exit 3", name="fails", client=self.c)
        with self.assertRaises(jobs.JobFailed) as e:
            bad.wait(timeout=60, check=True)
        self.assertIn("Failed", str(e.exception))
        long = jobs.submit(["sleep", "60"], name="sleeper", client=self.c)
        long.wait(timeout=60, until=["Running"])
        long.stop(grace_seconds=1)
        self.assertEqual(long.wait(timeout=60).status.phase, "Cancelled")
        long.report("loss", 0.5, step=1)
        jobs.report([{"name": "loss", "value": 0.25, "step": 2}], job="sleeper",
                    client=self.c)
        pts = jobs.metrics("sleeper", metric="loss", client=self.c)
        self.assertEqual([(p["step"], p["value"]) for p in pts], [(1, 0.5), (2, 0.25)])
        with self.assertRaises(cube.Invalid) as e:
            long.report("loss", float("nan"))
        self.assertEqual(e.exception.field, "metrics[0].value")
        with self.assertRaises(cube.Timeout):
            jobs.submit(["sleep", "30"], name="slow", client=self.c).wait(timeout=0.5)
        with self.assertRaises(cube.Invalid):
            jobs.submit([], client=self.c)

    # -- nni ----------------------------------------------------------------

    def test_import_nni_inside_a_job(self):
        j = jobs.submit([PY, "-c", NNI_TRIAL], name="trial-1", client=self.c,
                        env={"CUBE_TRIAL_PARAMETERS": json.dumps({"lr": 0.1, "layers": 3}),
                             "CUBE_EXPERIMENT": "exp1", "CUBE_TRIAL_SEQUENCE": "4"})
        st = j.wait(timeout=60)
        log = list(j.logs())
        self.assertEqual(st.status.phase, "Succeeded", log)
        self.assertIn('ids ["exp1", "trial-1", 4]', log)
        self.assertIn("[nni] Intermediate result: 0.30000000000000004 (step 3)", log)
        pts = self.c.request("GET", self.c.path("jobs", "trial-1", None, "metrics")
                             ).json()["metrics"]
        got = [(p["name"], p["step"], round(p["value"], 6)) for p in pts]
        self.assertEqual(got, [("default", i, round(0.1 * i, 6)) for i in range(1, 6)] +
                         [("final/default", 5, 0.93), ("final/loss", 5, 0.07)])

    def test_an_nni_example_trial_runs_unchanged(self):
        script = os.path.join(HERE, "nni_trial_example.py")
        j = jobs.submit([PY, script, "--epochs", "3"], name="example", client=self.c,
                        env={"CUBE_TRIAL_PARAMETERS": json.dumps({"lr": 0.2, "epochs": 6})})
        st = j.wait(timeout=60)
        log = list(j.logs())
        self.assertEqual(st.status.phase, "Succeeded", log)
        self.assertTrue(any(l.startswith("trial done: w=") for l in log), log)
        pts = j.metrics()
        self.assertEqual([p["step"] for p in pts if p["name"] == "default"], [1, 2, 3, 4, 5, 6])
        final = [p for p in pts if p["name"] == "final/default"]
        self.assertEqual(len(final), 1)
        self.assertGreater(final[0]["value"], 0.9)
        self.assertEqual({p["name"] for p in pts}, {"default", "final/default", "final/w",
                                                     "final/b"})
        # standalone: no Job, no parameters; it prints and uses its defaults
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUBE_")}
        r = subprocess.run([PY, script], capture_output=True, text=True, timeout=60,
                           env=dict(env, PYTHONPATH=SDK_DIR))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("[nni] Final result:", r.stdout)
        self.assertIn("('epochs', 5)", r.stdout)
        self.assertIn("experiment STANDALONE trial STANDALONE sequence 0", r.stderr)

    # -- pipelines ----------------------------------------------------------

    def test_a_three_task_dag_with_outputs(self):
        code = ("import cube, os\n"
                "doubled = int('{{ tasks.double.outputs.doubled }}')\n"
                "c = cube.Client()\n"
                "run = c.get('pipelineruns', os.environ['CUBE_PIPELINE_RUN'])\n"
                "print('report', doubled, run.status.phase)\n"
                "open(os.environ['CUBE_OUTPUTS'], 'a').write(f'total={doubled + 1}\\n')\n")
        with Pipeline("sdk-dag", parallelism=2, description="made by the SDK",
                      labels={"made-by": "sdk"}, client=self.c) as p:
            make = p.task("make", template="custom-command",
                          args={"--command": 'echo "answer=42" >> "$CUBE_OUTPUTS"'})
            double = p.task("double", command=[
                "/bin/sh", "-c",
                f'echo "doubled=$(( {make.outputs["answer"]} * 2 ))" >> "$CUBE_OUTPUTS"'])
            report = p.task("report", template="python-script", args={"--code": code},
                            retries=1).after(double)
        self.assertEqual(p.spec()["tasks"][1]["upstream"], ["make"])   # implied by the output
        self.assertEqual(report.to_dict()["upstream"], ["double"])
        stored = p.submit()
        self.assertEqual(stored.outcome, "created")
        self.assertEqual(p.submit().outcome, "unchanged")
        run = p.run()
        self.assertEqual(run.obj.kind, "PipelineRun")
        final = run.wait(timeout=120)
        tasks = run.tasks()
        self.assertEqual(final.status.phase, "Succeeded",
                         {n: (t.get("phase"), t.get("message")) for n, t in tasks.items()})
        self.assertEqual(run.outputs("make"), {"answer": "42"})
        self.assertEqual(run.outputs("double"), {"doubled": "84"})
        self.assertEqual(run.outputs("report"), {"total": "85"})
        self.assertIn("report 84 Running", list(run.logs("report")))
        # export: our YAML writer is the server's, byte for byte
        server_yaml = pipelines.export("sdk-dag", client=self.c)
        server_json = json.loads(pipelines.export("sdk-dag", fmt="json", client=self.c))
        self.assertEqual(cube.yaml.dump(server_json), server_yaml)
        self.assertEqual(cube.yaml.load(server_yaml), server_json)
        back = Pipeline.from_yaml(server_yaml)
        self.assertEqual([t for t in back.tasks], ["make", "double", "report"])
        # what the SDK writes, the console's import takes
        made = pipelines.import_(p.to_yaml(), name="sdk-dag-copy", client=self.c)
        self.assertEqual(made.spec.tasks, stored.spec.tasks)
        self.assertEqual(made.metadata.labels, {"made-by": "sdk"})
        r2 = pipelines.run("sdk-dag-copy", "2026-01-02", client=self.c)
        self.assertTrue(r2.obj.spec.executionDate.startswith("2026-01-02"))
        self.assertEqual(r2.wait(timeout=120).status.phase, "Succeeded")

    def test_pipeline_mistakes_name_the_field(self):
        with self.assertRaises(cube.Invalid) as e:
            with Pipeline("bad") as p:
                p.task("a", command=["true"]).after("nope")
        self.assertEqual(e.exception.field, "spec.tasks[0].upstream[0]")
        with self.assertRaises(cube.Invalid) as e:
            Pipeline("bad").task("A", command=["true"])
        self.assertEqual(e.exception.field, "spec.tasks[0].name")
        p = Pipeline("badtmpl", client=self.c)
        p.task("t", template="no-such-template")
        with self.assertRaises(cube.Invalid) as e:
            p.submit()
        self.assertEqual(e.exception.field, "spec.tasks[0].template")
        p = Pipeline("badcron", client=self.c).schedule("61 * * * *")
        p.task("t", command=["true"])
        with self.assertRaises(cube.Invalid) as e:
            p.submit()
        self.assertEqual(e.exception.field, "spec.schedule")
        self.assertIn("custom-command", pipelines.templates(client=self.c))

    # -- notebooks ----------------------------------------------------------

    def test_notebook_url_and_sdk(self):
        if not (os.path.exists("/usr/bin/jupyter-notebook") or
                os.path.exists("/usr/bin/jupyter-lab")):
            self.skipTest("Jupyter is not installed")
        nb = notebooks.create("nb", resources={"cpu": "1"}, client=self.c, wait=True,
                              timeout=120)
        try:
            self.assertEqual(nb.phase, "Running", nb.obj.status)
            self.assertEqual(nb.url, f"{url(self.server)}/notebook/{P}/nb/")
            self.assertEqual(nb.obj.status.url, f"/notebook/{P}/nb/")
            job = self.c.get("jobs", nb.obj.status.job)
            self.assertEqual(job.spec.env.PYTHONPATH, SDK_DIR)   # the plugin's default
            self.assertEqual(notebooks.url("nb", client=self.c), nb.url)
            nb.stop()
            self.assertEqual(nb.wait(timeout=60, until=["Stopped"]).status.phase, "Stopped")
        finally:
            nb.delete(wait=True)


def setup(server):
    a = server.admin()
    r = a.request("POST", "/api/v1/users", {"metadata": {"name": "dana"},
                                            "spec": {"role": "user"}})
    assert r.status == 201, r.body
    a.request("POST", "/api/v1/users/dana/password", {"password": "password-dana-1"})
    r = server.login("dana", "password-dana-1").request("POST", "/api/v1/auth/tokens",
                                                        {"name": "sdk"})
    USER["token"] = r.json()["token"]
    server.make_project(P, [("dana", "dev")])


if __name__ == "__main__":
    templates = os.path.join(os.environ.get("CUBE_BUILD_ROOT", "build"), "plugins",
                             "pipeline", "templates")
    sys.exit(main({"executor-local": None, "notebook": None,
                   "pipeline": {"templates_dir": os.path.abspath(templates)}}, setup=setup))
