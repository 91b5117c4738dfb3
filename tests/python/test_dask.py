# SPDX-License-Identifier: GPL-3.0-or-later
"""The Dask example (resources/examples/python/dask_sweep.py) on a real local cluster of two
worker processes gives the numbers of the same runs done here with the module."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

import endstop
from support import SOURCE_DIR

EXAMPLES = os.path.join(SOURCE_DIR, "resources", "examples", "python")
SCRIPT = os.path.join(EXAMPLES, "dask_sweep.py")
# the workers import the example's functions by name and the module from PYTHONPATH (inherited)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (EXAMPLES, os.environ.get("PYTHONPATH")) if p)
sys.path.insert(0, EXAMPLES)
import dask_sweep  # noqa: E402

MASSES, GAPS, STOP = [0.3, 1.2], [3.0, 7.5], 0.5


def direct(mass, gap):
    """The same run in this process, straight through the module."""
    return endstop.load(dask_sweep.MODEL).run(set=dask_sweep.overrides(mass, gap), stop_time=STOP)


class DaskStudy(unittest.TestCase):
    def check_rows(self, rows):
        self.assertEqual([(r["mass_kg"], r["gap_mm"]) for r in rows], [(m, g) for m in MASSES for g in GAPS])
        for row in rows:
            with self.subTest(mass=row["mass_kg"], gap=row["gap_mm"]):
                r = direct(row["mass_kg"], row["gap_mm"])
                self.assertEqual(row["status"], "ok")
                self.assertEqual(row["final_x"], r["stops.x"][-1])
                self.assertEqual(row["final_v"], r["stops.v"][-1])
                self.assertEqual(row["max_abs_x"], np.abs(r["stops.x"]).max())
                self.assertEqual(row["peak_force"], np.abs(r["stops.f"]).max())
                self.assertEqual(row["impacts"], r["stops.impacts"][-1])
                self.assertEqual(row["energy"], r["stops.energy_dissipated"][-1])
                self.assertEqual((row["steps"], row["events"]), (r.stats["steps"], r.stats["events"]))
                self.assertGreater(row["max_abs_x"], row["gap_mm"] * 1e-3)   # it reaches the stops
        # the grid changes the outcome: a study of identical rows would prove nothing
        self.assertEqual(len({row["energy"] for row in rows}), len(rows))

    def test_study_on_a_local_cluster(self):
        from dask.distributed import Client, LocalCluster
        with warnings.catch_warnings():   # Debian's distributed calls a tornado API tornado deprecates
            warnings.filterwarnings("ignore", "make_current is deprecated", DeprecationWarning)
            rows, pids = self.run_study(Client, LocalCluster)
        self.assertEqual(len(pids), 2)
        self.assertNotIn(os.getpid(), pids)
        self.check_rows(rows)

    def run_study(self, Client, LocalCluster):
        with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            rows = dask_sweep.study(client, masses=MASSES, gaps=GAPS, stop_time=STOP)
            return rows, set(client.run(os.getpid).values())

    def test_script_writes_the_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "study.csv")
            proc = subprocess.run([sys.executable, SCRIPT, "--workers", "2", "--masses", "0.3,1.2", "--gaps", "3,7.5",
                                   "--stop-time", str(STOP), "--out", out], capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(out, newline="") as f:
                rows = list(csv.DictReader(f))
        self.assertIn("peak_force", proc.stdout.splitlines()[0])
        self.assertEqual(len(proc.stdout.splitlines()), 1 + len(rows))
        for row in rows:
            for key in row:
                if key != "status":
                    row[key] = int(row[key]) if key in ("impacts", "steps", "events") else float(row[key])
        self.check_rows(rows)


if __name__ == "__main__":
    unittest.main()
