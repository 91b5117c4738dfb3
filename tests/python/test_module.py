# SPDX-License-Identifier: GPL-3.0-or-later
"""The module `endstop` against the batch tool: one run of one model with the same overrides gives
the same numbers (exactly: the CSV keeps every digit), units, events and statistics."""
import os
import pickle
import tempfile
import unittest

import numpy as np

import endstop
from support import batch_model, batch_run, batch_variables, example

# (model, overrides, options): numbers as floats (SI) and as strings with units, every step and a
# grid, all columns and a few, dense and KLU
CASES = [
    (example("rattling_mass.endstop"), {"stops.upper_bound": "3 mm", "slider.mass": 0.7}, {"stop_time": 2.0}),
    (example("rattling_mass.endstop"), {}, {"output_interval": 0.01, "rtol": 1e-7, "signals": ["stops.x", "stops.f"]}),
    (example("drive_train.endstop"), {}, {}),
    (example("drive_train.endstop"), {"clutch.mu_speeds": np.array([0.0, 1.0, 10.0]), "clutch.mu_values": [0.5, 0.4, 0.3]},
     {"stop_time": 1.0}),
    (example("stick_slip_belt.endstop"), {}, {"linear_solver": "klu", "stop_time": 3.0}),
    (example("rattling_mass.endstop"), {"slider.mass": 0.7}, {"reduce": True, "stop_time": 1.0}),
    (batch_model("run", "oscillator.endstop"), {}, {"atol": 1e-10}),
    # named parameters and subsystems: model parameters, mask values and blocks inside by path
    (example("gear_train_backlash.endstop"), {"backlash": "1 deg", "stage3.J": "2e-4 kg*m^2", "stage1.mesh.upper_damping": 0.1},
     {"stop_time": 0.5}),
    (batch_model("parameters", "pushed_mass.endstop"), {"m_load": "3 kg", "push.F": "F0/2"}, {}),
]


class AgainstBatchTool(unittest.TestCase):
    def test_arrays_equal_the_csv(self):
        for model, overrides, options in CASES:
            with self.subTest(model=os.path.basename(model), overrides=overrides, options=options):
                header, columns, _, _, _ = batch_run(model, overrides, **options)
                r = endstop.load(model).run(set=overrides, **options)
                self.assertEqual(["time"] + r.names, header)
                self.assertGreater(r.rows, 10)
                for name in header:
                    self.assertEqual(r[name].dtype, np.float64)
                    self.assertTrue(np.array_equal(r[name], columns[name]), name)
                self.assertTrue(np.array_equal(r.time, columns["time"]))

    def test_events_equal_the_events_csv(self):
        for model, overrides, options in CASES:
            with self.subTest(model=os.path.basename(model), overrides=overrides):
                _, _, events, _, _ = batch_run(model, overrides, **options)
                r = endstop.load(model).run(set=overrides, **options)
                self.assertEqual(r.events, events)
                self.assertTrue(all(isinstance(e, tuple) and isinstance(e.kind, str) for e in r.events))
        self.assertIn("bound", {e.kind for e in endstop.load(example("rattling_mass.endstop")).run().events})

    def test_stats_have_the_batch_tools_keys_and_counts(self):
        model = example("rattling_mass.endstop")
        _, _, _, cli, _ = batch_run(model)
        stats = endstop.load(model).run().stats
        self.assertEqual(set(stats), set(cli))
        for key in ("steps", "residual_evals", "jacobian_evals", "events", "build_s", "solve_s", "wall_s", "unknowns"):
            self.assertIn(key, stats)
        for key, value in cli.items():   # the counts are deterministic, the times are not
            if not key.endswith("_s"):
                self.assertEqual(stats[key], value, key)
        self.assertGreater(stats["wall_s"], 0.0)

    def test_units_and_descriptions_are_the_variables_listing(self):
        for name in ("rattling_mass.endstop", "drive_train.endstop", "clutch.endstop"):
            model = example(name)
            listed = batch_variables(model)
            m = endstop.load(model)
            self.assertEqual(m.variables(), listed)
            r = m.run(stop_time=0.01)
            self.assertEqual([(n, r.units[n], r.descriptions[n]) for n in r.names], listed)
        self.assertEqual(r.units["time"], "s")
        self.assertEqual(endstop.load(example("rattling_mass.endstop")).run(stop_time=0.01).units["stops.x"], "m")

    def test_failed_run_keeps_the_rows_the_batch_tool_writes(self):
        model = batch_model("failure", "runaway.endstop")
        header, columns, events, _, proc = batch_run(model, {"push.slope": 1e300}, expect_failure=True)
        with self.assertRaises(endstop.SimulationError) as caught:
            endstop.load(model).run(set={"push.slope": 1e300})
        error = caught.exception
        self.assertIn("'fs'", str(error))
        self.assertIn(str(error), proc.stderr)
        partial = error.partial
        self.assertIsInstance(partial, endstop.Result)
        self.assertEqual((partial.status, partial.ok, partial.error), ("failed", False, str(error)))
        self.assertGreater(partial.rows, 0)
        self.assertEqual(["time"] + partial.names, header)
        for name in header:
            self.assertTrue(np.array_equal(partial[name], columns[name]), name)
        self.assertEqual(partial.events, events)


