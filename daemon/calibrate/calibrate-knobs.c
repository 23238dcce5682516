/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One CPU's idle knobs around its calibration: remember them, allow one
 * state at a time, and put the remembered values back -- the values from
 * before the calibration, which need not be the kernel's defaults.  Every
 * change is one enforce_write_knobs() call: originals journaled before the
 * first write, rolled back as a whole on failure, and forgotten again once
 * a knob holds its original. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "calibrate-internal.h"
#include "fileio.h"
#include "log.h"

/* Appends path with its current value to k->prior.  Returns 0, or -ENOENT
 * if it cannot be read (an optional knob is then left alone). */
static int save_knob(const EnforceTarget *t, const char *path, CalibrateKnobs *k) {
        EnforceKnob *knob = &k->prior[k->n_prior];
        int r;

        snprintf(knob->path, sizeof(knob->path), "%s", path);
        r = fileio_read_string_at(change_layer_env(t->changes)->root_fd, path, knob->value, sizeof(knob->value));
        if (r < 0)
                return -ENOENT;
        k->n_prior++;
        return 0;
}

/* Returns 0 or -EIO (logged). */
int calibrate_knobs_save(const EnforceTarget *t, unsigned cpu, unsigned n_states, CalibrateKnobs *ret) {
        CalibrateKnobs k = { .cpu = cpu, .n_states = n_states, .resume = -1, .poll_ns = -1 };
        char path[KNOB_PATH_MAX];

        if (n_states > CPUIDLE_STATES_MAX)
                return -EINVAL;
        for (unsigned s = 0; s < n_states; s++) {
                const char *value = k.prior[s].value;

                if (save_knob(t, knob_state_disable_path(cpu, s, path), &k) < 0)
                        return log_error_errno(-EIO, "Failed to read %s.", path);
                if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
                        return log_error_errno(-EIO, "Unexpected content \"%s\" in %s.", value, path);
        }
        if (save_knob(t, knob_resume_latency_path(cpu, path), &k) == 0)
                k.resume = (int) k.n_prior - 1;
        if (save_knob(t, SYSFS_HALTPOLL_NS, &k) == 0)
                k.poll_ns = (int) k.n_prior - 1;
        *ret = k;
        return 0;
}

/* Writes knobs[0..n-1] as one change.  Returns 0 or a negative errno
 * (logged). */
static int write_knobs(const EnforceTarget *t, const CalibrateKnobs *k, const EnforceKnob *knobs, size_t n,
                       const char *what) {
        ErrorInfo e = {};
        int r = enforce_write_knobs(t, knobs, n, &e);

        if (r < 0)
                return log_error_errno(r, "Failed to %s the idle knobs of CPU %u: %s", what, k->cpu,
                                       r == -ENOMEM ? strerror(ENOMEM) : e.message);
        return 0;
}

/* Returns 0 or a negative errno (logged). */
int calibrate_knobs_allow_only(const EnforceTarget *t, const CalibrateKnobs *k, unsigned s, bool polling) {
        EnforceKnob knobs[CALIBRATE_KNOBS_MAX];
        size_t n = 0;

        if (s >= k->n_states)
                return -EINVAL;
        /* s first: the CPU is never left without its next state */
        knobs[n] = k->prior[s];
        snprintf(knobs[n++].value, sizeof(knobs[0].value), "0");
        for (unsigned i = 0; i < k->n_states; i++)
                if (i != s) {
                        knobs[n] = k->prior[i];
                        snprintf(knobs[n++].value, sizeof(knobs[0].value), "1");
                }
        if (k->resume >= 0) {
                knobs[n] = k->prior[k->resume];
                snprintf(knobs[n++].value, sizeof(knobs[0].value), "%s", polling ? "n/a" : "0");
        }
        if (k->poll_ns >= 0 && !polling) {
                knobs[n] = k->prior[k->poll_ns];
                snprintf(knobs[n++].value, sizeof(knobs[0].value), "0");
        }
        return write_knobs(t, k, knobs, n, "set");
}

/* Returns 0 or a negative errno (logged; what failed stays journaled). */
int calibrate_knobs_restore(const EnforceTarget *t, const CalibrateKnobs *k) {
        return write_knobs(t, k, k->prior, k->n_prior, "put back");
}
