/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicyctl: command line, dispatch to the commands in ctl-*.c. */
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "build-config.h"
#include "ctl.h"

/* The options a command accepts besides --json and --no-ask-password. */
enum {
        OPT_CPU     = 1u << 0,       /* --cpu */
        OPT_CPUS    = 1u << 1,       /* --cpus */
        OPT_PROFILE = 1u << 2,       /* --profile */
        OPT_REASON  = 1u << 3,       /* --reason */
        OPT_APP_ID  = 1u << 4,       /* --app-id */
};

#define ARGS_ANY UINT32_MAX

typedef struct Verb {
        const char *name;
        unsigned min_args, max_args;
        unsigned options;            /* OPT_* */
        int (*run)(Ctl *c, char **args);
} Verb;

static const Verb verbs[] = {
        { "status",         0, 0, 0,       ctl_cmd_status },
        { "governor",       0, 1, 0,       ctl_cmd_governor },
        { "state",          2, 2, OPT_CPU, ctl_cmd_state },
        { "resume-latency", 1, 1, OPT_CPU, ctl_cmd_resume_latency },
        { "latency-limit",  1, 1, OPT_CPU, ctl_cmd_latency_limit },
        { "restore",        0, 0, 0,       ctl_cmd_restore },
        { "profile",        0, 1, 0,       ctl_cmd_profile },
        { "mode",           0, 1, 0,       ctl_cmd_mode },
        { "calibrate",      0, 0, 0,       ctl_cmd_calibrate },
        { "monitor",        0, 0, 0,       ctl_cmd_monitor },
        { "weights",        0, 0, OPT_CPU, ctl_cmd_weights },
        { "pin",            1, 1, OPT_CPUS | OPT_PROFILE | OPT_REASON, ctl_cmd_pin },
        { "unpin",          1, 1, 0,       ctl_cmd_unpin },
        { "pins",           0, 0, 0,       ctl_cmd_pins },
        { "hold",           1, 1, OPT_CPUS | OPT_REASON | OPT_APP_ID, ctl_cmd_hold },
        { "launch",         1, ARGS_ANY, OPT_CPUS | OPT_PROFILE | OPT_REASON | OPT_APP_ID, ctl_cmd_launch },
        { "__complete",     1, 1, 0,       ctl_cmd_complete },       /* for shell completion, not in --help */
        { "metrics",        0, 1, 0,       ctl_cmd_metrics },
        { "consolidate",    0, 1, 0,       ctl_cmd_consolidate },
};

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_ASK_PASSWORD,
        ARG_CPUS,
        ARG_PROFILE,
        ARG_REASON,
        ARG_APP_ID,
};

static void help(void) {
        printf("Usage: idlepolicyctl [OPTIONS] COMMAND [ARGS]\n"
               "\n"
               "Query and steer idlepolicyd, the cpuidle policy daemon.\n"
               "\n"
               "Commands:\n"
               "  status                         per-CPU idle states, shares, misses, wakeups, the plan (default)\n"
               "  governor [NAME]                show the cpuidle governor, or switch to NAME\n"
               "  state enable|disable STATE     enable/disable an idle state (by name or index)\n"
               "  resume-latency USEC|n/a        set the PM QoS resume latency (0 = no constraint)\n"
               "  latency-limit USEC             disable the states above USEC exit latency (cpupower idle-set -D)\n"
               "  restore                        put every knob the daemon changed back\n"
               "  profile [NAME]                 list the profiles (* = active), or switch to NAME\n"
               "  mode [observe|enforce]         show the mode, or switch it\n"
               "  calibrate                      measure every idle state's real wakeup cost (takes a while)\n"
               "  monitor                        live view, redrawn every tick until Ctrl-C\n"
               "  weights --cpu N                the model's weight matrix of CPU N\n"
               "  pin TARGET --profile NAME      pin pid:N, cgroup:PATH, unit:NAME, exe:PATH or comm:NAME to --cpus\n"
               "  unpin PIN|ID                   end a pin (its object path or number)\n"
               "  pins                           list the pins and the holds\n"
               "  hold PROFILE                   hold a profile (on --cpus) until Ctrl-C\n"
               "  launch --profile NAME -- CMD   run CMD pinned to --cpus with NAME, holding it\n"
               "  consolidate [0|1|2]            show the consolidation (set, utilisation, why), or set its level\n"
               "  metrics [FORMAT]               the daemon's metrics: openmetrics (default) or prometheus\n"
               "  record --seconds N --output F  record idle intervals from tracefs (idlepolicy-record(8))\n"
               "  simulate ARGS...               replay traces or workloads through governors (idlepolicy-sim(1))\n"
               "\n"
               "Options:\n"
               "  -c --cpu=LIST                  CPUs for state/resume-latency/latency-limit: \"0-3,5\" or\n"
               "                                 \"all\"\n"
               "                                 (default: all online CPUs); one CPU for weights\n"
               "     --cpus=LIST                 pin/hold/launch: the CPUs (default: the workload's;\n"
               "                                 a hold: all)\n"
               "     --profile=NAME              pin/launch: the profile\n"
               "     --reason=TEXT               pin/hold/launch: why, shown in status\n"
               "     --app-id=ID                 hold/launch: the application holding\n"
               "     --json                      print machine-readable JSON\n"
               "     --no-ask-password           do not ask for polkit authentication\n"
               "  -h --help                      show this help\n"
               "     --version                   show the version\n"
               "\n"
               "See idlepolicyctl(1).\n");
}