class Overrides(unittest.TestCase):
    def setUp(self):
        self.model = endstop.load(example("rattling_mass.endstop"))

    def test_units_and_si_numbers_are_the_same_override(self):
        a = self.model.run(set={"stops.upper_bound": "4 mm", "slider.mass": "0.7 kg"})
        b = self.model.run(set={"stops.upper_bound": 0.004, "slider.mass": 0.7})
        for name in ["time"] + a.names:
            self.assertTrue(np.array_equal(a[name], b[name]), name)
        self.assertTrue(np.array_equal(a["stops.x"], self.model.run(set={"stops.upper_bound": np.float64(0.004),
                                                                          "slider.mass": 0.7})["stops.x"]))

    def test_vector_parameters_from_lists_arrays_and_text(self):
        model = endstop.load(example("drive_train.endstop"))
        runs = [model.run(set={"clutch.mu_speeds": speeds, "clutch.mu_values": values}, stop_time=1.0)
                for speeds, values in [([0, 1, 10], (0.5, 0.4, 0.3)),
                                       (np.array([0.0, 1.0, 10.0]), np.array([0.5, 0.4, 0.3])),
                                       ("[0 1 10] rad/s", "[0.5 0.4 0.3]")]]
        for r in runs[1:]:
            self.assertTrue(np.array_equal(r["load.w"], runs[0]["load.w"]))
        self.assertFalse(np.array_equal(runs[0]["load.w"], model.run(stop_time=1.0)["load.w"]))
        with self.assertRaises(endstop.ModelError) as caught:
            model.run(set={"clutch.mu_speeds": [0, 1, 2]})
        self.assertIn("mu_values", str(caught.exception))
        with self.assertRaises(TypeError):
            model.run(set={"clutch.mu_speeds": [0, "1 rad/s"]})

    def test_overrides_change_the_run_not_the_model(self):
        before = self.model.run()
        changed = self.model.run(set={"stops.upper_bound": "2 mm"})
        self.assertLess(changed["stops.x"].max(), before["stops.x"].max() - 0.002)
        after = self.model.run()
        self.assertTrue(np.array_equal(before["stops.x"], after["stops.x"]))
        self.assertEqual(self.model.settings["stop_time"], 1.0)

    def test_options(self):
        r = self.model.run(stop_time=0.25, output_interval=0.05, signals=["stops.f"])
        self.assertEqual(r.names, ["stops.f"])
        self.assertTrue(np.allclose(r.time, [0, 0.05, 0.1, 0.15, 0.2, 0.25], rtol=0, atol=1e-12))
        self.assertEqual(r.final_time, 0.25)
        self.assertEqual(self.model.run(stop_time=0.1, linear_solver="klu").stats["linear_solver"], "klu")
        self.assertIs(self.model.settings["reduce"], True)
        reduced = self.model.run(stop_time=0.1, reduce=True).stats
        self.assertLess(reduced["unknowns"], reduced["unknowns_before"])
        drawn = self.model.run(stop_time=0.1, reduce=False).stats
        self.assertEqual(drawn["unknowns"], drawn["unknowns_before"])


