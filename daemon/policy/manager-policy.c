/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "exit-request.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "manager-policy.h"
#include "profiles.h"

#define BUILTIN_PROFILE_DIR PROFILE_DIR "/profiles"

/* Returns 0 or -ENOMEM. */
static int strdup_or(char **dst, const char *value, const char *fallback) {
        *dst = strdup(value ?: fallback);
        return *dst ? 0 : -ENOMEM;
}

/* Returns 0 or -ENOMEM (logged). */
int manager_policy_init(Manager *m, const ManagerOptions *o) {
        m->policy.mode_override = o->mode;
        m->policy.state_dir_override = o->state_dir != NULL;
        if (strdup_or(&m->policy.profile_dir, o->profile_dir, BUILTIN_PROFILE_DIR) < 0 ||
            strdup_or(&m->policy.profile_override_dir, o->profile_override_dir, PROFILE_OVERRIDE_DIR) < 0 ||
            strdup_or(&m->calib.helper, o->calibrate_helper, CALIBRATE_PATH) < 0 ||
            strdup_or(&m->pinning.dir, o->pins_dir, PINS_DIR) < 0 ||
            strdup_or(&m->policy.state_dir, o->state_dir, m->config.state_directory[0] ? m->config.state_directory : STATE_DIR) < 0)
                return log_oom();
        return 0;
}

void manager_policy_free(Manager *m) {
        m->calib.run = calibrator_free(m->calib.run);
        m->calib.result = calibration_free(m->calib.result);
        m->policy.loop = policy_step_free(m->policy.loop);
        policy_input_buffer_done(&m->policy.input);
        plan_enforcer_done(&m->policy.enforcer);
        companion_done(&m->policy.companion);
        persist_done(&m->policy.persist);
        free(m->policy.profiles);
        free(m->policy.profile_dir);
        free(m->policy.profile_override_dir);
        free(m->calib.helper);
        free(m->pinning.dir);
        free(m->policy.state_dir);
}

const Profile *manager_profile(const Manager *m) {
        const Profile *p = profile_set_find(m->policy.profiles, m->policy.active_profile);

        return p ?: &m->policy.profiles->profiles[0];
}

/* The profile to use when the wanted one is missing: "balanced", else the
 * first loaded. */
static const char *default_profile(const Manager *m) {
        return profile_set_find(m->policy.profiles, PROFILES_DEFAULT) ? PROFILES_DEFAULT : m->policy.profiles->profiles[0].name;
}

void manager_policy_save_state(Manager *m) {
        PersistedState s = { .mode = m->policy.mode, .has_mode = true, .has_consolidation = m->consolidation.level >= 0,
                             .consolidation = m->consolidation.level >= 0 ? (unsigned) m->consolidation.level : 0 };

        snprintf(s.profile, sizeof(s.profile), "%s", m->policy.active_profile);
        (void) persist_save_state(&m->policy.persist, &s);
}

/* Takes the persisted profile and mode (corrupt: defaults, written back). */
static int load_state(Manager *m) {
        PersistedState s = {};
        int r = persist_load_state(&m->policy.persist, &s);

        if (r == -ENOMEM)
                return log_oom();
        if (s.profile[0] && !profile_set_find(m->policy.profiles, s.profile))
                log_warning("The saved profile \"%s\" is not loaded, using \"%s\".", s.profile, default_profile(m));
        snprintf(m->policy.active_profile, sizeof(m->policy.active_profile), "%s",
                 s.profile[0] && profile_set_find(m->policy.profiles, s.profile) ? s.profile : default_profile(m));
        m->policy.mode = m->policy.mode_override >= 0 ? (DaemonMode) m->policy.mode_override : s.has_mode ? s.mode : m->config.mode;
        m->consolidation.level = s.has_consolidation ? (int) s.consolidation : -1;
        if (r < 0)
                manager_policy_save_state(m);
        return 0;
}

/* Loads calibration.json.  Returns 1 if there is one, 0 if not, -ENOMEM. */
static int load_calibration(Manager *m) {
        Calibration *c = NULL;
        int r = persist_load_calibration(&m->policy.persist, &c);

        if (r == -ENOMEM)
                return log_oom();
        if (r <= 0)
                return 0;
        m->calib.result = c;
        log_info("Using the calibration of %s from %s/%s.", c->driver[0] ? c->driver : "no driver",
                 m->policy.persist.dir, PERSIST_CALIBRATION_FILE);
        return 1;
}

