"""Device pinning beyond the environment (ABI 1.5) through a running cubed,
executor-local in its bubblewrap sandbox and accel-sim: a Job sees exactly
its device's node in /dev (and none of the machine's others) with its env
still set; prepare and release run around a replica of a partitioned
device, a failing prepare fails the start with its reason; a device pushed
unhealthy is no longer allocated (a Job needing it waits, says why, and
runs once the device is healthy again) while work already on it goes on;
an accelerator built against the frozen ABI 1.3 headers (pin_env only)
still pins its env, the replica keeping the machine's /dev; and a partition
prepared before a kill -9 of cubed is released when its replica, adopted
by the restarted cubed, ends."""
import os
import shutil
import signal
import tempfile
import time
import unittest

from cubetest import Cubed

BASE = "/api/v1/projects/public/jobs"
SIM_RES = "sim.cube.dev/gpu"

# Every simulated node is the machine's /dev/null, seen as /dev/sim<N>: a
# real character device any account may open, no mknod needed.
ACCEL = {"resource": SIM_RES, "devices": [
    {"id": "0", "model": "SimA", "device_node": "/dev/sim0", "host_path": "/dev/null"},
    {"id": "1", "model": "SimA", "device_node": "/dev/sim1", "host_path": "/dev/null"},
    {"id": "2", "model": "SimPart", "device_node": "/dev/sim2", "host_path": "/dev/null",
     "partitioned": True},
    {"id": "3", "model": "SimBroken", "prepare_error": "no slices left on this device"}]}

# What bubblewrap's fresh /dev holds (bwrap --dev) and the machine's shm.
MINIMAL_DEV = {"core", "fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin",
               "stdout", "tty", "urandom", "zero"}


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-devices-plugins-")
    for var, name in (("CUBE_LOCAL_PLUGIN_DIR", "cube-executor-local.so"),
                      ("CUBE_ACCEL_SIM_PLUGIN_DIR", "cube-accel-sim.so"),
                      ("CUBE_LEGACY_PLUGIN_DIR", "cube-accel-legacy.so")):
        os.symlink(os.path.join(os.environ[var], name), os.path.join(d, name))
    return d


def host_only_device():
    """A /dev entry of this machine that the sandbox's fresh /dev lacks."""
    extra = sorted(set(os.listdir("/dev")) - MINIMAL_DEV - {"sim0", "sim1", "sim2"})
    return extra[0] if extra else None


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("bwrap"),
                     "needs root (replica accounts) and bubblewrap")
