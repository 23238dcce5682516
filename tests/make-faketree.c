/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* make-faketree: builds and changes fake sysfs/procfs trees for the
 * integration tests and the benchmark (see faketree.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpuset.h"
#include "faketree.h"
#include "fileio.h"

static void help(void) {
        printf("Usage:\n"
               "  make-faketree DIR [OPTIONS]               create a fake tree in DIR (made if missing;\n"
               "                                            an earlier fake tree there is replaced)\n"
               "  make-faketree DIR --tick                  advance the counters by the time since the\n"
               "                                            previous --tick (1 s the first time): usage,\n"
               "                                            time (70%% of it), above, below, proc/stat,\n"
               "                                            proc/interrupts; rates stay realistic at any pace\n"
               "  make-faketree DIR --advance-usec N        advance the counters by exactly N us\n"
               "  make-faketree DIR --set-offline LIST      take CPUs offline (cpuidle and topology dirs go)\n"
               "  make-faketree DIR --set-online LIST       bring CPUs back online\n"
               "  make-faketree DIR --switch-governor NAME  switch the governor: per-CPU cpuidle dirs are\n"
               "                                            recreated (open fds go stale), counters kept\n"
               "  make-faketree DIR --follow-governor       until killed, every 2 ms: make or remove the\n"
               "                                            cpuN/wteo dirs as the kernel does when someone\n"
               "                                            writes current_governor (a plain directory\n"
               "                                            cannot react to the write by itself)\n"
               "  make-faketree DIR --latency-request USEC  the CPU latency request dev/cpu_dma_latency\n"
               "                                            reads (2000000000: none)\n"
               "  make-faketree DIR --latency-hold PID:COMM add a process PID named COMM holding\n"
               "                                            dev/cpu_dma_latency open (proc/PID/fd/3)\n"
               "  make-faketree DIR --latency-release PID   remove process PID (its proc/PID)\n"
               "\n"
               "Options when creating:\n"
               "  --cpus N           present CPUs (default 2)\n"
               "  --states K         K states: POLL plus C1..C{K-1} (default: this VM's POLL and\n"
               "                     \"haltpoll idle\")\n"
               "  --smt N            threads per core (default 1)\n"
               "  --driver NAME      cpuidle driver (default haltpoll; \"none\": no per-CPU cpuidle dirs)\n"
               "  --governor NAME    current governor (default haltpoll)\n"
               "  --governors LIST   available governors, space separated (default \"ladder menu haltpoll\")\n"
               "  --offline LIST     CPUs offline from the start, kernel list syntax (\"1,3-4\")\n"
               "  --no-haltpoll      no sys/module/haltpoll/parameters\n"
               "  --old-kernel       states without above, below, rejected, default_status\n"
               "  --wteo             offer the wteo governor: listed, sys/module/wteo/parameters, and\n"
               "                     cpuN/wteo/{tolerance,matrix} while it is the governor\n"
               "\n"
               "The tree holds sys/devices/system/cpu/..., sys/module/haltpoll/parameters/...,\n"
               "proc/stat, proc/interrupts, dev/cpu_dma_latency and a model file .faketree.  Counter files are\n"
               "rewritten in place, like sysfs.  DIR may not be / or hold a real sysfs/procfs.\n");
}

typedef enum Command {
        COMMAND_CREATE,
        COMMAND_TICK,
        COMMAND_ADVANCE,
        COMMAND_OFFLINE,
        COMMAND_ONLINE,
        COMMAND_SWITCH,
        COMMAND_FOLLOW,
        COMMAND_LATENCY,
        COMMAND_HOLD,
        COMMAND_RELEASE,
} Command;

typedef struct Args {
        const char *dir;
        Command command;
        const char *arg;            /* LIST or NAME of the command */
        uint64_t usec;              /* --advance-usec */
        FakeTreeOptions options;
} Args;

static int parse_unsigned(const char *s, unsigned max, unsigned *ret) {
        uint32_t v;

        if (parse_u32(s, &v) < 0 || v > max) {
                fprintf(stderr, "make-faketree: invalid number \"%s\"\n", s);
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

static int parse_usec(const char *s, uint64_t *ret) {
        if (parse_u64(s, ret) < 0 || *ret > UINT64_C(1) << 40) {
                fprintf(stderr, "make-faketree: invalid number of microseconds \"%s\"\n", s);
                return -EINVAL;
        }
        return 0;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* Sets the command, refusing a second one.  Returns 0 or -EINVAL. */
static int set_command(Args *a, Command c, const char *arg) {
        if (a->command != COMMAND_CREATE) {
                fprintf(stderr, "make-faketree: only one of --tick, --advance-usec, --set-offline, --set-online, --switch-governor, "
                                "--follow-governor, --latency-request, --latency-hold, --latency-release\n");
                return -EINVAL;
        }
        a->command = c;
        a->arg = arg;
        return 0;
}

enum { ARG_TICK = 0x100, ARG_ADVANCE, ARG_SET_OFFLINE, ARG_SET_ONLINE, ARG_SWITCH, ARG_CPUS, ARG_STATES,
       ARG_SMT, ARG_DRIVER, ARG_GOVERNOR, ARG_GOVERNORS, ARG_OFFLINE, ARG_NO_HALTPOLL, ARG_OLD_KERNEL,
       ARG_WTEO, ARG_FOLLOW, ARG_LATENCY, ARG_HOLD, ARG_RELEASE };
static const struct option long_options[] = {
        { "help", no_argument, NULL, 'h' },
        { "tick", no_argument, NULL, ARG_TICK },
        { "advance-usec", required_argument, NULL, ARG_ADVANCE },
        { "set-offline", required_argument, NULL, ARG_SET_OFFLINE },
        { "set-online", required_argument, NULL, ARG_SET_ONLINE },
        { "switch-governor", required_argument, NULL, ARG_SWITCH },
        { "cpus", required_argument, NULL, ARG_CPUS },
        { "states", required_argument, NULL, ARG_STATES },
        { "smt", required_argument, NULL, ARG_SMT },
        { "driver", required_argument, NULL, ARG_DRIVER },
        { "governor", required_argument, NULL, ARG_GOVERNOR },
        { "governors", required_argument, NULL, ARG_GOVERNORS },
        { "offline", required_argument, NULL, ARG_OFFLINE },
        { "no-haltpoll", no_argument, NULL, ARG_NO_HALTPOLL },
        { "old-kernel", no_argument, NULL, ARG_OLD_KERNEL },
        { "wteo", no_argument, NULL, ARG_WTEO },
        { "follow-governor", no_argument, NULL, ARG_FOLLOW },
        { "latency-request", required_argument, NULL, ARG_LATENCY },
        { "latency-hold", required_argument, NULL, ARG_HOLD },
        { "latency-release", required_argument, NULL, ARG_RELEASE },
        {}
};

/* Returns 0, 1 after --help, or -EINVAL on a usage error (reported). */
static int parse_args(int argc, char **argv, Args *a) {
        int c, r = 0;

        while (r >= 0 && (c = getopt_long(argc, argv, "h", long_options, NULL)) >= 0) {
                switch (c) {
                case 'h': help(); return 1;
                case ARG_TICK: r = set_command(a, COMMAND_TICK, NULL); break;
                case ARG_ADVANCE:
                        r = parse_usec(optarg, &a->usec);
                        if (r >= 0)
                                r = set_command(a, COMMAND_ADVANCE, NULL);
                        break;
                case ARG_SET_OFFLINE: r = set_command(a, COMMAND_OFFLINE, optarg); break;
                case ARG_SET_ONLINE: r = set_command(a, COMMAND_ONLINE, optarg); break;
                case ARG_SWITCH: r = set_command(a, COMMAND_SWITCH, optarg); break;
                case ARG_CPUS: r = parse_unsigned(optarg, FAKETREE_CPUS_MAX, &a->options.n_cpus); break;
                case ARG_STATES: r = parse_unsigned(optarg, FAKETREE_STATES_MAX, &a->options.n_states); break;
                case ARG_SMT: r = parse_unsigned(optarg, 64, &a->options.threads_per_core); break;
                case ARG_DRIVER: a->options.driver = optarg; break;
                case ARG_GOVERNOR: a->options.governor = optarg; break;
                case ARG_GOVERNORS: a->options.governors = optarg; break;
                case ARG_OFFLINE: a->options.offline = optarg; break;
                case ARG_NO_HALTPOLL: a->options.haltpoll = false; break;
                case ARG_OLD_KERNEL: a->options.old_kernel = true; break;
                case ARG_WTEO: a->options.wteo = true; break;
                case ARG_FOLLOW: r = set_command(a, COMMAND_FOLLOW, NULL); break;
                case ARG_LATENCY: r = set_command(a, COMMAND_LATENCY, optarg); break;
                case ARG_HOLD: r = set_command(a, COMMAND_HOLD, optarg); break;
                case ARG_RELEASE: r = set_command(a, COMMAND_RELEASE, optarg); break;
                default: return -EINVAL;
                }
        }
        if (r < 0)
                return r;
        if (optind + 1 != argc) {
                fprintf(stderr, "make-faketree: expected exactly one DIR (see --help)\n");
                return -EINVAL;
        }
        a->dir = argv[optind];
        return 0;
}

/* Applies f to every CPU of the list.  Returns 0 or a negative errno. */
static int for_each_cpu(int fd, const char *list, int (*f)(int, unsigned)) {
        ErrorInfo e;
        CpuSet s;
        int r = cpuset_parse(list, &s, &e);

        if (r < 0) {
                fprintf(stderr, "make-faketree: %s\n", e.message);
                return r;
        }
        CPUSET_FOREACH(cpu, &s) {
                r = f(fd, (unsigned) cpu);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* --follow-governor: what the kernel does at a write of current_governor,
 * every 2 ms until killed (SIGTERM).  Returns a negative errno on failure. */
static int follow_governor(int fd) {
        const struct timespec step = { .tv_nsec = 2 * 1000 * 1000 };

        for (;;) {
                int r = faketree_wteo_sync(fd);

                if (r < 0)
                        return r;
                (void) nanosleep(&step, NULL);
        }
}

/* --latency-request USEC, --latency-hold PID:COMM, --latency-release PID.
 * Returns 0 or a negative errno (-EINVAL reported). */
static int latency_command(int fd, Command c, const char *arg) {
        char pid_text[16];
        const char *colon = strchr(arg, ':');
        uint32_t v;

        if (c == COMMAND_LATENCY) {
                if (parse_u32(arg, &v) < 0 || v > INT32_MAX) {
                        fprintf(stderr, "make-faketree: invalid latency \"%s\"\n", arg);
                        return -EINVAL;
                }
                return faketree_latency_set(fd, (int32_t) v);
        }
        snprintf(pid_text, sizeof(pid_text), "%.*s", colon ? (int) (colon - arg) : (int) strlen(arg), arg);
        if (parse_u32(pid_text, &v) < 0 || v == 0 || (c == COMMAND_HOLD) != (colon != NULL)) {
                fprintf(stderr, "make-faketree: expected %s, got \"%s\"\n", c == COMMAND_HOLD ? "PID:COMM" : "PID", arg);
                return -EINVAL;
        }
        return c == COMMAND_HOLD ? faketree_latency_hold(fd, v, colon + 1) : faketree_latency_release(fd, v);
}

static int run(const Args *a) {
        if (a->command == COMMAND_CREATE && mkdir(a->dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        _cleanup_close_ int fd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        switch (a->command) {
        case COMMAND_CREATE:
                return faketree_create(fd, &a->options);
        case COMMAND_TICK:
                return faketree_tick_at(fd, now_usec());
        case COMMAND_ADVANCE:
                return faketree_advance(fd, a->usec);
        case COMMAND_OFFLINE:
                return for_each_cpu(fd, a->arg, faketree_set_offline);
        case COMMAND_ONLINE:
                return for_each_cpu(fd, a->arg, faketree_set_online);
        case COMMAND_SWITCH:
                return faketree_switch_governor(fd, a->arg);
        case COMMAND_FOLLOW:
                return follow_governor(fd);
        case COMMAND_LATENCY:
        case COMMAND_HOLD:
        case COMMAND_RELEASE:
                return latency_command(fd, a->command, a->arg);
        }
        return -EINVAL;
}

int main(int argc, char **argv) {
        Args a = { .command = COMMAND_CREATE };
        int r;

        faketree_options_init(&a.options);
        r = parse_args(argc, argv, &a);
        if (r != 0)
                return r > 0 ? EXIT_SUCCESS : 2;
        r = run(&a);
        if (r < 0) {
                fprintf(stderr, "make-faketree: %s: %s%s\n", a.dir, strerror(-r),
                        r == -EEXIST ? " (not empty and not a fake tree)" :
                        r == -EPERM ? " (refusing a real root)" : "");
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
