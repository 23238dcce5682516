/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicyctl: command line, dispatch to the commands in ctl-*.c. */
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "build-config.h"
#include "ctl-help.h"
#include "ctl-suggest.h"
#include "ctl.h"

/* The options a command accepts besides --json and --no-ask-password. */
enum {
        OPT_CPU      = 1u << 0,       /* --cpu */
        OPT_CPUS     = 1u << 1,       /* --cpus */
        OPT_PROFILE  = 1u << 2,       /* --profile */
        OPT_REASON   = 1u << 3,       /* --reason */
        OPT_APP_ID   = 1u << 4,       /* --app-id */
        OPT_DRY_RUN  = 1u << 5,       /* --dry-run */
        OPT_INTERVAL = 1u << 6,       /* --interval */
};

#define ARGS_ANY UINT32_MAX

typedef struct Verb {
        const char *name;
        unsigned min_args, max_args;
        unsigned options;            /* OPT_* */
        int (*run)(Ctl *c, char **args);
} Verb;

static int ctl_cmd_help(Ctl *c, char **args);

/* Every command here has its page in ctl-help.c (record and simulate are
 * ctl-exec.c's); __complete is for shell completion, not in --help. */
static const Verb verbs[] = {
        { "status",         0, 0, OPT_INTERVAL, ctl_cmd_status },
        { "idle-info",      0, 0, OPT_CPU, ctl_cmd_idle_info },
        { "governor",       0, 1, 0,       ctl_cmd_governor },
        { "state",          2, 2, OPT_CPU, ctl_cmd_state },
        { "resume-latency", 1, 1, OPT_CPU, ctl_cmd_resume_latency },
        { "latency-limit",  1, 1, OPT_CPU, ctl_cmd_latency_limit },
        { "restore",        0, 0, 0,       ctl_cmd_restore },
        { "profile",        0, 1, OPT_DRY_RUN, ctl_cmd_profile },
        { "mode",           0, 1, 0,       ctl_cmd_mode },
        { "calibrate",      0, 0, 0,       ctl_cmd_calibrate },
        { "monitor",        0, 0, 0,       ctl_cmd_monitor },
        { "weights",        0, 0, OPT_CPU, ctl_cmd_weights },
        { "pin",            1, 1, OPT_CPUS | OPT_PROFILE | OPT_REASON, ctl_cmd_pin },
        { "unpin",          1, 1, 0,       ctl_cmd_unpin },
        { "pins",           0, 0, 0,       ctl_cmd_pins },
        { "hold",           1, 1, OPT_CPUS | OPT_REASON | OPT_APP_ID, ctl_cmd_hold },
        { "launch",         1, ARGS_ANY, OPT_CPUS | OPT_PROFILE | OPT_REASON | OPT_APP_ID, ctl_cmd_launch },
        { "__complete",     1, 1, 0,       ctl_cmd_complete },
        { "metrics",        0, 1, 0,       ctl_cmd_metrics },
        { "consolidate",    0, 1, 0,       ctl_cmd_consolidate },
        { "help",           0, 1, 0,       ctl_cmd_help },
};

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_ASK_PASSWORD,
        ARG_CPUS,
        ARG_PROFILE,
        ARG_REASON,
        ARG_APP_ID,
        ARG_DRY_RUN,
        ARG_INTERVAL,
};

static const struct option options[] = {
        { "cpu",             required_argument, NULL, 'c' },
        { "cpus",            required_argument, NULL, ARG_CPUS },
        { "profile",         required_argument, NULL, ARG_PROFILE },
        { "reason",          required_argument, NULL, ARG_REASON },
        { "app-id",          required_argument, NULL, ARG_APP_ID },
        { "dry-run",         no_argument,       NULL, ARG_DRY_RUN },
        { "interval",        required_argument, NULL, ARG_INTERVAL },
        { "json",            no_argument,       NULL, ARG_JSON },
        { "no-ask-password", no_argument,       NULL, ARG_NO_ASK_PASSWORD },
        { "help",            no_argument,       NULL, 'h' },
        { "version",         no_argument,       NULL, ARG_VERSION },
        {}
};

/* The command being run, for the hint after a usage error. */
static const char *current_verb;

