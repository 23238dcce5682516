#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/static-plans: its linear programme on hand-made plans (checked
against a brute-force grid), and one real cell end to end through the real
simulator.

    test-static-plans.py STATIC_PLANS SIM TABLES_DIR
"""
import itertools
import json
import os
import subprocess
import sys
import tempfile
import unittest


STATIC_PLANS, SIM, TABLES = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(STATIC_PLANS)))
from scriptmod import load  # noqa: E402  (bench/scriptmod.py, beside the script)


sp = load("static_plans", STATIC_PLANS)


def plan(name, deep, energy, latency):
    return {"plan": name, "range": (0, 0), "too_deep_pct": deep, "energy": energy, "latency_penalty_us": latency}


class Programme(unittest.TestCase):
    base = plan("teo", 20.0, 1.0, 3.0)
    plans = [plan("deep", 20.0, 1.0, 3.0), plan("shallow", 0.0, 1.5, 1.0), plan("middle", 10.0, 1.01, 2.0),
             plan("costly", 5.0, 1.3, 4.0)]

    def feasible(self, m):
        return m["energy"] <= self.base["energy"] * 1.02 + 1e-9 and m["latency_penalty_us"] < self.base["latency_penalty_us"]

    def test_known_optimum(self):
        # middle alone is feasible (10%); 2.04% of shallow on top spends the
        # rest of the energy budget: 10 × (1 - 0.0204...) = 9.796
        m = sp.best_mix(self.plans, self.base)
        self.assertTrue(self.feasible(m))
        self.assertAlmostEqual(m["too_deep_pct"], 10 * (1 - 0.01 / 0.49), places=6)
        self.assertEqual({p for _, p in m["parts"]}, {(0, 0)})
        self.assertIn("middle", m["plan"])
        self.assertIn("shallow", m["plan"])

    def test_no_grid_point_beats_it(self):
        m = sp.best_mix(self.plans, self.base)
        steps = 50
        for w in itertools.product(range(steps + 1), repeat=len(self.plans) - 1):
            if sum(w) > steps:
                continue
            x = [v / steps for v in w] + [1 - sum(w) / steps]
            g = sp.mixed(self.plans, x)
            if self.feasible(g):
                self.assertGreaterEqual(g["too_deep_pct"], m["too_deep_pct"] - 1e-9, g["plan"])

    def test_nothing_within_the_limits(self):
        self.assertIsNone(sp.best_mix([plan("hot", 0.0, 2.0, 1.0), plan("slow", 0.0, 1.0, 9.0)], self.base))

    def test_meets(self):
        self.assertTrue(sp.meets(plan("x", 10.0, 1.02, 2.9), self.base))
        self.assertFalse(sp.meets(plan("x", 10.1, 1.0, 2.0), self.base))
        self.assertFalse(sp.meets(plan("x", 5.0, 1.03, 2.0), self.base))
        self.assertFalse(sp.meets(plan("x", 5.0, 1.0, 3.0), self.base))


class EndToEnd(unittest.TestCase):
    def test_one_cell(self):
        # hackbench on POWER10: teo is 17% too deep; the shallowest state
        # alone halves that within the limits (bench/results/static-plans.md)
        cmd = [SIM, "--tables-dir", TABLES, "-w", "hackbench", "-T", "power10", "-n", "20000", "-g", "teo,idlepolicy",
               "--json"]
        rows = json.loads(subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout)["rows"]
        with tempfile.TemporaryDirectory() as tmp:
            q = os.path.join(tmp, "q.json")
            with open(q, "w") as f:
                json.dump({"meta": {"generated": "test", "seed": 1, "intervals": 20000}, "rows": rows}, f)
            out = subprocess.run([sys.executable, STATIC_PLANS, "--sim", SIM, "--tables-dir",
                                  TABLES, "--quality", q, "--out", tmp], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout
            with open(os.path.join(tmp, "static-plans.json")) as f:
                cells = json.load(f)["cells"]
        self.assertEqual([(c["workload"], c["table"]) for c in cells], [("hackbench", "power10")])
        c = cells[0]
        self.assertEqual(len(c["fixed"]), 5 * 6 // 2)
        self.assertIn("[0,0]", c["fixed_met"])
        self.assertEqual(c["fixed"][0]["plan"], "[0,0]")
        self.assertEqual(c["fixed"][0]["too_deep_pct"], 0.0)
        self.assertIn("yes (a fixed plan)", out)
        sim = c["best_mix"]["simulated"]
        self.assertLess(abs(sim["too_deep_pct"] - c["best_mix"]["too_deep_pct"]), 1.0)

    def test_unreadable_quality_file(self):
        r = subprocess.run([sys.executable, STATIC_PLANS, "--sim", SIM,
                            "--quality", "/nonexistent/q.json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("static-plans: cannot read /nonexistent/q.json", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