class Errors(unittest.TestCase):
    def setUp(self):
        self.model = endstop.load(example("rattling_mass.endstop"))

    def assertModelError(self, call, *fragments):
        with self.assertRaises(endstop.ModelError) as caught:
            call()
        for f in fragments:
            self.assertIn(f, str(caught.exception))
        self.assertIsInstance(caught.exception, ValueError)
        self.assertIsInstance(caught.exception, endstop.Error)

    def test_bad_input_raises_model_error_naming_it(self):
        self.assertModelError(lambda: self.model.run(set={"stopz.upper_bound": "5 mm"}), "no block named 'stopz'")
        self.assertModelError(lambda: self.model.run(set={"stops.upper": "5 mm"}), "no parameter 'upper'", "upper_bound")
        self.assertModelError(lambda: self.model.run(set={"stops.upper_bound": "5 kg"}), "stops.upper_bound", "'kg'")
        self.assertModelError(lambda: self.model.run(set={"stops.upper_bound": "5 furlongs"}), "furlongs")
        self.assertModelError(lambda: self.model.run(set={"slider.mass": -1.0}), "slider", "mass", "must be > 0")
        self.assertModelError(lambda: self.model.run(set={"slider.mass": float("nan")}), "slider.mass")
        self.assertModelError(lambda: self.model.run(set={"stops.model": "springy"}), "springy", "smooth")
        self.assertModelError(lambda: self.model.run(signals=["stops.xx"]), "unknown signal 'stops.xx'")
        self.assertModelError(lambda: self.model.run(rtol=2.0), "relative_tolerance")
        self.assertModelError(lambda: self.model.run(stop_time=-1), "stop_time")
        self.assertModelError(lambda: self.model.run(max_steps=0), "max_steps")
        self.assertModelError(lambda: self.model.run(linear_solver="lu"), "linear_solver")
        with self.assertRaises(TypeError) as caught:
            self.model.run(reduce="on")
        self.assertIn("reduce: expected True or False", str(caught.exception))

    def test_bad_files_raise_model_error(self):
        self.assertModelError(lambda: endstop.load("/nonexistent/m.endstop"), "/nonexistent/m.endstop", "no such file")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.endstop")
            with open(path, "w") as f:
                f.write('{"format": "endstop-project",\n"blocks": [}')
            self.assertModelError(lambda: endstop.load(path), "bad.endstop:2:", "malformed JSON")

    def test_wrong_types_raise_type_error(self):
        with self.assertRaises(TypeError):
            self.model.run(set=[("slider.mass", 1.0)])
        with self.assertRaises(TypeError):
            self.model.run(set={"slider.mass": True})
        with self.assertRaises(TypeError):
            self.model.run(stop_time="2 s")
        with self.assertRaises(TypeError):
            self.model.run(signals="stops.x")
        with self.assertRaises(TypeError) as caught:
            self.model.run(rtoll=1e-4)
        self.assertIn("rtoll", str(caught.exception))

    def test_run_limits_raise_simulation_error_with_the_partial_result(self):
        with self.assertRaises(endstop.SimulationError) as caught:
            self.model.run(max_steps=200)
        error = caught.exception
        self.assertIsInstance(error, endstop.RunLimitError)
        self.assertIn("200 steps", str(error))
        self.assertEqual(error.partial.status, "timeout")
        self.assertGreater(error.partial.rows, 100)
        self.assertLess(error.partial.final_time, 1.0)
        self.assertGreaterEqual(error.partial.stats["steps"], 200)


class ResultObject(unittest.TestCase):
    def setUp(self):
        self.result = endstop.load(example("rattling_mass.endstop")).run(stop_time=0.2)

    def test_arrays(self):
        r = self.result
        self.assertTrue(np.array_equal(r["time"], r.time))
        self.assertEqual(len(r["stops.x"]), r.rows)
        self.assertIn("stops.x", r)
        self.assertNotIn("stops.y", r)
        with self.assertRaises(KeyError) as caught:
            r["stops.y"]
        self.assertIn("stops.x", str(caught.exception))
        with self.assertRaises(ValueError):   # the arrays are the run's own memory, read-only
            r["stops.x"][0] = 1.0
        x = np.array(r["stops.x"])
        x[0] = 1.0
        self.assertEqual(list(r.to_dict()), ["time"] + r.names)
        self.assertIn("ok", repr(r))

    def test_arrays_outlive_the_result(self):
        x = endstop.load(example("rattling_mass.endstop")).run(stop_time=0.2)["stops.x"]
        self.assertTrue(np.array_equal(x, self.result["stops.x"]))

    def test_pickle_round_trip(self):
        r = pickle.loads(pickle.dumps(self.result))
        self.assertEqual(r.names, self.result.names)
        for name in ["time"] + r.names:
            self.assertTrue(np.array_equal(r[name], self.result[name]))
        self.assertEqual((r.events, r.stats, r.units, r.status), (self.result.events, self.result.stats, self.result.units, "ok"))
        model = endstop.load(example("rattling_mass.endstop"))
        copy = pickle.loads(pickle.dumps(model))
        self.assertEqual(copy.path, model.path)
        self.assertTrue(np.array_equal(copy.run(stop_time=0.2)["stops.x"], self.result["stops.x"]))


if __name__ == "__main__":
    unittest.main()
