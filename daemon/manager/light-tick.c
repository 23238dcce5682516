/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "light-tick.h"
#include "log.h"
#include "manager.h"

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

static QuietTickState quiet_state(const Manager *m, uint64_t now_usec) {
        const LightTick *t = &m->light;

        return (QuietTickState) {
                .quiet_full_tick_usec = m->config.quiet_full_tick_usec,
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
        };
}

/* Logs when light ticks begin and why they end (not every tick; not the
 * full tick that comes by the clock in a quiet stretch). */
static void note_verdict(LightTick *t, QuietTickVerdict v) {
        if (v == QUIET_TICK_DUE)
                return;
        if (v == QUIET_TICK_LIGHT && t->verdict != QUIET_TICK_LIGHT)
                log_debug("The machine is quiet: light ticks.");
        else if (v != QUIET_TICK_LIGHT && t->verdict == QUIET_TICK_LIGHT)
                log_debug("Full ticks again (%s).", quiet_tick_verdict_to_string(v));
        t->verdict = v;
}

/* Returns true for a light tick. */
bool manager_light_tick(Manager *m, uint64_t now_usec) {
        LightTick *t = &m->light;
        QuietTickState st;
        QuietTickVerdict v;
        ProcTotals now = {};
        ErrorInfo e = {};

        if (!m->sampling->proc || !m->policy.loop || t->full_usec == 0 || m->config.quiet_full_tick_usec == 0) {
                note_verdict(t, QUIET_TICK_OFF);
                return (t->light = false);
        }
        st = quiet_state(m, now_usec);
        if (st.since_full_usec >= st.quiet_full_tick_usec)
                v = QUIET_TICK_DUE;     /* the full tick reads proc/stat itself */
        else if (procreader_read_totals(m->sampling->proc, &now, &e) < 0) {
                log_debug("Failed to read proc/stat for a light tick: %s, taking a full one.", e.message);
                v = QUIET_TICK_NO_READING;
        } else {
                v = quiet_tick_decide(&st, m->policy.loop, &t->last, &now, now_usec - t->last_usec);
                t->last = now;
                t->last_usec = now_usec;
        }
        note_verdict(t, v);
        t->light = v == QUIET_TICK_LIGHT;
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

void light_tick_metrics(const LightTick *t, Exposition *x) {
        exposition_family(x, "idlepolicy_light_ticks_total", EXPOSITION_COUNTER,
                          "Light ticks: the machine was quiet, only proc/stat was read (the rest of "
                          "idlepolicy_tick_duration_seconds_count are full ticks).");
        exposition_u64(x, "idlepolicy_light_ticks_total", NULL, t->n_light);
        exposition_family(x, "idlepolicy_tick_light", EXPOSITION_GAUGE, "1 if the last tick was light.");
        exposition_u64(x, "idlepolicy_tick_light", NULL, t->light);
}
