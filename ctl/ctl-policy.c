/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "profile [NAME]" and "mode [observe|enforce]": show, or switch through
 * SetProfile / SetMode (a profile after its preview: a warning when every
 * CPU would poll; --dry-run is ctl-preview.c's). */
#include <stdio.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "ctl-preview.h"

static int show_profiles(const Ctl *c, const CtlStatus *s, const char *previous, const char *warning) {
        if (c->json)
                return ctl_json_print_profiles(s, previous, warning) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        if (previous) {
                printf("Profile: %s (was %s)\n", s->active_profile ? s->active_profile : "?", previous);
                return CTL_EXIT_OK;
        }
        for (char **p = s->profiles; p && *p; p++)
                printf("%s %s\n", s->active_profile && strcmp(*p, s->active_profile) == 0 ? "*" : " ", *p);
        return CTL_EXIT_OK;
}

typedef int (*ShowFunc)(const Ctl *c, const CtlStatus *s, const char *previous, const char *warning);

/* Calls member(value) and shows the result with show(), telling what the
 * value was before (and warning, NULL for none).  Returns an exit status. */
static int switch_and_show(Ctl *c, CtlStatus *s, const CtlErrorContext *ctx, const char *member, const char *value,
                           char **field, ShowFunc show, const char *warning) {
        char previous[128];

        snprintf(previous, sizeof(previous), "%s", *field ? *field : "?");
        if (ctl_bus_call_manager(c, ctx, member, "s", value) < 0)
                return CTL_EXIT_FAILURE;
        ctl_status_done(s);
        if (ctl_fetch_manager(c, s) < 0)
                return CTL_EXIT_FAILURE;
        return show(c, s, previous, warning);
}

/* What a switch to name deserves to be told before it happens (every CPU
 * polling while idle), into buf: "" for nothing, also when the daemon
 * cannot preview (an older one, no plan yet). */
static const char *switch_warning(Ctl *c, const char *name, char *buf, size_t size) {
        _cleanup_(ctl_preview_done) CtlPreview p = CTL_PREVIEW_NULL;

        buf[0] = '\0';
        if (ctl_fetch_preview(c, name, true, &p) >= 0)
                ctl_preview_warning(&p, buf, size);
        if (buf[0])
                fprintf(stderr, "idlepolicyctl: warning: %s\n", buf);
        return buf;
}

int ctl_cmd_profile(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("switch the profile");
        char warning[1024];

        if (c->dry_run && !args[0])
                return ctl_usage_error("'profile --dry-run' needs the profile to preview");
        if (c->dry_run)
                return ctl_profile_dry_run(c, args[0]);
        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (!args[0])
                return show_profiles(c, &s, NULL, NULL);
        ctx.profile = args[0];
        switch_warning(c, args[0], warning, sizeof(warning));
        return switch_and_show(c, &s, &ctx, "SetProfile", args[0], &s.active_profile, show_profiles,
                               warning[0] ? warning : NULL);
}

static int show_mode(const Ctl *c, const CtlStatus *s, const char *previous, const char *warning) {
        if (c->json)
                return ctl_json_print_mode(s, previous) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf("Mode: %s", s->mode ? s->mode : "?");
        if (previous)
                printf(" (was %s)", previous);
        printf("\n");
        return CTL_EXIT_OK;
}

int ctl_cmd_mode(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("switch the mode");

        if (args[0] && strcmp(args[0], "observe") != 0 && strcmp(args[0], "enforce") != 0)
                return ctl_usage_error("unknown mode '%s' (use observe or enforce)", args[0]);
        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (!args[0])
                return show_mode(c, &s, NULL, NULL);
        return switch_and_show(c, &s, &ctx, "SetMode", args[0], &s.mode, show_mode, NULL);
}
