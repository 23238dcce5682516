/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parses the shipped configuration with the daemon's own parser and checks
 * that it says exactly what the built-in defaults say.
 * Usage: check-conf FILE */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

/* Returns true if a and b configure the same thing. */
static bool config_equal(const Config *a, const Config *b) {
        return a->tick_usec == b->tick_usec && a->log_level == b->log_level &&
               strcmp(a->runtime_directory, b->runtime_directory) == 0 &&
               strcmp(a->state_directory, b->state_directory) == 0 &&
               a->mode == b->mode && a->calibrate_on_first_start == b->calibrate_on_first_start &&
               a->governor_hold_usec == b->governor_hold_usec &&
               a->sample_files_per_tick == b->sample_files_per_tick &&
               strcmp(a->metrics_textfile, b->metrics_textfile) == 0 &&
               a->metrics_every_ticks == b->metrics_every_ticks &&
               a->n_consolidation_background == b->n_consolidation_background &&
               a->consolidation_exit_util == b->consolidation_exit_util &&
               a->consolidation_hysteresis == b->consolidation_hysteresis &&
               a->consolidation_headroom == b->consolidation_headroom &&
               a->consolidation_headroom_level2 == b->consolidation_headroom_level2 &&
               a->consolidation_shrink_ticks == b->consolidation_shrink_ticks &&
               a->follow_power_profiles == b->follow_power_profiles &&
               a->poll_search_tick_usec == b->poll_search_tick_usec &&
               a->quiet_full_tick_usec == b->quiet_full_tick_usec && a->quiet_tick_usec == b->quiet_tick_usec;
}

int main(int argc, char **argv) {
        ErrorInfo e = {};
        Config c, defaults;
        int dir_fd, r;

        if (argc != 2) {
                fprintf(stderr, "Usage: %s FILE\n", argv[0]);
                return EXIT_FAILURE;
        }
        /* config_load() takes a path relative to a directory. */
        dir_fd = argv[1][0] == '/' ? open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : AT_FDCWD;
        if (dir_fd == -1) {
                perror("/");
                return EXIT_FAILURE;
        }
        config_init(&c);
        config_init(&defaults);
        r = config_load(dir_fd, argv[1] + strspn(argv[1], "/"), argv[1], &c, &e);
        if (dir_fd >= 0)
                close(dir_fd);
        if (r < 0) {
                fprintf(stderr, "not ok 1 - %s: %s\n", argv[1], e.message);
                return EXIT_FAILURE;
        }
        if (!config_equal(&c, &defaults)) {
                fprintf(stderr, "not ok 1 - %s differs from the built-in defaults\n", argv[1]);
                return EXIT_FAILURE;
        }
        printf("ok 1 - %s parses and matches the built-in defaults\n1..1\n", argv[1]);
        return EXIT_SUCCESS;
}
