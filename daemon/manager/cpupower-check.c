/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "cpupower-check.h"
#include "log.h"

#if HAVE_LIBCPUPOWER
/* libcpupower's <cpuidle.h> is shadowed by libidlepolicy's cpuidle.h on the
 * include path, so the two functions used are declared here. */
char *cpuidle_get_driver(void);
unsigned int cpuidle_state_count(unsigned int cpu);

void cpupower_check(const char *root, const char *driver, unsigned n_states) {
        char *theirs;
        unsigned n;

        if (strcmp(root, "/") != 0)
                return;
        theirs = cpuidle_get_driver();
        n = cpuidle_state_count(0);
        if (strcmp(theirs && strcmp(theirs, "none") != 0 ? theirs : "", driver) != 0 || n != n_states)
                log_notice("libcpupower sees cpuidle driver \"%s\" with %u state(s) on cpu0, idlepolicyd \"%s\" with %u.",
                           theirs ?: "", n, driver, n_states);
        else
                log_debug("libcpupower agrees: cpuidle driver \"%s\", %u state(s) on cpu0.", driver, n_states);
        free(theirs);
}
#else
void cpupower_check(const char *root, const char *driver, unsigned n_states) {
        log_debug("Built without libcpupower, no cross-check.");
}
#endif
