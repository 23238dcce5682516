/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "bus-error.h"
#include "cpupower-check.h"
#include "exit-request.h"
#include "fileio.h"
#include "fs-util.h"
#include "knob-idle.h"
#include "knob-cgroup.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "manager-consolidation.h"
#include "manager-ops.h"
#include "manager-pins.h"
#include "metrics-textfile.h"
#include "sampler-cadence.h"
#include "sysfs-paths.h"
#include "manager-policy.h"

/* Ticks are not coalesced with other timers by more than this. */
#define TICK_ACCURACY_USEC 1000

/* Loads path over the defaults (config_load: a regular file, a symlink to
 * one is fine, never blocking).  A missing file is fine unless it was asked
 * for explicitly.  Returns 0 or a negative errno (logged). */
static int manager_load_config(const char *path, bool explicit, Config *ret) {
        _cleanup_close_ int dir_fd = -1;
        const char *rel;
        ErrorInfo e = {};
        Config c;
        int r;

        config_init(&c);
        r = path_open_base(path, &dir_fd, &rel);
        if (r < 0)
                return log_error_errno(r, "Failed to open the directory of configuration file %s: %m", path);
        r = config_load(dir_fd, rel, path, &c, &e);
        if (r == -ENOENT && !explicit) {
                log_debug("No configuration file %s, using the defaults.", path);
                *ret = c;
                return 0;
        }
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0)
                return log_error_errno(r, "Failed to load configuration: %s", e.message);
        *ret = c;
        return 0;
}

/* A counted (idle) knob was written: the sampler reads its CPU (every CPU
 * for a system-wide knob) in full at its next read.  The sampler reads no
 * wteo file (companion.c does). */
static void on_knob_written(const KnobAddr *a, const char *value, void *userdata) {
        Manager *m = userdata;

        knob_view_written(&m->view, a, value);
        if (!m->sampling || a->type == &knob_type_wteo)
                return;
        if (a->cpu == KNOB_NO_CPU)
                cpuidle_sampler_request_full(m->sampling->sampler);
        else
                cpuidle_sampler_request_full_cpu(m->sampling->sampler, a->cpu);
}

/* Where the knobs live, set before anything is replayed or written: the
 * root (sysfs, ROOT/proc/irq), the host's /proc for threads, the cgroup
 * mount; and the change layer over them.  Returns 0 or a negative errno
 * (logged). */
static int manager_setup_knobs(Manager *m, const char *cgroup_root) {
        ChangeLayerEvents events = { .written = on_knob_written, .userdata = m };
        int r;

        m->knobs.root_fd = m->root_fd;
        m->knobs.host_fd = host_root_fd();
        if (m->knobs.host_fd < 0)
                return log_error_errno(m->knobs.host_fd, "Failed to open /: %m");
        r = knob_env_set_cgroup_root(&m->knobs, cgroup_root ?: "/sys/fs/cgroup");
        if (r < 0)
                return log_error_errno(r, "Invalid cgroup mount %s: %m", cgroup_root);
        r = change_layer_new(knob_types_default, &m->knobs, &events, &m->changes);
        return r < 0 ? log_oom() : 0;
}

/* Returns 0 or a negative errno (logged). */
int manager_new(const ManagerOptions *o, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        const char *rt;
        int r;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return log_oom();
        m->root_fd = -1;
        m->knobs = KNOB_ENV_NULL;
        m->policy.persist = PERSIST_NULL;
        metrics_init(&m->metrics);
        m->config_path_explicit = o->config_path != NULL;
        m->connect_bus = o->connect_bus;
        m->config_path = strdup(o->config_path ?: CONFIG_FILE);
        m->root = strdup(o->root);
        if (!m->config_path || !m->root)
                return log_oom();
        r = manager_load_config(m->config_path, m->config_path_explicit, &m->config);
        if (r < 0)
                return r;
        log_set_max_level((int) m->config.log_level);
        m->tick_usec_override = o->tick_usec;
        m->tick_usec = o->tick_usec ?: m->config.tick_usec;
        m->runtime_dir_override = o->runtime_dir != NULL;
        rt = o->runtime_dir ?: (m->config.runtime_directory[0] ? m->config.runtime_directory : RUNTIME_DIR);
        m->runtime_dir = strdup(rt);
        if (!m->runtime_dir)
                return log_oom();
        r = manager_policy_init(m, o);
        if (r < 0)
                return r;
        m->root_fd = open(m->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (m->root_fd < 0)
                return log_error_errno(errno, "Failed to open root directory %s: %m", m->root);
        r = manager_setup_knobs(m, o->cgroup_root);
        if (r < 0)
                return r;
        r = polkit_registry_new(&m->polkit);
        if (r < 0)
                return log_oom();
        *ret = TAKE_PTR(m);
        return 0;
}

/* Returns NULL. */
Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        ppd_follow_free(m->ppd);
        manager_pins_free(m);
        manager_consolidation_free(m);
        manager_policy_free(m);
        latency_watch_done(&m->latency);
        manager_light_done(m);
        polkit_registry_free(m->polkit);
        sd_event_source_unref(m->tick_source);
        sd_event_source_unref(m->exit_source);
        sd_bus_flush_close_unref(m->bus);
        sd_event_unref(m->event);
        sampling_free(m->sampling);
        knob_view_done(&m->view);
        free(m->flap_stale);
        m->changes = change_layer_free(m->changes);
        knob_env_done(&m->knobs);
        fileio_closep(&m->root_fd);
        free(m->runtime_dir);
        free(m->root);
        free(m->config_path);
        free(m);
        return NULL;
}

