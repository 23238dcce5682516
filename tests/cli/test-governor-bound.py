#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/governor-bound: its model against the real simulator's numbers
(every fixed state of two tables, on a workload and a trace: too deep,
energy, latency and regret), its duality bounds against brute force on
hand-made options (too deep; regret within an energy limit), the polling
state's split by hand, idlepolicy-sim --dump-intervals, and one cell end
to end for each target (pgbench on POWER9: the least regret and wteo's
closure; the too-deep target no governor can meet).

    test-governor-bound.py GOVERNOR_BOUND SIM TABLES_DIR TRACES_DIR
"""
import itertools
import json
import os
import subprocess
import sys
import tempfile
import unittest


GOVERNOR_BOUND, SIM, TABLES, TRACES = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(os.path.abspath(GOVERNOR_BOUND)))
from scriptmod import load  # noqa: E402  (bench/scriptmod.py, beside the script)
N = 20000


gb = load("governor_bound", GOVERNOR_BOUND)
META = {"generated": "test", "seed": 1, "intervals": N}


def sim(*args):
    r = subprocess.run([SIM, "--tables-dir", TABLES, "--seed", "1", "--intervals", str(N)] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def intervals(source):
    args = ["--trace", os.path.join(TRACES, source)] if source.endswith(".trace") else ["--workload", source]
    rc, out, err = sim("--dump-intervals", *args)
    assert rc == 0, err
    return out


class Model(unittest.TestCase):
    """The model's energy, too deep and latency of every fixed state are the
    simulator's (teo held to one state)."""

    def check(self, source, table):
        ivs = gb.dump_intervals(SIM, META, source)
        model = gb.Model(*gb.parse_table(os.path.join(TABLES, table + ".table")))
        options = gb.key_options(model, ivs, "sleep")
        for i, j in enumerate(model.enabled):
            if model.states[j]["polling"]:
                continue        # the too-deep model does not split long polls (the regret model does: Split)
            src = ["--trace", os.path.join(TRACES, source)] if source.endswith(".trace") else ["--workload", source]
            rc, out, err = sim(*src, "--table", table, "--governor", "teo-range", "-P", "floor=%d" % j,
                               "-P", "cap=%d" % j, "--json")
            self.assertEqual(rc, 0, err)
            row = json.loads(out)["rows"][0]
            deep, energy, latency = gb.evaluate(options, [i] * len(options))
            sums, oracle_energy, oracle_latency = gb.regret_sums(model, ivs)
            fixed = [row[self.option_index(model, j)] for row in gb.regret_options(model, sums)]
            cost = sum(e + l for e, l in fixed)
            oracle = oracle_energy + oracle_latency
            with self.subTest(source=source, table=table, state=j, what="regret"):
                self.assertAlmostEqual(100.0 * (cost - oracle) / oracle, row["regret_pct"],
                                       delta=0.01 + 0.001 * abs(row["regret_pct"]))
            with self.subTest(source=source, table=table, state=j):
                self.assertEqual(row["entries"], len(ivs))
                self.assertAlmostEqual(deep, row["too_deep_pct"], delta=0.01)
                self.assertAlmostEqual(energy, row["energy"], delta=0.0005 * row["energy"] + 0.0001)
                self.assertAlmostEqual(latency, row["latency_penalty_us"], delta=0.0001 + 0.0005 * latency)

    @staticmethod
    def option_index(model, j):
        """Where state j alone is among a key's regret options (a polling
        state's splits follow it)."""
        k = 0
        for i in model.enabled:
            if i == j:
                return k
            k += 1 + (sum(not model.states[x]["polling"] for x in model.enabled) if model.states[i]["polling"] else 0)
        raise KeyError(j)

    def test_polling_state_regret(self):
        """Polled all the way (the simulator splits at the poll limit and
        polls again): the regret option of the polling state alone."""
        ivs = gb.dump_intervals(SIM, META, "pgbench")
        model = gb.Model(*gb.parse_table(os.path.join(TABLES, "power9.table")))
        sums, oe, ol = gb.regret_sums(model, ivs)
        e, l = map(sum, zip(*[row[0] for row in gb.regret_options(model, sums)]))
        rc, out, err = sim("--workload", "pgbench", "--table", "power9", "--governor", "teo-range",
                           "-P", "floor=0", "-P", "cap=0", "--json")
        self.assertEqual(rc, 0, err)
        self.assertAlmostEqual(100.0 * (e + l - oe - ol) / (oe + ol), json.loads(out)["rows"][0]["regret_pct"],
                               delta=0.05)

    def test_workload_power9(self):
        self.check("pgbench", "power9")

    def test_trace_skylake(self):
        self.check("wakeup.trace", "skylake-sp")


