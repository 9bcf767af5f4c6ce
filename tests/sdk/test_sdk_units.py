"""The Python SDK's parts that need no cubed: objects with attribute
access, the YAML writer and reader, the pipeline DSL's checks, the trial
API in standalone mode and its bad values, the HTTP connection's framing
(Content-Length, chunked, to the close) against a fake server, URLs and
headers refused before anything is sent."""
import io
import json
import os
import sys
import unittest
from contextlib import redirect_stdout

import cube
from cube import trial, yaml
from cube.pipelines import Pipeline
from cube.transport import segment, split_server
from sdktest import FakeServer


class Objects(unittest.TestCase):
    def test_attribute_access(self):
        o = cube.Obj({"kind": "Job", "metadata": {"name": "a", "labels": {"x": "1"}},
                      "spec": {"command": ["true"]}})
        self.assertEqual((o.name, o.project, o.metadata.labels.x), ("a", None, "1"))
        self.assertEqual(o.status, {})
        self.assertNotIn("status", o)               # reading did not add it
        o.spec.replicas = 2
        self.assertEqual(o["spec"]["replicas"], 2)
        self.assertEqual(json.loads(json.dumps(o))["spec"]["replicas"], 2)
        with self.assertRaises(AttributeError) as e:
            o.spec.nothing
        self.assertIn("command", str(e.exception))  # says which keys there are
        self.assertIsNone(o.outcome)


class Yaml(unittest.TestCase):
    def test_writer(self):
        doc = {"a": "yes", "b": 1, "c": 1.5, "d": None, "e": True, "f": [], "g": {},
               "--h": [1, {"k": "v", "l": [2]}], "i": "line\nbreak", "j": 2 ** 40}
        self.assertEqual(yaml.dump(doc),
                         'a: "yes"\nb: 1\nc: 1.5\nd: null\ne: true\nf: []\ng: {}\n'
                         '"--h":\n  - 1\n  - k: "v"\n    l:\n      - 2\n'
                         'i: "line\\nbreak"\nj: 1099511627776\n')
        self.assertEqual(yaml.load(yaml.dump(doc)), doc)
        self.assertEqual(yaml.dump("x"), ' "x"\n')

    def test_reader(self):
        self.assertEqual(yaml.load("a: 1\nb:\n- x: 'it''s'\n  y: [1, 2]\n- ~\nc: yes # no\n"),
                         {"a": 1, "b": [{"x": "it's", "y": [1, 2]}, None], "c": "yes"})
        for bad, where in (("a: &x 1\n", "line 1"), ("a: 1\na: 2\n", "line 2"),
                           ("a: |\n  text\n", "line 1"), ("a:\n\tb: 1\n", "line 2"),
                           ("a: 1\n  b: 2\n", "line 2")):
            with self.assertRaises(yaml.YAMLError) as e:
                yaml.load(bad)
            self.assertTrue(str(e.exception).startswith(where), (bad, e.exception))


class PipelineDsl(unittest.TestCase):
    def test_references_and_order(self):
        with Pipeline("p", schedule="@daily", timezone="UTC", parallelism=2) as p:
            a = p.task("a", command=["true"])
            b = p.task("b", template="t", args={"--x": a.outputs["out"], "--n": 3})
            p.task("c", command=["sh", "-c", f"echo {b.outputs.y} {a.outputs['z']}"])
        spec = p.spec()
        self.assertEqual([t.get("upstream") for t in spec["tasks"]], [None, ["a"], ["b", "a"]])
        self.assertEqual(spec["tasks"][1]["args"]["--x"], "{{ tasks.a.outputs.out }}")
        self.assertEqual((spec["schedule"], spec["timezone"], spec["parallelism"]),
                         ("@daily", "UTC", 2))
        again = Pipeline.from_yaml(p.to_yaml())
        self.assertEqual(again.spec(), spec)

    def test_mistakes(self):
        cases = [
            (lambda p: p.task("a", command=["true"]).after("a"), "spec.tasks[0].upstream[0]"),
            (lambda p: (p.task("a", command=["true"]).after("b"),
                        p.task("b", command=["true"]).after("a")), "spec.tasks[0].upstream"),
            (lambda p: p.task("a", command=[f"{Pipeline('q').task('z', command=['t']).outputs['k']}"]),
             "spec.tasks[0]"),
            (lambda p: p.task("a"), "spec.tasks[0].template"),
            (lambda p: p.task("a", template="t", command=["x"]), "spec.tasks[0].template"),
            (lambda p: p.task("a", command=["x"], args={"--a": 1}), "spec.tasks[0].args"),
            (lambda p: (p.task("a", command=["x"]), p.task("a", command=["x"])),
             "spec.tasks[1].name"),
            (lambda p: None, "spec.tasks"),
        ]
        for build, field in cases:
            with self.assertRaises(cube.Invalid) as e:
                with Pipeline("p") as p:
                    build(p)
            self.assertEqual(e.exception.field, field)
        with self.assertRaises(TypeError):
            Pipeline("p", nonsense=1)
        with self.assertRaises(cube.Invalid):
            Pipeline("p").task("a", command=["x"]).outputs["bad key"]