void manager_freep(Manager **m) {
        manager_free(*m);
}

/* The view of the knobs (knob-view.h) from the sample just taken and the
 * system-wide files read now (the slow ones every 10th tick, see
 * sampling.c).  Returns 0 or -ENOMEM (logged). */
static int manager_view_sampled(Manager *m) {
        CpuidleSystem sys;
        ErrorInfo e = {};
        int r = cpuidle_system_reader_read(m->sampling->system, &sys, &e);

        if (r < 0 && r != -ENOENT)
                log_debug_errno(r, "Failed to read cpuidle: %s, ignoring", e.message);
        r = knob_view_sampled(&m->view, m->sampling, r >= 0 ? &sys : NULL);
        return r < 0 ? log_oom() : 0;
}

/* Samples now.  Returns 0, or -ENOMEM (fatal); other failures are logged
 * and the previous rates kept. */
static int manager_sample(Manager *m) {
        ErrorInfo e = {};
        uint64_t now;
        int r;

        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return log_error_errno(r, "Failed to read the monotonic clock: %m");
        r = sampling_take(m->sampling, now, &e);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0) {
                /* Say it once, not every tick. */
                log_full_errno(m->sample_failing ? LOG_DEBUG : LOG_WARNING, r, "Failed to sample the counters: %s, ignoring",
                               e.message[0] ? e.message : strerror(-r));
                m->sample_failing = true;
                return 0;
        }
        if (m->sample_failing)
                log_info("Sampling the counters works again.");
        m->sample_failing = false;
        plan_enforcer_sampled(&m->policy.enforcer, m->sampling);
        manager_note_governor(m, m->sampling->latest->governor, true);
        return manager_view_sampled(m);
}

/* Rebuilds everything that depends on the online CPUs.  Returns 0 (a
 * failure is logged and the old state kept) or -ENOMEM. */
static int manager_rebuild_sampling(Manager *m) {
        _cleanup_(sampling_freep) Sampling *s = NULL;
        char list[1024] = "";
        ErrorInfo e = {};
        int r;

        r = sampling_new(m->root_fd, (unsigned) m->config.sample_files_per_tick, &s, &e);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0) {
                log_warning_errno(r, "Failed to reload the CPU topology: %s, ignoring", e.message);
                return 0;
        }
        manager_emit_cpus(m, m->sampling->topology, s->topology);
        sampling_free(m->sampling);
        m->sampling = TAKE_PTR(s);
        free(m->flap_stale);
        m->flap_stale = NULL;
        manager_policy_hotplug(m);
        if (m->pinning.pins)
                pins_online_changed(m->pinning.pins);
        (void) cpuset_format(&m->sampling->topology->online, list, sizeof(list));
        log_info("Online CPUs changed, now %s.", list);
        manager_emit(m, "OnlineCPUs");
        return manager_sample(m);
}

void manager_check_hotplug(Manager *m) {
        int r = topology_online_changed(m->root_fd, m->sampling->topology);

        if (r < 0)
                log_warning_errno(r, "Failed to read the online CPUs: %m, ignoring");
        if (r > 0 && manager_rebuild_sampling(m) == -ENOMEM)
                (void) sd_event_exit(m->event, -ENOMEM);
}

