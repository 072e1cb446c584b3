"""What the offline tests of tests/deploy share: where the project and its runner are, and a
counted check that ends the test at its first failure, naming it."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLUSTERSIM = os.environ.get("CLUSTERSIM", os.path.join(ROOT, "target", "release", "clustersim"))
passed = 0


def check(ok, what):
    global passed
    passed += 1
    if not ok:
        sys.exit(f"FAIL: {what}")
