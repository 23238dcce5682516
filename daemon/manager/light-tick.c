/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <string.h>

#include "light-tick.h"
#include "log.h"
#include "manager.h"
#include "manager-policy.h"

/* Enforce mode: whether a knob the plan wants is not written yet, so that
 * the next full tick would write it: the last write failed (retried at
 * every tick), or the governor the plan prefers waits for the hold
 * (plan-enforce.h; nothing is pending in observe mode, which writes
 * none). */
static bool write_pending(const Manager *m) {
        const PolicySystem *sys = &m->policy.loop->sys;

        if (m->policy.mode != DAEMON_MODE_ENFORCE)
                return false;
        if (m->policy.enforcer.failing)
                return true;
        return sys->governor[0] && m->view.system.governor_writable && m->sampling->has_latest &&
               strcmp(sys->governor, m->sampling->latest->governor) != 0;
}

/* Consolidation counts ticks towards a shrink (consolidate.h). */
static bool consolidation_pending(const Manager *m) {
        const Consolidator *c = m->consolidation.consolidator;

        return c && c->state.active && c->state.below_ticks > 0;
}

uint64_t manager_light_full_period_usec(const Manager *m) {
        return m->config.quiet_full_tick_usec && m->light.full_period_usec ? m->light.full_period_usec :
                                                                             m->config.quiet_full_tick_usec;
}

static QuietTickState quiet_state(const Manager *m, uint64_t now_usec) {
        const LightTick *t = &m->light;

        return (QuietTickState) {
                .quiet_full_tick_usec = manager_light_full_period_usec(m),
                .since_full_usec = now_usec - t->full_usec,
                .full_before = t->full_before,
                .full_after = t->full_after,
                .knobs_written = change_knob_writes(m->changes) != t->full_writes,
                .write_pending = write_pending(m),
                .calibrating = calibrator_running(m->calib.run),
                .sampling_failing = m->sample_failing,
                .has_rates = m->sampling->has_rates && m->view.has_system,
                .consolidation_pending = consolidation_pending(m),
                .n_online = cpuset_count(&m->sampling->topology->online),
                /* The judge of an exec wake's check holds the program's
                 * start-up to the tick's bar (QUIET_TICK_JUDGE_USEC). */
                .busy_span_usec = t->wake_usec != 0 && !t->following ? m->tick_usec : 0,
        };
}

/* Logs when light ticks begin and why they end (not every tick; not the
 * full tick that comes by the clock in a quiet stretch, nor a light one
 * too short to tell busy). */
static void note_verdict(LightTick *t, QuietTickVerdict v) {
        if (v == QUIET_TICK_DUE || v == QUIET_TICK_TOO_SHORT)
                return;
        if (v == QUIET_TICK_LIGHT && t->verdict != QUIET_TICK_LIGHT)
                log_debug("The machine is quiet: light ticks.");
        else if (v != QUIET_TICK_LIGHT && t->verdict == QUIET_TICK_LIGHT)
                log_debug("Full ticks again (%s).", quiet_tick_verdict_to_string(v));
        t->verdict = v;
}

/* Logs why the state keeps the ticks full, when that changes (why: a
 * static string, or NULL for a tick it did not keep full). */
static void note_unsettled(LightTick *t, const char *why) {
        if (why && why != t->unsettled)
                log_debug("Full ticks: %s.", why);
        t->unsettled = why;
}