/* A CPU taken offline and back between two ticks leaves the online mask
 * as it was, so manager_check_hotplug() misses it.  The sampler sees it
 * otherwise: its cpuidle files went from under it, so it found its fds
 * stale and opened them again (stale_reopens moved), or found them gone
 * (no counters) and they are back.  Then rebuild as for any hotplug: the
 * sampler opens them afresh and the pins set their CPUs again (the kernel
 * widened the affinity of their tasks). */
static int manager_check_flap(Manager *m) {
        const Topology *t = m->sampling->topology;
        bool back = false;

        if (!m->flap_stale) {
                m->flap_stale = calloc(t->n_cpus, sizeof(uint64_t));
                if (!m->flap_stale)
                        return log_oom();
        }
        CPUSET_FOREACH(cpu, &t->online) {
                const CpuidleCpuSample *smp = sampling_counters(m->sampling, (unsigned) cpu);
                char path[128];

                if ((unsigned) cpu >= t->n_cpus)
                        break;
                if (smp) {
                        if (smp->stale_reopens != m->flap_stale[cpu])
                                back = true;
                        m->flap_stale[cpu] = smp->stale_reopens;
                        cpuset_add(&m->with_cpuidle, (unsigned) cpu);
                        continue;
                }
                if (!cpuset_contains(&m->with_cpuidle, (unsigned) cpu))
                        continue;
                snprintf(path, sizeof(path), SYSFS_CPU_CPUIDLE_FMT, (unsigned) cpu);
                if (faccessat(m->root_fd, path, F_OK, 0) == 0)
                        back = true;
        }
        if (!back)
                return 0;
        log_info("A CPU went offline and came back between two ticks.");
        return manager_rebuild_sampling(m);
}

/* The part of a tick a light one skips (light-tick.h): the sample, the
 * flap check, consolidation and the policy step.  Returns 0 or a negative
 * errno (fatal). */
static int manager_full_tick(Manager *m, uint64_t now) {
        int r;

        manager_light_full_begin(m, now);
        r = manager_sample(m);
        if (r >= 0 && !m->sample_failing)
                r = manager_check_flap(m);
        if (r < 0)
                return r;
        if (manager_pins_refresh_stale(m) == -ENOMEM)
                return log_oom();
        if (!m->sample_failing)
                manager_consolidation_tick(m);
        if (!m->sample_failing)
                manager_policy_tick(m, now);
        manager_light_full_end(m, now);
        return 0;
}

static int manager_on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        uint64_t start = metrics_now_usec(CLOCK_MONOTONIC), now;
        int r;

        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return sd_event_exit(m->event, log_error_errno(r, "Failed to read the monotonic clock: %m"));
        /* A light tick is one whose proc/stat lists the CPUs known online
         * (QUIET_TICK_HOTPLUG otherwise); any other reads the online file
         * first, and after a hotplug (a new sampling) the tick is full. */
        if (manager_light_tick(m, now))
                r = manager_pins_refresh_stale(m) == -ENOMEM ? log_oom() : 0;
        else {
                manager_check_hotplug(m);
                r = manager_full_tick(m, now);
        }
        if (r < 0)
                return sd_event_exit(m->event, r);
        if (!m->light.light && manager_latency_tick(m, now) == -ENOMEM)
                return sd_event_exit(m->event, -ENOMEM);
        manager_metrics_tick(m, metrics_now_usec(CLOCK_MONOTONIC) - start);
        r = sd_event_source_set_time_relative(s, manager_light_next_usec(m, now, manager_policy_next_tick_usec(m)));
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                return sd_event_exit(m->event, log_error_errno(r, "Failed to re-arm the tick timer: %m"));
        return 0;
}

