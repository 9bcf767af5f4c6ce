"""The console's frame and cross-cutting flows in a real Chromium against a
real cubed with every page's plugin (tests/web/consoleseed.py), at 1440x900
and 390x844: the login page's first visit and favicon, the phone drawer and
one-line header, own tokens apart from a Job's, nodes and pools, 中文 from
the first paint, the DAG editor (+, Arrange, the upstream output picker, the
banner), local times and schedules. The browser side is web/e2e/shell.mjs;
screenshots are kept in $CUBE_SHOTS/shell."""
import unittest

import consoleseed
from consoleweb import build_console, dist, run_script, shots_dir


class ConsoleShell(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = build_console()
        if why:
            raise unittest.SkipTest(why)
        missing = consoleseed.missing_pages()
        if missing:
            raise unittest.SkipTest("pages not built (ninja builds them with npm): " + ", ".join(missing))

    def test_shell_at_both_sizes(self):
        with consoleseed.start(dist()) as c:
            seed = consoleseed.seed(c)
            run_script(self, "shell.mjs", c, shots=shots_dir("shell"), timeout=400, seed=seed)
            # what the browser did, seen by the server: two pipelines saved
            # from the editor, the schedule's zone kept
            a = c.admin()
            for width in (1440, 390):
                p = a.get(f"/api/v1/projects/demo/pipelines/dag-{width}").json()
                self.assertEqual(len(p["spec"]["tasks"]), 4, p)
            etl = a.get("/api/v1/projects/demo/pipelines/etl").json()
            self.assertEqual(etl["spec"]["timezone"], "Asia/Shanghai", etl)


if __name__ == "__main__":
    unittest.main(verbosity=2)
