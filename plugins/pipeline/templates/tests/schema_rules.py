"""schema_rules — the rules a built-in template.json must follow.

check_template(doc, directory) returns a list of problems (empty when the
template is good), each naming the template, group, argument and field.
The args-schema rules are Cube Studio's (job_template_args_definition) and
the ones the pipeline plugin's pl_args_check_schema enforces: known types;
enum, multiple and list carry an item_type; enum and multiple a non-empty
choice; dict and lists of dicts carry sub_args; a range "min,max" only on
int and float; defaults and example values of the declared type, inside
range and choice.
"""
import os
import re

TYPES = {"int", "bool", "str", "text", "enum", "float", "multiple", "dict", "list", "file", "json"}
ITEM_TYPES = {"int", "str", "text", "float", "dict"}
SPEC_KEYS = {"type", "item_type", "label", "require", "choice", "range", "default",
             "placeholder", "describe", "editable", "sub_args"}
TOP_KEYS = {"name", "version", "description", "category", "command", "env", "resources",
            "args", "example"}
CATEGORIES = {"machine-learning", "data", "base"}
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
FLAG_RE = re.compile(r"^--[A-Za-z][A-Za-z0-9_]*$")
CPU_RE = re.compile(r"^[0-9]+(\.[0-9]+)?$|^[0-9]+m$")
MEMORY_RE = re.compile(r"^[0-9]+(Ki|Mi|Gi|Ti)?$")


def _item_ok(item_type, value):
    if item_type == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if item_type == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if item_type == "dict":
        return isinstance(value, dict)
    return isinstance(value, str)


def _parse_range(text):
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        return None
    return (low, high) if low <= high else None


def check_value(spec, value, where):
    """Problems of one value (a default or an example) against its spec."""
    kind = spec.get("type")
    if value == "" and kind not in ("bool", "dict", "list", "multiple"):
        return []  # "" means "not given"; the pipeline omits it
    if kind in ("int", "float"):
        if not _item_ok(kind, value):
            return ["%s: %r is not a %s" % (where, value, kind)]
        bounds = _parse_range(spec["range"]) if spec.get("range") else None
        if bounds and not bounds[0] <= value <= bounds[1]:
            return ["%s: %r is outside the range %s" % (where, value, spec["range"])]
        return []
    if kind == "bool":
        return [] if isinstance(value, bool) else ["%s: %r is not a bool" % (where, value)]
    if kind in ("str", "text", "file"):
        return [] if isinstance(value, str) else ["%s: %r is not a string" % (where, value)]
    if kind == "enum":
        return [] if value in spec.get("choice", []) else ["%s: %r is not one of the choices" % (where, value)]
    if kind == "multiple":
        values = value.split(",") if isinstance(value, str) else value
        if not isinstance(values, list) or any(v not in spec.get("choice", []) for v in values if v != ""):
            return ["%s: %r is not a subset of the choices" % (where, value)]
        return []
    if kind == "dict":
        return [] if isinstance(value, dict) else ["%s: %r is not an object" % (where, value)]
    if kind == "list":
        if not isinstance(value, list) or not all(_item_ok(spec.get("item_type"), v) for v in value):
            return ["%s: %r is not a list of %s" % (where, value, spec.get("item_type"))]
    return []


def check_spec(spec, where):
    if not isinstance(spec, dict):
        return ["%s: the spec is not an object" % where]
    problems = ["%s: unknown field '%s'" % (where, k) for k in spec if k not in SPEC_KEYS]
    kind = spec.get("type")
    if kind not in TYPES:
        return problems + ["%s.type: %r is not one of %s" % (where, kind, sorted(TYPES))]
    for field in ("label", "describe"):
        if not isinstance(spec.get(field), str) or not spec[field].strip():
            problems.append("%s.%s: missing (the form shows it)" % (where, field))
    for field in ("require", "editable"):
        if field in spec and spec[field] not in (0, 1):
            problems.append("%s.%s: %r is not 0 or 1" % (where, field, spec[field]))
    if kind in ("enum", "multiple", "list") and spec.get("item_type") not in ITEM_TYPES:
        problems.append("%s.item_type: %s needs one of %s" % (where, kind, sorted(ITEM_TYPES)))
    if kind in ("enum", "multiple"):
        choice = spec.get("choice")
        if not isinstance(choice, list) or not choice or len(set(map(str, choice))) != len(choice):
            problems.append("%s.choice: %s needs a non-empty list of distinct values" % (where, kind))
        elif not all(_item_ok(spec.get("item_type"), c) for c in choice):
            problems.append("%s.choice: values are not all of item_type %s" % (where, spec.get("item_type")))
    elif "choice" in spec and spec["choice"]:
        problems.append("%s.choice: only enum and multiple take a choice" % where)
    if kind == "dict" or (kind == "list" and spec.get("item_type") == "dict"):
        sub = spec.get("sub_args")
        if not isinstance(sub, dict) or not sub:
            problems.append("%s.sub_args: %s of objects needs sub_args" % (where, kind))
        else:
            for name, sub_spec in sub.items():
                problems += check_spec(sub_spec, "%s.sub_args.%s" % (where, name))
    if spec.get("range"):
        if kind not in ("int", "float"):
            problems.append("%s.range: only int and float take a range" % where)
        elif _parse_range(spec["range"]) is None:
            problems.append("%s.range: %r is not 'min,max' with min <= max" % (where, spec["range"]))
    if "default" in spec and not problems:
        problems += check_value(spec, spec["default"], where + ".default")
    return problems