class Trial(unittest.TestCase):
    def setUp(self):
        for v in ("CUBE_API", "CUBE_JOB", "CUBE_TRIAL_PARAMETERS", "CUBE_TRIAL_SEQUENCE"):
            os.environ.pop(v, None)
        trial._reset()

    def test_standalone(self):
        import nni
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(nni.get_next_parameter(), {})
            nni.report_intermediate_result(0.5)
            nni.report_intermediate_result({"default": 0.6, "acc@1": 0.7})
            nni.report_final_result(0.9)
        self.assertEqual(out.getvalue().splitlines(),
                         ["[nni] Intermediate result: 0.5 (step 1)",
                          '[nni] Intermediate result: {"default": 0.6, "acc@1": 0.7} (step 2)',
                          "[nni] Final result: 0.9"])
        self.assertEqual((nni.get_experiment_id(), nni.get_trial_id(), nni.get_sequence_id()),
                         ("STANDALONE", "STANDALONE", 0))
        self.assertEqual(trial.metric_name("acc@1"), "acc_1")

    def test_parameters_and_bad_values(self):
        os.environ["CUBE_TRIAL_PARAMETERS"] = '{"lr": 0.1}'
        import nni
        self.assertEqual(nni.get_next_parameter(), {"lr": 0.1})
        self.assertEqual(nni.get_current_parameter("lr"), 0.1)
        with redirect_stdout(io.StringIO()):
            for bad, err in ((True, TypeError), ("0.5", TypeError), (float("nan"), ValueError),
                             ({"acc": 1}, ValueError), ({"default": None}, TypeError)):
                with self.assertRaises(err):
                    nni.report_final_result(bad)
        trial._reset()
        os.environ["CUBE_TRIAL_PARAMETERS"] = "[1]"
        with self.assertRaises(ValueError):
            nni.get_next_parameter()
        from nni.utils import merge_parameter
        self.assertEqual(merge_parameter({"a": 1, "b": "x"}, {"a": "2"}), {"a": 2, "b": "x"})
        with self.assertRaises(ValueError):
            merge_parameter({"a": 1}, {"c": 1})


def chunked(parts):
    body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body)


class Wire(unittest.TestCase):
    def get(self, answer):
        fake = FakeServer(answer)
        try:
            c = cube.Client(f"http://127.0.0.1:{fake.port}", token="t", retry_deadline=0.2)
            return c.request("GET", "/api/v1/version").json()
        finally:
            fake.close()

    def test_framings(self):
        self.assertEqual(self.get(chunked([b'{"vers', b'ion": "x"}'])), {"version": "x"})
        self.assertEqual(self.get(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                  b"Content-Length: 8\r\n\r\n{\"a\": 1}"), {"a": 1})
        self.assertEqual(self.get(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n"
                                  b"[1, 2]"), [1, 2])
        with self.assertRaises(cube.BadResponse):
            self.get(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
        with self.assertRaises(cube.BadResponse):
            self.get(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 5\r\n\r\n{oops")
        with self.assertRaises(cube.Unavailable):   # cut off mid-answer, retried, then given up
            self.get(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")

    def test_a_write_cut_off_mid_answer_is_not_sent_twice(self):
        fake = FakeServer(b"HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n{")
        try:
            c = cube.Client(f"http://127.0.0.1:{fake.port}", token="t", retry_deadline=1)
            with self.assertRaises(cube.Unavailable):
                c.request("POST", "/api/v1/projects/p/notes", body={})
            self.assertEqual(len(fake.conns), 1)
            with self.assertRaises(cube.Unavailable):   # a read is tried again
                c.request("GET", "/api/v1/projects/p/notes")
            self.assertGreater(len(fake.conns), 2)
        finally:
            fake.close()

    def test_refused_before_sending(self):
        for bad in ("ftp://h", "http://user:pw@h", "http://h:99999", "h:80", "http://h/a?b"):
            with self.assertRaises(cube.ConfigError):
                split_server(bad)
        with self.assertRaises(cube.ConfigError):
            cube.Client("http://127.0.0.1:1", token="abc\r\nX-Evil: 1")
        c = cube.Client("http://127.0.0.1:1", token="t")
        with self.assertRaises(ValueError):
            c.request("GET", "/api/v1/x", headers={"X-A": "b\r\nX-Evil: 1"})
        with self.assertRaises(ValueError):
            c.request("GET", "/api/v1/a b")
        self.assertEqual(segment("a b/ü"), "a%20b%2F%C3%BC")


if __name__ == "__main__":
    unittest.main(verbosity=2)
