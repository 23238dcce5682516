/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "bus-error.h"
#include "bus-manager.h"
#include "bus-preview.h"
#include "bus.h"
#include "manager.h"
#include "profile-preview.h"

/* The vtable's userdata: sd-bus merges a second vtable of an interface
 * only when its userdata differs from the first's (the manager). */
typedef struct BusPreview {
        Manager *manager;
} BusPreview;

/* (cpu, profile, cap, floor, cap_reason, floor_reason, polls_only, burn, reason) per CPU. */
static int append_cpus(sd_bus_message *reply, const ProfilePreview *p) {
        int r = sd_bus_message_open_container(reply, 'a', "(usuussbds)");

        for (size_t i = 0; r >= 0 && i < p->n_cpus; i++) {
                const PreviewCpu *c = &p->cpus[i];

                r = sd_bus_message_append(reply, "(usuussbds)", c->cpu, c->profile, c->cap, c->floor, c->cap_reason,
                                          c->floor_reason, (int) c->polls_only, c->burn, c->reason);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* (path, value now, value after the switch) per knob. */
static int append_knobs(sd_bus_message *reply, const ProfilePreview *p) {
        int r = sd_bus_message_open_container(reply, 'a', "(sss)");

        for (size_t i = 0; r >= 0 && i < p->n_knobs; i++)
                r = sd_bus_message_append(reply, "(sss)", p->knobs[i].path, p->knobs[i].now, p->knobs[i].then);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Read-only: no authorisation, as for the properties. */
static int method_preview_profile(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(profile_preview_done) ProfilePreview p = PROFILE_PREVIEW_NULL;
        ErrorInfo e = {};
        const char *name;
        int r;

        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        r = profile_preview(((BusPreview *) userdata)->manager, name, &p, &e);
        if (r < 0)
                return bus_error_from_errno(error, r, &e, &bus_errors_preview_profile);
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = append_cpus(reply, &p);
        if (r >= 0)
                r = append_knobs(reply, &p);
        if (r >= 0)
                r = sd_bus_message_append(reply, "sstu", p.governor, p.poll_mode, p.poll_window_ns,
                                          (uint32_t) p.consolidation);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static const sd_bus_vtable preview_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("PreviewProfile", SD_BUS_ARGS("s", profile),
                                SD_BUS_RESULT("a(usuussbds)", cpus, "a(sss)", knobs, "s", governor, "s", poll_mode,
                                              "t", poll_window_ns, "u", consolidation),
                                method_preview_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int bus_preview_register(Manager *m) {
        _cleanup_free_ BusPreview *owned = calloc(1, sizeof(BusPreview));
        sd_bus_slot *slot;
        int r;

        if (!owned)
                return -ENOMEM;
        owned->manager = m;
        r = sd_bus_add_object_vtable(m->bus, &slot, BUS_PATH, BUS_MANAGER_INTERFACE, preview_vtable, owned);
        if (r < 0)
                return r;
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        (void) sd_bus_slot_set_floating(slot, 1);
        TAKE_PTR(owned);
        return 0;
}
