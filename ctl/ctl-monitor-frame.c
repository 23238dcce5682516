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
#define STATES_TITLE "STATES: share of entries (too deep / too shallow)"

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

#define STATE_CELLS_MAX 16

/* "C1 12.0% (1.0%/2.0%)" of state k into buf. */
static const char *state_cell(const CtlState *st, char *buf, size_t size) {
        char share[16], deep[16], shallow[16];

        snprintf(buf, size, "%s%s %s (%s/%s)", st->name ? st->name : "?", st->disabled ? "[off]" : "",
                 ctl_format_percent(st->has_rates ? st->usage_share_pct : -1, share, sizeof(share)),
                 ctl_format_percent(st->has_rates ? st->too_deep_pct : -1, deep, sizeof(deep)),
                 ctl_format_percent(st->has_rates ? st->too_shallow_pct : -1, shallow, sizeof(shallow)));
        return buf;
}

/* Appends the state cells of cpu, one blank between them. */
static void append_states(char *line, size_t size, const CtlCpu *cpu) {
        for (size_t k = 0; k < cpu->n_states; k++) {
                char cell[CELL_BYTES];
                size_t len = strlen(line);

                if (len >= size)
                        return;
                snprintf(line + len, size - len, "%s%s", k > 0 ? " " : "",
                         state_cell(&cpu->states[k], cell, sizeof(cell)));
        }
}

typedef struct Widths {
        unsigned cap, floor, states;
} Widths;

/* The widest CAP, FLOOR and STATES cells of the online CPUs (at least
 * their titles). */
