#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The metrics of the real daemon on a fake tree: Metrics() (as nobody),
`idlepolicyctl metrics` with the same content, `promtool check metrics`
clean on both (label values with quotes, backslashes and spaces), values
that agree with the D-Bus properties; the node_exporter textfile written
atomically and again and again, rewritten at a clean stop (up 0, the knobs
that could not be put back), a write failure logged once; the Prometheus
rules and the Grafana dashboard use only names the daemon emits, and
every dashboard query passes `promtool check rules`.

Needs the real promtool (Debian: prometheus); without it, exit 77."""

import json
import os
import signal
import re
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

try:
    import yaml
except ImportError:  # pragma: no cover - depends on the interpreter
    print('python3-yaml is missing; skipping', file=sys.stderr)
    sys.exit(77)

if shutil.which('promtool') is None:
    print('promtool not found (apt-get install prometheus); skipping', file=sys.stderr)
    sys.exit(77)

U = T.dbus.UInt32
SOURCE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
PROMETHEUS_DIR = os.path.join(SOURCE_ROOT, 'conf', 'prometheus')
DASHBOARD = os.path.join(SOURCE_ROOT, 'conf', 'grafana', 'idlepolicy.json')

# Families whose values move by themselves between two reads: every tick
# is counted, the calibration ages.
VOLATILE = ('idlepolicy_tick_duration_seconds', 'idlepolicy_calibration_age_seconds')

# Names the rules use that node_exporter, not the daemon, provides.
EXTERNAL_NAMES = {'node_textfile_mtime_seconds'}

# A state name and an application id that need escaping.
ODD_STATE = 'C2 "deep" \\ wide'
ODD_APP_ID = 'org.example."Game"\\1'

# ---- the exposition, parsed ----------------------------------------------------

LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def unescape(value):
    return re.sub(r'\\(.)', lambda m: {'n': '\n'}.get(m.group(1), m.group(1)), value)


def parse_exposition(text):
    """Returns {(name, ((label, value), ...)): value string} and
    {family: (type, help)}; asserts each sample belongs to a family
    announced with HELP and TYPE."""
    samples, families = {}, {}
    for line in text.splitlines():
        if line.startswith('# HELP '):
            name, _, help_text = line[7:].partition(' ')
            families.setdefault(name, [None, None])[1] = help_text
            continue
        if line.startswith('# TYPE '):
            name, _, kind = line[7:].partition(' ')
            families.setdefault(name, [None, None])[0] = kind
            continue
        m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)', line)
        assert m, f'not a sample line: {line!r}'
        name, labels, value = m.groups()
        pairs = tuple((k, unescape(v)) for k, v in LABEL.findall(labels or ''))
        family = re.sub(r'_(bucket|sum|count)$', '', name) if name not in families else name
        assert family in families, f'{name}: no HELP/TYPE before it'
        key = (name, pairs)
        assert key not in samples, f'duplicate series {key}'
        samples[key] = value
    return samples, {k: tuple(v) for k, v in families.items()}


def series(samples, name, **labels):
    """Returns the value (float) of the one series of name with labels."""
    want = tuple(sorted(labels.items()))
    found = [v for (n, ls), v in samples.items() if n == name and tuple(sorted(ls)) == want]
    assert len(found) == 1, f'{name}{labels}: {len(found)} series'
    return float(found[0])


def stable(samples):
    return {k: v for k, v in samples.items() if not k[0].startswith(VOLATILE)}


def sample_names(samples):
    return {name for name, _ in samples}


# ---- PromQL names ----------------------------------------------------------------

PROMQL_WORDS = {'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless',
                'bool', 'offset', 'inf', 'nan'}


def promql_names(expr):
    """Returns the metric names an expression selects: identifiers outside
    strings, label matchers, ranges and grouping clauses, that are not
    functions, aggregations or keywords."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r'\{[^}]*\}', '', e)
    e = re.sub(r'\[[^\]]*\]', '', e)
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    names = set()
    for m in re.finditer(r'(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?', e):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in PROMQL_WORDS:
            continue
        names.add(word)
    return names