/* Returns true for a light tick. */
bool manager_light_tick(Manager *m, uint64_t now_usec) {
        LightTick *t = &m->light;
        QuietTickState st;
        QuietTickVerdict v;
        ProcTotals now = {};
        CpuSet online;
        ErrorInfo e = {};

        if (!m->sampling->proc || !m->policy.loop || t->full_usec == 0 || m->config.quiet_full_tick_usec == 0) {
                note_verdict(t, QUIET_TICK_OFF);
                return (t->light = false);
        }
        st = quiet_state(m, now_usec);
        if (st.since_full_usec >= st.quiet_full_tick_usec)
                v = QUIET_TICK_DUE;     /* the full tick reads proc/stat itself */
        else if (procreader_read_totals(m->sampling->proc, &now, &online, &e) < 0) {
                log_debug("Failed to read proc/stat for a light tick: %s, taking a full one.", e.message);
                v = QUIET_TICK_NO_READING;
        } else if (!cpuset_equal(&online, &m->sampling->topology->online))
                /* The full tick reads the online file (manager_on_tick()). */
                v = QUIET_TICK_HOTPLUG;
        else {
                v = quiet_tick_decide(&st, m->policy.loop, &t->last, &now, now_usec - t->last_usec);
                /* Too short to tell busy: the next tick judges from the
                 * same reference, over both intervals. */
                if (v != QUIET_TICK_TOO_SHORT) {
                        t->last = now;
                        t->last_usec = now_usec;
                }
        }
        note_verdict(t, v);
        note_unsettled(t, v == QUIET_TICK_UNSETTLED ? quiet_tick_unsettled(&st, m->policy.loop) : NULL);
        t->decided = true;
        t->tick_verdict = v;
        t->light = v == QUIET_TICK_LIGHT || v == QUIET_TICK_TOO_SHORT;
        t->n_light += t->light;
        return t->light;
}

void manager_light_full_begin(Manager *m, uint64_t now_usec) {
        LightTick *t = &m->light;

        t->light = false;               /* also after a hotplug, which asks no verdict */
        t->full_usec = now_usec;
        t->full_writes = change_knob_writes(m->changes);
        if (m->policy.loop)
                t->full_before = quiet_tick_mark(m->policy.loop);
}

void manager_light_full_end(Manager *m, uint64_t now_usec) {
        LightTick *t = &m->light;

        if (m->policy.loop)
                t->full_after = quiet_tick_mark(m->policy.loop);
        /* The sample's reading of proc/stat is the next light tick's
         * reference (none if it failed: that tick is full). */
        if (m->sampling->proc) {
                t->last = procreader_totals(m->sampling->proc);
                t->last_usec = now_usec;
        }
}

/* Whether this tick continues the quiet run: light, or full by the clock
 * and settled after its step. */
static bool tick_was_quiet(Manager *m, uint64_t now_usec) {
        const LightTick *t = &m->light;
        QuietTickState st;

        if (!t->decided)
                return false;
        if (t->tick_verdict == QUIET_TICK_LIGHT)
                return true;
        if (t->tick_verdict != QUIET_TICK_DUE || !m->policy.loop)
                return false;
        st = quiet_state(m, now_usec);
        return quiet_tick_settled(&st, m->policy.loop);
}

/* This tick's verdict for what comes after it: a full one after a
 * hotplug, which asked none, counts as unsettled. */
static QuietTickVerdict tick_verdict(const LightTick *t) {
        return t->decided ? t->tick_verdict : QUIET_TICK_UNSETTLED;
}

/* Whether the next tick follows a program's start (quiet_tick_follows()
 * on this tick's verdict v); logs when a follow starts and ends. */
static void follow_update(LightTick *t, QuietTickVerdict v, uint64_t now_usec, uint64_t follow_usec) {
        bool was = t->following;

        t->following = follow_usec != 0 && t->wake_usec != 0 &&
                       quiet_tick_follows(t->following, v, now_usec - t->wake_usec);
        if (t->following && !was) {
                t->n_follows++;
                log_debug("A program starts (%s): ticks every %" PRIu64 " ms.", quiet_tick_verdict_to_string(v),
                          follow_usec / 1000);
        } else if (was && !t->following)
                log_debug("The follow of a program's start ends: %s.",
                          v == QUIET_TICK_LIGHT ? "the machine is quiet" :
                          follow_usec == 0  ? "the poll search left no polling" :
                                              "its time passed");
        if (!t->following && (follow_usec == 0 || now_usec - t->wake_usec >= QUIET_TICK_FOLLOW_USEC))
                t->wake_usec = 0;
}

/* The full tick by the clock's next period (quiet_tick_full_period() on
 * this tick's verdict; a full one by the clock settled when it continued
 * the quiet run); logged when it changes. */
