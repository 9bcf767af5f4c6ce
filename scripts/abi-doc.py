#!/usr/bin/env python3
"""abi-doc.py — the plugin ABI reference, generated from the headers.

    abi-doc.py [--out docs/abi.md]            write the reference
    abi-doc.py --check [--cubed PATH]         fail when docs/abi.md is stale
                                              or a header names something
                                              that does not exist

The reference is built from abi/cube/*.h as Redis builds its module API
reference: every struct member, enum constant, macro and typedef with the
comment that documents it and the ABI minor that added it (the nearest
"since 1.N" marker before it in its struct, or its own "(since 1.N" text,
else the header's). The check also reads what the comments name:

  - `cube_host.x`, `struct cube_y.x`, `cube_y_desc.x`: x must be a member
    of that struct;
  - CUBE_X: a macro or enum constant of the headers, or an environment
    variable the core sets or reads (a "CUBE_X" string in core/ or
    plugins/);
  - a dotted lowercase path that starts with a top-level cube.yaml key
    (limits.max_body_bytes): cubed --check-config must know the setting;
  - any other dotted lowercase path must be an object path (metadata.,
    spec., status.) or a word listed in PROSE below.

Exit status: 0 fine, 1 a finding (each printed as header:line: text).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ABI = os.path.join(ROOT, "abi", "cube")
OUT = os.path.join(ROOT, "docs", "abi.md")
# Dotted words in the comments that are neither settings nor fields.
PROSE = {"e.g", "i.e", "nvidia.com", "huawei.com", "example.org", "train.py", "page.js",
         "conf.d", "cube.yaml", "index.d.ts", "storage.max_mb", "p.json", "a.b.c"}
OBJECT_PATHS = ("metadata.", "spec.", "status.", "items.", "error.")
ORDER = ["cube.h", "cube_plugin.h", "cube_host.h", "cube_http.h", "cube_kind.h",
         "cube_auth.h", "cube_sched.h", "cube_proxy.h", "cube_metrics.h", "cube_ui.h",
         "cube_watch.h", "cube_fetch.h"]

SINCE_MARK = re.compile(r"/\*\s*since (1\.\d+)\b[^*]*\*/")
SINCE_TEXT = re.compile(r"\b[Ss]ince (?:ABI )?(1\.\d+)\b")


class Entry:
    def __init__(self, kind, name, decl, doc, since, line, note=""):
        self.kind, self.name, self.decl, self.doc = kind, name, decl, doc
        self.since, self.line, self.note = since, line, note


class Header:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.text = open(path, encoding="utf-8").read()
        self.intro = ""
        self.since = "1.0"
        self.structs = {}   # name -> [Entry]
        self.enums = {}     # name -> [Entry]
        self.macros = []    # [Entry]
        self.typedefs = []  # [Entry]
        self.comments = []  # (line, text) of every comment, for the checks
        self.parse()

    def parse(self):
        lines = self.text.split("\n")
        m = re.match(r"\s*/\*(.*?)\*/", self.text, re.S)
        if m:
            self.intro = clean_comment(m.group(0))
            s = SINCE_TEXT.search(self.intro.split("\n")[0])
            if s:
                self.since = s.group(1)
        for cm in re.finditer(r"/\*.*?\*/", self.text, re.S):
            self.comments.append((self.text.count("\n", 0, cm.start()) + 1, cm.group(0)))
        i, doc = (m.group(0).count("\n") + 1 if m else 0), ""
        while i < len(lines):
            line = lines[i].strip()
            if line.startswith("/**") and not line.startswith("/**<"):
                doc, i = take_comment(lines, i)
                continue
            if line.startswith("/*"):
                _, i = take_comment(lines, i)
                doc = ""
                continue
            sm = re.match(r"(struct|enum) (cube_\w+) \{", line)
            if sm:
                i = self.parse_body(lines, i + 1, sm.group(1), sm.group(2))
                doc = ""
                continue
            if line.startswith("#define "):
                i = self.parse_macro(lines, i, doc)
                doc = ""
                continue
            if line.startswith("typedef "):
                decl, j = take_until(lines, i, ";")
                name = decl_name(decl)
                self.typedefs.append(Entry("typedef", name, decl, doc,
                                           since_of(doc, self.since), i + 1))
                doc, i = "", j
                continue
            if line:
                doc = ""
            i += 1

    def parse_macro(self, lines, i, doc):
        decl, j = lines[i].rstrip(), i + 1
        while decl.endswith("\\") and j < len(lines):
            decl += "\n" + lines[j].rstrip()
            j += 1
        m = re.match(r"#define (\w+)", decl)
        name = m.group(1) if m else "?"
        trail = re.search(r"/\*\*<(.*?)\*/", decl)
        if trail:
            doc = clean_comment("/**" + trail.group(1) + "*/")
            decl = decl[:trail.start()].rstrip()
        if name.endswith("_H") or not doc:   # include guards, undocumented helpers
            return j
        self.macros.append(Entry("macro", name, decl, doc, since_of(doc, self.since), i + 1))
        return j

    def parse_body(self, lines, i, what, name):
        entries, since, doc, note, section = [], self.since, "", "", ""
        while i < len(lines):
            line = lines[i].strip()
            if line.startswith("};"):
                break
            mark = SINCE_MARK.match(line)
            if mark:
                since = mark.group(1)
                topic = line.split(":", 1)[1].rstrip("*/ ").strip() if ":" in line else ""
                section = f"Since {since}" + (f": {topic}" if topic else "")
                i += 1
                continue
            if re.match(r"/\*\s*-+\s*\*/", line) or re.match(r"/\*\s*--.*--\s*\*/", line):
                i += 1
                continue
            if line.startswith("/**") and not line.startswith("/**<"):
                doc, i = take_comment(lines, i)
                continue
            if line.startswith("/*"):
                text, i = take_comment(lines, i)
                if not SINCE_MARK.match(line):
                    note = text
                continue
            if not line or line.startswith("#"):
                i += 1
                continue
            decl, j = take_until(lines, i, "," if what == "enum" else ";", enum=what == "enum")
            trail = re.search(r"/\*\*<(.*?)\*/", decl, re.S)
            if trail:
                doc = clean_comment("/**" + trail.group(1) + "*/")
                decl = (decl[:trail.start()] + decl[trail.end():]).strip()
            decl = re.sub(r"\s+", " ", decl).strip()
            member = enum_name(decl) if what == "enum" else decl_name(decl)
            if member:
                e = Entry(what, member, decl, doc, since_of(doc, since), i + 1, note)
                e.section = section
                entries.append(e)
            doc, note, i = "", "", j
        (self.enums if what == "enum" else self.structs)[name] = entries
        return i + 1


def take_comment(lines, i):
    buf = [lines[i]]
    while "*/" not in lines[i] and i + 1 < len(lines):
        i += 1
        buf.append(lines[i])
    return clean_comment("\n".join(buf)), i + 1


def take_until(lines, i, end, enum=False):
    """A declaration from line i to its end (';', or ',' / the closing
    brace for enum members), with trailing comments on its last line."""
    buf, depth = [], 0
    while i < len(lines):
        raw = lines[i]
        code = re.sub(r"/\*.*?\*/", "", raw)
        buf.append(raw.strip())
        depth += code.count("(") - code.count(")")
        i += 1
        stripped = code.strip()
        if depth <= 0 and (stripped.endswith(end) or (enum and not stripped.endswith("|"))):
            break
    return " ".join(buf), i


def clean_comment(c):
    c = re.sub(r"^\s*/\*\*?<?[ \t]*", "", c)
    c = re.sub(r"\*/\s*$", "", c)
    out = []
    for ln in c.split("\n"):
        ln = re.sub(r"^\s*\* ?", "", ln)
        out.append(ln.rstrip())
    text = "\n".join(out).strip("\n")
    return dedent(text)


def dedent(text):
    lines = text.split("\n")
    ind = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(ind) if ind else 0
    return "\n".join(ln[cut:] for ln in lines)


def decl_name(decl):
    code = re.sub(r"/\*.*?\*/", "", decl)
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", code)
    if m:
        return m.group(1)
    code = re.sub(r"CUBE_PRINTF\([^)]*\)", "", code)
    code = re.sub(r"\[[^\]]*\]", "", code).rstrip("; ")
    m = re.search(r"(\w+)\s*$", code)
    return m.group(1) if m else None


def enum_name(decl):
    m = re.match(r"(\w+)", decl)
    return m.group(1) if m else None


def since_of(doc, default):
    m = re.search(r"\((?:since|Since) (?:ABI )?(1\.\d+)", doc) or \
        re.search(r"\b[Ss]ince (?:ABI )?(1\.\d+)\.\s*$", doc.strip())
    return m.group(1) if m else default


def load():
    names = sorted(f for f in os.listdir(ABI) if f.endswith(".h"))
    names.sort(key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))
    return [Header(os.path.join(ABI, n)) for n in names]


# -- rendering ---------------------------------------------------------

def md_doc(doc):
    """Comment text as markdown: indented blocks stay preformatted."""
    out, block = [], []
    for ln in doc.split("\n"):
        if ln.startswith("    ") or (block and ln.startswith("  ")):
            block.append(ln)
            continue
        if block:
            out += ["```c", *dedent("\n".join(block)).split("\n"), "```"]
            block = []
        out.append(ln)
    if block:
        out += ["```c", *dedent("\n".join(block)).split("\n"), "```"]
    return "\n".join(out)


def render(headers):
    out = ["# Cube plugin ABI reference", "",
           "Generated by `scripts/abi-doc.py` from the comments of `abi/cube/*.h`; do not",
           "edit by hand (the `abi-doc` test fails when this file and the headers",
           "differ). *Since* is the ABI minor that added an item; a plugin built for",
           "minor N may use everything since N or earlier without checking (see",
           "`cube_plugin.h`, \"Versions\").", "", "## Headers", ""]
    for h in headers:
        first = h.intro.split("\n")[0] if h.intro else h.name
        out.append(f"- [`{h.name}`](#{anchor(h.name)}) — {first.split(' — ', 1)[-1]}")
    for h in headers:
        out += ["", f"## {h.name}", "", md_doc(h.intro), ""]
        for e in h.macros:
            out += [f"### `{e.name}`", "", f"*Since {e.since}* · macro", "",
                    "```c", e.decl, "```", "", md_doc(e.doc), ""]
        for e in h.typedefs:
            out += [f"### `{e.name}`", "", f"*Since {e.since}* · typedef", "",
                    "```c", e.decl, "```", "", md_doc(e.doc), ""]
        for name, entries in h.enums.items():
            out += [f"### `enum {name}`", "", "| constant | since | meaning |",
                    "|---|---|---|"]
            for e in entries:
                out.append(f"| `{e.decl.rstrip(',')}` | {e.since} | "
                           f"{' '.join(e.doc.split())} |")
            out.append("")
        for name, entries in h.structs.items():
            out += [f"### `struct {name}`", ""]
            section = ""
            for e in entries:
                if e.section and e.section != section:
                    out += [f"**{e.section}**", ""]
                    section = e.section
                if e.note:
                    out += [md_doc(e.note), ""]
                out += [f"#### `{name}.{e.name}`", "", f"*Since {e.since}*", "",
                        "```c", e.decl, "```", ""]
                if e.doc:
                    out += [md_doc(e.doc), ""]
    return "\n".join(re.sub(r"[ \t]+$", "", ln) for ln in out).rstrip("\n") + "\n"


def anchor(name):
    return re.sub(r"[^a-z0-9_ -]", "", name.lower()).replace(" ", "-")


# -- checks ------------------------------------------------------------

def top_level_keys():
    src = open(os.path.join(ROOT, "core", "config", "config.c"), encoding="utf-8").read()
    body = src[src.index("top_rules[]"):]
    body = body[:body.index("{0, 0}")]
    return set(re.findall(r'\{"(\w+)"', body))


def known_env():
    names = set()
    for top in ("core", "plugins"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".c", ".h", ".py")):
                    text = open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
                    names.update(re.findall(r'"(CUBE_[A-Z0-9_]+)[="]', text))
    return names


def check(headers, cubed):
    findings = []
    structs, consts = {}, set()
    for h in headers:
        for name, entries in h.structs.items():
            structs[name] = {e.name for e in entries}
        for entries in h.enums.values():
            consts.update(e.name for e in entries)
        consts.update(e.name for e in h.macros)
        consts.update(re.findall(r"#define (\w+)", h.text))
    env = known_env()
    tops = top_level_keys()
    settings = {}
    for h in headers:
        for line, text in h.comments:
            for ln_off, ln in enumerate(text.split("\n")):
                where = f"abi/cube/{h.name}:{line + ln_off}"
                check_line(ln, where, structs, consts, env, tops, settings, findings)
    for path, where in sorted(settings.items()):
        if cubed and not setting_exists(cubed, path):
            findings.append(f"{where}: names the cube.yaml setting {path}, which cubed "
                            f"does not know")
    return findings


def check_line(ln, where, structs, consts, env, tops, settings, findings):
    for s, member in re.findall(r"\b(cube_\w+)(?:\.|->)(\w+)(?![\w*])", ln):
        if s in structs and member not in structs[s] and member != "h":
            findings.append(f"{where}: {s}.{member}: no such member")
    for c in re.findall(r"\b(CUBE_[A-Z0-9_]+)\b(?!\*)", ln):
        if c not in consts and c not in env and not c.endswith("_"):
            findings.append(f"{where}: {c}: neither a constant of the headers nor an "
                            f"environment variable of cubed")
    for path in re.findall(r"(?<![\w./-])([a-z][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+)(?![\w(/-])",
                           ln):
        first = path.split(".")[0]
        if path in PROSE or path.startswith(OBJECT_PATHS) or first.startswith("cube_") \
                or path.endswith(".h") or first in ("cube", "host", "self", "desc", "up"):
            continue
        if first in tops:
            settings.setdefault(path, where)
        elif not re.search(r"\d", path):
            findings.append(f"{where}: {path}: neither a cube.yaml setting nor an object "
                            f"path (add it to PROSE in scripts/abi-doc.py if it is prose)")


def setting_exists(cubed, path):
    """cubed --check-config on a cube.yaml naming only that setting: an
    unknown one is reported as such; a bad value is fine."""
    parts = path.split(".")
    yaml = "".join(f"{'  ' * i}{p}:\n" for i, p in enumerate(parts[:-1]))
    yaml += f"{'  ' * (len(parts) - 1)}{parts[-1]}: null\n"
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "cube.yaml")
        with open(f, "w") as fh:
            fh.write(yaml)
        p = subprocess.run([cubed, "-c", f, "--check-config"], capture_output=True,
                           text=True, cwd=d, timeout=30)
    text = p.stdout + p.stderr
    return not re.search(r'unknown (key|field) "' + re.escape(parts[-1]) + '"', text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--cubed", help="cubed, to check the settings the headers name")
    a = ap.parse_args()
    if a.cubed:
        a.cubed = os.path.abspath(a.cubed)
    headers = load()
    text = render(headers)
    if not a.check:
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    findings = check(headers, a.cubed)
    try:
        current = open(a.out, encoding="utf-8").read()
    except OSError:
        current = ""
    if current != text:
        findings.append(f"{os.path.relpath(a.out, ROOT)}: stale: run scripts/abi-doc.py "
                        f"and commit the result")
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