static Widths widths_of(const CtlStatus *s) {
        Widths w = { strlen("CAP"), strlen("FLOOR"), strlen(STATES_TITLE) };

        for (size_t i = 0; i < s->n_cpus; i++) {
                const CtlCpu *cpu = &s->cpus[i];
                char cell[CELL_BYTES], line[LINE_MAX_BYTES] = "";
                unsigned n;

                if (!cpu->online)
                        continue;
                n = terminal_text_columns(plan_cell(cpu, cpu->cap, cpu->cap_reason, cell, sizeof(cell)));
                w.cap = n > w.cap ? n : w.cap;
                n = terminal_text_columns(plan_cell(cpu, cpu->floor, cpu->floor_reason, cell, sizeof(cell)));
                w.floor = n > w.floor ? n : w.floor;
                append_states(line, sizeof(line), cpu);
                n = terminal_text_columns(line);
                w.states = n > w.states ? n : w.states;
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
        strncat(line, STATES_TITLE, sizeof(line) - strlen(line) - 1);
        return put_line(f, l, line);
}

/* "   0   50.0%     2100.0  " (CPU, UTIL, WAKEUPS/s) into line, or
 * "   2  offline".  Returns false for an offline CPU. */
static bool cpu_prefix(const CtlCpu *cpu, char *line, size_t size) {
        char util[16], wake[32];

        if (!cpu->online) {
                snprintf(line, size, "%4u  offline", cpu->index);
                return false;
        }
        snprintf(line, size, "%4u  %6s  %9s  ", cpu->index,
                 ctl_format_percent(cpu->util >= 0 ? cpu->util * 100 : -1, util, sizeof(util)),
                 ctl_format_rate(cpu->timer_wakeups >= 0 && cpu->other_wakeups >= 0 ?
                                 cpu->timer_wakeups + cpu->other_wakeups : -1, wake, sizeof(wake)));
        return true;
}

static int put_cpu(FILE *f, const CtlCpu *cpu, const CtlMonitorLayout *l, const Widths *w) {
        char line[LINE_MAX_BYTES], cell[CELL_BYTES];

        if (!cpu_prefix(cpu, line, sizeof(line)))
                return put_line(f, l, line);
        append_cell(line, sizeof(line), plan_cell(cpu, cpu->cap, cpu->cap_reason, cell, sizeof(cell)), w->cap, l);
        append_cell(line, sizeof(line), plan_cell(cpu, cpu->floor, cpu->floor_reason, cell, sizeof(cell)), w->floor, l);
        append_states(line, sizeof(line), cpu);
        return put_line(f, l, line);
}

/* Writes cells joined by two blanks after first, wrapped at a cell's start
 * to the width; the lines after the first start with indent blanks.  A
 * cell too wide for a line of its own is cut.  Returns 0 or -EIO. */
static int put_wrapped(FILE *f, const CtlMonitorLayout *l, const char *first, unsigned indent, const char *const *cells,
                       size_t n) {
        char line[LINE_MAX_BYTES];
        size_t used;

        snprintf(line, sizeof(line), "%s", first);
        used = terminal_text_columns(line);
        for (size_t i = 0; i < n; i++) {
                size_t w = terminal_text_columns(cells[i]), sep = used > indent && line[0] ? 2 : 0;

                if (used > indent && used + sep + w > l->width) {
                        if (put_line(f, l, line) < 0)
                                return -EIO;
                        snprintf(line, sizeof(line), "%*s", (int) indent, "");
                        used = indent;
                        sep = 0;
                }
                snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", sep ? "  " : "", cells[i]);
                used += sep + w;
        }
        return put_line(f, l, line);
}

/* Narrow terminals: the header wrapped at its fields; per CPU a line with
 * its plan ("C1 (model) / POLL (none)") and its states on the lines below,
 * wrapped at a state's start, so that nothing is cut at 80 columns. */
static int put_narrow_header(FILE *f, const CtlStatus *s, const CtlMonitorLayout *l) {
        char version[64], profile[96], mode[64], governor[64], poll[64] = "";
        const char *fields[6] = { version, l->clock, profile, mode, governor, poll };

        snprintf(version, sizeof(version), "idlepolicyd %s", s->version ? s->version : "?");
        snprintf(profile, sizeof(profile), "profile %s", s->active_profile ? s->active_profile : "?");
        snprintf(mode, sizeof(mode), "mode %s%s", s->mode ? s->mode : "?", s->calibrating ? " (calibrating)" : "");
        snprintf(governor, sizeof(governor), "governor %s", s->governor ? s->governor : "?");
        if (s->poll_mode && s->poll_mode[0])
                snprintf(poll, sizeof(poll), "halt-poll %s", s->poll_mode);
        if (s->poll_mode && strcmp(s->poll_mode, "window") == 0)
                snprintf(poll + strlen(poll), sizeof(poll) - strlen(poll), " %lluus",
                         (unsigned long long) (s->poll_window_nsec / 1000));
        if (put_wrapped(f, l, "", 2, fields, poll[0] ? 6 : 5) < 0 || fputc('\n', f) == EOF)
                return -EIO;
        snprintf(version, sizeof(version), "%4s  %6s  %9s  %s", "CPU", "UTIL", "WAKEUPS/s",
                 "CAP (REASON) / FLOOR (REASON)");
        if (put_line(f, l, version) < 0)
                return -EIO;
        return put_line(f, l, "      " STATES_TITLE);
}

static int put_narrow_cpu(FILE *f, const CtlCpu *cpu, const CtlMonitorLayout *l) {
        char line[LINE_MAX_BYTES], cap[CELL_BYTES], floor[CELL_BYTES];
        char cells[STATE_CELLS_MAX][CELL_BYTES];
        const char *list[STATE_CELLS_MAX];
        size_t n = cpu->n_states < STATE_CELLS_MAX ? cpu->n_states : STATE_CELLS_MAX;

        if (!cpu_prefix(cpu, line, sizeof(line)))
                return put_line(f, l, line);
        snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s / %s",
                 plan_cell(cpu, cpu->cap, cpu->cap_reason, cap, sizeof(cap)),
                 plan_cell(cpu, cpu->floor, cpu->floor_reason, floor, sizeof(floor)));
        if (put_line(f, l, line) < 0)
                return -EIO;
        for (size_t k = 0; k < n; k++)
                list[k] = state_cell(&cpu->states[k], cells[k], sizeof(cells[k]));
        return n > 0 ? put_wrapped(f, l, "      ", 6, list, n) : 0;
}

int ctl_monitor_frame(FILE *f, const CtlStatus *s, const CtlMonitorLayout *l) {
        Widths w = widths_of(s);
        bool wide = FIXED_COLUMNS + w.cap + 2 + w.floor + 2 + w.states <= l->width;
        int r = wide ? put_header(f, s, l, &w) : put_narrow_header(f, s, l);

        for (size_t i = 0; i < s->n_cpus && r == 0; i++)
                r = wide ? put_cpu(f, &s->cpus[i], l, &w) : put_narrow_cpu(f, &s->cpus[i], l);
        if (r == 0)
                r = put_line(f, l, "");
        if (r == 0)
                r = put_line(f, l, "Ctrl-C to quit.");
        return r;
}
