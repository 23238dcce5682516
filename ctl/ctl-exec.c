/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "idlepolicyctl record|simulate ...": hand the command line to the tool that
 * does the work (idlepolicy-record, idlepolicy-sim), as git does with its
 * sub-commands.  They need no daemon. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "ctl.h"

typedef struct ExecVerb {
        const char *verb;
        const char *env;             /* override, for tests and build trees */
        const char *installed;       /* where meson install puts it */
        const char *build_relative;  /* from ctl/ in the build tree */
} ExecVerb;

static const ExecVerb exec_verbs[] = {
        { "record",   "IDLEPOLICY_RECORD", RECORD_PATH, "../record/idlepolicy-record" },
        { "simulate", "IDLEPOLICY_SIM",    SIM_PATH,    "../sim/idlepolicy-sim" },
};

/* Finds the program for v.  Returns 0 and fills path, or -ENOENT. */
static int exec_verb_find(const ExecVerb *v, char *path, size_t size) {
        const char *env = getenv(v->env);
        char self[PATH_MAX];
        ssize_t n;

        if (env && *env) {
                snprintf(path, size, "%s", env);
                return 0;
        }
        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n > 0) {
                self[n] = '\0';
                snprintf(path, size, "%s/%s", dirname(self), v->build_relative);
                if (access(path, X_OK) == 0)
                        return 0;
        }
        snprintf(path, size, "%s", v->installed);
        return access(path, X_OK) == 0 ? 0 : -ENOENT;
}

int ctl_exec_verb(int argc, char **argv) {
        char path[PATH_MAX];

        if (argc < 2)
                return -1;
        for (size_t i = 0; i < sizeof(exec_verbs) / sizeof(exec_verbs[0]); i++) {
                const ExecVerb *v = &exec_verbs[i];

                if (strcmp(argv[1], v->verb) != 0)
                        continue;
                if (exec_verb_find(v, path, sizeof(path)) < 0) {
                        fprintf(stderr, "idlepolicyctl: %s: cannot find %s (set $%s)\n",
                                v->verb, v->installed, v->env);
                        return CTL_EXIT_FAILURE;
                }
                argv[1] = path;
                execv(path, argv + 1);
                fprintf(stderr, "idlepolicyctl: %s: failed to run %s: %m\n", v->verb, path);
                return CTL_EXIT_FAILURE;
        }
        return -1;
}
