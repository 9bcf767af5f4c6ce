"""sdk_bench.py — the Python SDK against its peers on the same cubed, in
the same run, round by round (interleaved so that machine noise hits all
alike):

  list    every object of a project of BENCH_LIST objects (Note, testkinds),
          pages of 500: `sum(1 for _ in c.list("notes"))` in a python3
          process; a bash loop of curl following the continue tokens;
          `cubectl get notes --limit 500 -o name`;
  create  BENCH_CREATE objects, one POST each, into a fresh project:
          c.create() in a loop in a python3 process; a bash loop of curl
          (one process per object); `cubectl create -f` of a file holding
          them all.

The SDK is installed with `pip install --target` into a temp dir first, as
a user would have it (bytecode compiled). The peers' figures are the wall
time of their whole command (process start, connections, the requests and
their answers) from spawn to exit. The SDK's is the operation itself, timed
inside its python3 process from Client() to the last object (the SDK's own
cost, connection and kinds look-up included; the interpreter's start-up
and `import cube` are not the operation); the whole python3 command's wall
time is printed beside it, with its ratio. Then the import time of `cube`
(median of 20 fresh interpreters). Bars: the SDK's operation within 1.5x
of the faster peer, import <= 50 ms. Run by tests/bench/sdk.sh."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from cubetest import Cubed  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
N_LIST = int(os.environ.get("BENCH_LIST", "5000"))
N_CREATE = int(os.environ.get("BENCH_CREATE", "1000"))
PY = os.environ.get("BENCH_PYTHON", "/usr/bin/python3")
CUBECTL = os.environ["CUBECTL"]
TOKEN = "sdk-bench-admin-token"
SDK = os.path.join(ROOT, "sdk", "python")
BAR_RATIO, BAR_IMPORT_MS = 1.5, 50.0

# Each prints the operation's own time: from Client() to the last object.
SDK_LIST = """
import sys, time
import cube
t = time.perf_counter()
c = cube.Client(sys.argv[1], token=sys.argv[2], project=sys.argv[3])
n = sum(1 for _ in c.list("notes", limit=500))
assert n == int(sys.argv[4]), n
print(time.perf_counter() - t)
"""
SDK_CREATE = """
import sys, time
import cube
t = time.perf_counter()
c = cube.Client(sys.argv[1], token=sys.argv[2], project=sys.argv[3])
for i in range(int(sys.argv[4])):
    c.create("notes", {"metadata": {"name": f"n{i}"}, "spec": {"size": i}})
print(time.perf_counter() - t)
"""
CURL_LIST = r"""
url=$1; tok=""; n=0
while :; do
  out=$(curl -sS -H "Authorization: Bearer $2" "$url?limit=500${tok:+&continue=$tok}") || exit 1
  n=$((n + $(printf '%s' "$out" | grep -o '"resourceVersion"' | wc -l) - 1))
  tok=$(printf '%s' "$out" | grep -o '"continue":"[0-9a-f]*"' | cut -d'"' -f4)
  [ -n "$tok" ] || break
done
[ "$n" = "$3" ] || { echo "curl listed $n" >&2; exit 1; }
"""
CURL_CREATE = r"""
url=$1
for i in $(seq 0 $(($3 - 1))); do
  curl -sS -o /dev/null -w '%{http_code}\n' -X POST -H "Authorization: Bearer $2" \
       -H 'Content-Type: application/json' \
       --data "{\"metadata\":{\"name\":\"n$i\"},\"spec\":{\"size\":$i}}" "$url"
