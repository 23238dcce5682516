/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager owns the daemon's state and orchestrates: the tick timer,
 * signals (SIGTERM/SIGINT exit, SIGHUP reload), hotplug, the bus connection,
 * and putting every knob back on the way out. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "calibrate.h"
#include "companion.h"
#include "config.h"
#include "consolidation.h"
#include "change.h"
#include "enforce.h"
#include "knob-view.h"
#include "latency-watch.h"
#include "light-tick.h"
#include "metrics.h"
#include "persist.h"
#include "pins.h"
#include "plan-enforce.h"
#include "polkit.h"
#include "policy-input.h"
#include "policy-state.h"
#include "policy-step.h"
#include "ppd-follow.h"
#include "profile.h"
#include "sampling.h"

#define BUS_NAME "org.idlepolicy.IdlePolicy1"
#define BUS_PATH "/org/idlepolicy/IdlePolicy1"

typedef struct Manager Manager;

/* What the manager tells the outside, set by whoever listens (the bus,
 * bus_manager_register() and bus_cpu_register()); NULL: nobody. */
typedef struct ManagerEvents {
        void (*property_changed)(Manager *m, const char *property);       /* a Manager property */
        void (*cpus_changed)(Manager *m, const Topology *old, const Topology *new);  /* present CPUs */
        void (*plan_changed)(Manager *m, unsigned cpu, const PolicyCpu *c);
        void (*calibration_finished)(Manager *m, bool ok, const char *message);
        void (*pins_changed)(Manager *m);                                  /* a pin or hold came or went */
        void (*pin_released)(Manager *m, uint32_t id, const char *why);    /* a pin ended (knobs back) */
        void (*hold_released)(Manager *m, uint32_t cookie);
} ManagerEvents;

typedef struct ManagerOptions {
        const char *config_path;     /* NULL: CONFIG_FILE, which may be missing */
        const char *root;            /* canonical, absolute */
        const char *cgroup_root;     /* canonical, absolute; NULL: /sys/fs/cgroup */
        const char *runtime_dir;     /* NULL: from the configuration */
        uint64_t tick_usec;          /* 0: from the configuration */
        const char *state_dir;       /* NULL: from the configuration */
        const char *profile_dir;     /* NULL: PROFILE_DIR/profiles */
        const char *profile_override_dir; /* NULL: /etc/idlepolicy/profiles.d */
        const char *calibrate_helper;     /* NULL: CALIBRATE_PATH */
        const char *pins_dir;             /* NULL: PINS_DIR (the administrator's pin rules) */
        int mode;                    /* a DaemonMode, or -1: persisted, else configured */
        int (*connect_bus)(Manager *m);   /* the last start-up phase; NULL: no bus */
} ManagerOptions;

struct Manager {
        sd_event *event;
        sd_bus *bus;
        int (*connect_bus)(Manager *m);
        ManagerEvents events;
        sd_event_source *tick_source;
        sd_event_source *exit_source;    /* restores before the bus closes */
        PolkitRegistry *polkit;

        char *config_path;
        bool config_path_explicit;
        Config config;
        uint64_t tick_usec_override;
        uint64_t tick_usec;
        char *runtime_dir;
        bool runtime_dir_override;   /* --runtime-dir given: the config's is ignored */

        char *root;
        int root_fd;
        KnobEnv knobs;               /* where the knobs live (the change layer's) */
        ChangeLayer *changes;        /* every knob written, its owner and original */
        Sampling *sampling;
        char governor[64];           /* last seen, to signal changes */
        bool sample_failing;         /* the last sample failed (logged once) */
        CpuSet with_cpuidle;         /* online CPUs the sampler has seen with their cpuidle files */
        uint64_t *flap_stale;        /* per CPU of the topology: its stale_reopens at the last
                                      * tick (a new sampler starts at 0) */

        KnobView view;               /* the knobs as last sampled or written (knob-view.h) */
        LightTick light;             /* light ticks while the machine is quiet (light-tick.h) */

        /* The subsystems' own state, each in its folder's header: the
         * manager orchestrates them. */
        DaemonPolicy policy;          /* policy/policy-state.h */
        DaemonCalibration calib;      /* calibrate/calibrate.h */
        DaemonPinning pinning;        /* pins/pins.h */
        DaemonConsolidation consolidation;  /* consolidate/consolidation.h */
        ManagerMetrics metrics;      /* metrics.h, metrics-textfile.h */

        LatencyWatch latency;        /* the CPU latency request (latency-watch.h) */
        PpdFollow *ppd;              /* following power-profiles-daemon, or NULL (ppd-follow.h) */
};

/* Loads the configuration and opens the root.  Returns 0 or a negative
 * errno (logged). */
int manager_new(const ManagerOptions *o, Manager **ret);

/* Frees m (NULL allowed) without touching any knob.  Returns NULL. */
Manager *manager_free(Manager *m);
void manager_freep(Manager **m);

/* Takes the journal (replaying a left-over one), opens the counters, sets
 * up the event sources and the bus.  A SIGTERM or SIGINT pending between
 * these steps (exit-request.h) stops start-up: manager_stop() then puts
 * back what was done.  Returns 0 (running), 1 (an exit signal came during
 * start-up; logged) or a negative errno (logged). */
int manager_start(Manager *m);

/* Puts every changed knob back before exit.  Returns 0 or -EIO (logged;
 * what failed stays in the journal for the next start). */
int manager_stop(Manager *m);

/* Restore(): puts back every knob but the pins' (requests in force: their
 * workloads stay where they are until Unpin) and forgets the manual
 * settings.  Returns the number restored or -EIO with e set. */
int manager_restore(Manager *m, ErrorInfo *e);

/* Re-reads the online CPUs and rebuilds the sampling if they changed (also
 * called before every change, so it acts on the current set). */
void manager_check_hotplug(Manager *m);

/* What enforce.h works on for owner, valid until the next return to the
 * event loop. */
EnforceTarget manager_enforce_target(Manager *m, ChangeOwner owner);

/* manager-notify.c: what the manager tells the outside (ManagerEvents). */

/* A Manager property changed. */
void manager_emit(Manager *m, const char *property);
/* The present CPUs changed from old to new (nothing when they are the same). */
void manager_emit_cpus(Manager *m, const Topology *old, const Topology *new);
/* A CPU's plan in force moved. */
void manager_emit_plan_changed(Manager *m, unsigned cpu, const PolicyCpu *c);
/* A calibration ended; message is "" when ok. */
void manager_emit_calibration_finished(Manager *m, bool ok, const char *message);
/* The governor seen now (logged when someone else switched it). */
void manager_note_governor(Manager *m, const char *governor, bool external);
/* Knobs changed: Changed, and Governor if it moved. */
void manager_knobs_changed(Manager *m);
