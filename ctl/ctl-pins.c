/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "pin TARGET", "unpin PIN|ID" and "pins": Pin / PinWithOptions, Unpin,
 * and the Manager's Pins and Holds with each pin's object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "ctl-pins.h"
#include "fileio.h"

int ctl_pin_take(Ctl *c, const char *target, const char *reason, char **ret_path) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("pin");
        const char *cpus = c->cpus ? c->cpus : "", *path;
        char *copy;
        int r;

        ctx.profile = c->profile;
        ctx.cpu = CTL_CPU_ALL;
        if (reason && reason[0])
                r = ctl_bus_call(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, "PinWithOptions", &reply,
                                 "sssa{sv}", target, cpus, c->profile, (unsigned) 1, "reason", "s", reason);
        else
                r = ctl_bus_call(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, "Pin", &reply,
                                 "sss", target, cpus, c->profile);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        copy = r < 0 ? NULL : strdup(path);
        if (!copy) {
                ctx.action = "read the daemon's reply";
                return ctl_error_print(NULL, r < 0 ? r : -ENOMEM, &ctx, c->json);
        }
        *ret_path = copy;
        return 0;
}

int ctl_hold_take(Ctl *c, const char *profile, const char *reason, const char *app_id, uint32_t *ret_cookie) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("hold the profile");
        int r;

        ctx.profile = profile;
        ctx.cpu = CTL_CPU_ALL;
        r = ctl_bus_call(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, "Hold", &reply, "ssss", profile,
                         c->cpus ? c->cpus : "", reason ? reason : "", app_id ? app_id : "");
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "u", ret_cookie);
        if (r < 0) {
                ctx.action = "read the daemon's reply";
                return ctl_error_print(NULL, r, &ctx, c->json);
        }
        return 0;
}

int ctl_hold_release(Ctl *c, uint32_t cookie) {
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("release the hold");

        return ctl_bus_call_manager(c, &ctx, "Release", "u", cookie);
}

/* An exe: rule names the file a symbolic link resolves to (the daemon
 * resolves it: idlepolicyd(8), Pin()): says so when the pin's Target is
 * not what was asked. */
static void note_resolved_exe(Ctl *c, const char *asked, const char *path) {
        _cleanup_free_ char *target = NULL;

        if (strncmp(asked, "exe:", 4) != 0 ||
            sd_bus_get_property_string(c->bus, IDLEPOLICY_BUS_NAME, path, IDLEPOLICY_PIN_IFACE, "Target", NULL,
                                       &target) < 0 ||
            strcmp(target, asked) == 0)
                return;
        fprintf(stderr, "idlepolicyctl: the rule matches %s: %s with its symbolic links resolved\n", target, asked);
}

int ctl_cmd_pin(Ctl *c, char **args) {
        _cleanup_free_ char *path = NULL;

        if (!c->profile)
                return ctl_usage_error("'pin' needs --profile NAME");
        if (ctl_pin_take(c, args[0], c->reason, &path) < 0)
                return CTL_EXIT_FAILURE;
        note_resolved_exe(c, args[0], path);
        if (c->json)
                return ctl_json_print_pin_path("pin", path) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf("%s\n", path);
        return CTL_EXIT_OK;
}

int ctl_cmd_unpin(Ctl *c, char **args) {
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("unpin");
        char path[128];
        uint32_t id;

        if (strncmp(args[0], IDLEPOLICY_PIN_PREFIX, strlen(IDLEPOLICY_PIN_PREFIX)) == 0)
                snprintf(path, sizeof(path), "%s", args[0]);
        else if (parse_u32(args[0], &id) >= 0 && id > 0)
                snprintf(path, sizeof(path), IDLEPOLICY_PIN_PREFIX "%u", id);
        else
                return ctl_usage_error("invalid pin '%s': give its number or its object path "
                                       "(see 'idlepolicyctl pins')", args[0]);
        if (!sd_bus_object_path_is_valid(path))
                return ctl_usage_error("invalid pin '%s': not an object path", args[0]);
        if (ctl_bus_call_manager(c, &ctx, "Unpin", "o", path) < 0)
                return CTL_EXIT_FAILURE;
        if (c->json)
                return ctl_json_print_pin_path("unpinned", path) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        return CTL_EXIT_OK;
}

/* Returns s, or "-" for NULL or "". */
static const char *or_dash(const char *s) {
        return s && s[0] ? s : "-";
}

/* The width of each column of the pins table but the last (REASON): the
 * widest cell, so that a long container path is shown whole and the
 * columns after it stay aligned. */
typedef struct PinWidths {
        int id, target, cpus, profile, state, pids;
} PinWidths;

static int widest(int w, const char *s) {
        int n = (int) strlen(or_dash(s));

        return n > w ? n : w;
}

static PinWidths pin_widths(const CtlStatus *s) {
        PinWidths w = { 4, 24, 8, 12, 7, 20 };

        for (size_t i = 0; i < s->n_pins; i++) {
                const CtlPin *p = &s->pins[i];
                char id[16], pids[64];

                snprintf(id, sizeof(id), "%u", p->id);
                w.id = widest(w.id, id);
                w.target = widest(w.target, p->target);
                w.cpus = widest(w.cpus, p->cpus);
                w.profile = widest(w.profile, p->profile);
                w.state = widest(w.state, p->state);
                w.pids = widest(w.pids, ctl_format_pids(p->pids, p->n_pids, pids, sizeof(pids)));
        }
        return w;
}

static void print_pin_row(const PinWidths *w, const char *id, const char *target, const char *cpus,
                          const char *profile, const char *state, const char *pids, const char *reason) {
        printf("%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w->id, id, w->target, target, w->cpus, cpus, w->profile,
               profile, w->state, state, w->pids, pids, reason);
}

static void print_pins(const CtlStatus *s) {
        PinWidths w = pin_widths(s);

        if (s->n_pins == 0) {
                printf("No pins.\n");
                return;
        }
        print_pin_row(&w, "ID", "TARGET", "CPUS", "PROFILE", "STATE", "PIDS", "REASON");
        for (size_t i = 0; i < s->n_pins; i++) {
                const CtlPin *p = &s->pins[i];
                char id[16], pids[64];

                snprintf(id, sizeof(id), "%u", p->id);
                print_pin_row(&w, id, or_dash(p->target), or_dash(p->cpus), or_dash(p->profile), or_dash(p->state),
                              ctl_format_pids(p->pids, p->n_pids, pids, sizeof(pids)), or_dash(p->reason));
        }
}

#define HOLD_ROW "%-6s  %-12s  %-8s  %-24s  %s\n"

static void print_holds(const CtlStatus *s) {
        if (s->n_holds == 0) {
                printf("No holds.\n");
                return;
        }
        printf(HOLD_ROW, "COOKIE", "PROFILE", "CPUS", "BY", "REASON");
        for (size_t i = 0; i < s->n_holds; i++) {
                const CtlHold *h = &s->holds[i];
                char cookie[16];

                snprintf(cookie, sizeof(cookie), "%u", h->cookie);
                printf(HOLD_ROW, cookie, or_dash(h->profile), h->cpus && h->cpus[0] ? h->cpus : "all",
                       h->app_id && h->app_id[0] ? h->app_id : or_dash(h->owner), or_dash(h->reason));
        }
}

int ctl_cmd_pins(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;

        if (ctl_fetch_manager(c, &s) < 0 || ctl_fetch_pins(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (c->json)
                return ctl_json_print_pins(&s) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        print_pins(&s);
        printf("\n");
        print_holds(&s);
        return CTL_EXIT_OK;
}
