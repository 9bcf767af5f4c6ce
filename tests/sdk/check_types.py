"""The SDK's type hints and imports: mypy --strict (for Python 3.9) and
pyflakes over sdk/python, when they are installed (Debian: python3-mypy,
python3-pyflakes); skipped (77) when neither is."""
import os
import subprocess
import sys

SDK = os.path.join(os.environ.get("CUBE_SOURCE_ROOT", "."), "sdk", "python")
CACHE = os.path.join(os.environ.get("CUBE_BUILD_ROOT", "build"), "mypy-cache")


def have(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True).returncode == 0


def main():
    ran = failed = 0
    for module, args in (("mypy", ["--strict", "--python-version", "3.9", "--cache-dir", CACHE,
                                   "cube", "nni", "cube_build.py"]),
                         ("pyflakes", ["cube", "nni", "cube_build.py"])):
        if not have(module):
            print(f"{module} is not installed: not run")
            continue
        r = subprocess.run([sys.executable, "-m", module, *args], cwd=SDK, text=True,
                           capture_output=True)
        ran += 1
        print(f"{module}: {'ok' if r.returncode == 0 else 'FAILED'}\n{r.stdout}{r.stderr}")
        failed += r.returncode != 0
    return 77 if not ran else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
