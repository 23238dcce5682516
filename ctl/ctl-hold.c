/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "hold PROFILE": Hold, then keep the connection (and so the hold) until
 * SIGINT, SIGTERM or SIGHUP, then Release.  Like powerprofilesctl's
 * hold: the daemon releases the hold by itself when we are gone.  Exits
 * 1 when the hold goes without us (released by someone else, or the
 * daemon left the bus). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "ctl-bus.h"
#include "ctl-json.h"
#include "ctl-pins.h"

typedef struct HoldWait {
        Ctl *ctl;
        uint32_t cookie;
} HoldWait;

/* The hold went without us: ends the wait with a failure. */
static int wait_fail(sd_bus_message *m) {
        return sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), CTL_EXIT_FAILURE);
}

static int on_hold_released(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        HoldWait *w = userdata;
        uint32_t cookie;

        if (sd_bus_message_read(m, "u", &cookie) < 0 || cookie != w->cookie)
                return 0;
        fprintf(stderr, "idlepolicyctl: hold %u was released by someone else\n", cookie);
        return wait_fail(m);
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || new_owner[0])
                return 0;
        fprintf(stderr, "idlepolicyctl: idlepolicyd left the bus, and the hold with it\n");
        return wait_fail(m);
}

/* Releases the hold (while connected: the bus closes when the loop
 * exits) and ends the wait. */
static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        HoldWait *w = userdata;
        int r = ctl_hold_release(w->ctl, w->cookie);

        return sd_event_exit(sd_event_source_get_event(s), r < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK);
}

/* Watches the hold and the daemon, and the signals in mask (blocked).
 * Returns 0 or a negative errno. */
static int wait_setup(Ctl *c, sd_event *e, HoldWait *w, const sigset_t *mask) {
        int r;

        r = sd_bus_attach_event(c->bus, e, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_match_signal(c->bus, NULL, IDLEPOLICY_BUS_NAME, IDLEPOLICY_MANAGER_PATH,
                                        IDLEPOLICY_MANAGER_IFACE, "HoldReleased", on_hold_released, w);
        if (r >= 0)
                r = sd_bus_add_match(c->bus, NULL,
                                     "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                     "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                     "arg0='" IDLEPOLICY_BUS_NAME "'", on_name_owner_changed, w);
        for (int sig = 1; r >= 0 && sig < NSIG; sig++)
                if (sigismember(mask, sig) == 1)
                        r = sd_event_add_signal(e, NULL, sig, on_signal, w);
        return r;
}

int ctl_cmd_hold(Ctl *c, char **args) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("wait for the hold");
        HoldWait w = { .ctl = c };
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        (void) sigprocmask(SIG_BLOCK, &mask, NULL);
        if (ctl_bus_open(c) < 0)
                return CTL_EXIT_FAILURE;
        r = sd_event_new(&e);
        if (r >= 0)
                r = wait_setup(c, e, &w, &mask);
        if (r < 0) {
                (void) ctl_error_print(NULL, r, &ctx, c->json);
                return CTL_EXIT_FAILURE;
        }
        if (ctl_hold_take(c, args[0], c->reason, c->app_id, &w.cookie) < 0)
                return CTL_EXIT_FAILURE;
        if (c->json)
                (void) ctl_json_print_hold(w.cookie, args[0], c->cpus ? c->cpus : "");
        else
                printf("Holding %s on %s (cookie %u) until Ctrl-C.\n", args[0],
                       c->cpus && c->cpus[0] ? c->cpus : "all CPUs", w.cookie);
        fflush(stdout);
        r = sd_event_loop(e);
        if (r < 0) {
                (void) ctl_error_print(NULL, r, &ctx, c->json);
                return CTL_EXIT_FAILURE;
        }
        return r;
}