done | grep -vc '^201$' | grep -q '^0$' || { echo "a curl create failed" >&2; exit 1; }
"""


def timed(argv, env=None):
    t = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({r.returncode}): {r.stderr[-800:]}")
    return wall, r.stdout


def main():
    plugins = tempfile.mkdtemp(prefix="cube-sdk-bench-")
    so = os.path.join(os.environ.get("BENCH_PLUGIN_DIR", os.path.join(ROOT, "build", "tests",
                                                                       "resources")),
                      "cube-testkinds.so")
    if not os.path.exists(so):
        raise SystemExit(f"{so} is not built (ninja -C build)")
    os.symlink(so, os.path.join(plugins, "cube-testkinds.so"))
    server = Cubed(plugins={"testkinds": None}, plugin_dir=plugins,
                   cube={"log": {"level": "warn", "access": "off"}},
                   env={"CUBE_ADMIN_TOKEN": TOKEN})
    base = f"http://127.0.0.1:{server.port}"
    # the SDK as `pip install sdk/python` leaves it: bytecode compiled
    site = os.path.join(plugins, "site")
    subprocess.run([PY, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target",
                    site, SDK], check=True, capture_output=True, timeout=300)
    env = dict({k: v for k, v in os.environ.items() if not k.startswith("CUBE_") and
                k != "PYTHONDONTWRITEBYTECODE"},
               PYTHONPATH=site, HOME=plugins, CUBE_CONFIG=os.path.join(plugins, "none"))
    try:
        sys.path.insert(0, site)
        import cube
        c = cube.Client(base, token=TOKEN)
        r = c.request("POST", "/api/v1/auth/tokens", body={"name": "b", "expires_in": 86400})
        tok = r.json()["token"]
        c = cube.Client(base, token=tok)
        c.create("projects", {"metadata": {"name": "list"}, "spec": {}})
        for i in range(N_LIST):
            c.create("notes", {"metadata": {"name": f"l{i:05d}"}, "spec": {"size": i}},
                     project="list")
        docs = [{"kind": "Note", "metadata": {"name": f"n{i}"}, "spec": {"size": i}}
                for i in range(N_CREATE)]
        docfile = os.path.join(plugins, "notes.json")
        with open(docfile, "w") as f:
            json.dump(docs, f)
        fig = {k: [] for k in ("list sdk", "list curl", "list cubectl", "create sdk",
                               "create curl", "create cubectl", "list sdk cmd",
                               "create sdk cmd")}
        coll = f"{base}/api/v1/projects/list/notes"
        for rnd in range(ROUNDS):
            w, out = timed([PY, "-c", SDK_LIST, base, tok, "list", str(N_LIST)], env)
            fig["list sdk cmd"].append(w)
            fig["list sdk"].append(float(out))
            fig["list curl"].append(timed(["bash", "-c", CURL_LIST, "x", coll, tok,
                                           str(N_LIST)], env)[0])
            fig["list cubectl"].append(timed([CUBECTL, "-s", base, "--token", tok, "-p", "list",
                                              "get", "notes", "--limit", "500", "-o", "name"],
                                             env)[0])
            for tool in ("sdk", "curl", "cubectl"):
                p = f"c-{tool}-{rnd}"
                c.create("projects", {"metadata": {"name": p}, "spec": {}})
                if tool == "sdk":
                    w, out = timed([PY, "-c", SDK_CREATE, base, tok, p, str(N_CREATE)], env)
                    fig["create sdk cmd"].append(w)
                    w = float(out)
                elif tool == "curl":
                    w, _ = timed(["bash", "-c", CURL_CREATE, "x",
                                  f"{base}/api/v1/projects/{p}/notes", tok, str(N_CREATE)],
                                 env)
                else:
                    w, _ = timed([CUBECTL, "-s", base, "--token", tok, "-p", p, "create",
                                  "-f", docfile], env)
                fig[f"create {tool}"].append(w)
                n = sum(1 for _ in c.list("notes", project=p))
                if n != N_CREATE:
                    raise SystemExit(f"{tool} created {n} of {N_CREATE}")
        imports = []
        for _ in range(20):
            _, out = timed([PY, "-c", "import time; t = time.perf_counter(); import cube; "
                                      "print(time.perf_counter() - t)"], env)
            imports.append(float(out) * 1000)
    finally:
        server.close()
        subprocess.run(["rm", "-rf", plugins])
    report(fig, statistics.median(imports))


def report(fig, import_ms):
    med = {k: statistics.median(v) for k, v in fig.items()}
    print(f"machine: {os.cpu_count()} CPUs; {ROUNDS} rounds, medians; python "
          f"{sys.version.split()[0]} ({PY}), the SDK pip-installed (bytecode compiled); "
          f"list {N_LIST} objects in pages of 500, create {N_CREATE}")
    print(f"{'operation':<10} {'sdk s':>7} {'curl s':>7} {'cubectl s':>9} {'sdk/best':>8} "
          f"{'bar':>4}  verdict    | whole python3 command: s, /best")
    for op in ("list", "create"):
        s, cu, ct, cmd = (med[f"{op} sdk"], med[f"{op} curl"], med[f"{op} cubectl"],
                          med[f"{op} sdk cmd"])
        best = min(cu, ct)
        ok = s / best <= BAR_RATIO
        print(f"{op:<10} {s:7.3f} {cu:7.3f} {ct:9.3f} {s / best:8.2f} {BAR_RATIO:4.1f}  "
              f"{'meets bar' if ok else 'below bar'}  | {cmd:.3f}, {cmd / best:.2f} "
              f"(sdk/curl {s / cu:.2f}, sdk/cubectl {s / ct:.2f})")
    ok = import_ms <= BAR_IMPORT_MS
    print(f"import cube: {import_ms:.1f} ms (bar <= {BAR_IMPORT_MS:.0f} ms) "
          f"{'meets bar' if ok else 'below bar'}")
    print("rounds: " + "; ".join(f"{k} " + ",".join(f"{x:.3f}" for x in v)
                                 for k, v in fig.items()))


if __name__ == "__main__":
    main()
