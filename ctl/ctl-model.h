/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What idlepolicyctl knows about the daemon after reading its properties:
 * the Manager and, for status, every CPU object with its states.  Filled by
 * ctl-fetch.c, shown by ctl-status.c (table) and ctl-json.c (JSON). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"

#define CTL_LATENCY_NA UINT32_MAX   /* ResumeLatencyUSec "n/a" */
#define CTL_CURVE_MAX 16u

/* One point of a state's calibrated curve: the wakeup cost over polling
 * after idle_us of idleness. */
typedef struct CtlCurvePoint {
        uint32_t idle_us;
        int32_t penalty_us;
} CtlCurvePoint;

typedef struct CtlState {
        uint32_t index;
        char *name;                 /* NULL if the States property lacked it */
        char *desc;
        uint64_t latency_us;        /* exit latency */
        uint64_t residency_us;      /* target residency */
        bool disabled;
        bool default_enabled;
        bool has_counters;          /* from Counters */
        uint64_t usage, time_us, above, below, rejected;
        bool has_rates;             /* from Rates */
        double entries_per_s, usage_share_pct, time_share_pct, too_deep_pct, too_shallow_pct;
        bool calibrated;            /* from Calibrated */
        uint32_t advertised_us, measured_us, measured_p99_us;
        bool misdescribed;
        bool has_entry;             /* from CalibratedEntry (older daemons lack it) */
        uint32_t entry_us, calibrated_residency_us;   /* residency 0: none measured */
        CtlCurvePoint curve[CTL_CURVE_MAX];
        size_t n_curve;
} CtlState;

typedef struct CtlCpu {
        uint32_t index;
        bool online;
        int32_t package, die, core;  /* -1 unknown */
        char *siblings;
        uint32_t resume_latency_us;  /* CTL_LATENCY_NA = n/a */
        double util;                 /* < 0 unknown */
        double timer_wakeups, other_wakeups;
        CtlState *states;            /* sorted by index */
        size_t n_states;
        /* The plan in force. */
        uint32_t cap, floor;
        char *cap_reason, *floor_reason, *reason;
        double poll_success;         /* < 0 unknown */
        uint16_t *weights;           /* n_weights × n_weights, row-major (W[s][j]) */
        size_t n_weights;
        /* Companion mode: the wteo governor's own matrix (row: the state the
         * timer pointed at) and the tolerance in force; -1 / empty: none. */
        uint16_t *kernel_weights;
        size_t n_kernel_weights;
        char *kernel_weights_error;  /* why the daemon ignored the kernel's matrix, "" */
        int32_t wteo_tolerance;
        /* The profile in force and where it comes from ("machine", "pin …", "hold …"). */
        char *profile, *profile_source;
} CtlCpu;

/* A pin object (org.idlepolicy.IdlePolicy1.Pin). */
typedef struct CtlPin {
        char *path;
        uint32_t id;                 /* the last component of path */
        char *target, *cpus, *profile, *state, *reason;
        uint32_t *pids;
        size_t n_pids;
        uint64_t created_usec;       /* CLOCK_REALTIME */
        uint32_t owner_uid;
} CtlPin;

/* One element of the Manager's Holds. */
typedef struct CtlHold {
        uint32_t cookie;
        char *profile, *cpus, *reason, *app_id, *owner;   /* cpus "": all */
} CtlHold;

/* One element of the Manager's Reports: what a client (the NRI plugin)
 * could not do, e.g. a pod's bad annotation. */
typedef struct CtlReport {
        uint64_t usec;               /* CLOCK_REALTIME */
        char *source, *message;
} CtlReport;

typedef struct CtlParam {
        char *name;
        uint64_t value;
} CtlParam;

typedef struct CtlChange {
        char *path;                  /* relative to the daemon's root */
        char *original;
} CtlChange;

/* One configured background entry and what consolidation did to it. */
typedef struct CtlConsolidationTarget {
        char *name;                  /* as configured */
        char *state;                 /* "confined to 0", "not confined", "skipped: ..." */
} CtlConsolidationTarget;

/* Consolidation (ConsolidationStatus): where the level comes from, the
 * set, the measurements, the reason, each background entry's state and
 * the IRQs. */
typedef struct CtlConsolidation {
        uint32_t level;
        char *source, *set, *freed, *reason;
        bool active, known;          /* known: the daemon has the property */
        double machine_util, background;   /* 0..1, CPUs; < 0 unknown */
        CtlConsolidationTarget *targets;
        size_t n_targets;
        uint32_t irq_steered, irq_refused, irq_backed_off;
} CtlConsolidation;

/* A process holding /dev/cpu_dma_latency (LatencyRequestHolders). */
typedef struct CtlLatencyHolder {
        uint32_t pid;
        char *comm;
} CtlLatencyHolder;

/* The machine-wide CPU latency request (LatencyRequest*). */
typedef struct CtlLatencyRequest {
        bool known;                  /* the daemon has the properties */
        int32_t usec;                /* -1 unknown, CTL_LATENCY_REQUEST_NONE none */
        char *error;                 /* why unknown, "" */
        CtlLatencyHolder *holders;
        size_t n_holders;
        uint32_t hidden;             /* processes whose open files could not be read */
} CtlLatencyRequest;

