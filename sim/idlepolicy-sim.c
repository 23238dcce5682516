/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-sim: replays traces or synthetic workloads through simulated
 * idle governors and reports how close each comes to the oracle. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "fileio.h"
#include "sim-cli.h"
#include "sim-util.h"

#define DEFAULT_INTERVALS 200000

enum {
        ARG_TABLES_DIR = 0x100,
        ARG_LATENCY_LIMIT,
        ARG_DISABLE,
        ARG_PER_STATE,
        ARG_BENCH,
        ARG_LIST,
        ARG_DUMP_INTERVALS,
        ARG_CALIBRATION,
        ARG_VERSION,
};

static void help(void) {
        printf("Usage: idlepolicy-sim (--workload SPEC | --trace FILE)... --table NAME|FILE|all\n"
               "                      [--governor NAME[,NAME...]|all] [OPTIONS]\n\n"
               "Replays idle periods through simulated cpuidle governors.\n\n"
               "  -w, --workload SPEC       synthetic workload NAME[:KEY=VALUE,...] (or all)\n"
               "  -t, --trace FILE          a trace recorded by idlepolicyctl record\n"
               "  -T, --table NAME|FILE     state table(s), comma-separated, or all\n"
               "  -g, --governor LIST       governors, comma-separated, or all (default)\n"
               "  -s, --seed N              workload and governor seed (default 1)\n"
               "  -n, --intervals N         idle periods per workload (default %d)\n"
               "  -P, --param KEY=VALUE     governor parameter (see idlepolicy-sim(1))\n"
               "      --latency-limit US    latency constraint in µs (default none)\n"
               "      --disable STATE       disable a state by name or index (repeatable)\n"
               "      --tables-dir DIR      where NAME.table files are (default %s)\n"
               "      --calibration FILE    real costs from idlepolicyd's calibration.json (a trace\n"
               "                            recorded here carries the advertised ones)\n"
               "  -j, --json                JSON instead of markdown\n"
               "      --per-state           add the per-state tables to the markdown\n"
               "      --bench               time the replays instead of reporting quality\n"
               "      --list                list tables, workloads and governors\n"
               "      --dump-intervals      print the idle periods instead (no table needed)\n"
               "  -h, --help                this text\n"
               "      --version             the version\n",
               DEFAULT_INTERVALS, SIM_TABLES_DIR);
}

static int usage_error(const char *what, const char *arg) {
        fprintf(stderr, "idlepolicy-sim: %s: %s (see --help)\n", what, arg);
        return -EINVAL;
}