int ctl_usage_error(const char *fmt, ...) {
        va_list ap;

        fputs("idlepolicyctl: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        if (current_verb)
                fprintf(stderr, "\nTry 'idlepolicyctl %s --help' for more information.\n", current_verb);
        else
                fputs("\nTry 'idlepolicyctl --help' for more information.\n", stderr);
        return CTL_EXIT_USAGE;
}

/* "unknown option '--jsno'", with the long option it most likely meant. */
static int unknown_option(const char *arg) {
        const char *names[ELEMENTSOF(options)] = {};
        char word[64];
        const char *guess;

        snprintf(word, sizeof(word), "%s", arg + strspn(arg, "-"));
        word[strcspn(word, "=")] = '\0';
        for (size_t i = 0; options[i].name; i++)
                names[i] = options[i].name;
        guess = arg[0] == '-' && arg[1] == '-' ? ctl_suggest(word, names, ELEMENTSOF(options)) : NULL;
        if (guess)
                return ctl_usage_error("unknown option '%s'; did you mean '--%s'?", arg, guess);
        return ctl_usage_error("unknown option '%s'", arg);
}

/* Parses the options into c.  Returns -1 to go on, or an exit status. */
static int parse_argv(int argc, char **argv, Ctl *c) {
        int opt;

        opterr = 0;
        while ((opt = getopt_long(argc, argv, ":c:h", options, NULL)) >= 0)
                switch (opt) {
                case 'c': c->cpu_list = optarg; break;
                case ARG_CPUS: c->cpus = optarg; break;
                case ARG_PROFILE: c->profile = optarg; break;
                case ARG_REASON: c->reason = optarg; break;
                case ARG_APP_ID: c->app_id = optarg; break;
                case ARG_DRY_RUN: c->dry_run = true; break;
                case ARG_INTERVAL: c->interval = optarg; break;
                case ARG_JSON: c->json = true; break;
                case ARG_NO_ASK_PASSWORD: c->ask_password = false; break;
                case 'h': c->help = true; break;
                case ARG_VERSION: printf("idlepolicyctl %s\n", PACKAGE_VERSION); return CTL_EXIT_OK;
                case ':': return ctl_usage_error("option '%s' needs an argument", argv[optind - 1]);
                default: return unknown_option(argv[optind - 1]);
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
                { OPT_INTERVAL, "--interval", offsetof(Ctl, interval) },
        };

        for (size_t i = 0; i < ELEMENTSOF(given); i++)
                if (*(const char *const *) ((const char *) c + given[i].offset) && !(v->options & given[i].option))
                        return ctl_usage_error("'%s' does not take %s", v->name, given[i].name);
        if (c->dry_run && !(v->options & OPT_DRY_RUN))
                return ctl_usage_error("'%s' does not take --dry-run", v->name);
        if ((unsigned) n_args < v->min_args)
                return ctl_usage_error("'%s' needs %u argument%s", v->name, v->min_args,
                                       v->min_args == 1 ? "" : "s");
        if ((unsigned) n_args > v->max_args)
                return ctl_usage_error("too many arguments for '%s'", v->name);
        return 0;
}

/* "help [COMMAND]". */
static int ctl_cmd_help(Ctl *c, char **args) {
        const CtlVerbHelp *h;
        const char *guess;

        if (!args[0]) {
                ctl_help_print_all();
                return CTL_EXIT_OK;
        }
        h = ctl_help_find(args[0]);
        if (h) {
                ctl_help_print_verb(h);
                return CTL_EXIT_OK;
        }
        guess = ctl_help_suggest(args[0]);
        if (guess)
                return ctl_usage_error("no command '%s'; did you mean '%s'?", args[0], guess);
        return ctl_usage_error("no command '%s' (see 'idlepolicyctl help')", args[0]);
}

/* "unknown command 'stauts'", with the command it most likely meant. */
static int unknown_command(const char *name) {
        const char *guess = ctl_help_suggest(name);

        if (guess)
                return ctl_usage_error("unknown command '%s'; did you mean '%s'?", name, guess);
        return ctl_usage_error("unknown command '%s' (see 'idlepolicyctl help')", name);
}

int main(int argc, char **argv) {
        Ctl c = CTL_NULL;

        c.error_hint = ctl_hint_from_daemon;
        const char *name;
        const Verb *v;
        int r;

        r = ctl_exec_verb(argc, argv);
        if (r >= 0)
                return r;
        r = parse_argv(argc, argv, &c);
        if (r >= 0)
                return r;
        name = optind < argc ? argv[optind] : NULL;
        if (c.help)
                return ctl_cmd_help(&c, (char *[]) { (char *) name, NULL });
        v = verb_find(name ? name : "status");
        if (!v)
                return unknown_command(name);
        current_verb = v->run == ctl_cmd_help ? NULL : v->name;
        r = verb_check(v, &c, optind < argc ? argc - optind - 1 : 0);
        if (r != 0)
                return r;
        r = v->run(&c, optind < argc ? argv + optind + 1 : argv + argc);
        sd_bus_flush_close_unref(c.bus);
        return r;
}
