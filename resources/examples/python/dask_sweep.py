#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A parameter study of rattling_mass.endstop on a Dask cluster (docs/python.md, "Dask").

The grid is the slider's mass times the gap of the stops (the same on both sides). Each run is one
task: the worker loads the model, runs it with the task's overrides and returns a summary (final
position and velocity, largest excursion, peak contact force, impacts, dissipated energy, solver
statistics), so only a few numbers travel back, not the trajectories. A run that fails is a row
with its status, not a failed study.

    PYTHONPATH=build/python /usr/bin/python3 resources/examples/python/dask_sweep.py --workers 2 --out study.csv
    ... --scheduler tcp://HOST:8786     # use a running cluster instead of a local one

Every worker needs the module (PYTHONPATH=build/python, or an installed copy) and the model file
at the same path (a shared file system).
"""
import argparse
import csv
import os
import sys

import numpy as np

import endstop

MODEL = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rattling_mass.endstop"))
MASSES = [0.25, 0.5, 1.0, 2.0]   # kg
GAPS = [2.0, 5.0, 10.0]          # mm, both sides
FIELDS = ["mass_kg", "gap_mm", "status", "final_x", "final_v", "max_abs_x", "peak_force", "impacts", "energy",
          "steps", "events", "wall_s"]


def overrides(mass_kg, gap_mm):
    """The run's overrides: the mass in SI (a number), the gaps as text with their unit."""
    return {"slider.mass": mass_kg, "stops.upper_bound": f"{gap_mm} mm", "stops.lower_bound": f"{-gap_mm} mm"}


def summarize(result):
    """The few numbers of a run the study keeps (SI)."""
    stats = result.stats
    return {
        "status": result.status,
        "final_x": float(result["stops.x"][-1]),
        "final_v": float(result["stops.v"][-1]),
        "max_abs_x": float(np.abs(result["stops.x"]).max()),
        "peak_force": float(np.abs(result["stops.f"]).max()),
        "impacts": int(result["stops.impacts"][-1]),
        "energy": float(result["stops.energy_dissipated"][-1]),
        "steps": stats["steps"],
        "events": stats["events"],
        "wall_s": stats["wall_s"],
    }


def run_case(path, mass_kg, gap_mm, stop_time=None):
    """One task, run in a worker: load the model there, run it, summarize."""
    try:
        result = endstop.load(path).run(set=overrides(mass_kg, gap_mm), stop_time=stop_time)
    except endstop.SimulationError as error:   # the run up to the failure still has numbers
        result = error.partial
    return {"mass_kg": mass_kg, "gap_mm": gap_mm, **summarize(result)}


def study(client, path=MODEL, masses=MASSES, gaps=GAPS, stop_time=None):
    """Maps the grid over the cluster's workers; the rows come back in grid order."""
    grid = [(m, g) for m in masses for g in gaps]
    futures = client.map(run_case, [path] * len(grid), [m for m, _ in grid], [g for _, g in grid],
                         [stop_time] * len(grid), pure=False)
    return client.gather(futures)


def print_table(rows, out=sys.stdout):
    widths = [max(len(f), 12) for f in FIELDS]
    out.write("  ".join(f.rjust(w) for f, w in zip(FIELDS, widths)) + "\n")
    for row in rows:
        cells = [f"{row[f]:.6g}" if isinstance(row[f], float) else str(row[f]) for f in FIELDS]
        out.write("  ".join(c.rjust(w) for c, w in zip(cells, widths)) + "\n")


def write_csv(rows, path):
    """Floats are written with repr(): every digit, so the file reads back to the same numbers."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def numbers(text):
    return [float(x) for x in text.split(",") if x.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: start a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--masses", type=numbers, default=MASSES, help="kg, comma-separated")
    parser.add_argument("--gaps", type=numbers, default=GAPS, help="mm, comma-separated")
    parser.add_argument("--stop-time", type=float, help="s (default: the model's)")
    parser.add_argument("--out", help="write the table as CSV here")
    args = parser.parse_args()

    from dask.distributed import Client, LocalCluster   # only the driver needs dask imported here

    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        # one thread per worker process: the processes are the parallelism (a run releases the
        # GIL, so threads_per_worker > 1 would run that many at once in a worker, too)
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        rows = study(client, os.path.abspath(args.model), args.masses, args.gaps, args.stop_time)
    finally:
        client.close()
        if cluster:
            cluster.close()
    print_table(rows)
    if args.out:
        write_csv(rows, args.out)
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