def rules_exprs():
    """Returns ({expr, ...}, {recorded name, ...}) of the shipped rules."""
    exprs, recorded = [], set()
    for fn in ('idlepolicy-rules.yml', 'idlepolicy-alerts.yml'):
        with open(os.path.join(PROMETHEUS_DIR, fn), encoding='utf-8') as f:
            for group in yaml.safe_load(f)['groups']:
                for rule in group['rules']:
                    exprs.append(rule['expr'])
                    if 'record' in rule:
                        recorded.add(rule['record'])
    return exprs, recorded


def dashboard_queries():
    """Returns the dashboard's panel queries (Grafana's variables put in as
    PromQL) and the metric names of its template variables."""
    with open(DASHBOARD, encoding='utf-8') as f:
        dash = json.load(f)
    exprs = [t['expr'].replace('$__rate_interval', '5m').replace('$instance', '.*')
             for p in dash['panels'] for t in p.get('targets', [])]
    variables = set()
    for v in dash['templating']['list']:
        q = v['query']['query'] if isinstance(v['query'], dict) else v['query']
        m = re.fullmatch(r'label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*\w+\s*\)', q)
        assert m, f'template variable {v["name"]}: unexpected query {q!r}'
        variables.add(m.group(1))
    return exprs, variables


def promtool(*args, stdin=None):
    return subprocess.run(['promtool'] + list(args), input=stdin, capture_output=True, text=True,
                          timeout=60, check=False)


class MetricsTestCase(T.IdlePolicyTestCase):
    START_DAEMON = False

    def method_metrics(self, user=None):
        """Metrics() through busctl (as root, or as uid user)."""
        r = self.busctl('--json=short', 'call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Metrics', user=user)
        return json.loads(r.stdout)['data'][0]

    def ticks(self):
        """The daemon's ticks so far, from Metrics()."""
        return series(parse_exposition(self.method_metrics())[0], 'idlepolicy_tick_duration_seconds_count')

    def wait_ticks(self, n=2):
        """Waits until the daemon has ticked n more times (it has sampled
        what the tree says now)."""
        start = self.ticks()
        T.wait_for(lambda: self.ticks() >= start + n, what=f'{n} ticks')


