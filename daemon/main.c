/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "build-config.h"
#include "bus.h"
#include "bus-error.h"
#include "config.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "knob-cgroup.h"
#include "manager.h"

typedef struct Args {
        const char *config_path;
        const char *root;
        const char *runtime_dir;
        uint64_t tick_usec;
        const char *state_dir;
        const char *profile_dir;
        const char *profile_override_dir;
        const char *calibrate_helper;
        const char *cgroup_root;
        const char *pins_dir;
        int mode;                   /* a DaemonMode, or -1 */
} Args;

static void help(void) {
        printf("%s [OPTIONS...]\n\n"
               "Watches cpuidle and steers the kernel's idle knobs, putting them back on exit.\n\n"
               "  -h --help               Show this help\n"
               "     --version            Show the version\n"
               "     --config=FILE        Configuration file (default: %s)\n"
               "     --root=DIR           Read and write sys/ and proc/ under DIR (default: /)\n"
               "     --runtime-dir=DIR    Where the restore journal lives (default: %s)\n"
               "     --tick-usec=N        Sampling period in microseconds (%llu..%llu)\n"
               "     --state-dir=DIR      Where the profile, mode and calibration persist (default: %s)\n"
               "     --mode=MODE          Start in observe or enforce mode, whatever was saved\n"
               "     --profile-dir=DIR    Built-in profiles (default: %s/profiles)\n"
               "     --profile-override-dir=DIR\n"
               "                          Administrator's profiles (default: %s)\n"
               "     --calibrate-helper=PATH\n"
               "                          The measuring helper (default: %s)\n"
               "     --cgroup-root=DIR    The cgroup mount cgroup: pins are relative to\n"
               "                          (default: /sys/fs/cgroup)\n"
               "     --pins-dir=DIR       The administrator's pin rules (default: %s)\n",
               program_invocation_short_name, CONFIG_FILE, RUNTIME_DIR,
               CONFIG_TICK_USEC_MIN, CONFIG_TICK_USEC_MAX, STATE_DIR, PROFILE_DIR, PROFILE_OVERRIDE_DIR, CALIBRATE_PATH, PINS_DIR);
}

enum { ARG_VERSION = 0x100, ARG_TICK_USEC, ARG_MODE, ARG_STRING };

/* The options that only store their argument in Args. */
static const struct {
        const char *name;
        size_t offset;
} string_options[] = {
        { "config",               offsetof(Args, config_path)          },
        { "root",                 offsetof(Args, root)                 },
        { "runtime-dir",          offsetof(Args, runtime_dir)          },
        { "state-dir",            offsetof(Args, state_dir)            },
        { "profile-dir",          offsetof(Args, profile_dir)          },
        { "profile-override-dir", offsetof(Args, profile_override_dir) },
        { "calibrate-helper",     offsetof(Args, calibrate_helper)     },
        { "cgroup-root",          offsetof(Args, cgroup_root)          },
        { "pins-dir",             offsetof(Args, pins_dir)             },
};
#define N_STRING_OPTIONS (sizeof(string_options) / sizeof(string_options[0]))

static const struct option options[] = {
        { "help",                 no_argument,       NULL, 'h'            },
        { "version",              no_argument,       NULL, ARG_VERSION    },
        { "tick-usec",            required_argument, NULL, ARG_TICK_USEC  },
        { "mode",                 required_argument, NULL, ARG_MODE       },
        { "config",               required_argument, NULL, ARG_STRING + 0 },
        { "root",                 required_argument, NULL, ARG_STRING + 1 },
        { "runtime-dir",          required_argument, NULL, ARG_STRING + 2 },
        { "state-dir",            required_argument, NULL, ARG_STRING + 3 },
        { "profile-dir",          required_argument, NULL, ARG_STRING + 4 },
        { "profile-override-dir", required_argument, NULL, ARG_STRING + 5 },
        { "calibrate-helper",     required_argument, NULL, ARG_STRING + 6 },
        { "cgroup-root",          required_argument, NULL, ARG_STRING + 7 },
        { "pins-dir",             required_argument, NULL, ARG_STRING + 8 },
        {}
};

/* Handles option c.  Returns 1 to go on, 0 to exit successfully, or a
 * negative errno (logged). */
static int parse_option(int c, Args *a) {
        DaemonMode mode;

        if (c >= ARG_STRING && c < ARG_STRING + (int) N_STRING_OPTIONS) {
                *(const char **) ((char *) a + string_options[c - ARG_STRING].offset) = optarg;
                return 1;
        }
        switch (c) {
        case 'h':
                help();
                return 0;
        case ARG_VERSION:
                printf("idlepolicyd %s\n", PACKAGE_VERSION);
                return 0;
        case ARG_TICK_USEC:
                if (parse_u64(optarg, &a->tick_usec) < 0 ||
                    a->tick_usec < CONFIG_TICK_USEC_MIN || a->tick_usec > CONFIG_TICK_USEC_MAX)
                        return log_error_errno(EINVAL, "Invalid --tick-usec=%s: must be an integer between %llu and %llu.",
                                               optarg, CONFIG_TICK_USEC_MIN, CONFIG_TICK_USEC_MAX);
                return 1;
        case ARG_MODE:
                if (daemon_mode_from_string(optarg, &mode) < 0)
                        return log_error_errno(EINVAL, "Invalid --mode=%s: must be observe or enforce.", optarg);
                a->mode = (int) mode;
                return 1;
        case '?':
                return -EINVAL;
        default:
                return log_error_errno(EINVAL, "Unhandled option.");
        }
}

