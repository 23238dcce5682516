/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metrics [openmetrics|prometheus]: prints the daemon's metrics (the
 * Manager's Metrics() method) in the OpenMetrics text format, or in the
 * Prometheus text format 0.0.4 the method gives (what node_exporter's
 * textfile collector and promtool read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-bus.h"
#include "exposition.h"

int ctl_cmd_metrics(Ctl *c, char **args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("read the metrics");
        _cleanup_free_ char *om = NULL;
        const char *text, *format = args[0] ? args[0] : "openmetrics";
        int r;

        if (c->json)
                return ctl_usage_error("'metrics' prints a text format and takes no --json");
        if (strcmp(format, "openmetrics") != 0 && strcmp(format, "prometheus") != 0)
                return ctl_usage_error("unknown metrics format '%s' (openmetrics or prometheus)", format);
        r = ctl_bus_call(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, "Metrics", &reply, "");
        if (r < 0)
                return CTL_EXIT_FAILURE;
        r = sd_bus_message_read(reply, "s", &text);
        if (r < 0) {
                ctx.action = "read the daemon's reply";
                (void) ctl_error_print(NULL, r, &ctx, false);
                return CTL_EXIT_FAILURE;
        }
        if (strcmp(format, "openmetrics") == 0) {
                r = exposition_to_openmetrics(text, &om);
                if (r < 0) {
                        ctx.action = "convert the metrics to OpenMetrics";
                        (void) ctl_error_print(NULL, r, &ctx, false);
                        return CTL_EXIT_FAILURE;
                }
                text = om;
        }
        if (fputs(text, stdout) < 0 || fflush(stdout) != 0) {
                perror("idlepolicyctl: stdout");
                return CTL_EXIT_FAILURE;
        }
        return CTL_EXIT_OK;
}
