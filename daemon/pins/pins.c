/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's pins and holds: checking a request, the registry, the
 * profile in force per CPU and pins.json.  The mechanics of a pin on the
 * machine are in pins-apply.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-error.h"
#include "fileio.h"
#include "fs-util.h"
#include "json-dir.h"
#include "log.h"
#include "macro.h"
#include "pin-exe.h"
#include "pin-persist.h"
#include "pins-internal.h"
#include "pins-rules.h"

static void pins_workload_ended(Pins *p, uint32_t id, const char *why);

/* Ends every pin whose workload a watcher saw end (pins-apply.c marks
 * them and enables this source). */
static int on_ends(sd_event_source *s, void *userdata) {
        Pins *p = userdata;

        for (size_t i = 0; i < p->n_runtimes;) {
                PinRuntime *rt = p->runtimes[i];
                uint32_t id = rt->id;

                if (!rt->ended) {
                        i++;
                        continue;
                }
                pins_workload_ended(p, id, rt->ended);          /* frees rt, moves the last one here */
                rt = pins_runtime(p, id, false);
                if (rt)                                         /* not a registered pin: just drop it */
                        pins_runtime_free(p, rt);
        }
        return 0;
}

/* Returns 0 or -ENOMEM. */
int pins_new(const PinsContext *c, Pins **ret) {
        Pins *p = calloc(1, sizeof(Pins));
        int r;

        if (!p)
                return -ENOMEM;
        p->ctx = *c;
        r = sd_event_add_defer(c->event, &p->ends, on_ends, p);
        if (r >= 0)
                r = sd_event_source_set_enabled(p->ends, SD_EVENT_OFF);
        p->registry = pin_registry_new();
        p->host_fd = host_root_fd();
        if (r >= 0 && p->host_fd < 0)
                r = p->host_fd;
        if (r < 0 || !p->registry) {
                pins_free(p);
                return r < 0 ? r : -ENOMEM;
        }
        *ret = p;
        return 0;
}

/* Returns NULL. */
Pins *pins_free(Pins *p) {
        if (!p)
                return NULL;
        pins_rules_done(p);
        pins_runtimes_free(p);
        pins_profiles_done(p);
        sd_event_source_disable_unref(p->ends);
        pin_registry_free(p->registry);
        free(p);
        return NULL;
}

void pins_freep(Pins **p) {
        *p = pins_free(*p);
}

const PinRegistry *pins_registry(const Pins *p) {
        return p->registry;
}

/* Returns buf. */
char *pins_object_path(uint32_t id, char *buf, size_t size) {
        snprintf(buf, size, PINS_OBJECT_PREFIX "/%" PRIu32, id);
        return buf;
}

/* Writes pins.json (logged on failure: the pins hold in memory). */
static void pins_save(Pins *p) {
        _cleanup_free_ char *json = NULL;

        if (!p->ctx.persist || p->ctx.persist->dir_fd < 0)
                return;
        json = pin_persist_to_json(p->registry);
        if (!json) {
                log_warning("Failed to serialise the pins, %s not updated.", PINS_FILE);
                return;
        }
        (void) persist_write_text(p->ctx.persist, PINS_FILE, json);
}

static void notify_changed(Pins *p) {
        if (p->ctx.changed)
                p->ctx.changed(p->ctx.userdata);
}

/* Parses a CPU list of a request: "" is the empty set; every CPU must be
 * online.  Returns 0, -EBADE, -ENXIO (a CPU this machine does not have) or
 * -EHOSTDOWN (one that is offline) with e set. */