int ctl_usage_error(const char *fmt, ...) {
        va_list ap;

        fputs("idlepolicyctl: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("\nTry 'idlepolicyctl --help' for more information.\n", stderr);
        return CTL_EXIT_USAGE;
}

/* Parses the options into c.  Returns -1 to go on, or an exit status. */
static int parse_argv(int argc, char **argv, Ctl *c) {
        static const struct option options[] = {
                { "cpu",             required_argument, NULL, 'c' },
                { "cpus",            required_argument, NULL, ARG_CPUS },
                { "profile",         required_argument, NULL, ARG_PROFILE },
                { "reason",          required_argument, NULL, ARG_REASON },
                { "app-id",          required_argument, NULL, ARG_APP_ID },
                { "json",            no_argument,       NULL, ARG_JSON },
                { "no-ask-password", no_argument,       NULL, ARG_NO_ASK_PASSWORD },
                { "help",            no_argument,       NULL, 'h' },
                { "version",         no_argument,       NULL, ARG_VERSION },
                {}
        };
        int opt;

        opterr = 0;
        while ((opt = getopt_long(argc, argv, ":c:h", options, NULL)) >= 0)
                switch (opt) {
                case 'c': c->cpu_list = optarg; break;
                case ARG_CPUS: c->cpus = optarg; break;
                case ARG_PROFILE: c->profile = optarg; break;
                case ARG_REASON: c->reason = optarg; break;
                case ARG_APP_ID: c->app_id = optarg; break;
                case ARG_JSON: c->json = true; break;
                case ARG_NO_ASK_PASSWORD: c->ask_password = false; break;
                case 'h': help(); return CTL_EXIT_OK;
                case ARG_VERSION: printf("idlepolicyctl %s\n", PACKAGE_VERSION); return CTL_EXIT_OK;
                case ':': return ctl_usage_error("option '%s' needs an argument", argv[optind - 1]);
                default: return ctl_usage_error("unknown option '%s'", argv[optind - 1]);
                }
        return -1;
}

static const Verb *verb_find(const char *name) {
        for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
                if (strcmp(verbs[i].name, name) == 0)
                        return &verbs[i];
        return NULL;
}

/* Checks the words after the command against v.  Returns 0 or CTL_EXIT_USAGE. */
static int verb_check(const Verb *v, const Ctl *c, int n_args) {
        static const struct {
                unsigned option;
                const char *name;
                size_t offset;
        } given[] = {
                { OPT_CPU,     "--cpu",     offsetof(Ctl, cpu_list) },
                { OPT_CPUS,    "--cpus",    offsetof(Ctl, cpus) },
                { OPT_PROFILE, "--profile", offsetof(Ctl, profile) },
                { OPT_REASON,  "--reason",  offsetof(Ctl, reason) },
                { OPT_APP_ID,  "--app-id",  offsetof(Ctl, app_id) },
        };

        for (size_t i = 0; i < ELEMENTSOF(given); i++)
                if (*(const char *const *) ((const char *) c + given[i].offset) && !(v->options & given[i].option))
                        return ctl_usage_error("'%s' does not take %s", v->name, given[i].name);
        if ((unsigned) n_args < v->min_args)
                return ctl_usage_error("'%s' needs %u argument%s", v->name, v->min_args,
                                       v->min_args == 1 ? "" : "s");
        if ((unsigned) n_args > v->max_args)
                return ctl_usage_error("too many arguments for '%s'", v->name);
        return 0;
}

int main(int argc, char **argv) {
        Ctl c = CTL_NULL;
        const Verb *v;
        int r;

        r = ctl_exec_verb(argc, argv);
        if (r >= 0)
                return r;
        r = parse_argv(argc, argv, &c);
        if (r >= 0)
                return r;
        v = verb_find(optind < argc ? argv[optind] : "status");
        if (!v)
                return ctl_usage_error("unknown command '%s'", argv[optind]);
        r = verb_check(v, &c, optind < argc ? argc - optind - 1 : 0);
        if (r != 0)
                return r;
        r = v->run(&c, optind < argc ? argv + optind + 1 : argv + argc);
        sd_bus_flush_close_unref(c.bus);
        return r;
}