/* Returns 0, 1 if an exit signal came (logged), or -ENOMEM (logged). */
int manager_policy_start(Manager *m) {
        int r;

        m->policy.profiles = calloc(1, sizeof(ProfileSet));
        if (!m->policy.profiles || persist_open(&m->policy.persist, m->policy.state_dir) < 0)
                return log_oom();
        r = profiles_load(m->policy.profile_dir, m->policy.profile_override_dir, false, m->policy.profiles);
        if (r < 0)
                return log_oom();
        r = load_state(m);
        if (r < 0)
                return r;
        /* Up to PERSIST_CALIBRATION_MAX of JSON to parse. */
        if (exit_requested_during_start())
                return 1;
        r = load_calibration(m);
        if (r < 0)
                return r;
        r = policy_step_new(m->sampling->topology->n_cpus, (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32), &m->policy.loop);
        if (r < 0)
                return log_oom();
        log_info("Profile %s, mode %s, %u profile(s) loaded, %s.", m->policy.active_profile, daemon_mode_to_string(m->policy.mode),
                 m->policy.profiles->n, m->calib.result ? "calibrated" : "not calibrated");
        return 0;
}

/* Signals a CPU's moved plan. */
static void on_plan_changed(unsigned cpu, const PolicyCpu *c, void *userdata) {
        Manager *m = userdata;

        log_debug("CPU %u: cap %u (%s), floor %u (%s).", cpu, c->cap, plan_reason_to_string(c->cap_reason),
                  c->floor, plan_reason_to_string(c->floor_reason));
        manager_emit_plan_changed(m, cpu, c);
}

PolicySources manager_policy_sources(Manager *m) {
        return (PolicySources) {
                .profile = manager_profile(m),
                .choices = m->pinning.choices,
                .n_choices = m->pinning.n_choices,
                .sampling = m->sampling,
                .system = &m->view.system,
                .calibration = m->calib.result,
                .changes = m->changes,
                .companion = &m->policy.companion,
                .consolidation_freed = m->consolidation.freed,
        };
}

/* Enforce mode: writes what differs from the plan. */
static void enforce_plan(Manager *m, uint64_t now_usec) {
        EnforceTarget t = manager_enforce_target(m, CHANGE_OWNER(PLAN));
        PolicySources in = manager_policy_sources(m);

        if (plan_enforce(&m->policy.enforcer, m->policy.loop, &in, &t, now_usec, m->config.governor_hold_usec) > 0) {
                cpuidle_system_reader_request_full(m->sampling->system);
                manager_knobs_changed(m);
        }
}

/* An arm's name in the log: its window ("0us" for none), "only" for
 * polling only. */
static const char *arm_label(unsigned a, char buf[static 24]) {
        if (a == POLL_SEARCH_ONLY)
                return "only";
        snprintf(buf, 24, "%uus", (unsigned) (poll_search_window_ns[a] / 1000));
        return buf;
}

/* Logs what the poll search did at this tick: its moves and the end of a
 * climb (the arm it holds, every arm measured) at info, every step at debug
 * (the arm asked for, and the utilities measured so far). */
