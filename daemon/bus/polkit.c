/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bus-error.h"
#include "log.h"
#include "macro.h"
#include "polkit.h"

/* One method call waiting for (or holding) polkit's answer. */
typedef struct PolkitQuery {
        struct PolkitQuery *next;
        PolkitRegistry *registry;
        sd_bus_message *request;        /* the parked method call */
        sd_bus_slot *slot;              /* the pending CheckAuthorization */
        char *action;
        bool done;
        bool authorized;
        char reason[128];               /* why it was refused */
} PolkitQuery;

struct PolkitRegistry {
        PolkitQuery *queries;
};

int polkit_registry_new(PolkitRegistry **ret) {
        PolkitRegistry *r = calloc(1, sizeof(PolkitRegistry));

        if (!r)
                return -ENOMEM;
        *ret = r;
        return 0;
}

static void polkit_query_free(PolkitQuery *q) {
        sd_bus_slot_unref(q->slot);
        sd_bus_message_unref(q->request);
        free(q->action);
        free(q);
}

/* Takes q out of its registry's list and frees it. */
static void polkit_query_remove(PolkitQuery *q) {
        for (PolkitQuery **p = &q->registry->queries; *p; p = &(*p)->next)
                if (*p == q) {
                        *p = q->next;
                        break;
                }
        polkit_query_free(q);
}

/* Returns NULL. */
PolkitRegistry *polkit_registry_free(PolkitRegistry *r) {
        if (!r)
                return NULL;
        while (r->queries) {
                PolkitQuery *q = r->queries;
                r->queries = q->next;
                polkit_query_free(q);
        }
        free(r);
        return NULL;
}

/* Returns the query for this very method call, or NULL. */
static PolkitQuery *polkit_registry_find(PolkitRegistry *r, sd_bus_message *m, const char *action) {
        for (PolkitQuery *q = r->queries; q; q = q->next)
                if (q->request == m && strcmp(q->action, action) == 0)
                        return q;
        return NULL;
}

/* Returns 0 or a negative errno. */
int polkit_sender_euid(sd_bus_message *m, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
        return r < 0 ? r : sd_bus_creds_get_euid(creds, ret);
}

/* Returns true if the sender's effective uid is 0. */
static bool sender_is_root(sd_bus_message *m) {
        uid_t euid;
        int r = polkit_sender_euid(m, &euid);

        if (r < 0) {
                log_debug_errno(r, "Failed to get the caller's effective uid: %m, asking polkit");
                return false;
        }
        return euid == 0;
}

/* Reads the (bba{ss}) result.  Returns 0 and sets q->authorized, or a
 * negative errno. */
static int polkit_parse_reply(PolkitQuery *q, sd_bus_message *reply) {
        int authorized, challenge, r;

        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0)
                return r;
        q->authorized = authorized;
        if (!authorized)
                snprintf(q->reason, sizeof(q->reason), "%s", challenge ? "interactive authentication required" : "not authorized");
        return 0;
}

/* polkit answered (or the call failed): store the verdict and dispatch the
 * parked method call again. */
static int polkit_on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PolkitQuery *q = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int r;

        q->slot = sd_bus_slot_unref(q->slot);
        q->done = true;
        if (e) {
                log_notice("polkit check for %s failed: %s, denying.", q->action, e->message ?: e->name);
                snprintf(q->reason, sizeof(q->reason), "polkit is not available");
        } else if ((r = polkit_parse_reply(q, reply)) < 0) {
                log_warning_errno(r, "Failed to parse polkit's answer for %s: %m, denying.", q->action);
                snprintf(q->reason, sizeof(q->reason), "polkit gave an unreadable answer");
        }
        /* The handler may have read arguments before asking: it reads them
         * again from the start. */
        r = sd_bus_message_rewind(q->request, true);
        if (r >= 0)
                r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->request), q->request);
        if (r < 0) {
                log_error_errno(r, "Failed to dispatch the method call again: %m, dropping it.");
                polkit_query_remove(q);
        }
        return 0;
}

/* Sends CheckAuthorization for q.  Returns 0 or a negative errno. */
static int polkit_ask(PolkitQuery *q) {
        sd_bus_message *m = q->request;
        uint32_t flags = sd_bus_message_get_allow_interactive_authorization(m) > 0 ? 1 : 0;

        return sd_bus_call_method_async(
                        sd_bus_message_get_bus(m), &q->slot,
                        "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                        "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization",
                        polkit_on_reply, q,
                        "(sa{sv})sa{ss}us",
                        "system-bus-name", 1, "name", "s", sd_bus_message_get_sender(m),
                        q->action, 0, flags, "");
}

/* Parks message and asks polkit.  Returns 0 or a negative errno. */
static int polkit_start(PolkitRegistry *reg, sd_bus_message *message, const char *action) {
        PolkitQuery *q;
        int r;

        if (!sd_bus_message_get_sender(message))
                return -EACCES;
        q = calloc(1, sizeof(PolkitQuery));
        if (!q)
                return -ENOMEM;
        q->registry = reg;
        q->request = sd_bus_message_ref(message);
        q->action = strdup(action);
        r = q->action ? polkit_ask(q) : -ENOMEM;
        if (r < 0) {
                polkit_query_free(q);
                return r;
        }
        q->next = reg->queries;
        reg->queries = q;
        return 0;
}

/* Returns 1, 0 or a negative errno with error set. */
int polkit_verify(PolkitRegistry *reg, sd_bus_message *message, const char *action, sd_bus_error *error) {
        PolkitQuery *q = polkit_registry_find(reg, message, action);
        int r;

        if (q) {
                if (!q->done)
                        return 0;
                bool ok = q->authorized;
                if (!ok)
                        (void) sd_bus_error_setf(error, BUS_ERROR_ACCESS_DENIED, "Access denied for %s: %s", action, q->reason);
                polkit_query_remove(q);
                return ok ? 1 : -EACCES;
        }
        if (sender_is_root(message))
                return 1;
        r = polkit_start(reg, message, action);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_notice_errno(r, "Failed to ask polkit about %s: %m, denying.", action);
                return sd_bus_error_setf(error, BUS_ERROR_ACCESS_DENIED, "Access denied for %s: polkit is not available", action);
        }
        return 0;
}
