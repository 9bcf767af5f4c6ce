"""Integration: cubed's command line, config errors, TLS, safe mode and
graceful shutdown."""
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
import unittest

from cubetest import Cubed, free_port


class CommandLine(unittest.TestCase):
    def test_check_config_ok(self):
        with Cubed(plugins={"hello": {"greeting": "Hi"}}, wait=False) as c:
            p = c.run("--check-config")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("configuration OK", p.stdout)

    def test_check_config_names_file_line_and_key(self):
        with Cubed(plugins={"hello": {"greting": "Hi", "ticks": "many"}}, wait=False) as c:
            p = c.run("--check-config")
            self.assertEqual(p.returncode, 1)
            self.assertRegex(p.stderr, r"conf\.d/10-hello\.yaml:\d+:\d+: .*greting")
            self.assertRegex(p.stderr, r"conf\.d/10-hello\.yaml:\d+:\d+: config\.ticks")

    def test_bad_cube_yaml_refuses_to_start(self):
        with Cubed(cube={"lisen": "x"}, wait=False) as c:
            p = c.run()
            self.assertEqual(p.returncode, 2)
            self.assertRegex(p.stderr, r"cube\.yaml:\d+:\d+: .*lisen")

    def test_missing_plugin_file_is_named(self):
        with Cubed(plugins={"nosuch": None}, wait=False) as c:
            p = c.run("--check-config")
            self.assertEqual(p.returncode, 1)
            self.assertIn("cube-nosuch.so", p.stderr)

    def test_duplicate_plugin_is_refused(self):
        with Cubed(plugins={"hello": None}, wait=False) as c:
            c.write_confd("20-again.yaml", "hello", None)
            p = c.run("--check-config")
            self.assertEqual(p.returncode, 1)
            self.assertIn("hello", p.stderr)
            self.assertIn("20-again.yaml", p.stderr)

    def test_list_plugins(self):
        with Cubed(plugins={"hello": None}, wait=False) as c:
            p = c.run("--list-plugins")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"hello\s+enabled\s+1\.0\.0")

    def test_version_and_help(self):
        with Cubed(wait=False) as c:
            self.assertRegex(c.run("--version").stdout, r"plugin ABI 1\.\d+")
            self.assertIn("--safe-mode", c.run("--help").stdout)
            self.assertEqual(c.run("--bogus").returncode, 2)

    def test_env_overrides_listen(self):
        port = free_port()
        with Cubed(wait=False, env={"CUBE_LISTEN": f"127.0.0.1:{port}"}) as c:
            c.port = port
            c.start()
            self.assertEqual(c.get("/healthz").status, 200)
        with Cubed(wait=False, env={"CUBE_LISTEN": "nonsense"}) as c:
            p = c.run()
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("CUBE_LISTEN", p.stderr)

    def test_env_overrides_apps_listen(self):
        apps = free_port()
        with Cubed(plugins={"notebook": None}, wait=False,
                   env={"CUBE_APPS_LISTEN": f"127.0.0.1:{apps}"}) as c:
            c.start()
            self.assertIn(f"127.0.0.1:{apps}", c.output())
        with Cubed(wait=False, env={"CUBE_APPS_LISTEN": "nonsense"}) as c:
            p = c.run()
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("CUBE_APPS_LISTEN", p.stderr)

    def test_busy_apps_port_is_an_error_not_a_crash(self):
        """A listener that cannot bind stops cubed with status 1 and the
        reason, while a plugin's start-up work may still be running."""
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            port = busy.getsockname()[1]
            with Cubed(plugins={"notebook": None, "pipeline": None}, wait=False,
                       env={"CUBE_APPS_LISTEN": f"127.0.0.1:{port}"}) as c:
                for _ in range(3):
                    p = c.run()
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.assertIn("apps_listen", p.stderr)
                    self.assertIn("Address already in use", p.stderr)


class SafeMode(unittest.TestCase):
    def test_safe_mode_loads_no_plugin(self):
        with Cubed(plugins={"hello": None}, args=["--safe-mode"]) as c:
            self.assertEqual(c.get("/api/v1/hello/x").status, 404)
            self.assertEqual(c.get("/readyz").status, 200)
            self.assertIn("safe mode", c.output())


class Tls(unittest.TestCase):
    def test_https_when_cert_and_key_are_set(self):
        openssl = shutil.which("openssl")
        if not openssl:
            self.skipTest("openssl command not installed")
        with Cubed(wait=False) as c:
            key, cert = os.path.join(c.dir, "key.pem"), os.path.join(c.dir, "cert.pem")
            subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", key, "-out", cert, "-days", "1",
                            "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
            with open(c.config_path, "a") as f:
                f.write(f"tls:\n  cert: {cert}\n  key: {key}\n")
            c.log = open(c.log_path, "w")
            c.proc = subprocess.Popen([os.path.abspath(os.environ.get("CUBED", "build/core/cubed")),
                                       "-c", c.config_path], stdout=c.log,
                                      stderr=subprocess.STDOUT, cwd=c.dir)
            ctx = ssl.create_default_context(cafile=cert)
            ctx.check_hostname = False
            status = None
            for _ in range(200):
                try:
                    conn = http.client.HTTPSConnection("127.0.0.1", c.port, context=ctx, timeout=5)
                    conn.request("GET", "/healthz")
                    status = conn.getresponse().status
                    conn.close()
                    break
                except OSError:
                    time.sleep(0.02)
            self.assertEqual(status, 200, c.output())


class GracefulShutdown(unittest.TestCase):
    def test_sigterm_finishes_in_flight_and_exits_zero(self):
        c = Cubed(plugins={"hello": {"ticks": 1000}})
        try:
            conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=10)
            conn.request("GET", "/api/v1/hello-ticks")
            r = conn.getresponse()
            first = r.readline()
            self.assertTrue(first.startswith(b"id: "))
            c.proc.send_signal(signal.SIGTERM)
            rc = c.proc.wait(15)
            self.assertEqual(rc, 0, c.output())
            rest = r.read()  # the stream was ended cleanly, not cut
            self.assertIn(b"data:", rest + first)
            conn.close()
            out = c.output()
            self.assertIn("shutting down", out)
            self.assertIn("stopped", out)
        finally:
            c.close()

    def test_sigint_also_stops(self):
        c = Cubed()
        try:
            self.assertEqual(c.stop(signal.SIGINT), 0)
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
