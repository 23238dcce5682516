/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Report() and Reports on the Manager (bus-reports.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-manager.h"
#include "bus-pins-internal.h"
#include "bus-reports.h"
#include "bus-util.h"
#include "log.h"
#include "manager.h"
#include "polkit.h"

typedef struct Report {
        uint64_t usec;
        char source[128];
        char message[256];
} Report;

typedef struct BusReports {
        Manager *manager;
        Report items[BUS_REPORTS_MAX];
        size_t n;
} BusReports;

/* Drops report i, keeping the order. */
static void remove_at(BusReports *br, size_t i) {
        memmove(&br->items[i], &br->items[i + 1], (br->n - i - 1) * sizeof(Report));
        br->n--;
}

/* Sets (message non-empty) or clears source's report.  Returns true if
 * anything changed. */
static bool put(BusReports *br, const char *source, const char *message, uint64_t now) {
        bool changed = false;

        for (size_t i = 0; i < br->n; i++)
                if (strcmp(br->items[i].source, source) == 0) {
                        if (message[0] && strcmp(br->items[i].message, message) == 0)
                                return false;
                        remove_at(br, i);
                        changed = true;
                        break;
                }
        if (!message[0])
                return changed;
        if (br->n == BUS_REPORTS_MAX)
                remove_at(br, 0);
        br->items[br->n] = (Report) { .usec = now };
        snprintf(br->items[br->n].source, sizeof(br->items[br->n].source), "%s", source);
        snprintf(br->items[br->n].message, sizeof(br->items[br->n].message), "%s", message);
        br->n++;
        return true;
}

static int method_report(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        BusReports *br = userdata;
        Manager *m = br->manager;
        const char *source, *text;
        uint64_t now = 0;
        int r;

        r = sd_bus_message_read(message, "ss", &source, &text);
        if (r >= 0 && !source[0])
                r = sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "The source is empty");
        if (r >= 0)
                r = bus_check_text("source", source, sizeof(((Report *) NULL)->source), error);
        if (r >= 0)
                r = bus_check_text("message", text, sizeof(((Report *) NULL)->message), error);
        if (r >= 0)
                r = bus_authorize(m, message, POLKIT_ACTION_PREFIX "pin", error);
        if (r <= 0)
                return r < 0 ? r : 1;
        (void) sd_event_now(m->event, CLOCK_REALTIME, &now);
        if (put(br, source, text, now)) {
                if (text[0])
                        log_notice("%s: %s", source, text);
                r = sd_bus_emit_properties_changed(m->bus, BUS_PATH, BUS_MANAGER_INTERFACE, "Reports", NULL);
                if (r < 0)
                        log_debug_errno(r, "Failed to emit PropertiesChanged(Reports): %m, ignoring");
        }
        return sd_bus_reply_method_return(message, NULL);
}

static int property_get_reports(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        BusReports *br = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "(tss)");

        for (size_t i = 0; r >= 0 && i < br->n; i++)
                r = sd_bus_message_append(reply, "(tss)", br->items[i].usec, br->items[i].source,
                                          br->items[i].message);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static const sd_bus_vtable reports_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Reports", "a(tss)", property_get_reports, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("Report", SD_BUS_ARGS("s", source, "s", message), SD_BUS_NO_RESULT,
                                method_report, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

/* Returns 0 or a negative errno. */
int bus_reports_register(Manager *m) {
        BusReports *br = calloc(1, sizeof(BusReports));
        sd_bus_slot *slot;
        int r;

        if (!br)
                return -ENOMEM;
        br->manager = m;
        r = sd_bus_add_object_vtable(m->bus, &slot, BUS_PATH, BUS_MANAGER_INTERFACE, reports_vtable, br);
        if (r < 0) {
                free(br);
                return r;
        }
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        (void) sd_bus_slot_set_floating(slot, 1);
        return 0;
}
