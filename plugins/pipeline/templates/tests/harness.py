"""harness — runs built-in templates the way a pipeline task does.

run() starts the template's command as a process (what the pipeline does),
with CUBE_RUN_DIR, CUBE_OUTPUT_DIR and CUBE_OUTPUTS pointing into a test
directory; call() runs the script's main() in this process (same code, no
interpreter start-up) for the long chains.
"""
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import subprocess
import sys

from schema_rules import render_args

TEMPLATES_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def template_names():
    return sorted(d for d in os.listdir(TEMPLATES_DIR)
                  if os.path.isfile(os.path.join(TEMPLATES_DIR, d, "template.json")))


def load(name):
    with open(os.path.join(TEMPLATES_DIR, name, "template.json"), encoding="utf-8") as f:
        return json.load(f)


def command_of(doc):
    directory = os.path.join(TEMPLATES_DIR, doc["name"])
    return [part.replace("{{ template_dir }}", directory) for part in doc["command"]]


class Run:
    """One task's directories (in a run directory shared with other tasks)."""

    def __init__(self, run_dir, task):
        self.run_dir = run_dir
        self.output_dir = os.path.join(run_dir, "results", task)
        self.outputs_file = os.path.join(run_dir, "outputs", task)
        os.makedirs(os.path.dirname(self.outputs_file), exist_ok=True)
        if os.path.exists(self.outputs_file):
            os.unlink(self.outputs_file)

    def env(self):
        return {"CUBE_RUN_DIR": self.run_dir, "CUBE_OUTPUT_DIR": self.output_dir,
                "CUBE_OUTPUTS": self.outputs_file}

    def outputs(self):
        """The outputs file as a dict: a JSON object or key=value lines."""
        if not os.path.exists(self.outputs_file):
            return {}
        with open(self.outputs_file, encoding="utf-8") as f:
            text = f.read().strip()
        if text.startswith("{"):
            return json.loads(text)
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def result(self, name):
        return os.path.join(self.output_dir, name)


def run(run_dir, name, values, task=None):
    """(Run, CompletedProcess) of the template's command with rendered args."""
    doc = load(name)
    r = Run(run_dir, task or name)
    argv = command_of(doc) + render_args(doc["args"], values)
    env = dict(os.environ, **r.env())
    proc = subprocess.run(argv, env=env, cwd=run_dir, capture_output=True, text=True, timeout=120)
    return r, proc


_modules = {}


def _module(name):
    if name not in _modules:
        script = command_of(load(name))[-1]
        spec = importlib.util.spec_from_file_location("template_" + name.replace("-", "_"), script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[name] = module
    return _modules[name]


@contextlib.contextmanager
def _environment(values):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def call(run_dir, name, values, task=None):
    """(Run, exit status, stderr) of the script's main() run in this process."""
    doc, r = load(name), Run(run_dir, task or name)
    argv = render_args(doc["args"], values)
    stderr, status = io.StringIO(), 0
    with _environment(r.env()), contextlib.redirect_stderr(stderr), \
            contextlib.redirect_stdout(io.StringIO()):
        try:
            _module(name).main(argv)
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else 1
    return r, status, stderr.getvalue()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def is_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    # signature, then the IHDR chunk with a non-zero width and height
    return (head[:8] == PNG_MAGIC and head[12:16] == b"IHDR"
            and int.from_bytes(head[16:20], "big") > 0 and int.from_bytes(head[20:24], "big") > 0)


sys.dont_write_bytecode = True
