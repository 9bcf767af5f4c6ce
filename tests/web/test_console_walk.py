"""Every page of the console at 390x844 in a real Chromium against a real
cubed with every page's plugin and a real object of each kind
(tests/web/consoleseed.py): no console error, nothing outside the viewport
(checked by script: web/e2e/lib.mjs assertFitsViewport). The browser side is
web/e2e/walk.mjs; screenshots are kept in $CUBE_SHOTS/walk."""
import unittest

import consoleseed
from consoleweb import build_console, dist, run_script, shots_dir


class ConsoleWalk(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = build_console()
        if why:
            raise unittest.SkipTest(why)
        missing = consoleseed.missing_pages()
        if missing:
            raise unittest.SkipTest("pages not built (ninja builds them with npm): " + ", ".join(missing))

    def test_every_page_fits_a_phone(self):
        with consoleseed.start(dist()) as c:
            seed = consoleseed.seed(c)
            seen = run_script(self, "walk.mjs", c, shots=shots_dir("walk"), timeout=300, seed=seed)
            # the shell's ten pages and at least list, object and create of
            # each plugin's kinds
            self.assertGreater(seen["pages"], 40, seen)


if __name__ == "__main__":
    unittest.main(verbosity=2)