static void full_period_update(Manager *m, QuietTickVerdict v, uint64_t pace_usec) {
        LightTick *t = &m->light;
        uint64_t was = manager_light_full_period_usec(m);
        bool wakeable = exec_wake_usable(&t->wake, m->root_fd) && m->config.quiet_tick_usec > pace_usec;

        t->full_period_usec = quiet_tick_full_period(m->config.quiet_full_tick_usec, was, v, t->quiet_run > 0,
                                                     wakeable);
        if (t->full_period_usec > was)
                log_debug("Quiet: the next full tick by the clock in %" PRIu64 " ms.", t->full_period_usec / 1000);
        else if (t->full_period_usec < was)
                log_debug("Full ticks by the clock every %" PRIu64 " ms again.", t->full_period_usec / 1000);
}

uint64_t manager_light_long_period_usec(const Manager *m) {
        return m->light.long_period_usec > m->config.quiet_tick_usec ? m->light.long_period_usec
                                                                      : m->config.quiet_tick_usec;
}

/* The long tick's next length (quiet_tick_long_period() on this tick's
 * verdict, settled as for the full tick by the clock); logged when it
 * changes. */
static void long_period_update(Manager *m, QuietTickVerdict v) {
        LightTick *t = &m->light;
        uint64_t was = manager_light_long_period_usec(m);

        t->long_period_usec = quiet_tick_long_period(m->config.quiet_tick_usec, was, v, t->quiet_run > 0);
        if (t->long_period_usec > was)
                log_debug("Quiet: long ticks of %" PRIu64 " ms.", t->long_period_usec / 1000);
        else if (t->long_period_usec < was)
                log_debug("Long ticks of %" PRIu64 " ms again.", t->long_period_usec / 1000);
}

static void on_exec_wake(void *userdata);

uint64_t manager_light_next_usec(Manager *m, uint64_t now_usec, uint64_t pace_usec) {
        LightTick *t = &m->light;
        QuietTickPace p;
        QuietTickVerdict v;
        uint64_t next, follow_usec = manager_policy_follow_tick_usec(m);
        bool stretching;

        t->quiet_run = tick_was_quiet(m, now_usec) ? t->quiet_run + 1 : 0;
        v = tick_verdict(t);
        full_period_update(m, v, pace_usec);
        long_period_update(m, v);
        follow_update(t, v, now_usec, follow_usec);
        t->decided = false;
        p = (QuietTickPace) {
                .tick_usec = pace_usec,
                .quiet_tick_usec = m->config.quiet_tick_usec,
                .long_tick_usec = manager_light_long_period_usec(m),
                .quiet_full_tick_usec = manager_light_full_period_usec(m),
                .since_full_usec = now_usec - t->full_usec,
                .quiet_run = t->quiet_run,
                .wakeable = exec_wake_usable(&t->wake, m->root_fd),
                .following = t->following,
                .follow_tick_usec = follow_usec,
                /* Too short to tell: judged once the reference, the
                 * reading it kept (an exec wake's), is long enough. */
                .judge_in_usec = v == QUIET_TICK_TOO_SHORT && t->last_usec != 0 && now_usec >= t->last_usec ?
                                         quiet_tick_judge_in_usec(now_usec - t->last_usec) : 0,
        };
        next = quiet_tick_next_usec(&p);
        stretching = quiet_tick_stretching(&p);
        /* Armed for the whole quiet stretch, the short interval before a
         * full tick by the clock included (quiet_tick_stretching()); an
         * exec in it finds no long tick to cut.  The wake that fired
         * paused itself: armed again (resumed) while the stretch goes on,
         * kept paused over a tick that found the machine quiet or could
         * not tell (the check after an exec wake, before the one that
         * judges), closed otherwise. */
        if (stretching && !exec_wake_arm(&t->wake, m->event, m->root_fd, on_exec_wake, m))
                next = pace_usec;
        else if (!stretching && (v == QUIET_TICK_LIGHT || v == QUIET_TICK_TOO_SHORT))
                exec_wake_pause(&t->wake);
        else if (!stretching)
                exec_wake_disarm(&t->wake);
        if (next > pace_usec && !t->long_tick)
                log_debug("Quiet for %u tick(s): the next in %" PRIu64 " ms, an exec brings it back.", t->quiet_run,
                          next / 1000);
        t->long_tick = next > pace_usec;
        t->n_long += t->long_tick;
        return next;
}

/* Brings a long tick back (manager_light_wake()); exec: an exec woke it,
 * whose program's start a tick may follow. */