static int parse_cpus(Pins *p, const char *text, CpuSet *ret, ErrorInfo *e) {
        const Topology *t = p->ctx.topology(p->ctx.userdata);
        ErrorInfo inner = {};

        if (cpuset_parse(text, ret, &inner) < 0)
                return errinfo_set(e, -ERRNO_INVALID_CPUS, "Invalid CPU list \"%.64s\": %s", text, inner.message);
        CPUSET_FOREACH(cpu, ret) {
                char list[256];

                if (!cpuset_contains(&t->present, (unsigned) cpu))
                        return errinfo_set(e, -ERRNO_UNKNOWN_CPU, "CPU %d is not present (CPUs present: %s)", cpu,
                                           cpuset_format(&t->present, list, sizeof(list)) < 0 ?
                                           "see the CPUs property" : list);
                if (!cpuset_contains(&t->online, (unsigned) cpu))
                        return errinfo_set(e, -ERRNO_CPU_OFFLINE, "CPU %d is offline (CPUs online: %s)", cpu,
                                           cpuset_format(&t->online, list, sizeof(list)) < 0 ?
                                           "see OnlineCPUs" : list);
        }
        return 0;
}

/* An exe: target's path resolved as the kernel shows executables
 * (pin-exe.h): the rule then names the file itself, not a symbolic link to
 * it (logged when it differs).  Returns 0, or -ERRNO_INVALID_TARGET with e
 * set (a loop, a script, a directory...). */
static int resolve_exe(Pins *p, PinTarget *t, ErrorInfo *e) {
        char path[PIN_TARGET_VALUE_MAX];
        ErrorInfo inner = {};
        int r;

        if (t->kind != PIN_TARGET_EXE)
                return 0;
        r = pin_exe_resolve(p->host_fd, t->value, path, sizeof(path), &inner);
        if (r < 0)
                return errinfo_set(e, -ERRNO_INVALID_TARGET, "Cannot pin exe:%s: %s", t->value, inner.message);
        if (r > 0) {
                log_info("exe:%s names a symbolic link: the rule matches the file it resolves to, exe:%s.", t->value, path);
                snprintf(t->value, sizeof(t->value), "%s", path);
        }
        return 0;
}

/* Returns 0 or a named negative errno with e set. */
static int make_spec(Pins *p, const char *target, const char *cpus, const char *profile, const char *reason,
                     Pin *ret, ErrorInfo *e) {
        int r;

        *ret = (Pin) {};
        r = pin_target_parse(target, &ret->target, e);
        if (r < 0)
                return -ERRNO_INVALID_TARGET;
        r = resolve_exe(p, &ret->target, e);
        if (r < 0)
                return r;
        r = parse_cpus(p, cpus, &ret->cpus, e);
        if (r < 0)
                return r;
        ret->cpus_given = cpuset_count(&ret->cpus) > 0;
        r = pins_profile_check(p, profile, e);
        if (r < 0)
                return r;
        snprintf(ret->profile, sizeof(ret->profile), "%s", profile);
        snprintf(ret->reason, sizeof(ret->reason), "%s", reason ?: "");
        return 0;
}

/* The LimitReached of a new pin or hold of uid (through the bus
 * connection owner, for a hold), naming the limit.  Returns
 * -ERRNO_LIMIT_REACHED with e set. */
static int limit_error(PinQuota q, bool hold, uid_t uid, const char *owner, ErrorInfo *e) {
        const char *what = hold ? "holds" : "pins";
        int max = hold ? PIN_REGISTRY_HOLDS_MAX : PIN_REGISTRY_PINS_MAX;

        switch (q) {
        case PIN_QUOTA_OWNER:
                return errinfo_set(e, -ERRNO_LIMIT_REACHED, "%s holds %d profiles already (at most %d per bus connection)",
                                   owner, HOLDS_PER_OWNER_MAX, HOLDS_PER_OWNER_MAX);
        case PIN_QUOTA_UID:
                return errinfo_set(e, -ERRNO_LIMIT_REACHED, "User %u has %d %s already (at most %d per user other than root)",
                                   (unsigned) uid, hold ? HOLDS_PER_UID_MAX : PINS_PER_UID_MAX, what,
                                   hold ? HOLDS_PER_UID_MAX : PINS_PER_UID_MAX);
        case PIN_QUOTA_USERS:
                return errinfo_set(e, -ERRNO_LIMIT_REACHED, "Users other than root have %d %s already (%d of %d are kept for root)",
                                   max - PIN_REGISTRY_ROOT_RESERVE, what, PIN_REGISTRY_ROOT_RESERVE, max);
        default:
                return errinfo_set(e, -ERRNO_LIMIT_REACHED, "There are %d %s already", max, what);
        }
}

