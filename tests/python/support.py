# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pieces of the Python module's tests: paths, the batch tool, reading its CSV files.

ctest sets ENDSTOP_SOURCE_DIR, ENDSTOP_BATCH (the endstop-batch of the same build) and PYTHONPATH
(the module); run by hand, the defaults point at the checkout and build/.
"""
import csv
import json
import os
import subprocess
import tempfile

import numpy as np

SOURCE_DIR = os.environ.get("ENDSTOP_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BATCH = os.environ.get("ENDSTOP_BATCH", os.path.join(SOURCE_DIR, "build", "app", "endstop-batch"))


def example(name):
    """A bundled example model."""
    return os.path.join(SOURCE_DIR, "resources", "examples", name)


def batch_model(case, name):
    """A model of the batch tool's tests (tests/batch/CASE/NAME)."""
    return os.path.join(SOURCE_DIR, "tests", "batch", case, name)


def cli_flags(overrides, options):
    """The batch tool's flags for run(set=overrides, **options) of the module."""
    def text(value):
        if isinstance(value, str):
            return value
        if np.ndim(value) == 1:   # a vector parameter: [a b c], SI
            return "[" + " ".join(repr(float(x)) for x in value) + "]"
        return repr(float(value))

    flags = []
    for name, value in overrides.items():
        flags += ["--set", f"{name}={text(value)}"]
    names = {"stop_time": "--stop-time", "rtol": "--rtol", "atol": "--atol", "output_interval": "--output-interval",
             "max_steps": "--max-steps", "linear_solver": "--linear-solver", "reduce": "--reduce"}
    for key, value in options.items():
        if key == "signals":
            flags += ["--signals", ",".join(value)]
        elif isinstance(value, bool):
            flags += [names[key], "on" if value else "off"]
        else:
            flags += [names[key], repr(value) if isinstance(value, float) else str(value)]
    return flags


def run_batch(*args, check=True):
    """Runs endstop-batch; returns the completed process (text)."""
    if not os.path.exists(BATCH):
        raise AssertionError(f"{BATCH} not found: build the endstop-batch target first")
    proc = subprocess.run([BATCH, *args], capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"endstop-batch {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def read_results_csv(path):
    """(header, {name: float64 array}) of a results CSV; the values keep every digit."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    columns = {name: np.array([float(r[i]) for r in rows[1:]]) for i, name in enumerate(header)}
    return header, columns


def read_events_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "block", "kind", "velocity"], rows[0]
    return [(float(t), block, kind, float(v)) for t, block, kind, v in rows[1:]]


def batch_run(model, overrides=None, expect_failure=False, **options):
    """The batch tool's run of MODEL: (header, columns, events, stats dict or None, process)."""
    with tempfile.TemporaryDirectory() as tmp:
        out, events = os.path.join(tmp, "r.csv"), os.path.join(tmp, "e.csv")
        proc = run_batch("run", model, "--out", out, "--events", events, "--stats", *cli_flags(overrides or {}, options),
                         check=not expect_failure)
        if expect_failure and proc.returncode != 1:
            raise AssertionError(f"expected a failed run (exit 1), got {proc.returncode}: {proc.stderr}")
        header, columns = read_results_csv(out)
        stats = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        return header, columns, read_events_csv(events), (stats[0] if stats else None), proc


def batch_variables(model):
    """[(name, unit, description)] as `endstop-batch variables` prints them."""
    lines = run_batch("variables", model).stdout.splitlines()
    return [tuple(line.split(None, 2)) for line in lines if line.strip()]
