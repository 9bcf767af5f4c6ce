#!/usr/bin/python3
"""Builds abi/examples/vendor-hello the way a vendor would and loads it.

usage: out_of_tree.py MESON BUILD_ROOT SOURCE_ROOT CUBED NM

1. `meson install --destdir` the headers and cube-plugin.pc (install tag
   "devel") into a temporary root;
2. copies the example into a temporary directory and runs its Makefile with
   only that pkg-config file visible (PKG_CONFIG_LIBDIR) and
   PKG_CONFIG_SYSROOT_DIR pointing at the temporary root;
3. checks the .so exports only its entry, loads it into cubed and GETs
   /api/v1/vendor-hello (load_plugin.check_plugin)."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import check_symbols
from cubed_harness import TestFailure, expect
from load_plugin import check_plugin

SKIP = 77  # meson's "skipped" exit status


def install_sdk(meson, build_root, root):
    """Returns the directory holding the installed cube-plugin.pc."""
    subprocess.run([meson, "install", "-C", build_root, "--no-rebuild", "--quiet",
                    "--tags", "devel", "--destdir", root],
                   check=True, capture_output=True, text=True)
    found = glob.glob(os.path.join(root, "**", "pkgconfig", "cube-plugin.pc"),
                      recursive=True)
    expect(len(found) == 1, f"expected one cube-plugin.pc under {root}, found {found}")
    expect(glob.glob(os.path.join(root, "**", "include", "cube", "cube.h"),
                     recursive=True), f"cube/cube.h not installed under {root}")
    return os.path.dirname(found[0])


def build_example(source_root, work, root, pc_dir):
    src = os.path.join(work, "vendor-hello")
    shutil.copytree(os.path.join(source_root, "abi", "examples", "vendor-hello"), src)
    env = dict(os.environ, PKG_CONFIG_LIBDIR=pc_dir, PKG_CONFIG_SYSROOT_DIR=root)
    env.pop("PKG_CONFIG_PATH", None)  # only the freshly installed .pc counts
    proc = subprocess.run(["make", "-C", src], env=env, capture_output=True, text=True)
    expect(proc.returncode == 0, f"make failed ({proc.returncode}):\n{proc.stdout}"
           f"{proc.stderr}")
    expect("warning" not in proc.stderr, f"make printed warnings:\n{proc.stderr}")
    so = os.path.join(src, "cube-vendor-hello.so")
    expect(os.path.isfile(so), f"make did not produce {so}")
    return src, so


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    meson, build_root, source_root, cubed, nm = argv
    if not shutil.which("make"):
        print("make not found: skipping")
        return SKIP
    try:
        with tempfile.TemporaryDirectory(prefix="cube-oot-") as work:
            root = os.path.join(work, "root")
            pc_dir = install_sdk(meson, build_root, root)
            plugin_dir, so = build_example(source_root, work, root, pc_dir)
            errors = check_symbols.check_plugin(nm, so)
            expect(not errors, "; ".join(errors))
            doc = check_plugin(cubed, plugin_dir, "vendor-hello", "/api/v1/vendor-hello",
                               [("plugin", "vendor-hello"),
                                ("host_version", "{host_version}"),
                                ("greeting", "Hello from a vendor")])
    except (TestFailure, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or ""
        print(f"FAIL: {e}\n{detail}")
        return 1
    print(f"vendor-hello built with pkg-config only and served {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