/* Makes pin real: a rule follows processes, a pid or cgroup pin is
 * applied.  Returns 0 or a named negative errno with e set. */
static int pin_start(Pins *p, Pin *pin, ErrorInfo *e) {
        if (pin_target_is_rule(&pin->target))
                return pins_rules_start(p, pin, e);
        return pins_apply(p, pin, e);
}

/* Returns 0 or a named negative errno with e set. */
int pins_pin(Pins *p, const char *target, const char *cpus, const char *profile, uid_t owner,
             const char *reason, uint64_t now_realtime_usec, uint32_t *ret_id, ErrorInfo *e) {
        Pin spec, *pin;
        int r;

        r = make_spec(p, target, cpus, profile, reason, &spec, e);
        if (r < 0)
                return r;
        spec.owner_uid = (uint32_t) owner;
        spec.created_usec = now_realtime_usec;
        spec.state = PIN_STATE_WAITING;
        r = pin_registry_add(p->registry, &spec, &pin);
        if (r == -EEXIST)
                return errinfo_set(e, r, "%.200s is pinned already", target);
        if (r == -EDQUOT)
                return limit_error(pin_registry_pin_quota(p->registry, spec.owner_uid), false, owner, NULL, e);
        if (r == -ERANGE)
                return errinfo_set(e, -ERRNO_LIMIT_REACHED, "The pin ids (1 to 4294967295) are used up");
        if (r < 0)
                return errinfo_set(e, r, "Failed to add the pin: %s", strerror(-r));
        r = pin_start(p, pin, e);
        if (r < 0) {
                (void) pin_registry_remove(p->registry, pin->id);
                pins_rules_stop_unused(p);
                return r;
        }
        if (!pin_target_is_rule(&pin->target))
                (void) pin_registry_set_state(p->registry, pin->id, PIN_STATE_ACTIVE);
        *ret_id = pin->id;
        log_info("Pinned %s to CPUs %s with %s (pin %" PRIu32 ").", target, cpus[0] ? cpus : "as they are",
                 profile, pin->id);
        pins_save(p);
        notify_changed(p);
        return 0;
}

/* Ends pin id for why: undo, remove, save, tell.  Returns as pins_undo(),
 * -EIDRM for an unknown pin. */
static int pin_end(Pins *p, uint32_t id, const char *why, ErrorInfo *e) {
        int r;

        if (!pin_registry_find(p->registry, id))
                return errinfo_set(e, -ERRNO_NO_SUCH_PIN, "No pin %" PRIu32, id);
        r = pins_undo(p, id, e);
        (void) pin_registry_remove(p->registry, id);
        pins_rules_stop_unused(p);
        log_info("Pin %" PRIu32 " ended: %s.", id, why);
        pins_save(p);
        if (p->ctx.released)
                p->ctx.released(id, why, p->ctx.userdata);
        notify_changed(p);
        return r;
}

/* Returns 0, -EIDRM or -EIO with e set. */
int pins_unpin(Pins *p, uint32_t id, ErrorInfo *e) {
        return pin_end(p, id, "unpinned", e);
}

static void pins_workload_ended(Pins *p, uint32_t id, const char *why) {
        ErrorInfo e = {};

        if (pin_end(p, id, why, &e) < 0)
                log_warning("Pin %" PRIu32 ": %s", id, e.message);
}