class Devices(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # the accelerators first: the local node advertises their devices
        cls.c = Cubed(plugins={"accel-sim": ACCEL, "accel-legacy": None,
                               "executor-local": {"sandbox": "bubblewrap"}},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def submit(self, name, spec):
        r = self.a.request("POST", BASE, {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, 201, r.body)

    def status(self, name):
        return self.a.get(f"{BASE}/{name}").json().get("status", {})

    def wait(self, name, phases=("Succeeded", "Failed", "Cancelled"), timeout=60):
        deadline, st = time.time() + timeout, {}
        while time.time() < deadline:
            st = self.status(name)
            if st.get("phase") in phases:
                return st
            time.sleep(0.1)
        self.fail(f"{name} is not {phases}: {st}\n{self.c.output()[-3000:]}")

    def logs(self, name):
        return self.a.get(f"{BASE}/{name}/logs?replica=0").body

    def health(self, dev, healthy, reason=None):
        body = {"healthy": healthy}
        if reason:
            body["reason"] = reason
        r = self.a.request("PUT", f"/api/v1/accel-sim/devices/{dev}/health", body)
        self.assertEqual(r.status, 200, r.body)

    def sim_job(self, name, model, command, n=1):
        self.submit(name, {"command": ["/bin/sh", "-c", command],
                           "resources": {SIM_RES: n, "cpu": "100m", "memory": "64Mi"},
                           "accelerator": {"model": model}})

    def test_only_its_device_node_is_visible(self):
        self.sim_job("pinned", "SimA", "ls /dev; echo vis=$SIM_VISIBLE_DEVICES; "
                     "echo x > /dev/sim$SIM_VISIBLE_DEVICES && echo node-works")
        st = self.wait("pinned")
        log = self.logs("pinned")
        self.assertEqual(st["phase"], "Succeeded", f"{st}\n{log}")
        dev = st["replicas"][0]["devices"][0]["id"]
        other = "1" if dev == "0" else "0"
        seen = set(log.split())
        self.assertIn(f"sim{dev}", seen, log)
        self.assertNotIn(f"sim{other}", seen, "another replica's device")
        self.assertNotIn("sim2", seen)
        self.assertIn(f"vis={dev}", log, "the env still pins it")
        self.assertIn("node-works", log)
        self.assertTrue(MINIMAL_DEV - {"core"} <= seen, f"what every process needs: {log}")
        extra = host_only_device()
        if extra:
            self.assertNotIn(extra, seen, f"/dev/{extra} of the machine is not pinned")

    def test_prepare_and_release_around_a_replica(self):
        self.sim_job("part", "SimPart", "ls /dev; echo vis=$SIM_VISIBLE_DEVICES")
        st = self.wait("part")
        log = self.logs("part")
        self.assertEqual(st["phase"], "Succeeded", f"{st}\n{log}")
        self.assertRegex(log, r"vis=2\.p[0-9]+", "the partition prepare made is pinned")
        self.assertIn("sim2", log.split())
        deadline, calls = time.time() + 10, []
        while time.time() < deadline:
            p = self.a.get("/api/v1/accel-sim/partitions").json()
            calls = [c for c in p["calls"] if c["request"] and
                     c["request"].get("job", {}).get("name") == "part"]
            if [c["op"] for c in calls] == ["prepare", "release"] and not p["live"]:
                break
            time.sleep(0.1)
        self.assertEqual([c["op"] for c in calls], ["prepare", "release"], calls)
        req = calls[0]["request"]
        self.assertEqual((req["replica"], req["devices"], req["resource"], req["share"]),
                         (0, ["2"], SIM_RES, 1))
        self.assertEqual(calls[1]["prepared"], calls[0]["answer"], "release gets what prepare made")

    def test_failing_prepare_fails_the_start_with_its_reason(self):
        self.sim_job("broken", "SimBroken", "true")
        st = self.wait("broken")
        self.assertEqual(st["phase"], "Failed", st)
        self.assertIn("prepare (accelerator sim): no slices left on this device",
                      st.get("message", "") + st["replicas"][0].get("message", ""), st)

    def test_unhealthy_device_is_not_allocated_until_healthy(self):
        # a replica already on a device goes on when the device turns bad
        self.sim_job("holder", "SimA", "sleep 2; echo held $SIM_VISIBLE_DEVICES")
        st = self.wait("holder", ("Running",))
        dev = st["replicas"][0]["devices"][0]["id"]
        self.health(dev, False, "simulated XID 79")
        m = self.c.get("/metrics").body
        self.assertIn(f'cube_accel_healthy{{resource="{SIM_RES}",device="{dev}"}} 0', m)
        self.sim_job("pair", "SimA", "echo pair $SIM_VISIBLE_DEVICES", n=2)
        st = self.wait("holder")
        self.assertEqual(st["phase"], "Succeeded", "running work is not stopped")
        time.sleep(1.0)   # a few scheduling cycles with the holder gone
        st = self.status("pair")
        self.assertEqual(st.get("phase"), "Pending", f"the bad device is not offered: {st}")
        self.assertIn(SIM_RES, st.get("message", "") + st.get("waiting", ""), st)
        self.health(dev, True)
        st = self.wait("pair")
        self.assertEqual(st["phase"], "Succeeded", st)
        self.assertEqual(sorted(d["id"] for d in st["replicas"][0]["devices"]), ["0", "1"])
        m = self.c.get("/metrics").body
        self.assertIn(f'cube_accel_healthy{{resource="{SIM_RES}",device="{dev}"}} 1', m)

    def test_abi_1_3_accelerator_still_pins_its_env(self):
        self.submit("legacy", {"command": ["/bin/sh", "-c",
                                           "echo vis=$LEGACY_VISIBLE_DEVICES; ls /dev"],
                               "resources": {"legacy.cube.dev/npu": 1, "cpu": "100m",
                                             "memory": "64Mi"}})
        st = self.wait("legacy")
        log = self.logs("legacy")
        self.assertEqual(st["phase"], "Succeeded", f"{st}\n{log}")
        self.assertIn("vis=" + st["replicas"][0]["devices"][0]["id"], log)
        extra = host_only_device()
        if extra:
            self.assertIn(extra, log.split(), "nodes unknown: the machine's /dev, as before")


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("bwrap"),
                     "needs root (replica accounts) and bubblewrap")
class Restart(unittest.TestCase):
    def test_a_partition_is_released_after_a_restart(self):
        c = Cubed(plugins={"accel-sim": ACCEL, "accel-legacy": None,
                           "executor-local": {"sandbox": "bubblewrap"}}, plugin_dir=plugin_dir())
        try:
            a = c.admin()
            r = a.request("POST", BASE, {"metadata": {"name": "survivor"}, "spec": {
                "command": ["/bin/sh", "-c", "sleep 3; echo vis=$SIM_VISIBLE_DEVICES"],
                "resources": {SIM_RES: 1, "cpu": "100m", "memory": "64Mi"},
                "accelerator": {"model": "SimPart"}}})
            self.assertEqual(r.status, 201, r.body)
            deadline = time.time() + 30
            while a.get(f"{BASE}/survivor").json().get("status", {}).get("phase") != "Running":
                self.assertLess(time.time(), deadline, "not Running")
                time.sleep(0.1)
            c.stop(signal.SIGKILL)   # the replica lives on under its supervisor
            c.start()
            deadline, ops = time.time() + 60, []
            while time.time() < deadline and "release" not in ops:
                ops = [x["op"] for x in a.get("/api/v1/accel-sim/partitions").json()["calls"]
                       if (x.get("request") or {}).get("job", {}).get("name") == "survivor"]
                time.sleep(0.2)
            st = a.get(f"{BASE}/survivor").json()["status"]
            self.assertEqual(st["phase"], "Succeeded", st)
            self.assertEqual(ops, ["release"], "the new run releases what the old one made")
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
