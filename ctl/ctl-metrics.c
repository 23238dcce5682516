/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metrics: prints the daemon's Prometheus text exposition (the Manager's
 * Metrics() method), as node_exporter's textfile collector reads it. */
#include <stdio.h>
#include <string.h>

#include "ctl-bus.h"

int ctl_cmd_metrics(Ctl *c, char **args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("read the metrics");
        const char *text;
        int r;

        if (c->json)
                return ctl_usage_error("'metrics' prints the Prometheus text format and takes no --json");
        r = ctl_bus_call(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, "Metrics", &reply, "");
        if (r < 0)
                return CTL_EXIT_FAILURE;
        r = sd_bus_message_read(reply, "s", &text);
        if (r < 0) {
                ctx.action = "read the daemon's reply";
                (void) ctl_error_print(NULL, r, &ctx, false);
                return CTL_EXIT_FAILURE;
        }
        if (fputs(text, stdout) < 0 || fflush(stdout) != 0) {
                perror("idlepolicyctl: stdout");
                return CTL_EXIT_FAILURE;
        }
        return CTL_EXIT_OK;
}
