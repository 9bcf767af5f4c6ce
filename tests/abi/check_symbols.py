#!/usr/bin/python3
"""Checks what Cube binaries export.

usage: check_symbols.py NM CUBED PLUGIN.so...

cubed must export no cube_* symbol (it is not linked with --export-dynamic:
plugins reach the host only through struct cube_host). Every plugin must
export exactly one symbol, a function named cube_plugin_* (its entry);
-fvisibility=hidden keeps everything else inside the .so."""
import re
import subprocess
import sys

# Linker-made symbols some toolchains list; they are not the plugin's code.
IGNORED = {"_init", "_fini", "__bss_start", "_edata", "_end"}


def exported(nm, path):
    """[(type letter, name)] of the global symbols `path` defines."""
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True,
                         text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1].split("@")[0]
        if name not in IGNORED:
            symbols.append((kind, name))
    return symbols


def check_host(nm, cubed):
    leaked = [n for _, n in exported(nm, cubed) if n.startswith("cube_")]
    return [f"{cubed}: exports {n}; the host must not export cube_* symbols"
            for n in leaked]


def check_plugin(nm, path):
    symbols = exported(nm, path)
    entries = [n for k, n in symbols if k in "Ti" and re.match(r"cube_plugin_\w+$", n)]
    others = [f"{n} ({k})" for k, n in symbols if n not in entries]
    errors = []
    if len(entries) != 1:
        errors.append(f"{path}: expected exactly one cube_plugin_* function, "
                      f"found {entries or 'none'}")
    if others:
        errors.append(f"{path}: exports more than its entry: {', '.join(others)} "
                      "(build with -fvisibility=hidden)")
    return errors


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    nm, cubed, plugins = argv[0], argv[1], argv[2:]
    errors = check_host(nm, cubed)
    for p in plugins:
        errors += check_plugin(nm, p)
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print(f"symbols OK: cubed and {len(plugins)} plugin(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
