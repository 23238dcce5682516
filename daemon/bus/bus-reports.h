/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What clients tell the status (a third vtable on the Manager): a client
 * that acts for others (the NRI plugin) reports what it could not do, a
 * pod's bad annotation, so that `idlepolicyctl status` shows it beside the
 * pins.
 *
 *   Report(s source, s message)   message "" clears source's report; one
 *                                 report per source, the latest kept
 *   Reports a(tss)                realtime µs, source, message; oldest first
 *
 * At most BUS_REPORTS_MAX reports (the oldest goes); source up to 127
 * bytes, message up to 255, no control characters.  Authorised as Pin
 * (org.idlepolicy.IdlePolicy1.pin; root passes).  Each report is logged.
 * Reports are not persisted: a restarted plugin reports again. */

#define BUS_REPORTS_MAX 64

typedef struct Manager Manager;

/* Adds the vtable to m->bus.  Returns 0 or a negative errno. */
int bus_reports_register(Manager *m);
