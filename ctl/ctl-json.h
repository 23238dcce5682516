/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* --json output: every command's result as one JSON object on stdout (keys
 * documented in idlepolicyctl(1)).  Unknown measurements are null.  Each
 * printer returns 0, or -ENOMEM when the object could not be built. */

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"
#include "ctl-model.h"

/* {"version": ..., "cpus": [...]}: the Manager and every CPU. */
int ctl_json_print_status(const CtlStatus *s);
/* {"governor": ..., "available_governors": [...]}, plus "previous" when set. */
int ctl_json_print_governor(const CtlStatus *s, const char *previous);
/* {"state": ..., "disabled": ..., "cpus": "0-3" or "all"}. */
int ctl_json_print_state(const char *state, bool disabled, const char *cpus);
/* {"resume_latency_us": ..., "cpus": ...}; 4294967295 = n/a as on the bus. */
int ctl_json_print_resume_latency(uint32_t usec, const char *cpus);
/* {"latency_limit_us": ..., "cpus": "0-3" or "all", "states": [{"cpu": N,
 * "enabled": [names], "disabled": [names]}]} for the online CPUs of set
 * (NULL: all) after latency-limit. */
int ctl_json_print_latency_limit(const CtlStatus *s, uint32_t usec, const CpuSet *set, const char *cpus);
/* {"restored": [{"path": ..., "original": ...}, ...]}. */
int ctl_json_print_restored(const CtlStatus *before);
/* status's object on one line (monitor --json, one per tick). */
int ctl_json_print_monitor_line(const CtlStatus *s);
/* {"active_profile": ..., "profiles": [...]}, plus "previous" and "warning"
 * when set. */
int ctl_json_print_profiles(const CtlStatus *s, const char *previous, const char *warning);
/* profile NAME --dry-run: {"profile", "active_profile", "mode", "cpus": [{"index",
 * "profile", "cap", "cap_state", "cap_reason", "floor", "floor_state",
 * "floor_reason", "polls_only", "burn_cpus", "reason", "now": {"cap", "floor",
 * "cap_reason", "floor_reason"} or null}], "knobs": [{"path", "now", "then"}],
 * "governor", "poll_mode", "poll_window_ns", "consolidation", "burn_cpus",
 * "polls_every_cpu", "warning"}; s is the daemon now. */
int ctl_json_print_preview(const CtlStatus *s, const CtlPreview *p);
/* {"mode": ...}, plus "previous" when set. */
int ctl_json_print_mode(const CtlStatus *s, const char *previous);
/* "consolidate": the level, set, measurements, reason, background, IRQs
 * (and "previous": the level before, when switched). */
int ctl_json_print_consolidation(const CtlConsolidation *c, const char *previous);
/* {"calibration_usec": ..., "cpus": [{"index": ..., "states": [{"index", "name",
 * "calibrated": {...} or null}]}]}. */
int ctl_json_print_calibration(const CtlStatus *s);
/* {"cpu": N, "states": [names], "source": "model" | "kernel",
 * "weights": [[W[s][j]...]...], "kernel_weights_error": "..." (kernel only),
 * "one": 1024}; kernel: the wteo governor's matrix (companion mode). */
int ctl_json_print_weights(const CtlCpu *cpu, bool kernel);
/* idle-info: {"driver", "governor", "cpus": [{"index", "online", "idle_entries",
 * "idle_time_us", "states": [{"index", "name", "desc", "latency_us",
 * "residency_us", "disabled", "usage", "time_us", "above", "below",
 * "rejected", "idle_time_share_pct", "too_deep_pct", "too_shallow_pct"}]}]}
 * for the CPUs in only (NULL: every online CPU); shares null when their
 * whole is 0. */
int ctl_json_print_idle_info(const CtlStatus *s, const CpuSet *only);
/* {"pins": [{"id", "path", "target", "cpus", "profile", "state", "pids",
 * "created_usec", "reason", "owner_uid"}], "holds": [{"cookie", "profile",
 * "cpus", "reason", "app_id", "owner"}]}. */
int ctl_json_print_pins(const CtlStatus *s);
/* {key: path}: {"pin": ...} after pin, {"unpinned": ...} after unpin. */
int ctl_json_print_pin_path(const char *key, const char *path);
/* {"cookie": ..., "profile": ..., "cpus": ...} on one line (hold prints it
 * at once, then waits). */
int ctl_json_print_hold(uint32_t cookie, const char *profile, const char *cpus);
/* {"error": {"name": ... or null, "message": ...}}. */
int ctl_json_print_error(const char *name, const char *message);
