"""cube_task — what every built-in job template shares.

A template's script calls `task = cube_task.start(__file__)`: the script's
own template.json is read, its args schema becomes the command line parser
(so the script accepts exactly what the pipeline renders from the schema),
and the task's directories come from the environment:

  CUBE_RUN_DIR     working directory shared by the run's tasks (default: cwd);
                   relative data and model paths are resolved against it.
  CUBE_OUTPUT_DIR  where result files go (images, CSV, JSON, *.echarts.json,
                   markdown); default: <run dir>/outputs.
  CUBE_OUTPUTS     a file that receives the task's outputs as one JSON object
                   (downstream tasks read {{ tasks.<name>.outputs.<key> }});
                   when unset the outputs are printed.

Rendering contract (the pipeline renders args as Cube Studio does): a true
bool is a bare flag and a false one is omitted, so a bool that is absent is
false whatever the schema's default says; empty values are omitted, so an
absent str is ""; dict, list and json come as one JSON string; multiple as a
comma-separated list.  Bad input exits with status 2 and a message naming
the argument (argparse), bad data with status 1 and a message (fail()).
"""
import argparse
import json
import os
import sys

SCALAR_PARSERS = {"int": int, "float": float}


def fail(message):
    """Stops the task with a message for the task log (exit status 1)."""
    print("error: " + message, file=sys.stderr)
    sys.exit(1)


def load_template(template_dir):
    with open(os.path.join(template_dir, "template.json"), encoding="utf-8") as f:
        return json.load(f)


def iter_schema(args_schema):
    """Yields (group, flag, spec) for every argument of a grouped schema."""
    for group, args in args_schema.items():
        for flag, spec in args.items():
            yield group, flag, spec


def _json_value(text):
    try:
        return json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError("not valid JSON: %s" % e)


def _multiple_value(item_type):
    parse = SCALAR_PARSERS.get(item_type, str)

    def value(text):
        try:
            return [parse(x.strip()) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError("expected a comma-separated list of %s" % item_type)
    return value


def _add_argument(parser, flag, spec):
    kind = spec.get("type", "str")
    kw = {"help": spec.get("describe", "")}
    if kind == "bool":
        parser.add_argument(flag, action="store_true", **kw)
        return
    if kind in SCALAR_PARSERS:
        kw["type"] = SCALAR_PARSERS[kind]
    elif kind in ("dict", "list", "json"):
        kw["type"] = _json_value
    elif kind == "multiple":
        kw["type"] = _multiple_value(spec.get("item_type", "str"))
    elif kind == "enum" and spec.get("item_type") in SCALAR_PARSERS:
        kw["type"] = SCALAR_PARSERS[spec["item_type"]]
    if kind == "enum":
        kw["choices"] = spec.get("choice")
    default = spec.get("default", "")
    if default == "" or default is None:
        default = None
    elif isinstance(default, str) and kw.get("type") is not None and kind != "enum":
        default = kw["type"](default)
    kw["default"] = default
    # A required argument with a default is satisfied by the default.
    kw["required"] = bool(spec.get("require")) and default is None
    parser.add_argument(flag, **kw)


def _check_range(parser, args, args_schema):
    for _, flag, spec in iter_schema(args_schema):
        value = getattr(args, flag.lstrip("-").replace("-", "_"), None)
        if not spec.get("range") or not isinstance(value, (int, float)):
            continue
        low, high = (float(x) for x in spec["range"].split(","))
        if not low <= value <= high:
            parser.error("argument %s: %s is outside the range %s" % (flag, value, spec["range"]))


def build_parser(template):
    parser = argparse.ArgumentParser(prog=template["name"], description=template.get("description"))
    for _, flag, spec in iter_schema(template.get("args", {})):
        _add_argument(parser, flag, spec)
    return parser


class Task:
    """The running task: its parsed args, directories and outputs."""

    def __init__(self, template, args):
        self.template = template
        self.args = args
        self.run_dir = os.path.abspath(os.environ.get("CUBE_RUN_DIR") or os.getcwd())
        self.output_dir = os.environ.get("CUBE_OUTPUT_DIR") or os.path.join(self.run_dir, "outputs")
        self.outputs_file = os.environ.get("CUBE_OUTPUTS")
        self.outputs = {}

    def path(self, value, default=None):
        """A path argument resolved against the run directory ('' -> default)."""
        value = value or default
        if value is None:
            return None
        if value.startswith("file://"):
            value = value[len("file://"):]
        return os.path.normpath(os.path.join(self.run_dir, os.path.expanduser(value)))

    def output_path(self, name):
        os.makedirs(self.output_dir, exist_ok=True)
        return os.path.join(self.output_dir, name)

    def write_result(self, name, content):
        """Writes a result file (str, bytes, or JSON-able object) to the output dir."""
        path = self.output_path(name)
        if isinstance(content, bytes):
            with open(path, "wb") as f:
                f.write(content)
        else:
            with open(path, "w", encoding="utf-8") as f:
                if isinstance(content, str):
                    f.write(content)
                else:
                    json.dump(content, f, indent=2, ensure_ascii=False, default=_jsonable)
        return path

    def output(self, **values):
        """Records outputs and rewrites CUBE_OUTPUTS at once (a crash later keeps them)."""
        self.outputs.update(values)
        text = json.dumps(self.outputs, ensure_ascii=False, default=_jsonable)
        if self.outputs_file:
            with open(self.outputs_file, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        else:
            print("outputs: " + text)


def _jsonable(value):
    """numpy scalars and arrays as plain JSON values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    raise TypeError("%r is not JSON serialisable" % (value,))


def start(script_file, argv=None):
    """Parses the command line of the template that holds script_file."""
    template = load_template(os.path.dirname(os.path.abspath(script_file)))
    parser = build_parser(template)
    args = parser.parse_args(argv)
    _check_range(parser, args, template.get("args", {}))
    return Task(template, args)


def ensure_parent(path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    return path