#define CTL_LATENCY_REQUEST_NONE INT32_C(2000000000)   /* the kernel's default: no request */

/* Following power-profiles-daemon (FollowPowerProfiles). */
typedef struct CtlPowerProfiles {
        bool known;                  /* the daemon has the property */
        bool follow;                 /* follow_power_profiles is on */
        char *bus_name;              /* the daemon followed, "" when none is on the bus */
        char *profile;               /* its ActiveProfile last seen, "" */
} CtlPowerProfiles;

typedef struct CtlStatus {
        char *version, *driver, *governor, *online_cpus;
        char **available_governors;
        char **cpu_paths;
        uint64_t tick_usec;
        CtlParam *haltpoll;
        size_t n_haltpoll;
        CtlChange *changed;
        size_t n_changed;
        CtlCpu *cpus;
        size_t n_cpus;
        /* The policy. */
        char *active_profile, *mode, *poll_mode;
        bool companion_mode;         /* the wteo governor governs (CompanionMode) */
        char **profiles;
        bool calibrating;
        uint64_t calibration_usec;   /* CLOCK_REALTIME, 0 = never */
        uint64_t poll_window_nsec;
        /* Pins and holds. */
        char **pin_paths;
        CtlPin *pins;                /* read by ctl_fetch_pins() */
        size_t n_pins;
        CtlHold *holds;
        size_t n_holds;
        CtlReport *reports;
        size_t n_reports;
        CtlConsolidation consolidation;
        CtlLatencyRequest latency_request;
        CtlPowerProfiles power_profiles;
        /* status --interval: the window the CPUs' rates cover (ctl-window.h);
         * 0: the daemon's last tick. */
        uint64_t window_usec;
        unsigned window_ticks;       /* the ticks whose utilisation and wakeups were averaged */
        char *metrics_textfile_error; /* why the textfile is not written, "" (NULL: not said) */
} CtlStatus;

#define CTL_STATUS_NULL ((CtlStatus) {})

/* One CPU of PreviewProfile: the plan a profile would put in force. */
typedef struct CtlPreviewCpu {
        uint32_t index;
        char *profile;               /* in force there after the switch */
        uint32_t cap, floor;
        char *cap_reason, *floor_reason, *reason;
        bool polls_only;             /* its cap is a polling state */
        double burn;                 /* CPUs its polling may take at the last tick's load; < 0 unknown */
} CtlPreviewCpu;

/* A knob the switch would write in enforce mode. */
typedef struct CtlPreviewKnob {
        char *path, *now, *then;
} CtlPreviewKnob;

/* What PreviewProfile(name) says a switch to name would do. */
typedef struct CtlPreview {
        char *profile;
        CtlPreviewCpu *cpus;
        size_t n_cpus;
        CtlPreviewKnob *knobs;
        size_t n_knobs;
        char *governor, *poll_mode;
        uint64_t poll_window_nsec;
        uint32_t consolidation;
} CtlPreview;

#define CTL_PREVIEW_NULL ((CtlPreview) {})

void ctl_preview_done(CtlPreview *p);

/* Whether every CPU of p polls only (and there is one). */
bool ctl_preview_polls_every_cpu(const CtlPreview *p);

/* The CPUs p's polling may take in all (unknown ones counted as 0). */
double ctl_preview_burn(const CtlPreview *p);

/* The warning a switch to p's profile deserves, into buf ("" for none):
 * every CPU would poll while idle.  Returns buf. */
char *ctl_preview_warning(const CtlPreview *p, char *buf, size_t size);

/* Frees everything s owns and resets it to CTL_STATUS_NULL. */
void ctl_status_done(CtlStatus *s);

/* Reads the Manager's properties into s.  Prints the failure.  Returns 0 or
 * a negative errno. */
int ctl_fetch_manager(Ctl *c, CtlStatus *s);

/* Reads every CPU object listed in s->cpu_paths into s->cpus.  Prints the
 * failure.  Returns 0 or a negative errno. */
int ctl_fetch_cpus(Ctl *c, CtlStatus *s);

/* Reads every pin object listed in s->pin_paths into s->pins, in id
 * order; a pin that ended meanwhile is left out.  Prints the failure.
 * Returns 0 or a negative errno. */
int ctl_fetch_pins(Ctl *c, CtlStatus *s);

/* ctl_fetch_manager() and ctl_fetch_cpus() into a fresh s.  Returns 0 or
 * a negative errno (printed). */
int ctl_fetch_all(Ctl *c, CtlStatus *s);

/* The CPU with this index in s, or NULL. */
const CtlCpu *ctl_status_cpu(const CtlStatus *s, uint32_t index);

/* The CPUs of s (all, or the online ones) in list syntax ("0-2"), "none"
 * without any.  Returns buf. */
const char *ctl_status_cpu_list(const CtlStatus *s, bool online, char *buf, size_t size);

/* The name of state index on cpu, or "?". */
const char *ctl_state_name(const CtlCpu *cpu, uint32_t index);