static void log_search(const PolicySystem *before, const PolicySystem *now) {
        const PollSearch *s = &now->search;
        char u[POLL_SEARCH_ARMS * 24] = "", b1[24], b2[24];
        size_t n = 0;
        bool moved;

        if (!now->searching) {
                if (before->searching)
                        log_info("Poll search stopped: the priced rule decides the halt-poll window again.");
                return;
        }
        moved = before->search.best != s->best || !before->searching ||
                (before->search.phase == POLL_SEARCH_CLIMB && s->phase == POLL_SEARCH_HOLD);
        if (!moved && log_get_max_level() < LOG_DEBUG)
                return;                 /* nothing to log: no line to format, every short tick */
        for (unsigned a = 0; a < POLL_SEARCH_ARMS && n < sizeof(u); a++)
                n += (size_t) snprintf(u + n, sizeof(u) - n, " %s=%s%.3f", arm_label(a, b1),
                                       s->measured[a] ? "" : "~", (double) s->utility[a] / 1024.0);
        if (moved && s->best == POLL_SEARCH_ONLY)
                log_info("Poll search (%s): holding polling only; utilities log2:%s",
                         poll_search_phase_to_string(s->phase), u);
        else if (moved)
                log_info("Poll search (%s): holding %s (window %uus); utilities log2:%s",
                         poll_search_phase_to_string(s->phase), s->best ? "haltpoll" : "no polling",
                         (unsigned) (poll_search_window_ns[s->best] / 1000), u);
        else
                log_debug("Poll search (%s): next arm %s, held %s; utilities log2:%s",
                          poll_search_phase_to_string(s->phase), arm_label(s->arm, b1), arm_label(s->best, b2), u);
        if (s->samples != before->search.samples && s->last.interval_us > 0)
                log_debug("Poll search sample: arm %d, %.0f switches/s, %.3f CPU, %.0f ms; %" PRIu64 " polls %.1fus, %" PRIu64
                          " halts %.1fus",
                          s->last.arm, (double) s->last.progress * 1e6 / (double) s->last.interval_us,
                          (double) s->last.burned_us / (double) s->last.interval_us, (double) s->last.interval_us / 1e3,
                          s->last.polls, s->last.polls ? (double) s->last.polled_us / (double) s->last.polls : 0.0,
                          s->last.halts, s->last.halts ? (double) s->last.halted_us / (double) s->last.halts : 0.0);
}

void manager_policy_tick(Manager *m, uint64_t now_usec) {
        PolicySystem before = m->policy.loop->sys;
        PolicySources src;
        PolicyStepInput in;
        int r;

        if (calibrator_running(m->calib.run) || !m->sampling->has_rates || !m->view.has_system)
                return;
        r = companion_read(&m->policy.companion, m->root_fd, &m->view.system, m->sampling);
        if (r < 0) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        if (r > 0) {
                log_info("%s companion mode: wteo %s the governor.", m->policy.companion.active ? "Entering" : "Leaving",
                         m->policy.companion.active ? "is" : "is no longer");
                manager_emit(m, "CompanionMode");
        }
        src = manager_policy_sources(m);
        if (policy_input_build(&m->policy.input, &src, &in) < 0) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        policy_step_tick(m->policy.loop, &in, on_plan_changed, m);
        log_search(&before, &m->policy.loop->sys);
        if (before.has_poll != m->policy.loop->sys.has_poll || before.poll.mode != m->policy.loop->sys.poll.mode)
                manager_emit(m, "PollMode");
        if (before.poll.window_ns != m->policy.loop->sys.poll.window_ns)
                manager_emit(m, "PollWindowNSec");
        if (m->policy.mode == DAEMON_MODE_ENFORCE)
                enforce_plan(m, now_usec);
}

/* The search's short tick, when pred holds of the policy step and the
 * search writes its arms (enforce mode); 0 otherwise. */
static uint64_t search_tick_usec(const Manager *m, bool (*pred)(const PolicyStep *l)) {
        if (m->policy.loop && m->policy.mode == DAEMON_MODE_ENFORCE && pred(m->policy.loop) &&
            m->config.poll_search_tick_usec < m->tick_usec)
                return m->config.poll_search_tick_usec;
        return 0;
}

uint64_t manager_policy_next_tick_usec(const Manager *m) {
        uint64_t fast = search_tick_usec(m, policy_step_wants_fast_tick);

        return fast ? fast : m->tick_usec;
}

uint64_t manager_policy_follow_tick_usec(const Manager *m) {
        return search_tick_usec(m, policy_step_awaits_program);
}

void manager_policy_replan(Manager *m, uint64_t now_usec) {
        PolicySources src;
        PolicyStepInput in;

        if (!m->sampling || !m->policy.loop || calibrator_running(m->calib.run) || !m->sampling->has_rates ||
            !m->view.system.driver[0])
                return;
        manager_light_wake(m, "A replan");
        src = manager_policy_sources(m);
        if (policy_input_build(&m->policy.input, &src, &in) < 0) {
                (void) sd_event_exit(m->event, log_oom());
                return;
        }
        policy_step_replan(m->policy.loop, &in, on_plan_changed, m);
        if (m->policy.mode == DAEMON_MODE_ENFORCE)
                enforce_plan(m, now_usec);
}

