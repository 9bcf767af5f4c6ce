"""Who a Job runs as, played by an attacker: a dev of `public` (as every
user is by default) tries to make pipeline tasks run as the platform
administrator or as another member, through reserved annotations, run
fields, controller references and predictable Job names. The host decides
whom a Job runs as (metadata.owner, stamped from the authenticated caller
or the object whose controller made it); nothing a user writes moves it.

Runs a real cubed with executor-local (as root: replicas run as the OS
account cube-<user>) and the pipeline plugin."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

P = "/api/v1/projects/public"
DONE = ("Succeeded", "Failed", "Stopped")

# A task that reports who it runs as: the OS account and the user its
# CUBE_TOKEN acts for, written to its outputs (CUBE_OUTPUTS, key=value).
WHOAMI = (
    "import json, os, pwd, urllib.request\n"
    "req = urllib.request.Request(os.environ['CUBE_API'] + '/api/v1/auth/me',\n"
    "    headers={'Authorization': 'Bearer ' + os.environ.get('CUBE_TOKEN', '')})\n"
    "try:\n"
    "    me = json.load(urllib.request.urlopen(req, timeout=10))['user']['name']\n"
    "except Exception as e:\n"
    "    me = 'error:' + type(e).__name__\n"
    "with open(os.environ['CUBE_OUTPUTS'], 'a') as f:\n"
    "    f.write('account=' + pwd.getpwuid(os.getuid()).pw_name + '\\n')\n"
    "    f.write('token_user=' + me + '\\n')\n")


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-security-plugins-")
    root = os.environ["CUBE_TEST_PLUGIN_DIR"]
    for name in ("executor-local", "pipeline"):
        os.symlink(os.path.join(root, name, f"cube-{name}.so"),
                   os.path.join(d, f"cube-{name}.so"))
    return d


def whoami_task(name="who"):
    return {"name": name, "command": ["/usr/bin/python3", "-c", WHOAMI]}


@unittest.skipUnless(os.geteuid() == 0, "executor-local runs replicas as other accounts: root")
class RunAs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-local": {"poll_ms": 10},
                               "pipeline": {"templates_dir": "none"}},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.mallory = cls.c.make_user("mallory")
        cls.alice = cls.c.make_user("alice")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def wait_run(self, client, run, timeout=90):
        deadline = time.time() + timeout
        st = {}
        while time.time() < deadline:
            st = client.get(f"{P}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in DONE:
                return st
            time.sleep(0.1)
        self.fail(f"run {run} did not end: {json.dumps(st)}\n" + self.c.output()[-3000:])

    def refused(self, r, field):
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], field, r.body)

    def run_spec(self, *tasks):
        return {"pipeline": "p", "tasks": list(tasks)}

    # -- the reserved annotation, on every kind and every write ------------

    def test_run_with_user_annotation_is_refused(self):
        r = self.mallory.request("POST", P + "/pipelineruns", {
            "metadata": {"name": "evil-run", "annotations": {"cube.dev/user": "admin"}},
            "spec": self.run_spec(whoami_task())})
        self.refused(r, "metadata.annotations.cube.dev/user")
        self.assertEqual(self.a.get(P + "/pipelineruns/evil-run").status, 404)

    def test_scheduled_pipeline_with_user_annotation_is_refused(self):
        r = self.mallory.request("POST", P + "/pipelines", {
            "metadata": {"name": "evil-cron", "annotations": {"cube.dev/user": "admin"}},
            "spec": {"schedule": "* * * * *", "tasks": [whoami_task()]}})
        self.refused(r, "metadata.annotations.cube.dev/user")

    def test_reserved_keys_cannot_be_added_by_patch_put_or_on_other_kinds(self):
        r = self.mallory.request("POST", P + "/pipelines", {
            "metadata": {"name": "plain"}, "spec": {"tasks": [whoami_task()]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.mallory.request("PATCH", P + "/pipelines/plain",
                                 {"metadata": {"annotations": {"cube.dev/user": "admin"}}},
                                 headers={"Content-Type": "application/merge-patch+json"})
        self.refused(r, "metadata.annotations.cube.dev/user")
        obj = self.mallory.get(P + "/pipelines/plain").json()
        obj["metadata"]["labels"] = {"cube.dev/notebook": "x"}
        r = self.mallory.request("PUT", P + "/pipelines/plain", obj)
        self.refused(r, "metadata.labels.cube.dev/notebook")
        r = self.mallory.request("POST", P + "/jobs", {
            "metadata": {"name": "evil-job", "annotations": {"cube.dev/user": "admin"}},
            "spec": {"command": ["true"]}})
        self.refused(r, "metadata.annotations.cube.dev/user")

    def test_run_naming_another_creator_is_refused(self):
        r = self.mallory.request("POST", P + "/pipelineruns", {
            "metadata": {"name": "evil-creator"},
            "spec": dict(self.run_spec(whoami_task()), creator="admin")})
        self.refused(r, "spec.creator")

    def test_controller_reference_written_by_a_user_is_refused(self):
        r = self.alice.request("POST", P + "/pipelines", {
            "metadata": {"name": "alices"}, "spec": {"tasks": [whoami_task()]}})
        self.assertEqual(r.status, 201, r.body)
        uid = r.json()["metadata"]["uid"]
        r = self.mallory.request("POST", P + "/pipelineruns", {
            "metadata": {"name": "adopted", "ownerReferences": [
                {"kind": "Pipeline", "name": "alices", "uid": uid, "controller": True}]},
            "spec": self.run_spec(whoami_task())})
        self.refused(r, "metadata.ownerReferences[0].controller")

    # -- what runs, runs as the user who caused it --------------------------

    def test_a_users_own_run_runs_as_that_user(self):
        r = self.mallory.request("POST", P + "/pipelineruns", {
            "metadata": {"name": "mine"}, "spec": self.run_spec(whoami_task())})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["metadata"]["owner"], "mallory")
        self.assertEqual(r.json()["spec"]["creator"], "mallory")
        st = self.wait_run(self.mallory, "mine")
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        out = st["tasks"]["who"]["outputs"]
        self.assertEqual(out["account"], "cube-mallory", out)
        self.assertEqual(out["token_user"], "mallory", out)
        job = self.a.get(P + "/jobs/" + st["tasks"]["who"]["job"]).json()
        self.assertEqual(job["metadata"]["owner"], "mallory")

    def test_runs_started_by_actions_are_the_callers(self):
        r = self.mallory.request("POST", P + "/pipelines", {
            "metadata": {"name": "by-action"}, "spec": {"tasks": [whoami_task()]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.mallory.request("POST", P + "/pipelines/by-action/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        self.assertEqual(r.json()["metadata"]["owner"], "mallory")
        st = self.wait_run(self.mallory, run)
        self.assertEqual(st["tasks"]["who"]["outputs"]["account"], "cube-mallory", st)
        # the caller may operate what was made for them: a dev edits and deletes it
        r = self.mallory.request("DELETE", P + "/pipelineruns/" + run)
        self.assertIn(r.status, (200, 202), r.body)

    def test_viewers_outsiders_and_anonymous_callers_start_nothing(self):
        r = self.mallory.request("POST", P + "/pipelines", {
            "metadata": {"name": "guarded"}, "spec": {"tasks": [whoami_task()]}})
        self.assertEqual(r.status, 201, r.body)
        # every user joins public as a dev: make vic a viewer, take outsider out
        vic = self.c.make_user("vic")
        out = self.c.make_user("outsider")
        r = self.a.request("PUT", "/api/v1/projects/public/members/vic", {"role": "viewer"})
        self.assertEqual(r.status, 200, r.body)
        r = self.a.request("DELETE", "/api/v1/projects/public/members/outsider")
        self.assertIn(r.status, (200, 204), r.body)
        for who, want in ((vic, 403), (out, 404), (self.c, 401)):
            for action, body in (("run", {}), ("backfill", {"start": "2026-01-01",
                                                            "end": "2026-01-02"})):
                r = who.request("POST", f"{P}/pipelines/guarded/{action}", body)
                self.assertEqual(r.status, want, f"{action}: {r.body}")
        runs = self.a.get(f"{P}/pipelineruns?labelSelector=pipeline%3Dguarded").json()
        self.assertEqual(runs["items"], [])

    def test_another_devs_pipeline_cannot_be_run(self):
        r = self.alice.request("POST", P + "/pipelines", {
            "metadata": {"name": "alice-only"}, "spec": {"tasks": [whoami_task()]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.mallory.request("POST", P + "/pipelines/alice-only/run", {})
        self.assertEqual(r.status, 403, r.body)

    def test_imported_and_copied_pipelines_belong_to_the_importer(self):
        body = json.dumps({"kind": "Pipeline", "metadata": {"name": "imp"},
                           "spec": {"tasks": [whoami_task()]}})
        r = self.mallory.request("POST", P + "/pipelines/import", body,
                                 headers={"Content-Type": "application/json"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["metadata"]["owner"], "mallory")
        r = self.mallory.request("POST", P + "/pipelines/import", body,
                                 headers={"Content-Type": "application/json"})
        self.assertEqual(r.status, 409, r.body)
        self.assertIn("already exists", r.json()["error"]["message"])
        r = self.mallory.request("POST", P + "/pipelines/imp/copy", {"name": "imp2"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["metadata"]["owner"], "mallory")
        r = self.mallory.request("PATCH", P + "/pipelines/imp2",
                                 {"spec": {"description": "mine to edit"}},
                                 headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.mallory.request("DELETE", P + "/pipelines/imp2").status, 200)

    def test_a_job_name_taken_by_another_user_is_not_adopted(self):
        r = self.alice.request("POST", P + "/pipelines", {
            "metadata": {"name": "victim"},
            "spec": {"tasks": [{"name": "t", "command": ["/bin/false"]}]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.alice.request("POST", P + "/pipelines/victim/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        st = self.wait_run(self.alice, run)
        self.assertEqual(st["tasks"]["t"]["phase"], "Failed", st)
        # a rerun's Job is named <run>-t-1: mallory makes it first, one that
        # succeeds, hoping alice's run adopts it as her task's
        r = self.mallory.request("POST", P + "/jobs", {
            "metadata": {"name": f"{run}-t-1"}, "spec": {"command": ["/bin/true"]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.alice.request("POST", f"{P}/pipelineruns/{run}/rerun", {})
        self.assertIn(r.status, (200, 201), r.body)
        time.sleep(0.5)
        st = self.wait_run(self.alice, run)
        self.assertEqual(st["tasks"]["t"]["phase"], "Failed", st)
        self.assertIn("not this run's", st["tasks"]["t"].get("message", ""), st)


if __name__ == "__main__":
    unittest.main(verbosity=2)