class Bound(unittest.TestCase):
    """The dual bound never exceeds the best per-key mix (checked against
    every pure choice and an exact two-key programme), and the witness is a
    real choice within the limits."""
    # Two keys, three states each: (too deep %, energy, latency).
    options = [[(10.0, 0.30, 1.0), (4.0, 0.40, 0.5), (0.0, 0.60, 0.2)],
               [(20.0, 0.20, 2.0), (6.0, 0.35, 1.0), (0.0, 0.55, 0.4)]]

    def pure(self, e_max, l_max):
        best = None
        for choice in itertools.product(range(3), repeat=2):
            p = gb.evaluate(self.options, choice)
            if p[1] <= e_max and p[2] <= l_max and (best is None or p[0] < best[0]):
                best = p
        return best

    def test_bound_below_every_feasible_choice(self):
        for e_max, l_max in [(0.5, 3.0), (0.8, 2.0), (1.2, 0.6), (0.75, 1.5), (1.0, 1.0)]:
            lower, witness = gb.bound(self.options, e_max, l_max)
            best = self.pure(e_max, l_max)
            with self.subTest(e_max=e_max, l_max=l_max):
                if best is None:
                    self.assertIsNone(witness)
                    continue
                self.assertLessEqual(lower, best[0] + 1e-9)
                self.assertIsNotNone(witness)
                self.assertLessEqual(witness[1], e_max + 1e-12)
                self.assertLessEqual(witness[2], l_max + 1e-12)
                self.assertIn(tuple(round(x, 9) for x in witness),
                              {tuple(round(x, 9) for x in gb.evaluate(self.options, c))
                               for c in itertools.product(range(3), repeat=2)})

    def test_bound_is_tight_on_a_mix(self):
        # Energy only (latency slack): the optimum mixes key 1's states 0 and
        # 1 (deep 10 + 20 -> 10 + 6 costs 0.15 energy): at e_max 0.575 the
        # programme's optimum is 10 + 20 - 14 * (0.075 / 0.15) = 23.
        lower, _ = gb.bound(self.options, 0.575, 100.0)
        self.assertAlmostEqual(lower, 23.0, delta=0.05)

    def test_impossible_limits(self):
        lower, witness = gb.bound(self.options, 0.1, 100.0)
        self.assertIsNone(witness)
        self.assertGreater(lower, 30.0)


class Split(unittest.TestCase):
    """A polling state's options by hand: a table of POLL (0/0) and C1
    (exit 2 us, residency 10 us), so a poll limit of 10 us and an IPI of
    0.  With the timer 1 ms away (one key: the 4 us period's right state is
    POLL, as before it), periods of 4 us (non-timer) and 30 us (timer): polling all the
    way draws 34 and pays no latency; C1 alone draws 2 * 5 + (4 + 30) / 2
    = 27 and 2 us of latency; polling 10 us, then C1, draws 4 + 10 + 5 +
    20 / 2 = 29 and no latency (the 4 us period ended in the poll)."""

    def test_by_hand(self):
        model = gb.Model([{"name": "POLL", "exit_us": 0.0, "residency_us": 0.0, "advertised_residency_us": 0.0,
                           "polling": True, "disabled": False},
                          {"name": "C1", "exit_us": 2.0, "residency_us": 10.0, "advertised_residency_us": 10.0,
                           "polling": False, "disabled": False}], 0.0)
        self.assertEqual(model.poll_limit(), 10.0)
        sums, oe, ol = gb.regret_sums(model, [(0, 1000.0, 4.0, False), (0, 1000.0, 30.0, True)])
        self.assertEqual(len(sums), 1)
        options = gb.regret_options(model, sums)[0]
        self.assertEqual([tuple(round(x, 9) for x in o) for o in options], [(34.0, 0.0), (29.0, 0.0), (27.0, 2.0)])
        # The oracle polls the 4 us period and enters C1 for the other.
        self.assertAlmostEqual(oe, 4.0 + 5.0 + 15.0)
        self.assertAlmostEqual(ol, 0.0)


class RegretBound(unittest.TestCase):
    """Without a limit the bound is the cheapest option per key; within an
    energy limit it lies between that and the best feasible pure choice."""
    # Two keys, three options each: (energy, latency).
    options = [[(3.0, 0.0), (2.0, 0.5), (1.0, 2.5)],
               [(6.0, 0.0), (4.0, 1.5), (3.0, 4.0)]]

    def test_bounds(self):
        for e_max in (20.0, 7.0, 6.0, 5.5, 4.0):
            free, limited = gb.regret_bound(self.options, e_max)
            feasible = [sum(e + l for e, l in c) for c in itertools.product(*self.options)
                        if sum(e for e, _ in c) <= e_max]
            with self.subTest(e_max=e_max):
                self.assertAlmostEqual(free, 2.5 + 5.5)
                self.assertLessEqual(free, limited + 1e-9)
                self.assertLessEqual(limited, min(feasible) + 1e-6)
        # The cheapest options draw 2 + 4 = 6; at 5.5 the optimum gives up
        # half an energy unit where it costs least: key 0's second option
        # half mixed with its third (1 of cost per unit, against 1.5 for
        # key 1): 8 + 0.5 = 8.5.
        self.assertAlmostEqual(gb.regret_bound(self.options, 5.5)[1], 8.5, delta=0.01)
        self.assertEqual(gb.regret_bound(self.options, 3.0)[1], float("inf"))