/* Applies a freshly loaded configuration. */
static void manager_apply_config(Manager *m, const Config *c) {
        uint64_t tick = m->tick_usec_override ?: c->tick_usec;
        char old_textfile[sizeof(m->config.metrics_textfile)];
        int r;

        log_set_max_level((int) c->log_level);
        if (!m->runtime_dir_override && strcmp(c->runtime_directory, m->config.runtime_directory) != 0)
                log_notice("runtime_directory changes take effect at the next start, ignoring.");
        if (!m->policy.state_dir_override && strcmp(c->state_directory, m->config.state_directory) != 0)
                log_notice("state_directory changes take effect at the next start, ignoring.");
        if (m->sampling && c->sample_files_per_tick != m->config.sample_files_per_tick) {
                (void) cpuidle_sampler_set_read_budget(m->sampling->sampler, (unsigned) c->sample_files_per_tick);
                log_info("Reading at most %" PRIu64 " counter files a tick (0: all).", c->sample_files_per_tick);
        }
        if (c->quiet_full_tick_usec != m->config.quiet_full_tick_usec)
                m->light.full_period_usec = 0;  /* the backoff starts again from the new period */
        if (c->quiet_full_tick_usec != m->config.quiet_full_tick_usec && c->quiet_full_tick_usec)
                log_info("Light ticks while the machine is quiet, a full one at least every %" PRIu64 " us.",
                         c->quiet_full_tick_usec);
        else if (c->quiet_full_tick_usec != m->config.quiet_full_tick_usec)
                log_info("Light ticks off: every tick is full.");
        if (c->quiet_tick_usec != m->config.quiet_tick_usec)
                m->light.long_period_usec = 0;  /* the backoff starts again from the new long tick */
        if (c->quiet_tick_usec != m->config.quiet_tick_usec && c->quiet_tick_usec)
                log_info("Long ticks of %" PRIu64 " us while the machine is quiet, where an exec wakes the daemon.",
                         c->quiet_tick_usec);
        else if (c->quiet_tick_usec != m->config.quiet_tick_usec)
                log_info("Long ticks off.");
        snprintf(old_textfile, sizeof(old_textfile), "%s", m->config.metrics_textfile);
        m->config = *c;
        manager_consolidation_reconfigure(m);
        manager_ppd_reconfigure(m);
        manager_metrics_reconfigured(m, old_textfile);
        if (tick == m->tick_usec)
                return;
        m->tick_usec = tick;
        r = sd_event_source_set_time_relative(m->tick_source, tick);
        if (r < 0)
                log_warning_errno(r, "Failed to re-arm the tick timer: %m, ignoring");
        log_info("Tick is now %" PRIu64 " us.", tick);
        manager_emit(m, "TickUSec");
}

static int manager_on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        Config c;

        (void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading configuration...");
        if (manager_load_config(m->config_path, m->config_path_explicit, &c) < 0)
                log_error("Keeping the previous configuration.");
        else {
                manager_apply_config(m, &c);
                log_info("Reloaded configuration from %s.", m->config_path);
        }
        manager_reload_profiles(m);
        /* The profiles in force point into the set the reload replaced. */
        if (manager_pins_refresh(m) == -ENOMEM)
                return sd_event_exit(m->event, log_oom());
        (void) sd_notify(false, "READY=1\nSTATUS=Running.");
        return 0;
}

static int manager_on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        log_info("Received SIG%s, exiting.", sigabbrev_np((int) si->ssi_signo) ?: "?");
        return sd_event_exit(m->event, 0);
}

/* The loop is exiting: put the knobs back now, before the bus's own exit
 * source closes the connection (sd_bus_attach_event()) that a unit's
 * AllowedCPUs is restored through.  main() calls manager_stop() again
 * after the loop: it finds nothing left, or what failed here. */
static int manager_on_exit(sd_event_source *s, void *userdata) {
        (void) manager_stop(userdata);
        return 0;
}

