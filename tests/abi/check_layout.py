#!/usr/bin/python3
"""Checks that today's plugin ABI is a compatible extension of every
released minor.

usage: check_layout.py CURRENT_DUMP HEADER_DIR vN.M:FROZEN_DUMP:LAYOUT_TXT...

CURRENT_DUMP is layout_dump built against abi/; each FROZEN_DUMP is
layout_dump built against the frozen headers tests/abi/vN.M, given oldest
first. Fails, naming each offending entry, when:
  * a frozen dump differs from its committed LAYOUT_TXT (so the frozen
    headers cannot be edited quietly);
  * a frozen minor's CUBE_ABI_MINOR is not the M of its directory;
  * an entry of a released minor is missing or changed in the next frozen
    minor or today (offset, size, type, value); only a struct's sizeof and
    CUBE_ABI_MINOR may grow — so slots keep their order and offsets;
  * a field added since a minor starts inside that minor's struct
    (padding): its plugins pass size == their sizeof and leave garbage
    there;
  * a struct member in HEADER_DIR is not listed by layout_dump.c.
"""
import os
import re
import subprocess
import sys

GROWABLE = {"CUBE_ABI_MINOR"}


def run_dump(exe):
    """Returns the dump as an ordered {key: value} dict."""
    proc = subprocess.run([exe], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{exe} failed ({proc.returncode}):\n{proc.stderr}")
    return parse(proc.stdout.splitlines())


def parse(lines):
    table = {}
    for line in lines:
        words = line.split(" ", 2)
        # "<struct> sizeof N", "<typedef> type T"...: two words make the key.
        if len(words) == 3 and words[1] in ("sizeof", "enum_size", "type", "data_model"):
            table[words[0] + " " + words[1]] = words[2]
        elif len(words) >= 2:
            table[words[0]] = line.split(" ", 1)[1]
    return table


def compare_expected(frozen, expected_path, version):
    with open(expected_path, encoding="utf-8") as f:
        expected = parse(f.read().splitlines())
    model = "abi data_model"
    if expected.get(model) != frozen.get(model):
        print(f"note: {expected_path} is for {expected.get(model)}, this build is "
              f"{frozen.get(model)}: skipping the comparison with it")
        return []
    errors = []
    for key in sorted(set(expected) | set(frozen)):
        if expected.get(key) != frozen.get(key):
            errors.append(f"frozen headers vs {os.path.basename(expected_path)}: "
                          f"{key}: expected {expected.get(key)!r}, found "
                          f"{frozen.get(key)!r} (tests/abi/{version} must never change)")
    return errors


def grew(key, old, new):
    """True when the change is one the append-only rule allows."""
    if key.endswith(" sizeof") or key in GROWABLE:
        return int(new) >= int(old)
    return False


def compare_current(frozen, current, version, later="today"):
    """Errors where `current` (a later minor, or today's headers) does not
    extend `frozen` (the released `version`)."""
    errors = []
    for key, old in frozen.items():
        new = current.get(key)
        if new is None:
            errors.append(f"{key}: in ABI {version} ({old}) but missing in {later}")
        elif new != old and not grew(key, old, new):
            errors.append(f"{key}: ABI {version} has {old!r}, {later} has {new!r}")
    for key, new in current.items():
        if key in frozen or "." not in key or " " in key:
            continue
        struct = key.split(".", 1)[0]
        old_size = frozen.get(struct + " sizeof")
        if old_size is None:
            continue  # an enum constant or a field of a new struct
        offset = int(new.split()[0])
        if offset < int(old_size):
            errors.append(f"{key}: new field at offset {offset} in {later}, inside "
                          f"the {version} struct (sizeof {old_size}); append after it "
                          f"instead")
    return errors


def header_members(header_dir):
    """{(struct, member)} for every struct defined in the headers."""
    members = set()
    for name in sorted(os.listdir(header_dir)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(header_dir, name), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
        for struct, body in re.findall(r"struct\s+(\w+)\s*\{(.*?)\};", text, re.S):
            for decl in body.split(";"):
                m = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl) or \
                    re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", decl)
                if m:
                    members.add((struct, m.group(1)))
    return members


def check_listed(current, header_dir):
    listed = {tuple(k.split(".", 1)) for k in current if "." in k and " " not in k}
    return [f"{s}.{m}: declared in {header_dir} but not listed in layout_dump.c"
            for s, m in sorted(header_members(header_dir) - listed)]


def check_minor(version, frozen, expected):
    """The frozen dump of `version` ("v1.2") against its layout.txt and its
    own CUBE_ABI_MINOR."""
    errors = compare_expected(frozen, expected, version)
    minor = version.split(".")[1]
    if frozen.get("CUBE_ABI_MINOR") != minor:
        errors.append(f"tests/abi/{version}: CUBE_ABI_MINOR is "
                      f"{frozen.get('CUBE_ABI_MINOR')}, expected {minor}")
    return errors


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    current_exe, header_dir = sys.argv[1:3]
    current = run_dump(current_exe)
    errors = check_listed(current, header_dir)
    previous = None
    for arg in sys.argv[3:]:
        version, frozen_exe, expected = arg.split(":", 2)
        frozen = run_dump(frozen_exe)
        errors += check_minor(version, frozen, expected)
        if previous:
            errors += compare_current(previous[1], frozen, previous[0][1:],
                                      f"ABI {version[1:]}")
        errors += compare_current(frozen, current, version[1:])
        print(f"ABI {version[1:]}: {len(frozen)} entries checked, "
              f"{len(set(current) - set(frozen))} added since")
        previous = (version, frozen)
    for e in errors:
        print("ABI BREAK: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
