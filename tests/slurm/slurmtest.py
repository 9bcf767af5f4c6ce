"""slurmtest — a real Slurm cluster (tests/slurm/cluster.sh) and a cubed with
executor-slurm serving it, for the slurm test suites. Stdlib only.

A test module calls `require()` first: it exits 77 (meson's skip) with the
reason when this machine cannot run Slurm (not root, no slurm-wlm, no
network namespaces), and never otherwise.
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

from cubetest import Cubed

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "cluster.sh")
PREFIX = "cslurm-"   # OS accounts of Cube users on the cluster
JOBS = "/api/v1/projects/{p}/jobs"
DONE = ("Succeeded", "Failed", "Cancelled")


def quiet(log):
    """cubed's output without its access lines (a waiting test's GETs)."""
    return "".join(line for line in log.splitlines(True) if "[access]" not in line)


def require():
    r = subprocess.run([CLUSTER, "check"], capture_output=True, text=True)
    if r.returncode == 77:
        print("SKIP: this machine cannot run the Slurm test cluster: " + r.stdout.strip())
        sys.exit(77)
    if r.returncode != 0:
        raise RuntimeError("cluster.sh check: " + r.stdout + r.stderr)


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-slurm-plugins-")
    for var, name in (("CUBE_SLURM_PLUGIN_DIR", "cube-executor-slurm.so"),
                      ("CUBE_PIPELINE_PLUGIN_DIR", "cube-pipeline.so")):
        if os.environ.get(var):
            src = os.path.abspath(os.path.join(os.environ[var], name))
            os.symlink(src, os.path.join(d, name))
            share = os.path.abspath(os.path.join(os.environ[var], "share"))
            if os.path.isdir(share) and not os.path.exists(os.path.join(d, "share")):
                os.symlink(share, os.path.join(d, "share"))
    return d


def ensure_account(name):
    try:
        pwd.getpwnam(name)
        return False
    except KeyError:
        subprocess.run(["useradd", "-M", "-d", "/nonexistent", "-s", "/bin/bash", name],
                       check=True, capture_output=True)
        return True


class Cluster:
    """A running test cluster: start(), stop(), scontrol(), ..."""

    running = None   # the one started last, for a failing wait's report

    def __init__(self, nodes=3, env=None):
        self.dir = tempfile.mkdtemp(prefix="cube-slurm-")
        os.chmod(self.dir, 0o755)
        self.nodes = nodes
        self.extra_env = env or {}
        self.env = {}

    def start(self):
        t0 = time.time()
        r = subprocess.run([CLUSTER, "start", os.path.join(self.dir, "c"), str(self.nodes)],
                           capture_output=True, text=True, env=dict(os.environ, **self.extra_env),
                           timeout=120)
        if r.returncode != 0:
            self.stop()
            raise RuntimeError("cluster.sh start failed:\n" + r.stdout + r.stderr + self.logs())
        with open(os.path.join(self.dir, "c", "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                self.env[k] = v.strip('"')
        self.started_s = time.time() - t0
        Cluster.running = self
        return self

    @property
    def conf(self):
        return self.env["SLURM_CONF"]

    def cmd(self, *argv, check=True):
        r = subprocess.run(list(argv), capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, SLURM_CONF=self.conf))
        if check and r.returncode != 0:
            raise RuntimeError(f"{argv}: {r.returncode} {r.stdout} {r.stderr}")
        return r.stdout

    def script(self, *args):
        r = subprocess.run([CLUSTER, *args[:1], os.path.join(self.dir, "c"), *args[1:]],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"cluster.sh {args}: {r.stdout} {r.stderr}")
        return r.stdout

    def drain(self, node, reason="cube test"):
        self.cmd("scontrol", "update", f"nodename={node}", "state=drain", f"reason={reason}")

    def resume(self, node):
        self.cmd("scontrol", "update", f"nodename={node}", "state=resume")

    def jobs(self):
        """Slurm's jobs: [(id, state, nodes, comment)]."""
        out = self.cmd("squeue", "-h", "-t", "all", "-o", "%i|%T|%N|%k")
        return [tuple(line.split("|")) for line in out.splitlines() if line]

    def logs(self, lines=15):
        out = []
        for name in ("slurmctld.log", "slurmd-n1.log"):
            p = os.path.join(self.dir, "c", "log", name)
            if os.path.exists(p):
                with open(p, errors="replace") as f:
                    out.append(f"--- {name}\n" + "".join(f.readlines()[-lines:]))
        return "\n".join(out)

    def report(self):
        """Slurm's side of a failure: its jobs (with the reason a pending
        one waits for), its nodes and slurmctld's last lines."""
        out = []
        for argv in (("squeue", "-h", "-t", "all", "-o", "%i|%T|%N|%r|%V|%S"),
                     ("sinfo", "-N", "-h", "-o", "%N %T %C %e %E")):
            r = subprocess.run(list(argv), capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, SLURM_CONF=self.conf))
            out.append(f"--- {' '.join(argv[:1])}\n{r.stdout}{r.stderr}")
        return "\n".join(out) + "\n" + self.logs(40)

    def stop(self):
        if Cluster.running is self:
            Cluster.running = None
        subprocess.run([CLUSTER, "stop", os.path.join(self.dir, "c")], capture_output=True,
                       timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


def slurm_conf(cluster, **over):
    conf = {"partitions": [{"name": "cube", "pool": "slurm"}],
            "slurm_conf": cluster.conf,
            "spool_dir": os.path.join(cluster.dir, "spool"),
            # quick rounds: the tests wait on states (Pending with Slurm's
            # reason, Running) within jobs of a few seconds
            "account_prefix": PREFIX, "poll_ms": 100, "squeue_ms": 200,
            "node_refresh_ms": 1000, "stop_grace_seconds": 2}
    conf.update(over)
    return conf


def start_cubed(cluster, plugins=None, conf=None):
    """A cubed with executor-slurm (conf: settings over slurm_conf's) and
    the other plugins named (name -> config), which go first."""
    plugins = dict(plugins or {})
    plugins["executor-slurm"] = slurm_conf(cluster, **(conf or {}))
    return Cubed(plugins=plugins, plugin_dir=plugin_dir())


class Api:
    """Jobs of one project through one caller."""

    def __init__(self, test, client, project):
        self.t, self.c, self.p = test, client, project

    def create(self, name, spec, status=201):
        """Creates a Job (pool slurm unless spec says); status None: any,
        the Response is returned."""
        spec.setdefault("pool", "slurm")
        r = self.c.request("POST", JOBS.format(p=self.p), {"metadata": {"name": name},
                                                           "spec": spec})
        if status is None:
            return r
        self.t.assertEqual(r.status, status, r.body)
        return r.json()

    def get(self, name):
        r = self.c.get(JOBS.format(p=self.p) + "/" + name)
        self.t.assertEqual(r.status, 200, r.body)
        return r.json()

    def wait(self, name, until=DONE, timeout=60, cubed=None):
        deadline = time.time() + timeout
        j = {}
        while time.time() < deadline:
            j = self.get(name)
            if j.get("status", {}).get("phase") in until:
                return j
            time.sleep(0.1)
        self.t.fail(f"job {name} not {until} after {timeout}s: {json.dumps(j.get('status'))}" +
                    ("\n" + quiet(cubed.output())[-4000:] if cubed else "") +
                    ("\n" + Cluster.running.report() if Cluster.running else ""))

    def log(self, name, stream=None):
        q = f"?stream={stream}" if stream else ""
        r = self.c.get(JOBS.format(p=self.p) + f"/{name}/logs{q}")
        if r.status == 404 and "no such log" in r.body:   # nothing written yet
            return ""
        self.t.assertEqual(r.status, 200, r.body)
        return r.body

    def stop(self, name):
        r = self.c.request("POST", JOBS.format(p=self.p) + f"/{name}/stop", {})
        self.t.assertIn(r.status, (200, 202), r.body)
