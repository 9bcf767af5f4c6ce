"""Integration: the SDK's cube.models against a real cubed with the models
plugin — register() uploads a local file (streamed, with progress) or a
directory as the next version of a family, or registers a path inside the
project's files in place (as a Job, a task or a notebook would); the
digests are the files'; a file that is not of its framework raises
Invalid naming it; source comes from a Job's environment; versions(),
production(), promote() (one production version), download() checked
against the registered SHA-256, and deploy() without the serving plugin
raising a Conflict that names it."""
import hashlib
import os
import pickle
import tempfile

import cube
from cube import models
from sdktest import Test, main

P = "lab"


def setup(server):
    server.make_project(P)


class Models(Test):
    def setUp(self):
        self.c = self.client(project=P)
        self.tmp = tempfile.mkdtemp(prefix="cube-sdk-models-")

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_register_upload_versions_promote(self):
        data = pickle.dumps({"weights": list(range(1000))}, protocol=4)
        path = self.write("Iris_LR.pkl", data)
        seen = []
        m1 = models.register(path, framework="sklearn", metrics={"accuracy": 0.9},
                             client=self.c, progress=lambda n, s, t: seen.append((n, s, t)))
        self.assertEqual((m1.name, m1.family, m1.version), ("iris-lr-v1", "iris-lr", 1))
        self.assertEqual(m1.status.sha256, hashlib.sha256(data).hexdigest())
        self.assertEqual(m1.status.md5, hashlib.md5(data).hexdigest())
        self.assertEqual(seen[-1], ("Iris_LR.pkl", len(data), len(data)))
        self.assertNotIn("path", m1.obj.spec)          # uploaded
        self.assertNotIn("source", m1.obj.spec)        # not in a Job
        m2 = models.register(path, framework="sklearn", name="iris-lr",
                             metrics={"accuracy": 0.95}, client=self.c)
        self.assertEqual(m2.version, 2)
        self.assertEqual([v.version for v in models.versions("iris-lr", client=self.c)], [1, 2])
        self.assertIsNone(models.production("iris-lr", client=self.c))
        m1.promote("production")
        m2.promote()
        self.assertEqual(models.production("iris-lr", client=self.c).name, "iris-lr-v2")
        self.assertEqual(m1.get().status.stage, "archived")
        with self.assertRaises(cube.Invalid):
            m1.promote("gold")
        dest = m2.download("Iris_LR.pkl", self.tmp + "/out.pkl")
        with open(dest, "rb") as f:
            self.assertEqual(f.read(), data)
        with self.assertRaises(cube.Conflict) as cm:
            m2.deploy()
        self.assertEqual(cm.exception.code, "ServingNotLoaded")
        with self.assertRaises(cube.Conflict):
            models.register(path, framework="sklearn", name="iris-lr", version=2, client=self.c)

    def test_register_directory_and_bad_files(self):
        self.write("net/README.md", b"a directory model")
        self.write("net/weights/model.onnx", b"\x08\x07\x3a\x02\x0a\x00")
        m = models.register(os.path.join(self.tmp, "net"), framework="onnx", name="net",
                            client=self.c)
        self.assertEqual(m.status.entry, "weights/model.onnx")
        self.assertEqual(sorted(f["path"] for f in m.files()),
                         ["README.md", "weights/model.onnx"])
        bad = self.write("bad.pkl", b"not a pickle at all")
        with self.assertRaises(cube.Invalid) as cm:
            models.register(bad, framework="sklearn", name="bad", client=self.c)
        self.assertIn("bad.pkl", str(cm.exception))
        with self.assertRaises(cube.Invalid):
            models.register(bad, framework="keras", client=self.c)
        with self.assertRaises(cube.Invalid):
            models.register(self.tmp + "/nothing.pkl", framework="sklearn", client=self.c)

    def test_register_in_place_inside_the_project(self):
        root = os.path.join(self.server.dir, "var", "projects", P)
        data = pickle.dumps([1, 2, 3])
        os.makedirs(os.path.join(root, "runs", "r7"), exist_ok=True)
        with open(os.path.join(root, "runs", "r7", "model.pkl"), "wb") as f:
            f.write(data)
        env = {"CUBE_PROJECT_DIR": root, "CUBE_PROJECT": P, "CUBE_JOB": "train-7",
               "CUBE_PIPELINE_RUN": "daily-7", "CUBE_PIPELINE": "daily", "CUBE_TASK": "train"}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            m = models.register(os.path.join(root, "runs", "r7", "model.pkl"),
                                framework="sklearn", name="inplace", client=self.c)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.assertEqual(m.obj.spec.path, "runs/r7/model.pkl")
        self.assertEqual(dict(m.obj.spec.source), {"kind": "PipelineRun", "name": "daily-7",
                                                   "pipeline": "daily", "task": "train",
                                                   "job": "train-7"})
        self.assertEqual(m.status.sha256, hashlib.sha256(data).hexdigest())
        self.assertEqual(m.status.root, "runs/r7")

    def test_source_from_env(self):
        self.assertEqual(models.source_from_env({"CUBE_EXPERIMENT": "tune",
                                                 "CUBE_TRIAL_ID": "tune-12",
                                                 "CUBE_JOB": "tune-12"}),
                         {"kind": "Experiment", "name": "tune", "trial": 12, "job": "tune-12"})
        self.assertEqual(models.source_from_env({"CUBE_JOB": "j"}), {"kind": "Job", "name": "j"})
        self.assertIsNone(models.source_from_env({}))
        self.assertEqual(models.family_of("out/My Model_v2.tar.gz"), "my-model-v2")


if __name__ == "__main__":
    raise SystemExit(main({"models": None}, setup=setup))