class Metrics(MetricsTestCase):

    def odd_tree(self):
        """Renames state 2 of every CPU to a name that needs escaping."""
        for cpu in self.present_cpus():
            T.write(self.tree, T.state_file(cpu, 2, 'name'), ODD_STATE)

    def assert_promtool_clean(self, text, what):
        r = promtool('check', 'metrics', stdin=text)
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ''), f'promtool check metrics on {what}')

    def run_with_plans_and_calibration(self):
        """Starts the daemon, calibrates, holds a profile on CPU 1 with an
        odd application id, and lets every CPU get a plan."""
        signals = P.Signals(self, 'CalibrationFinished')
        self.start_daemon()
        self.call('Calibrate')
        got = signals.wait(what='CalibrationFinished')
        self.assertTrue(bool(got[0][0]), got)
        self.call('Hold', 'latency', '1', 'metrics test', ODD_APP_ID)
        with self.ticking():
            T.wait_for(lambda: all(self.cpu_prop(c, 'CapReason') != 'none' for c in self.online_cpus()),
                       what='a plan on every CPU')
        self.wait_ticks()

    def read_both(self):
        """Returns (Metrics() as nobody, idlepolicyctl metrics), read back
        to back until they agree outside the volatile families (a tick
        between the two reads may move a rate)."""
        for _ in range(5):
            method = self.method_metrics(user=T.NOBODY)
            ctl = self.ctl('metrics', 'prometheus', user=T.NOBODY).stdout
            if stable(parse_exposition(method)[0]) == stable(parse_exposition(ctl)[0]):
                return method, ctl
        self.fail(f'Metrics() and idlepolicyctl metrics never agreed:\n{method}\n----\n{ctl}')
        return None

    def test_exposition_matches_the_bus_and_promtool(self):
        self.odd_tree()
        self.run_with_plans_and_calibration()
        method, ctl = self.read_both()
        self.assert_promtool_clean(method, 'Metrics()')
        self.assert_promtool_clean(ctl, 'idlepolicyctl metrics')
        samples, families = parse_exposition(method)
        self.assertEqual(families['idlepolicy_cpuidle_state_usage_total'][0], 'counter')
        self.assertEqual(families['idlepolicy_tick_duration_seconds'][0], 'histogram')
        self.assertEqual(series(samples, 'idlepolicy_up'), 1)
        self.assertEqual(series(samples, 'idlepolicy_knobs_changed'), 0)
        self.assertEqual(series(samples, 'idlepolicy_holds'), 1)
        self.assertEqual(series(samples, 'idlepolicy_calibrated'), 1)
        self.assertGreaterEqual(series(samples, 'idlepolicy_calibration_age_seconds'), 0)
        self.assertGreaterEqual(series(samples, 'idlepolicy_tick_duration_seconds_count'), 1)
        self.assertEqual(series(samples, 'idlepolicy_tick_duration_seconds_bucket', le='+Inf'),
                         series(samples, 'idlepolicy_tick_duration_seconds_count'))
        self.assertEqual(series(samples, 'idlepolicy_mode_info', mode='observe'), 1)
        self.assertEqual(series(samples, 'idlepolicy_tick_interval_seconds'), T.TICK_USEC / 1e6)
        self.assertEqual(series(samples, 'idlepolicy_governor_info', governor='haltpoll', driver='haltpoll'), 1)
        # the odd names came through escaped and back
        self.assertEqual(series(samples, 'idlepolicy_cpuidle_state_exit_latency_seconds', cpu='0', state=ODD_STATE),
                         int(self.read(T.state_file(0, 2, 'latency'))) / 1e6)
        profile = [dict(ls) for (n, ls) in samples if n == 'idlepolicy_cpu_profile_info']
        self.assertIn({'cpu': '1', 'profile': 'latency', 'source': 'hold',
                       'origin': str(self.cpu_prop(1, 'ProfileSource'))}, profile)
        self.assertIn(ODD_APP_ID, str(self.cpu_prop(1, 'ProfileSource')))
        self.assertIn({'cpu': '0', 'profile': 'balanced', 'source': 'machine', 'origin': 'machine'}, profile)
        self.assert_agrees_with_properties()

    def consistent_read(self):
        """Metrics() and every online CPU's properties read between two
        equal reads of the properties: the tree no longer ticks, but the
        daemon does, and a tick may still move a plan (its hold ends)."""
        for _ in range(10):
            before = {cpu: self.cpu_props(cpu) for cpu in self.online_cpus()}
            samples, _families = parse_exposition(self.method_metrics())
            after = {cpu: self.cpu_props(cpu) for cpu in self.online_cpus()}
            if before == after:
                return samples, after
        self.fail('the CPU objects kept changing between reads')
        return None

    def assert_agrees_with_properties(self):
        """Every CPU's counters, costs, plan and calibration as the CPU
        objects show them, read consistently."""
        samples, all_props = self.consistent_read()
        for cpu, props in all_props.items():
            names = {int(k): str(n) for k, n, _d, _lat, _res, _dis, _def in props['States']}
            c = str(cpu)
            for k, usage, time_us, above, below, rejected in props['Counters']:
                st = names[int(k)]
                for family, value in (('usage_total', usage), ('above_total', above), ('below_total', below),
                                      ('rejected_total', rejected)):
                    self.assertEqual(series(samples, 'idlepolicy_cpuidle_state_' + family, cpu=c, state=st), value)
                self.assertAlmostEqual(series(samples, 'idlepolicy_cpuidle_state_time_seconds_total', cpu=c, state=st),
                                       time_us / 1e6, places=9)
            for k, advertised, measured, p99, _mis in props['Calibrated']:
                st = names[int(k)]
                self.assertAlmostEqual(series(samples, 'idlepolicy_cpuidle_state_exit_latency_seconds', cpu=c, state=st),
                                       advertised / 1e6, places=9)
                self.assertAlmostEqual(series(samples, 'idlepolicy_cpuidle_state_measured_exit_latency_seconds',
                                              cpu=c, state=st), measured / 1e6, places=9)
                self.assertAlmostEqual(series(samples, 'idlepolicy_cpuidle_state_measured_exit_latency_p99_seconds',
                                              cpu=c, state=st), p99 / 1e6, places=9)
            self.assertEqual(series(samples, 'idlepolicy_cpu_plan_cap_state', cpu=c), props['Cap'])
            self.assertEqual(series(samples, 'idlepolicy_cpu_plan_floor_state', cpu=c), props['Floor'])
            self.assertEqual(series(samples, 'idlepolicy_cpu_plan_info', cpu=c,
                                    cap_state=names[int(props['Cap'])], cap_reason=str(props['CapReason']),
                                    floor_state=names[int(props['Floor'])],
                                    floor_reason=str(props['FloorReason'])), 1)
        self.assertGreater(len(props['Calibrated']), 1)

    def test_openmetrics_by_default(self):
        """idlepolicyctl metrics prints OpenMetrics: the reference parser
        (prometheus_client's, strict) reads it, and it holds the samples
        of the Prometheus text, to the value."""
        try:
            from prometheus_client.openmetrics.parser import text_string_to_metric_families
        except ImportError:
            self.skipTest('python3-prometheus-client is not installed')
        self.odd_tree()
        self.run_with_plans_and_calibration()

        def read():
            prom, om = self.ctl('metrics', 'prometheus').stdout, self.ctl('metrics').stdout
            families = {f.name: f for f in text_string_to_metric_families(om)}
            parsed = {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families.values() for s in f.samples}
            want = {(n, tuple(sorted(pairs))): float(v) for (n, pairs), v in parse_exposition(prom)[0].items()}
            return om, families, parsed, want
        for _ in range(5):               # a tick between the two reads may move a rate
            om, families, parsed, want = read()
            if stable(parsed) == stable(want):
                break
        self.assertTrue(om.endswith('# EOF\n'), om[-200:])
        self.assertEqual(families['idlepolicy_cpuidle_state_usage'].type, 'counter')
        self.assertEqual(families['idlepolicy_tick_duration_seconds'].type, 'histogram')
        self.assertEqual(set(parsed), set(want))
        self.assertEqual(stable(parsed), stable(want))

    def test_rules_and_dashboard_use_emitted_names(self):
        self.run_with_plans_and_calibration()
        self.call('SetStateDisabled', U(0), 'C1', True)     # a knob changed, a write counted
        with self.ticking():                                 # util needs /proc/stat to move
            self.wait_ticks()
            samples, _ = parse_exposition(self.method_metrics())
        emitted = sample_names(samples)
        rule_exprs, recorded = rules_exprs()
        dash_exprs, variable_names = dashboard_queries()
        self.assertGreater(len(dash_exprs), 10)
        known = emitted | recorded | EXTERNAL_NAMES
        for expr in rule_exprs + dash_exprs:
            used = promql_names(expr)
            self.assertTrue(used, f'no metric name found in {expr!r}')
            self.assertEqual(used - known, set(), f'names the daemon does not emit in {expr!r}')
        self.assertEqual(variable_names - emitted, set())
        # the families the issue asks for are there
        for name in ('idlepolicy_cpuidle_state_usage_total', 'idlepolicy_cpuidle_state_time_seconds_total',
                     'idlepolicy_cpuidle_state_above_total', 'idlepolicy_cpuidle_state_below_total',
                     'idlepolicy_cpuidle_state_rejected_total', 'idlepolicy_cpuidle_state_exit_latency_seconds',
                     'idlepolicy_cpuidle_state_target_residency_seconds',
                     'idlepolicy_cpuidle_state_measured_exit_latency_seconds',
                     'idlepolicy_cpuidle_state_measured_target_residency_seconds',
                     'idlepolicy_cpu_plan_cap_state', 'idlepolicy_cpu_plan_floor_state', 'idlepolicy_cpu_plan_info',
                     'idlepolicy_cpu_profile_info', 'idlepolicy_cpu_utilization_ratio',
                     'idlepolicy_cpu_timer_wakeups_total', 'idlepolicy_cpu_other_wakeups_total',
                     'idlepolicy_haltpoll_window_seconds', 'idlepolicy_governor_info', 'idlepolicy_mode_info',
                     'idlepolicy_knobs_changed', 'idlepolicy_knob_writes_total', 'idlepolicy_calibration_age_seconds',
                     'idlepolicy_tick_duration_seconds_bucket', 'idlepolicy_pins', 'idlepolicy_holds'):
            self.assertIn(name, emitted)
        self.assertEqual(series(samples, 'idlepolicy_knobs_changed'), 1)
        self.assertGreaterEqual(series(samples, 'idlepolicy_knob_writes_total'), 1)
        self.assertEqual(series(samples, 'idlepolicy_cpuidle_state_disabled', cpu='0', state='C1'), 1)
        # every dashboard query is valid PromQL to promtool
        rules = os.path.join(self.tmp, 'dashboard-rules.yml')
        with open(rules, 'w', encoding='utf-8') as f:
            yaml.safe_dump({'groups': [{'name': 'dashboard', 'rules': [
                {'record': f'dashboard:query_{i}', 'expr': e} for i, e in enumerate(dash_exprs)]}]}, f)
        r = promtool('check', 'rules', rules)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_introspection(self):
        self.start_daemon()
        out = self.busctl('introspect', T.BUS_NAME, T.ROOT_PATH).stdout
        self.assertRegex(out, r'\.Metrics\s+method\s+-\s+s\s')

    def test_promql_names_finds_renamed_metrics(self):
        """The name check itself: a renamed metric is caught."""
        self.assertEqual(promql_names('sum by (instance, state) (rate(idlepolicy_x_total{state="POLL"}[5m]))'
                                      ' / on (instance) group_left (cpu) (idlepolicy_y > 0) or vector(1)'),
                         {'idlepolicy_x_total', 'idlepolicy_y'})
        self.assertEqual(promql_names('histogram_quantile(0.99, sum by (le) (rate(a_bucket[5m]))) * 1e6'),
                         {'a_bucket'})


