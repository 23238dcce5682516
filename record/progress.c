/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

uint64_t progress_now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

void progress_init(Progress *p, FILE *f, uint64_t now_ns) {
        *p = (Progress) { .f = f, .on = isatty(fileno(f)) == 1, .next_ns = now_ns + PROGRESS_EVERY_NS };
}

bool progress_due(Progress *p, uint64_t now_ns) {
        if (!p->on || now_ns < p->next_ns)
                return false;
        p->next_ns = now_ns + PROGRESS_EVERY_NS;
        return true;
}

void progress_show(Progress *p, const char *fmt, ...) {
        va_list ap;

        if (!p->on)
                return;
        fputc('\r', p->f);
        va_start(ap, fmt);
        vfprintf(p->f, fmt, ap);
        va_end(ap);
        fputs("\033[K", p->f);
        fflush(p->f);
        p->shown = true;
}

void progress_end(Progress *p) {
        if (!p->shown)
                return;
        fputs("\r\033[K", p->f);
        fflush(p->f);
        p->shown = false;
}