static void light_wake(Manager *m, const char *why, bool exec);

static void on_exec_wake(void *userdata) {
        light_wake(userdata, "A process started", true);
}

void manager_light_wake(Manager *m, const char *why) {
        light_wake(m, why, false);
}

static void light_wake(Manager *m, const char *why, bool exec) {
        LightTick *t = &m->light;
        uint64_t now, soon = m->config.poll_search_tick_usec < m->tick_usec ? m->config.poll_search_tick_usec
                                                                            : m->tick_usec;
        ProcTotals reading;
        ErrorInfo e = {};
        int r;

        if (!t->long_tick)
                return;
        t->long_tick = false;
        t->quiet_run = 0;
        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (exec && r >= 0)
                t->wake_usec = now;
        /* The next tick measures from here, not over the whole long tick
         * (a program's first 100 ms of switches diluted over 2 s look
         * quiet).  Without a reading that tick is full. */
        if (r >= 0 && m->sampling->proc && procreader_read_totals(m->sampling->proc, &reading, NULL, &e) >= 0) {
                t->last = reading;
                t->last_usec = now;
        } else {
                t->last = (ProcTotals) {};
                t->last_usec = 0;
        }
        r = sd_event_source_set_time_relative(m->tick_source, soon);
        if (r < 0)
                log_warning_errno(r, "Failed to bring the tick back after a long one: %m, ignoring");
        log_debug("%s: the next tick in %" PRIu64 " ms.", why, soon / 1000);
}

void manager_light_done(Manager *m) {
        exec_wake_disarm(&m->light.wake);
}

void light_tick_metrics(const Manager *m, Exposition *x) {
        const LightTick *t = &m->light;

        exposition_family(x, "idlepolicy_light_ticks_total", EXPOSITION_COUNTER,
                          "Light ticks: the machine was quiet, only proc/stat was read (the rest of "
                          "idlepolicy_tick_duration_seconds_count are full ticks).");
        exposition_u64(x, "idlepolicy_light_ticks_total", NULL, t->n_light);
        exposition_family(x, "idlepolicy_tick_light", EXPOSITION_GAUGE, "1 if the last tick was light.");
        exposition_u64(x, "idlepolicy_tick_light", NULL, t->light);
        exposition_family(x, "idlepolicy_tick_long", EXPOSITION_GAUGE,
                          "1 if the next tick is a long one (quiet_tick_usec: the machine is quiet and an exec "
                          "brings the tick back).");
        exposition_u64(x, "idlepolicy_tick_long", NULL, t->long_tick);
        exposition_family(x, "idlepolicy_long_ticks_total", EXPOSITION_COUNTER, "Long ticks taken while quiet.");
        exposition_u64(x, "idlepolicy_long_ticks_total", NULL, t->n_long);
        exposition_family(x, "idlepolicy_exec_wakes_total", EXPOSITION_COUNTER,
                          "Long ticks cut short by a process that started (an exec).");
        exposition_u64(x, "idlepolicy_exec_wakes_total", NULL, t->wake.n_wakes);
        exposition_family(x, "idlepolicy_follows_total", EXPOSITION_COUNTER,
                          "Programs' starts followed: after an exec wake, ticks at poll_search_tick_usec while "
                          "the machine is busy or switching and the poll search holds no polling.");
        exposition_u64(x, "idlepolicy_follows_total", NULL, t->n_follows);
        exposition_family(x, "idlepolicy_quiet_full_tick_seconds", EXPOSITION_GAUGE,
                          "The period of the full tick by the clock while the machine is quiet: quiet_full_tick_usec, "
                          "doubling while full ticks find nothing to do and long ticks are taken, up to 4 times it.");
        exposition_usec(x, "idlepolicy_quiet_full_tick_seconds", NULL, manager_light_full_period_usec(m));
        exposition_family(x, "idlepolicy_quiet_tick_seconds", EXPOSITION_GAUGE,
                          "The long tick while the machine is quiet: quiet_tick_usec, doubling while light ticks "
                          "find the machine quiet, up to 4 times it.");
        exposition_usec(x, "idlepolicy_quiet_tick_seconds", NULL, manager_light_long_period_usec(m));
}