/* Returns 0 or a named negative errno with e set. */
int pins_hold(Pins *p, const char *profile, const char *cpus, const char *reason, const char *app_id,
              const char *owner, uid_t uid, uint32_t *ret_cookie, ErrorInfo *e) {
        Hold spec = { .owner_uid = (uint32_t) uid }, *h;
        int r;

        r = pins_profile_check(p, profile, e);
        if (r >= 0)
                r = parse_cpus(p, cpus, &spec.cpus, e);
        if (r < 0)
                return r;
        spec.cpus_given = cpuset_count(&spec.cpus) > 0;
        snprintf(spec.profile, sizeof(spec.profile), "%s", profile);
        snprintf(spec.reason, sizeof(spec.reason), "%s", reason ?: "");
        snprintf(spec.app_id, sizeof(spec.app_id), "%s", app_id ?: "");
        snprintf(spec.owner, sizeof(spec.owner), "%s", owner ?: "");
        r = pin_registry_hold_add(p->registry, &spec, &h);
        if (r == -EDQUOT)
                return limit_error(pin_registry_hold_quota(p->registry, spec.owner_uid, spec.owner), true, uid,
                                   spec.owner, e);
        if (r < 0)
                return errinfo_set(e, r, "Failed to add the hold: %s", strerror(-r));
        *ret_cookie = h->cookie;
        log_info("%s holds %s on CPUs %s (cookie %" PRIu32 ").", app_id && app_id[0] ? app_id : owner, profile,
                 cpus[0] ? cpus : "all", h->cookie);
        notify_changed(p);
        return 0;
}

/* Returns 0 or -ENOMSG. */
int pins_release(Pins *p, uint32_t cookie) {
        if (pin_registry_hold_remove(p->registry, cookie) < 0)
                return -ERRNO_NO_SUCH_HOLD;
        if (p->ctx.hold_released)
                p->ctx.hold_released(cookie, p->ctx.userdata);
        notify_changed(p);
        return 0;
}

static void on_hold_released(const Hold *h, void *userdata) {
        Pins *p = userdata;

        log_info("Hold %" PRIu32 " released: %s left the bus.", h->cookie, h->owner);
        if (p->ctx.hold_released)
                p->ctx.hold_released(h->cookie, p->ctx.userdata);
}

/* Returns the number released. */
unsigned pins_release_owner(Pins *p, const char *owner) {
        int n = pin_registry_release_owner(p->registry, owner, on_hold_released, p);

        if (n > 0)
                notify_changed(p);
        return n > 0 ? (unsigned) n : 0;
}

static const Profile *lookup_profile(const char *name, void *userdata) {
        return pins_profile_lookup(userdata, name);
}

static int object_path(const Pin *pin, char *buf, size_t size, void *userdata) {
        pins_object_path(pin->id, buf, size);
        return 0;
}

/* Returns 0 or a negative errno. */
int pins_choices(Pins *p, const Profile *machine, unsigned n_cpus, CpuProfileChoice *ret) {
        _cleanup_free_ PinClaim *claims = NULL;
        size_t n = 0;
        int r;

        r = pin_claims_from_registry(p->registry, n_cpus, lookup_profile, object_path, p, &claims, &n);
        if (r >= 0)
                r = pins_profiles_take_error(p);
        if (r >= 0)
                r = pin_precedence_resolve(machine, claims, n, n_cpus, ret);
        /* ret points at the derived profiles of the claims only now */
        if (r >= 0)
                pins_profiles_sweep(p);
        return r;
}

void pins_online_changed(Pins *p) {
        const CpuSet *online = &p->ctx.topology(p->ctx.userdata)->online;

        for (size_t i = 0; i < pin_registry_n_pins(p->registry); i++) {
                Pin *pin = pin_registry_pin_at(p->registry, i);
                ErrorInfo e = {};

                if (pins_reassert(p, pin, online, &e) < 0)
                        log_warning("Pin %" PRIu32 ": failed to set its CPUs again after CPU hotplug: %s, ignoring",
                                    pin->id, e.message[0] ? e.message : "out of memory");
        }
}

/* Re-applies a pin taken from pins.json; one whose workload is gone ends.
 * Returns true if it is active again. */