static int parse_size(const char *arg, uint64_t max, uint64_t *ret) {
        uint64_t v;

        if (parse_u64(arg, &v) < 0 || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_param(CliOptions *o, char *arg) {
        char *eq = strchr(arg, '=');
        int r;

        if (!eq)
                return usage_error("expected KEY=VALUE", arg);
        *eq = '\0';
        r = gov_params_set(&o->run.params, arg, eq + 1);
        *eq = '=';
        if (r == -ENOENT)
                return usage_error("unknown governor parameter", arg);
        return r < 0 ? usage_error("bad governor parameter value", arg) : 0;
}

static int parse_value_option(CliOptions *o, int c, char *arg) {
        uint64_t v;

        switch (c) {
        case 's':
                if (parse_size(arg, UINT64_MAX, &o->seed) < 0)
                        return usage_error("bad seed", arg);
                o->run.params.seed = o->seed;
                return 0;
        case 'n':
                if (parse_size(arg, 1000000000, &v) < 0 || v == 0)
                        return usage_error("bad interval count", arg);
                o->intervals = (size_t) v;
                return 0;
        case 'P':
                return parse_param(o, arg);
        case ARG_LATENCY_LIMIT:
                if (parse_size(arg, UINT64_MAX / 1000, &v) < 0)
                        return usage_error("bad latency limit", arg);
                o->run.latency_limit_ns = v * 1000;
                return 0;
        case ARG_TABLES_DIR:
                o->tables_dir = arg;
                return 0;
        case ARG_CALIBRATION:
                o->calibration = arg;
                return 0;
        }
        return -EINVAL;
}

static int parse_option(CliOptions *o, int c, char *arg) {
        switch (c) {
        case 'w':
                return cli_list_add(&o->workloads, arg);
        case 't':
                return cli_list_add(&o->traces, arg);
        case 'T':
                return cli_list_add(&o->tables, arg);
        case 'g':
                return cli_list_add(&o->governors, arg);
        case ARG_DISABLE:
                return cli_list_add(&o->disable, arg);
        case 'j':
                o->json = true;
                return 0;
        case ARG_PER_STATE:
                o->per_state = true;
                return 0;
        case ARG_BENCH:
                o->bench = true;
                return 0;
        case ARG_LIST:
                o->list = true;
                return 0;
        case ARG_DUMP_INTERVALS:
                o->dump_intervals = true;
                return 0;
        }
        return parse_value_option(o, c, arg);
}

/* Returns 1 to run, 0 to exit successfully (help, version), or -EINVAL. */
static int parse_argv(int argc, char *argv[], CliOptions *o) {
        static const struct option options[] = {
                { "workload", required_argument, NULL, 'w' },
                { "trace", required_argument, NULL, 't' },
                { "table", required_argument, NULL, 'T' },
                { "governor", required_argument, NULL, 'g' },
                { "seed", required_argument, NULL, 's' },
                { "intervals", required_argument, NULL, 'n' },
                { "param", required_argument, NULL, 'P' },
                { "latency-limit", required_argument, NULL, ARG_LATENCY_LIMIT },
                { "disable", required_argument, NULL, ARG_DISABLE },
                { "tables-dir", required_argument, NULL, ARG_TABLES_DIR },
                { "calibration", required_argument, NULL, ARG_CALIBRATION },
                { "json", no_argument, NULL, 'j' },
                { "per-state", no_argument, NULL, ARG_PER_STATE },
                { "bench", no_argument, NULL, ARG_BENCH },
                { "list", no_argument, NULL, ARG_LIST },
                { "dump-intervals", no_argument, NULL, ARG_DUMP_INTERVALS },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "w:t:T:g:s:n:P:jh", options, NULL)) >= 0) {
                if (c == 'h') {
                        help();
                        return 0;
                }
                if (c == ARG_VERSION) {
                        printf("idlepolicy-sim %s\n", PACKAGE_VERSION);
                        return 0;
                }
                if (c == '?' || parse_option(o, c, optarg) < 0)
                        return -EINVAL;
        }
        if (optind < argc)
                return usage_error("unexpected argument", argv[optind]);
        return 1;
}

static int check_options(const CliOptions *o) {
        if (o->list)
                return 0;
        if (o->workloads.n + o->traces.n == 0)
                return usage_error("nothing to replay", "give --workload or --trace");
        if (o->dump_intervals && o->bench)
                return usage_error("one of", "--dump-intervals or --bench");
        if (o->tables.n == 0 && o->workloads.n > 0 && !o->dump_intervals)
                return usage_error("no state table", "give --table (or --table all)");
        if (!gov_params_ranges_valid(&o->run.params))
                return usage_error("bad governor parameter value", "floor is above cap (or floor2 above cap2)");
        return 0;
}

int main(int argc, char *argv[]) {
        _cleanup_(cli_inputs_done) CliInputs in = {};
        CliOptions o = {
                .seed = 1,
                .intervals = DEFAULT_INTERVALS,
        };
        int r;

        sim_run_config_init(&o.run);
        r = parse_argv(argc, argv, &o);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        /* Without --tables-dir, the installed tables; not installed (run
         * from the build tree), the source tree's, as idlepolicyctl finds
         * this binary next to itself. */
        if (!o.tables_dir)
                o.tables_dir = access(SIM_TABLES_DIR, F_OK) < 0 && access(SIM_SOURCE_TABLES_DIR, F_OK) == 0 ?
                               SIM_SOURCE_TABLES_DIR : SIM_TABLES_DIR;
        if (check_options(&o) < 0)
                return 2;
        if (o.list)
                return cli_list_all(&o) < 0 ? 1 : 0;
        r = cli_inputs_load(&o, &in);
        if (r < 0)
                return r == -EINVAL ? 2 : 1;
        if (o.dump_intervals)
                r = cli_dump_intervals(&in, stdout);
        else
                r = o.bench ? cli_run_bench(&o, &in) : cli_run_matrix(&o, &in);
        return r < 0 ? 1 : 0;
}