/* Returns 1 to run, 0 to exit successfully, or a negative errno (logged). */
static int parse_argv(int argc, char *argv[], Args *a) {
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                r = parse_option(c, a);
                if (r <= 0)
                        return r;
        }
        if (optind < argc)
                return log_error_errno(EINVAL, "%s takes no arguments.", program_invocation_short_name);
        return 1;
}

/* Checks the paths.  Returns 0 or a negative errno (logged). */
static int check_args(const Args *a, char **ret_root, char **ret_cgroup_root) {
        _cleanup_free_ char *root = realpath(a->root, NULL);
        struct stat st;

        if (!root)
                return log_error_errno(errno, "Failed to resolve root directory %s: %m", a->root);
        if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
                return log_error_errno(ENOTDIR, "Root %s is not a directory.", root);
        if (a->runtime_dir && a->runtime_dir[0] != '/')
                return log_error_errno(EINVAL, "--runtime-dir= must be an absolute path: %s", a->runtime_dir);
        if (a->state_dir && a->state_dir[0] != '/')
                return log_error_errno(EINVAL, "--state-dir= must be an absolute path: %s", a->state_dir);
        if (a->cgroup_root) {
                _cleanup_free_ char *cg = realpath(a->cgroup_root, NULL);
                KnobEnv env = KNOB_ENV_NULL;

                if (!cg || knob_env_set_cgroup_root(&env, cg) < 0)
                        return log_error_errno(EINVAL, "--cgroup-root= must name a directory other than /: %s",
                                               a->cgroup_root);
                knob_env_done(&env);
                *ret_cgroup_root = TAKE_PTR(cg);
        }
        if (strcmp(root, "/") != 0)
                log_info("Running on the tree under %s, not the real /sys.", root);
        *ret_root = TAKE_PTR(root);
        return 0;
}

/* Starts the manager and runs the loop (not when SIGTERM came during
 * start-up).  Knobs are put back whatever happened once the manager has
 * started.  Returns 0 or a negative errno. */
static int run(const Args *a, const char *root, const char *cgroup_root) {
        _cleanup_(manager_freep) Manager *m = NULL;
        ManagerOptions o = {
                .config_path = a->config_path,
                .root = root,
                .cgroup_root = cgroup_root,
                .runtime_dir = a->runtime_dir,
                .tick_usec = a->tick_usec,
                .state_dir = a->state_dir,
                .profile_dir = a->profile_dir,
                .profile_override_dir = a->profile_override_dir,
                .calibrate_helper = a->calibrate_helper,
                .pins_dir = a->pins_dir,
                .mode = a->mode,
                .connect_bus = bus_connect,
        };
        int r, q;

        r = manager_new(&o, &m);
        if (r < 0)
                return r;
        r = manager_start(m);
        if (r == 0) {
                (void) sd_notify(false, "READY=1\nSTATUS=Running.");
                r = sd_event_loop(m->event);
                if (r < 0)
                        log_error_errno(r, "Event loop failed: %m");
                else if (r > 0)
                        r = log_error_errno(ECONNRESET, "Lost the connection to the bus, exiting.");
        }
        (void) sd_notify(false, "STOPPING=1\nSTATUS=Putting the knobs back...");
        q = manager_stop(m);
        return r < 0 ? r : q;
}

/* The sampler would keep an fd per counter file (about six per CPU and
 * state: 62 000 on 1024 CPUs with 10 states), far above the usual soft
 * limit of 1024: raise the soft limit to the hard one.  The sampler holds
 * what the limit allows less a reserve (sampling_fd_budget()) and opens the
 * other files at each read. */
static void raise_nofile_limit(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
                return;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_warning_errno(errno, "Failed to raise the open file limit: %m, ignoring");
}

int main(int argc, char *argv[]) {
        _cleanup_free_ char *root = NULL, *cgroup_root = NULL;
        Args a = { .root = "/", .mode = -1 };
        sigset_t mask;
        int r;

        r = parse_argv(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        r = check_args(&a, &root, &cgroup_root);
        if (r < 0)
                return EXIT_FAILURE;
        raise_nofile_limit();
        r = bus_error_register_map();
        if (r < 0) {
                log_error_errno(r, "Failed to register the D-Bus error map: %m");
                return EXIT_FAILURE;
        }
        /* Signals are handled by the event loop (signalfd): block them first. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        (void) sigprocmask(SIG_BLOCK, &mask, NULL);
        r = run(&a, root, cgroup_root);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