class Dump(unittest.TestCase):
    def test_workload(self):
        out = intervals("pgbench").splitlines()
        self.assertEqual(out[0], "source\tcpu\tsleep_length_ns\tduration_ns\ttimer")
        self.assertEqual(len(out), N + 1)
        for line in out[1:50]:
            src, cpu, sleep, dur, timer = line.split("\t")
            self.assertEqual((src, cpu, timer), ("pgbench", "0", "0"))
            self.assertGreater(int(sleep), int(dur))

    def test_trace_keeps_cpus_and_timer_wakeups(self):
        rows = [l.split("\t") for l in intervals("wakeup.trace").splitlines()[1:]]
        self.assertGreater(len({r[1] for r in rows}), 1)
        self.assertEqual({r[4] for r in rows}, {"0", "1"})

    def test_no_table_needed_and_usage_errors(self):
        rc, out, err = sim("--workload", "pgbench", "--dump-intervals", "--bench")
        self.assertEqual(rc, 2)
        self.assertIn("--dump-intervals or --bench", err)
        with open("/dev/full", "w") as full:
            r = subprocess.run([SIM, "--workload", "pgbench", "--intervals", "50000", "--dump-intervals"],
                               stdout=full, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("Failed to write the idle periods", r.stderr)


class EndToEnd(unittest.TestCase):
    """pgbench on POWER9: teo a third too deep; its idle times are drawn
    independently, and no per-key choice halves that within teo + 2%.  And
    the least regret there, and wteo's closure."""

    def run_cell(self, governors, name, *extra):
        """pgbench on POWER9 through the simulator with governors, then
        governor-bound on those rows: (the rows, its NAME.json, NAME.md)."""
        rc, out, err = sim("--workload", "pgbench", "--table", "power9", "--governor", governors, "--json")
        self.assertEqual(rc, 0, err)
        rows = json.loads(out)["rows"]
        with tempfile.TemporaryDirectory() as d:
            q = os.path.join(d, "quality.json")
            with open(q, "w") as f:
                json.dump({"meta": META, "rows": rows}, f)
            r = subprocess.run([sys.executable, GOVERNOR_BOUND, "--sim", SIM, "--tables-dir", TABLES,
                                "--quality", q, "--out", d] + list(extra), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, name + ".json")) as f:
                doc = json.load(f)
            with open(os.path.join(d, name + ".md")) as f:
                return rows, doc, f.read()

    def test_cell(self):
        _, doc, md = self.run_cell("teo,idlepolicy,wteo", "governor-bound-too-deep", "--target", "too-deep")
        cells = doc["cells"]
        self.assertEqual([(c["workload"], c["table"]) for c in cells], [("pgbench", "power9")])
        c = cells[0]
        self.assertTrue(c["independent"])
        self.assertGreater(c["teo"]["too_deep_pct"], 20.0)
        sleep = c["keys"]["sleep"]
        self.assertEqual(sleep["verdict"], "unreachable")
        self.assertGreater(sleep["lower_bound_too_deep_pct"], c["goal_too_deep_pct"])
        self.assertEqual(gb.verdict(c), "unreachable by any governor")
        self.assertIn("| pgbench (independent) | power9 |", md)
        self.assertIn("unreachable by any governor", md)

    def test_regret_cell(self):
        """The least regret on pgbench/POWER9 is below every governor's, and
        wteo's closure of teo's distance to it is what the report says."""
        rows, doc, md = self.run_cell("teo,wteo,menu", "governor-bound")
        c, = doc["cells"]
        regret = {x["governor"]: x["regret_pct"] for x in rows}
        self.assertEqual((c["workload"], c["table"]), ("pgbench", "power9"))
        for g in ("teo", "wteo", "menu"):
            self.assertLess(c["bound_regret_pct"], regret[g])
        self.assertLessEqual(c["bound_regret_pct"], c["bound_within_energy_regret_pct"])
        self.assertAlmostEqual(c["teo"]["regret_pct"], regret["teo"])
        self.assertAlmostEqual(c["closure"], (regret["teo"] - regret["wteo"]) / (regret["teo"] - c["bound_regret_pct"]))
        self.assertEqual(doc["summary"]["with_distance"], 1)
        self.assertIn("| pgbench | power9 | %.1f%% | %.1f%% |" % (regret["teo"], regret["wteo"]), md)
        self.assertIn("No simulated governor is below the bound in any cell", md)

    def test_bad_arguments(self):
        for extra, message in [(["--octave-steps", "0"], "--octave-steps must be 1..4096"),
                               (["--only", "nosuch/power9"], "no cell matches --only"),
                               (["--only", "nosuch/power9", "--target", "too-deep"], "no target cell matches --only"),
                               (["--target", "fast"], "invalid choice"),
                               (["--quality", "/nonexistent.json"], "cannot read /nonexistent.json")]:
            with tempfile.TemporaryDirectory() as d:
                r = subprocess.run([sys.executable, GOVERNOR_BOUND, "--sim", SIM, "--tables-dir", TABLES,
                                    "--out", d] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                with self.subTest(extra=extra):
                    self.assertNotEqual(r.returncode, 0)
                    self.assertIn(message, r.stderr)
                    self.assertEqual(os.listdir(d), [])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