/* Returns 0 or a negative errno (logged). */
static int manager_setup_event(Manager *m) {
        int r;

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");
        (void) sd_event_set_watchdog(m->event, true);
        r = sd_event_add_signal(m->event, NULL, SIGTERM, manager_on_exit_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGINT, manager_on_exit_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGHUP, manager_on_sighup, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add signal handlers: %m");
        r = sd_event_add_exit(m->event, &m->exit_source, manager_on_exit, m);
        if (r >= 0)
                r = sd_event_source_set_priority(m->exit_source, SD_EVENT_PRIORITY_IMPORTANT);
        if (r < 0)
                return log_error_errno(r, "Failed to add the exit handler: %m");
        r = sd_event_add_time_relative(m->event, &m->tick_source, CLOCK_MONOTONIC, m->tick_usec, TICK_ACCURACY_USEC,
                                       manager_on_tick, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the tick timer: %m");
        return 0;
}

/* The last phase: the bus, through the caller's connect function (bus.h
 * in the daemon; none in tests that drive the manager alone).  Returns 0
 * or a negative errno (logged). */
static int manager_connect_bus(Manager *m) {
        int r = m->connect_bus ? m->connect_bus(m) : 0;

        /* Unit knobs go through it from now on: also a stop that comes
         * before the pins are loaded puts back the units a killed run left. */
        if (r >= 0 && m->bus)
                change_layer_set_bus(m->changes, m->bus);
        return r;
}

/* Opens the restore journal and puts back what a killed run left.
 * Returns 0, 1 if an exit signal interrupted the replay, or a negative
 * errno (logged). */
static int manager_setup_journal(Manager *m) {
        int r;

        r = change_layer_open_journal(m->changes, m->runtime_dir, m->root);
        if (r < 0)
                return r;
        r = change_layer_replay(m->changes);
        if (r == -EXDEV)
                return log_error_errno(r, "Refusing to start with a restore journal of another root in %s.", m->runtime_dir);
        if (r == -EINTR) {
                (void) exit_requested_during_start();   /* says which signal, as between phases */
                return 1;
        }
        return r < 0 ? r : 0;
}

/* Returns 0 or a negative errno (logged). */
static int manager_setup_sampling(Manager *m) {
        CpuidleSystem sys = {};
        ErrorInfo e = {};
        unsigned n_states = 0;
        int r;

        r = sampling_new(m->root_fd, (unsigned) m->config.sample_files_per_tick, &m->sampling, &e);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0)
                return log_error_errno(r, "Failed to read the CPUs under %s: %s", m->root, e.message);
        r = cpuidle_system_load(m->root_fd, &sys, &e);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to read the cpuidle driver and governor: %s, ignoring", e.message);
        if (r == -ENOENT)
                log_notice("%s has no cpuidle, only resume latencies can be set.", m->root);
        (void) cpuidle_sampler_states(m->sampling->sampler, 0, &n_states);
        cpupower_check(m->root, sys.driver, n_states);
        snprintf(m->governor, sizeof(m->governor), "%s", sys.governor);
        return manager_sample(m);
}

/* Returns 0, 1 if an exit signal came during start-up (logged), or a
 * negative errno (logged). */
int manager_start(Manager *m) {
        /* Each may take a while on a large machine or with a large journal:
         * a pending SIGTERM is honoured between them. */
        static int (*const phases[])(Manager *m) = {
                manager_setup_event,
                manager_setup_journal,
                manager_setup_sampling,
                manager_latency_start,
                manager_policy_start,
                manager_pins_start,
                manager_consolidation_start,
                manager_connect_bus,
                manager_ppd_start,
                manager_pins_load,
        };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(phases); i++) {
                if (exit_requested_during_start())
                        return 1;
                r = phases[i](m);
                if (r != 0)
                        return r;
        }
        if (exit_requested_during_start())
                return 1;
        manager_policy_started(m);
        manager_metrics_write(m);
        log_info("idlepolicyd %s running on %s, %u CPU(s), tick %" PRIu64 " us, journal in %s.",
                 PACKAGE_VERSION, m->root, cpuset_count(&m->sampling->topology->present), m->tick_usec, m->runtime_dir);
        return 0;
}

/* Puts back owners' knobs: every one (all) or every one but the pins'.
 * Returns the number restored or -EIO with e set. */
static int manager_put_back(Manager *m, bool all, ErrorInfo *e) {
        bool any = change_n_changed(m->changes) > 0;
        int r;

        r = change_restore_except(m->changes, all ? CHANGE_OWNER_NONE : CHANGE_OWNER_PIN, e);
        if (!any)
                return r;
        if (m->sampling)
                cpuidle_sampler_invalidate(m->sampling->sampler);
        manager_knobs_changed(m);
        if (r >= 0)
                log_info("Restored %d knob(s).", r);
        return r;
}

/* Returns the number restored or -EIO with e set. */
int manager_restore(Manager *m, ErrorInfo *e) {
        manager_policy_cancel_calibration(m, "Restore() puts every knob back");
        return manager_put_back(m, false, e);
}

/* Returns 0 or -EIO (logged). */
int manager_stop(Manager *m) {
        ErrorInfo e = {};
        size_t n;
        int r;

        if (!m->changes || !change_layer_journal_path(m->changes))
                return 0;
        manager_policy_cancel_calibration(m, "the daemon is stopping");
        n = change_n_changed(m->changes);
        if (n > 0)
                log_info("Putting back %zu changed knob(s).", n);
        r = manager_put_back(m, true, &e);
        manager_metrics_stopped(m);
        if (r < 0)
                return log_error_errno(r, "%s; they stay in %s for the next start.", e.message,
                                       change_layer_journal_path(m->changes));
        return 0;
}
