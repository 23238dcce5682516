/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A unit pin's CPUs through systemd's own D-Bus API (issue 12, unit:NAME):
 * the unit's AllowedCPUs= read, set at runtime (SetUnitProperties with
 * runtime=true: a drop-in under /run/systemd/system.control, gone at
 * reboot) and put back, and the moment the unit stops.  A client on a bus
 * the caller owns (the daemon's system bus connection); nothing here
 * starts, stops or loads a unit, and no unit but the named one is touched.
 *
 * AllowedCPUs= lives on the interface of the unit's type, only for the
 * types that have a cgroup: .service, .scope, .slice, .socket, .mount,
 * .swap.  It travels as "ay", a little-endian CPU mask (cpuset.h,
 * cpuset_to_mask); an empty array means "not set" (the unit may use every
 * CPU its slice allows).  Putting "not set" back writes an empty
 * assignment, which resets what the runtime drop-in had set.
 *
 * The errors, each with e (may be NULL) saying what happened:
 *   -EINVAL        not a valid unit name (pin-target.h's rules)
 *   -EOPNOTSUPP    a unit type without processes (.target, .timer, .path,
 *                  .device, .automount), or a systemd without AllowedCPUs
 *                  (before v243)
 *   -ENOENT        no such unit loaded (NoSuchUnit; LoadState not "loaded")
 *   -EHOSTUNREACH  no systemd on the bus (the name has no owner), or the
 *                  bus connection is gone: the daemon's NoSystemd
 *   -EACCES        systemd refused the caller
 *   -ETIMEDOUT     systemd did not answer within SYSTEMD_UNIT_TIMEOUT_USEC
 *   -ENOMEM
 *   -EIO           any other error of systemd (its name and message in e)
 * The calls are synchronous: each blocks the caller's loop until systemd
 * answers, SYSTEMD_UNIT_TIMEOUT_USEC at the most. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "cpuset.h"
#include "errinfo.h"

#define SYSTEMD_BUS_NAME "org.freedesktop.systemd1"
#define SYSTEMD_OBJECT_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER_INTERFACE SYSTEMD_BUS_NAME ".Manager"
#define SYSTEMD_UNIT_INTERFACE SYSTEMD_BUS_NAME ".Unit"
#define SYSTEMD_UNIT_TIMEOUT_USEC ((uint64_t) 5 * 1000 * 1000)

/* The interface that carries AllowedCPUs for unit's type
 * ("org.freedesktop.systemd1.Service" for "foo.service"), or NULL for a
 * type without a cgroup or a name without a type. */
const char *systemd_unit_interface(const char *unit);

/* Checks unit the way the calls below do before they ask systemd.
 * Returns 0, -EINVAL or -EOPNOTSUPP with e set. */
int systemd_unit_check_name(const char *unit, ErrorInfo *e);

/* Reads unit's AllowedCPUs (GetUnit: a unit that is not loaded is not
 * loaded for this, it is -ENOENT).  Returns 0 with the CPUs in *ret and
 * in *ret_set whether it is set at all (false: an empty mask), or an error
 * above; *ret and *ret_set untouched on failure. */
int systemd_unit_get_allowed_cpus(sd_bus *bus, const char *unit, CpuSet *ret, bool *ret_set, ErrorInfo *e);

/* Sets unit's AllowedCPUs to cpus at runtime (SetUnitProperties(unit,
 * true, [("AllowedCPUs", ay)])); an empty set resets it to "not set".
 * systemd applies it to the unit's cgroup at once (cgroup v2 with the
 * cpuset controller; elsewhere it is recorded but has no effect).
 * Returns 0 or an error above. */
int systemd_unit_set_allowed_cpus(sd_bus *bus, const char *unit, const CpuSet *cpus, ErrorInfo *e);

/* Returns 1 if unit is loaded and its ActiveState is neither "inactive"
 * nor "failed" (activating, reloading and deactivating count: it may have
 * processes), 0 if it is not (or not loaded at all), or an error above. */
int systemd_unit_is_active(sd_bus *bus, const char *unit, ErrorInfo *e);

typedef struct SystemdUnitWatch SystemdUnitWatch;

/* Called once, from the bus's processing (the event loop the bus is
 * attached to), when the unit has stopped: why is "inactive" or "failed"
 * (its ActiveState), "removed" (systemd unloaded it: UnitRemoved, or its
 * object is gone), or "unwatched" (the bus refused a match: the stop
 * cannot be seen, so the caller should end what depends on it).  unit is
 * the watch's own copy, valid until the watch is freed.  It may free the
 * watch. */
typedef void (*SystemdUnitWatchStop)(const char *unit, const char *why, void *userdata);

/* Watches unit (loaded now: GetUnit) until it stops.  Adds two matches
 * (PropertiesChanged on the unit's object, UnitRemoved on the manager:
 * the system bus allows 512 a connection by default, so about 250
 * watches), asks systemd for its signals (Subscribe(); never undone,
 * since systemd keeps one subscription per connection, shared by every
 * watch, until the connection closes), then reads ActiveState, so a unit
 * that stopped meanwhile is seen.  A unit that is not loaded is -ENOENT,
 * one that is loaded but stopped is reported at the first processing of
 * the bus.  Returns 0, or an error above (-EOPNOTSUPP is never one: any
 * unit type can be watched) with e set; *ret untouched on failure. */
int systemd_unit_watch_new(sd_bus *bus, const char *unit, SystemdUnitWatchStop on_stop, void *userdata,
                           SystemdUnitWatch **ret, ErrorInfo *e);

/* The unit the watch was made for. */
const char *systemd_unit_watch_get_unit(const SystemdUnitWatch *w);

/* Stops watching.  NULL is fine.  Returns NULL. */
SystemdUnitWatch *systemd_unit_watch_free(SystemdUnitWatch *w);
void systemd_unit_watch_freep(SystemdUnitWatch **w);
