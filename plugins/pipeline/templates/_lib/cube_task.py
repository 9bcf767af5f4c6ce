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

Handed files: a task that writes a file for the next ones records its
sha256 beside its path in the outputs (output_file: model_path ->
model_sha256, train_csv -> train_csv_sha256).  The project's shared
directory, where runs live, is writable by every member of the project, so
a template never loads a code-bearing format (pickle, joblib, a Python
script) from it unchecked: read_verified() reads the file once and checks
it against the sha256 its producer recorded, and private_path() tells
whether nobody but this account (and root) could have changed a file.

Rendering contract (the pipeline renders args as Cube Studio does): a true
bool is a bare flag and a false one is omitted, so a bool that is absent is
false whatever the schema's default says; empty values are omitted, so an
absent str is ""; dict, list and json come as one JSON string; multiple as a
comma-separated list.  Bad input exits with status 2 and a message naming
the argument (argparse), bad data with status 1 and a message (fail()).
"""
import argparse
import hashlib
import json
import os
import re
import stat
import sys

SCALAR_PARSERS = {"int": int, "float": float}
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


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

    def output_file(self, key, path, data=None):
        """Records the output `key` = path and its sha256 (of data, the bytes
        just written, or of the file as it is) under sha256_key(key)."""
        digest = sha256_of(data) if data is not None else sha256_file(path)
        self.output(**{key: path, sha256_key(key): digest})
        return digest

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


def sha256_key(key):
    """The output key of a file output's sha256: model_path -> model_sha256,
    train_csv -> train_csv_sha256."""
    return key[:-len("_path")] + "_sha256" if key.endswith("_path") else key + "_sha256"


def sha256_of(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_verified(path, expected, flag, what="file"):
    """The bytes of a file another task handed over, read once and checked
    against the sha256 its producer recorded (expected, given as argument
    flag): the caller loads these bytes, never the file again.  Stops the
    task when expected is no sha256 or the file's differs."""
    expected = (expected or "").strip().lower()
    if not SHA256_RE.match(expected):
        fail("argument %s: %r is not a sha256 (64 hex digits)" % (flag, expected))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail("%s %s cannot be read: %s" % (what, path, e.strerror))
    got = sha256_of(data)
    if got != expected:
        fail("%s %s has sha256 %s, not %s (%s, recorded by the task that wrote it): it was "
             "changed since; refusing to load it" % (what, path, got, expected, flag))
    return data


def private_path(path):
    """None when nobody but this account (and root) can change the file at
    path or any directory on its real path (a directory others may write
    to counts only when sticky: then they cannot replace what is not
    theirs); else the first place others could change."""
    mine = (0, os.geteuid())
    place = os.path.realpath(path)
    st = os.lstat(place)
    if st.st_uid not in mine or st.st_mode & 0o022:
        return place
    while place != os.path.dirname(place):
        place = os.path.dirname(place)
        st = os.stat(place)
        if st.st_uid not in mine or (st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX):
            return place
    return None


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
