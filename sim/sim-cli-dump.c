/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-sim --dump-intervals: the idle periods every governor is
 * given, as text, for analyses outside the simulator (bench/governor-bound). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim-cli.h"

int cli_dump_intervals(const CliInputs *in, FILE *f) {
        fputs("source\tcpu\tsleep_length_ns\tduration_ns\ttimer\n", f);
        for (size_t s = 0; s < in->n_sources; s++) {
                const CliSource *src = &in->sources[s];

                for (size_t i = 0; i < src->n; i++) {
                        const SimInterval *iv = &src->intervals[i];

                        fprintf(f, "%s\t%u\t%llu\t%llu\t%d\n", src->label, (unsigned) iv->cpu,
                                (unsigned long long) sim_interval_sleep_length(iv),
                                (unsigned long long) iv->duration_ns, iv->timer_wake ? 1 : 0);
                }
        }
        if (fflush(f) != 0 || ferror(f)) {
                int r = errno ? -errno : -EIO;

                fprintf(stderr, "idlepolicy-sim: Failed to write the idle periods: %s\n", strerror(-r));
                return r;
        }
        return 0;
}