class Companion(MetricsTestCase):
    """A kernel where wteo governs (observe mode: the daemon changes
    nothing): companion mode and each CPU's tolerance, promtool-clean."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'intel_idle', '--governor', 'wteo',
                 '--governors', 'menu teo', '--no-haltpoll', '--wteo']

    def test_companion_gauges(self):
        T.write(self.tree, f'{T.CPU_DIR}/cpu1/wteo/tolerance', '51')
        self.start_daemon()
        with self.ticking():
            self.wait_ticks()
        text = self.method_metrics()
        r = promtool('check', 'metrics', stdin=text)
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ''), 'promtool check metrics')
        samples, families = parse_exposition(text)
        self.assertEqual(families['idlepolicy_companion_mode'][0], 'gauge')
        self.assertEqual(series(samples, 'idlepolicy_companion_mode'), 1)
        self.assertEqual(series(samples, 'idlepolicy_cpu_wteo_tolerance_ratio', cpu='0'), 102 / 1024)
        self.assertEqual(series(samples, 'idlepolicy_cpu_wteo_tolerance_ratio', cpu='1'), 51 / 1024)
        self.assertEqual(series(samples, 'idlepolicy_knobs_changed'), 0)


class Textfile(MetricsTestCase):

    def setUp(self):
        super().setUp()
        self.prom_dir = os.path.join(self.tmp, 'node-exporter')
        self.prom = os.path.join(self.prom_dir, 'idlepolicy.prom')
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')

    def configure(self, every=1):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'metrics_textfile': self.prom, 'metrics_every_ticks': every}, f)

    def textfile(self):
        with open(self.prom, encoding='utf-8') as f:
            return f.read()

    def ticks_in_file(self):
        samples, _ = parse_exposition(self.textfile())
        return series(samples, 'idlepolicy_tick_duration_seconds_count')

    def assert_promtool_clean(self):
        r = promtool('check', 'metrics', stdin=self.textfile())
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ''))

    def test_written_again_and_rewritten_at_stop(self):
        os.mkdir(self.prom_dir)
        self.configure(every=2)
        old_umask = os.umask(0o077)              # the unit's UMask=
        try:
            self.start_daemon(extra=['--config', self.config])
        finally:
            os.umask(old_umask)
        T.wait_for(lambda: os.path.exists(self.prom), what='the textfile')
        first = self.ticks_in_file()
        T.wait_for(lambda: self.ticks_in_file() >= first + 4, what='the textfile to be written again')
        self.assert_promtool_clean()
        self.assertEqual(stat.S_IMODE(os.stat(self.prom).st_mode), 0o644, 'node_exporter must be able to read it')
        self.assertEqual(sorted(os.listdir(self.prom_dir)), ['idlepolicy.prom'], 'a temporary file was left')
        samples, _ = parse_exposition(self.textfile())
        self.assertEqual(series(samples, 'idlepolicy_up'), 1)
        # a knob changed by hand shows, and one that cannot be put back
        # stays counted after the stop
        self.call('SetStateDisabled', U(1), 'C1', True)
        T.wait_for(lambda: series(parse_exposition(self.textfile())[0], 'idlepolicy_knobs_changed') == 1,
                   what='the changed knob in the textfile')
        self.make_immutable(T.state_file(1, 1, 'disable'))
        self.assertNotEqual(self.stop_daemon(), 0)
        samples, families = parse_exposition(self.textfile())
        self.assertEqual({n for n, _ in samples}, {'idlepolicy_up', 'idlepolicy_build_info', 'idlepolicy_knobs_changed'})
        self.assertEqual(series(samples, 'idlepolicy_up'), 0)
        self.assertEqual(series(samples, 'idlepolicy_knobs_changed'), 1)
        self.assert_promtool_clean()
        self.assertEqual(sorted(os.listdir(self.prom_dir)), ['idlepolicy.prom'])
        # the next run puts it back; its clean stop says nothing is left
        subprocess.run(['chattr', '-i', os.path.join(self.tree, T.state_file(1, 1, 'disable'))], check=True)
        self.start_daemon(extra=['--config', self.config])
        self.assertEqual(self.read(T.state_file(1, 1, 'disable')), '0')
        T.wait_for(lambda: series(parse_exposition(self.textfile())[0], 'idlepolicy_up') == 1,
                   what='the textfile of the second run')
        self.assertEqual(self.stop_daemon(), 0)
        samples, _ = parse_exposition(self.textfile())
        self.assertEqual((series(samples, 'idlepolicy_up'), series(samples, 'idlepolicy_knobs_changed')), (0, 0))

    def test_write_failure_logged_once(self):
        self.configure(every=1)
        self.start_daemon(extra=['--config', self.config])
        T.wait_for(lambda: self.ticks() >= 5, what='five ticks')
        self.assertFalse(os.path.exists(self.prom))
        log = self.daemon.output()
        self.assertEqual(log.count('Failed to write the metrics textfile'), 1, log)
        os.mkdir(self.prom_dir)
        T.wait_for(lambda: os.path.exists(self.prom), what='the textfile once its directory exists')
        T.wait_for(lambda: 'Writing the metrics textfile' in self.daemon.output(), what='the recovery logged')
        self.assert_promtool_clean()
        self.assert_daemon_alive()

    def test_reload_moves_or_drops_the_textfile(self):
        """SIGHUP with another path: the old file goes, the new one is
        written at once; with none: the file goes (a file left saying up 1
        would keep a stale host in the fleet's view)."""
        os.mkdir(self.prom_dir)
        self.configure(every=1000)
        self.start_daemon(extra=['--config', self.config])
        T.wait_for(lambda: os.path.exists(self.prom), what='the textfile')
        old, self.prom = self.prom, os.path.join(self.prom_dir, 'idlepolicy-2.prom')
        self.configure(every=1000)
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: os.path.exists(self.prom) and not os.path.exists(old), what='the textfile moved')
        self.assert_promtool_clean()
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({}, f)
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: not os.path.exists(self.prom), what='the textfile removed')
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(os.listdir(self.prom_dir), [])

    def test_bad_textfile_key_refused(self):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'metrics_textfile': 'relative.prom'}, f)
        r = subprocess.run(self.daemon_argv(['--config', self.config]), capture_output=True, text=True,
                           env=self.env(), timeout=30, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('key "metrics_textfile": must be "" (none) or an absolute path ending in ".prom"', r.stderr)


if __name__ == '__main__':
    T.main()