static bool reapply(Pins *p, Pin *pin) {
        ErrorInfo e = {};
        uint32_t id = pin->id;
        int r;

        r = pins_profile_check(p, pin->profile, &e);
        if (r >= 0)
                r = pin_start(p, pin, &e);
        if (r < 0) {
                log_notice("Pin %" PRIu32 " not re-established: %s.", id, e.message);
                (void) pin_registry_remove(p->registry, id);
                return false;
        }
        if (!pin_target_is_rule(&pin->target))
                (void) pin_registry_set_state(p->registry, id, PIN_STATE_ACTIVE);
        return true;
}

/* Returns the number re-applied or -ENOMEM. */
int pins_load(Pins *p) {
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ uint32_t *ids = NULL;
        ErrorInfo e = {};
        size_t n = 0;
        int r, applied = 0;

        if (!p->ctx.persist)
                return 0;
        r = persist_read_text(p->ctx.persist, PINS_FILE, PINS_FILE_MAX, &text, &e);
        if (r == -EINVAL)
                log_warning("%s/%s: %s, no pin taken from it.", p->ctx.persist->dir, PINS_FILE, e.message);
        if (r <= 0)
                return r == -ENOMEM ? r : 0;
        r = pin_persist_load(text, strlen(text), p->registry, &e);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning("%s/%s: %s, no pin taken from it.", p->ctx.persist->dir, PINS_FILE, e.message);
                return 0;
        }
        ids = calloc(pin_registry_n_pins(p->registry) + 1, sizeof(uint32_t));
        if (!ids)
                return -ENOMEM;
        PIN_REGISTRY_FOREACH_PIN(pin, p->registry)
                ids[n++] = pin->id;
        for (size_t i = 0; i < n; i++) {
                Pin *pin = pin_registry_find(p->registry, ids[i]);
                applied += pin && reapply(p, pin);
        }
        if (n > 0) {
                log_info("Re-established %d of %zu pin(s) from %s.", applied, n, PINS_FILE);
                pins_save(p);
                notify_changed(p);
        }
        return applied;
}

/* Takes the rules of one pins.d file.  Returns 0, -ENOMEM, or -EBADMSG for
 * a file rejected whole (logged). */
static int load_rule_file(const char *path, const char *text, size_t len, void *userdata) {
        Pins *p = userdata;
        _cleanup_free_ Pin *rules = NULL;
        ErrorInfo e = {};
        size_t n = 0;
        int r;

        r = pin_rules_parse(text, len, path, &rules, &n, &e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_error_errno(r, "Rejecting %s", e.message);
        for (size_t i = 0; i < n; i++) {
                char target[PIN_TARGET_VALUE_MAX + 16] = "";
                Pin *pin;

                (void) pin_target_format(&rules[i].target, target, sizeof(target));
                r = resolve_exe(p, &rules[i].target, &e);
                if (r >= 0)
                        r = pins_profile_check(p, rules[i].profile, &e);
                if (r >= 0)
                        r = pin_registry_add(p->registry, &rules[i], &pin);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        log_error("%s: rule %zu (%s): %s, ignoring it.", path, i, target,
                                  r == -ERRNO_UNKNOWN_PROFILE || r == -ERRNO_INVALID_LATENCY ||
                                  r == -ERRNO_INVALID_TARGET ? e.message :
                                  r == -EEXIST ? "the target is pinned already" : strerror(-r));
                        continue;
                }
                if (pin_start(p, pin, &e) < 0) {
                        log_error("%s: rule %zu (%s): %s, ignoring it.", path, i, target, e.message);
                        (void) pin_registry_remove(p->registry, pin->id);
                }
        }
        return 0;
}

/* Returns the number of bad files or -ENOMEM. */
int pins_load_rules(Pins *p, const char *dir) {
        size_t before = pin_registry_n_pins(p->registry);
        int r = json_dir_foreach_root_only(dir, PINS_RULES_FILE_MAX, load_rule_file, p);

        pins_rules_stop_unused(p);
        if (r >= 0 && pin_registry_n_pins(p->registry) != before)
                notify_changed(p);
        return r;
}
