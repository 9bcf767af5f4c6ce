"""Every built-in template.json follows the args-schema rules, and each
script's command line agrees with its schema."""
import contextlib
import copy
import io
import os
import unittest

import harness
import schema_rules

import sys  # noqa: E402

sys.path.insert(0, os.path.join(harness.TEMPLATES_DIR, "_lib"))
import cube_task  # noqa: E402

TRAINING = [n for n in harness.template_names() if n.startswith("sklearn-") or n == "xgboost-train"]


class TemplateSchemaTest(unittest.TestCase):
    def test_every_template_is_valid(self):
        names = harness.template_names()
        self.assertGreaterEqual(len(names), 15, "templates found: %s" % names)
        for name in names:
            with self.subTest(template=name):
                problems = schema_rules.check_template(
                    harness.load(name), os.path.join(harness.TEMPLATES_DIR, name))
                self.assertEqual(problems, [], "\n".join(problems))

    def test_expected_templates_exist(self):
        expected = {"custom-command", "python-script", "data-import", "data-split", "model-evaluate",
                    "xgboost-train"} | {"sklearn-" + a for a in (
                        "lr", "random-forest", "gbdt", "decision-tree", "knn", "kmeans", "adaboost",
                        "naive-bayes", "svm")}
        self.assertEqual(expected - set(harness.template_names()), set())

    def test_training_templates_share_the_data_group(self):
        first = harness.load(TRAINING[0])["args"]["data"]
        for name in TRAINING[1:]:
            data = harness.load(name)["args"]["data"]
            with self.subTest(template=name):
                self.assertEqual(list(data), list(first))
                self.assertEqual({k: v["type"] for k, v in data.items()},
                                 {k: v["type"] for k, v in first.items()})

    def test_parsers_take_the_schema_defaults(self):
        """The script's parser (built from the schema) has the schema's defaults."""
        for name in harness.template_names():
            doc = harness.load(name)
            parser = cube_task.build_parser(doc)
            required = [f for f, s in schema_rules.flags_of(doc["args"]).items()
                        if s.get("require") and s.get("default", "") == ""]
            argv = schema_rules.render_args(doc["args"], {f: doc["example"][f] for f in required})
            parsed = vars(parser.parse_args(argv))
            for flag, spec in schema_rules.flags_of(doc["args"]).items():
                if flag in required or spec["type"] == "bool" or spec.get("default", "") == "":
                    continue
                with self.subTest(template=name, arg=flag):
                    self.assertEqual(parsed[flag[2:]], spec["default"])

    def test_parser_rejects_out_of_range_and_bad_choice(self):
        doc = harness.load("data-split")
        parser = cube_task.build_parser(doc)
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            cube_task._check_range(parser, parser.parse_args(["--input_csv", "x", "--test_size", "1.5"]),
                                   doc["args"])
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            cube_task.build_parser(harness.load("sklearn-svm")).parse_args(
                ["--train_csv", "x", "--kernel", "cubic"])


def _broken(mutate):
    doc = copy.deepcopy(harness.load("sklearn-svm"))
    mutate(doc)
    return schema_rules.check_template(doc, os.path.join(harness.TEMPLATES_DIR, "sklearn-svm"))


class ValidatorTest(unittest.TestCase):
    """The rules catch what they claim to (so a pass above means something)."""

    def assertProblem(self, mutate, fragment):
        problems = _broken(mutate)
        self.assertTrue(any(fragment in p for p in problems), "no %r in %s" % (fragment, problems))

    def test_catches_bad_schemas(self):
        model = lambda d: d["args"]["model"]  # noqa: E731
        self.assertProblem(lambda d: model(d)["--C"].update(type="double"), "--C.type")
        self.assertProblem(lambda d: model(d)["--kernel"].update(choice=[]), "--kernel.choice")
        self.assertProblem(lambda d: model(d)["--kernel"].pop("item_type"), "--kernel.item_type")
        self.assertProblem(lambda d: model(d)["--kernel"].update(default="cubic"), "--kernel.default")
        self.assertProblem(lambda d: model(d)["--C"].update(range="10,1"), "--C.range")
        self.assertProblem(lambda d: model(d)["--C"].update(default=-1.0), "outside the range")
        self.assertProblem(lambda d: model(d)["--degree"].update(default=2.5), "--degree.default")
        self.assertProblem(lambda d: model(d)["--kernel"].update(range="0,1"), "only int and float")
        self.assertProblem(lambda d: model(d)["--C"].update(require=2), "--C.require")
        self.assertProblem(lambda d: model(d).update({"--opts": {"type": "dict", "label": "o",
                                                                  "describe": "d"}}), "sub_args")
        self.assertProblem(lambda d: d["args"]["data"].update({"--C": model(d)["--C"]}), "declared twice")
        self.assertProblem(lambda d: d.update(category="ml"), "category")
        self.assertProblem(lambda d: d.update(name="sklearn-svc"), "differs from its directory")
        self.assertProblem(lambda d: d["example"].update({"--gamma": "high"}), "example.--gamma")
        self.assertProblem(lambda d: d["example"].pop("--train_csv"), "required --train_csv")
        self.assertProblem(lambda d: d.update(command=["/usr/bin/python3", "{{ template_dir }}/nope.py"]),
                           "does not exist")
        self.assertProblem(lambda d: d["resources"].update(memory="1GB"), "resources.memory")

    def test_render_args_follows_cube_studio(self):
        schema = {"g": {"--b": {"type": "bool"}, "--f": {"type": "bool"}, "--s": {"type": "str"},
                        "--e": {"type": "str"}, "--d": {"type": "dict"}, "--m": {"type": "multiple"}}}
        argv = schema_rules.render_args(schema, {"--b": True, "--f": False, "--s": "x y", "--e": "",
                                                 "--d": {"k": 1}, "--m": ["a", "b"]})
        self.assertEqual(argv, ["--b", "--s", "x y", "--d", '{"k": 1}', "--m", "a,b"])


if __name__ == "__main__":
    unittest.main()