void manager_policy_hotplug(Manager *m) {
        if (policy_step_resize(m->policy.loop, m->sampling->topology) < 0)
                (void) sd_event_exit(m->event, log_oom());
}

bool manager_policy_reload(Manager *m) {
        _cleanup_free_ ProfileSet *s = calloc(1, sizeof(ProfileSet));
        int r;

        if (!s) {
                (void) sd_event_exit(m->event, log_oom());
                return false;
        }
        r = profiles_load(m->policy.profile_dir, m->policy.profile_override_dir, true, s);
        if (r == -ENOMEM)
                (void) sd_event_exit(m->event, log_oom());
        if (r < 0) {
                log_error("Keeping the previous %u profile(s).", m->policy.profiles->n);
                return false;
        }
        free(m->policy.profiles);
        m->policy.profiles = TAKE_PTR(s);
        log_info("Reloaded %u profile(s).", m->policy.profiles->n);
        manager_emit(m, "Profiles");
        if (!profile_set_find(m->policy.profiles, m->policy.active_profile)) {
                log_warning("Profile \"%s\" is gone, switching to \"%s\".", m->policy.active_profile, default_profile(m));
                snprintf(m->policy.active_profile, sizeof(m->policy.active_profile), "%s", default_profile(m));
                manager_policy_save_state(m);
                manager_emit(m, "ActiveProfile");
                manager_emit(m, "Consolidation");
                return true;
        }
        return false;
}

/* Returns 1 if switched, 0 if it was name already, or -ENOPKG with e set. */
int manager_policy_set_profile(Manager *m, const char *name, ErrorInfo *e) {
        if (!profile_set_find(m->policy.profiles, name))
                return errinfo_set(e, -ENOPKG, "Unknown profile \"%s\" (see the Profiles property)", name);
        if (strcmp(name, m->policy.active_profile) == 0)
                return 0;
        log_info("Switching profile from %s to %s.", m->policy.active_profile, name);
        snprintf(m->policy.active_profile, sizeof(m->policy.active_profile), "%s", name);
        manager_policy_save_state(m);
        manager_emit(m, "ActiveProfile");
        manager_emit(m, "Consolidation");
        return 1;
}

/* Observe mode writes nothing the plan decides: puts back every knob the
 * plan and the companion changed (not the administrator's settings, not
 * the pins').  Returns the number put back, or -EIO with e set. */
static int restore_plan_knobs(Manager *m, ErrorInfo *e) {
        int r = change_restore(m->changes, CHANGE_OWNER(PLAN), e), q = 0;

        if (r >= 0)
                q = change_restore(m->changes, CHANGE_OWNER(COMPANION), e);
        if (r >= 0)
                r = q < 0 ? q : r + q;

        if (m->sampling) {
                cpuidle_sampler_invalidate(m->sampling->sampler);
                cpuidle_system_reader_request_full(m->sampling->system);
        }
        manager_knobs_changed(m);
        return r;
}

/* Returns 0, or -EBUSY / -EIO with e set. */
int manager_policy_set_mode(Manager *m, DaemonMode new, ErrorInfo *e) {
        uint64_t now = 0;
        int r;

        if (calibrator_running(m->calib.run))
                return errinfo_set(e, -EBUSY, "A calibration is running, try again when it has finished");
        if (new == m->policy.mode)
                return 0;
        if (new == DAEMON_MODE_OBSERVE) {
                r = restore_plan_knobs(m, e);
                if (r < 0)
                        return r;
                log_info("Observe mode: put back %d knob(s) the plan had changed.", r);
        }
        m->policy.mode = new;
        manager_policy_save_state(m);
        manager_emit(m, "Mode");
        if (new == DAEMON_MODE_ENFORCE && sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0) {
                log_info("Enforce mode: applying the plan.");
                enforce_plan(m, now);
        }
        return 0;
}
