/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl-format.h"
#include "ctl-monitor-frame.h"
#include "terminal.h"

#define LINE_MAX_BYTES 4096
#define CELL_BYTES 128
/* CPU, UTIL and WAKEUPS/s with the separators after them: "%4s  %6s  %9s  ". */
#define FIXED_COLUMNS 25u

/* "C1 (model)" into buf. */
static const char *plan_cell(const CtlCpu *cpu, uint32_t state, const char *reason, char *buf, size_t size) {
        snprintf(buf, size, "%s (%s)", ctl_state_name(cpu, state), reason ? reason : "?");
        return buf;
}

/* Writes line to f, cut to the width.  Returns 0 or -EIO. */
static int put_line(FILE *f, const CtlMonitorLayout *l, const char *line) {
        char out[LINE_MAX_BYTES];

        terminal_text_fit(line, l->width, l->ellipsis, out, sizeof(out));
        return fprintf(f, "%s\n", out) < 0 ? -EIO : 0;
}

/* Appends text padded (or cut) to exactly columns columns, then two spaces. */
static void append_cell(char *line, size_t size, const char *text, unsigned columns, const CtlMonitorLayout *l) {
        char cell[CELL_BYTES];
        size_t len = strlen(line), used;

        terminal_text_fit(text, columns, l->ellipsis, cell, sizeof(cell));
        used = terminal_text_columns(cell);
        if (len < size)
                snprintf(line + len, size - len, "%s%*s  ", cell, (int) (columns - used), "");
}

typedef struct Widths {
        unsigned cap, floor;
} Widths;

/* The widest CAP and FLOOR cells (at least their titles), narrowed to
 * leave the STATES column its room. */
static Widths widths_of(const CtlStatus *s, const CtlMonitorLayout *l) {
        Widths w = { strlen("CAP"), strlen("FLOOR") };
        unsigned room;

        for (size_t i = 0; i < s->n_cpus; i++) {
                const CtlCpu *cpu = &s->cpus[i];
                char cell[CELL_BYTES];
                unsigned n;

                if (!cpu->online)
                        continue;
                n = terminal_text_columns(plan_cell(cpu, cpu->cap, cpu->cap_reason, cell, sizeof(cell)));
                w.cap = n > w.cap ? n : w.cap;
                n = terminal_text_columns(plan_cell(cpu, cpu->floor, cpu->floor_reason, cell, sizeof(cell)));
                w.floor = n > w.floor ? n : w.floor;
        }
        room = l->width > FIXED_COLUMNS + 4 + CTL_MONITOR_STATES_MIN ?
               l->width - FIXED_COLUMNS - 4 - CTL_MONITOR_STATES_MIN : 0;
        while (w.cap + w.floor > room && (w.cap > CTL_MONITOR_PLAN_MIN || w.floor > CTL_MONITOR_PLAN_MIN)) {
                if (w.cap >= w.floor)
                        w.cap--;
                else
                        w.floor--;
        }
        return w;
}

static int put_header(FILE *f, const CtlStatus *s, const CtlMonitorLayout *l, const Widths *w) {
        char line[LINE_MAX_BYTES], window[32] = "", poll[64] = "";

        if (s->poll_mode && strcmp(s->poll_mode, "window") == 0)
                snprintf(window, sizeof(window), " %lluus", (unsigned long long) (s->poll_window_nsec / 1000));
        if (s->poll_mode && s->poll_mode[0])
                snprintf(poll, sizeof(poll), "  halt-poll %s%s", s->poll_mode, window);
        snprintf(line, sizeof(line), "idlepolicyd %s  %s  profile %s  mode %s%s  governor %s%s",
                 s->version ? s->version : "?", l->clock, s->active_profile ? s->active_profile : "?",
                 s->mode ? s->mode : "?", s->calibrating ? " (calibrating)" : "", s->governor ? s->governor : "?",
                 poll);
        if (put_line(f, l, line) < 0 || fputc('\n', f) == EOF)
                return -EIO;
        snprintf(line, sizeof(line), "%4s  %6s  %9s  ", "CPU", "UTIL", "WAKEUPS/s");
        append_cell(line, sizeof(line), "CAP", w->cap, l);
        append_cell(line, sizeof(line), "FLOOR", w->floor, l);
        strncat(line, "STATES: share of entries (too deep / too shallow)", sizeof(line) - strlen(line) - 1);
        return put_line(f, l, line);
}

/* Appends " C1 12.0% (1.0%/2.0%)" per state. */
static void append_states(char *line, size_t size, const CtlCpu *cpu) {
        for (size_t k = 0; k < cpu->n_states; k++) {
                const CtlState *st = &cpu->states[k];
                char share[16], deep[16], shallow[16];
                size_t len = strlen(line);

                if (len >= size)
                        return;
                snprintf(line + len, size - len, "%s%s%s %s (%s/%s)", k > 0 ? " " : "", st->name ? st->name : "?",
                         st->disabled ? "[off]" : "",
                         ctl_format_percent(st->has_rates ? st->usage_share_pct : -1, share, sizeof(share)),
                         ctl_format_percent(st->has_rates ? st->too_deep_pct : -1, deep, sizeof(deep)),
                         ctl_format_percent(st->has_rates ? st->too_shallow_pct : -1, shallow, sizeof(shallow)));
        }
}

static int put_cpu(FILE *f, const CtlCpu *cpu, const CtlMonitorLayout *l, const Widths *w) {
        char line[LINE_MAX_BYTES], util[16], wake[32], cell[CELL_BYTES];

        if (!cpu->online) {
                snprintf(line, sizeof(line), "%4u  offline", cpu->index);
                return put_line(f, l, line);
        }
        snprintf(line, sizeof(line), "%4u  %6s  %9s  ", cpu->index,
                 ctl_format_percent(cpu->util >= 0 ? cpu->util * 100 : -1, util, sizeof(util)),
                 ctl_format_rate(cpu->timer_wakeups >= 0 && cpu->other_wakeups >= 0 ?
                                 cpu->timer_wakeups + cpu->other_wakeups : -1, wake, sizeof(wake)));
        append_cell(line, sizeof(line), plan_cell(cpu, cpu->cap, cpu->cap_reason, cell, sizeof(cell)), w->cap, l);
        append_cell(line, sizeof(line), plan_cell(cpu, cpu->floor, cpu->floor_reason, cell, sizeof(cell)), w->floor, l);
        append_states(line, sizeof(line), cpu);
        return put_line(f, l, line);
}

int ctl_monitor_frame(FILE *f, const CtlStatus *s, const CtlMonitorLayout *l) {
        Widths w = widths_of(s, l);
        int r = put_header(f, s, l, &w);

        for (size_t i = 0; i < s->n_cpus && r == 0; i++)
                r = put_cpu(f, &s->cpus[i], l, &w);
        if (r == 0)
                r = put_line(f, l, "");
        if (r == 0)
                r = put_line(f, l, "Ctrl-C to quit.");
        return r;
}