def flags_of(args_schema):
    """{flag: spec} over every group."""
    return {flag: spec for group in args_schema.values() for flag, spec in group.items()}


def check_args(args_schema, name):
    if not isinstance(args_schema, dict) or not args_schema:
        return ["%s.args: not a non-empty object of groups" % name]
    problems, seen = [], set()
    for group, args in args_schema.items():
        if not isinstance(args, dict) or not args:
            problems.append("%s.args.%s: a group is a non-empty object" % (name, group))
            continue
        for flag, spec in args.items():
            where = "%s.args.%s.%s" % (name, group, flag)
            if not FLAG_RE.match(flag):
                problems.append("%s: a flag is --name (letters, digits, _)" % where)
            if flag in seen:
                problems.append("%s: the flag is declared twice" % where)
            seen.add(flag)
            problems += check_spec(spec, where)
    return problems


def check_example(doc):
    name, flags = doc.get("name"), flags_of(doc.get("args", {}))
    example = doc.get("example")
    if not isinstance(example, dict) or not example:
        return ["%s.example: a template needs example args" % name]
    problems = []
    for flag, value in example.items():
        if flag not in flags:
            problems.append("%s.example.%s: not an argument of the template" % (name, flag))
        else:
            problems += check_value(flags[flag], value, "%s.example.%s" % (name, flag))
    for flag, spec in flags.items():
        if spec.get("require") and spec.get("default", "") == "" and flag not in example:
            problems.append("%s.example: the required %s is missing" % (name, flag))
    return problems


def check_command(doc, directory):
    name, command = doc.get("name"), doc.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        return ["%s.command: not a non-empty list of strings" % name]
    problems = []
    if not os.path.isabs(command[0]):
        problems.append("%s.command[0]: %r is not an absolute path" % (name, command[0]))
    for part in command:
        if part.startswith("{{ template_dir }}/"):
            script = os.path.join(directory, part[len("{{ template_dir }}/"):])
            if not os.path.isfile(script):
                problems.append("%s.command: %s does not exist" % (name, script))
    return problems


def check_template(doc, directory):
    if not isinstance(doc, dict):
        return ["%s/template.json: not an object" % directory]
    name = doc.get("name")
    problems = ["%s: unknown field '%s'" % (name, k) for k in doc if k not in TOP_KEYS]
    problems += ["%s: missing field '%s'" % (name, k) for k in TOP_KEYS if k not in doc]
    if not isinstance(name, str) or not NAME_RE.match(name):
        problems.append("%s.name: %r is not a lower-case name" % (directory, name))
    elif name != os.path.basename(directory):
        problems.append("%s.name: differs from its directory %s" % (name, os.path.basename(directory)))
    for field in ("version", "description"):
        if not isinstance(doc.get(field), str) or not doc[field].strip():
            problems.append("%s.%s: not a non-empty string" % (name, field))
    if doc.get("category") not in CATEGORIES:
        problems.append("%s.category: %r is not one of %s" % (name, doc.get("category"), sorted(CATEGORIES)))
    env = doc.get("env")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        problems.append("%s.env: not an object of strings" % name)
    resources = doc.get("resources") or {}
    if not CPU_RE.match(str(resources.get("cpu", ""))):
        problems.append("%s.resources.cpu: %r is not a CPU amount" % (name, resources.get("cpu")))
    if not MEMORY_RE.match(str(resources.get("memory", ""))):
        problems.append("%s.resources.memory: %r is not a memory amount" % (name, resources.get("memory")))
    problems += check_command(doc, directory)
    problems += check_args(doc.get("args"), name)
    if not problems:
        problems += check_example(doc)
    return problems


def render_args(args_schema, values):
    """The command-line flags as the pipeline renders them (Cube Studio's way)."""
    import json
    flags, argv = flags_of(args_schema), []
    for flag, value in values.items():
        kind = flags[flag].get("type")
        if kind == "bool":
            argv += [flag] if value else []
        elif value == "" or value is None or value == [] or value == {}:
            continue
        elif kind in ("dict", "list", "json"):
            argv += [flag, json.dumps(value)]
        elif kind == "multiple":
            argv += [flag, ",".join(map(str, value)) if isinstance(value, list) else value]
        else:
            argv += [flag, str(value)]
    return argv
