/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "line-feed.h"

#define TIMER_LIST_PREFIX "#timer_list "
#define TIMER_LIST_MAX (64u << 20)      /* like fileio_read_alloc_at()'s bound */

static int tee_write(LineFeed *lf, const char *data, size_t n) {
        if (!lf->tee || n == 0)
                return 0;
        return fwrite(data, 1, n, lf->tee) == n ? 0 : -EIO;
}

int line_feed_tee_header(LineFeed *lf, unsigned n_cpus) {
        if (!lf->tee)
                return 0;
        return fprintf(lf->tee, "# idlepolicy-record raw ftrace text (trace_pipe, trace_clock mono) #P:%u\n", n_cpus) < 0
                       ? -EIO : 0;
}

int line_feed_seed_timers(LineFeed *lf, const char *timer_list) {
        int r = ftrace_idle_seed_timers(lf->idle, timer_list);

        for (const char *l = timer_list; r >= 0 && lf->tee && l && *l;) {
                const char *nl = strchr(l, '\n');
                size_t len = nl ? (size_t) (nl - l) : strlen(l);
                if (fprintf(lf->tee, TIMER_LIST_PREFIX "%.*s\n", (int) len, l) < 0)
                        return -EIO;
                l = nl ? nl + 1 : NULL;
        }
        return r;
}

/* Keeps a "#timer_list" line for seeding.  Returns 0 or -ENOMEM. */
static int collect_timer_line(LineFeed *lf, const char *text) {
        size_t len = strlen(text);

        if (lf->timer_list_len + len + 2 > TIMER_LIST_MAX)
                return 0;       /* beyond any real timer_list: ignored */
        char *v = realloc(lf->timer_list, lf->timer_list_len + len + 2);
        if (!v)
                return -ENOMEM;
        memcpy(v + lf->timer_list_len, text, len);
        lf->timer_list_len += len;
        v[lf->timer_list_len++] = '\n';
        v[lf->timer_list_len] = '\0';
        lf->timer_list = v;
        return 0;
}

static int seed_collected(LineFeed *lf) {
        int r = 0;

        if (lf->timer_list)
                r = ftrace_idle_seed_timers(lf->idle, lf->timer_list);
        free(lf->timer_list);
        lf->timer_list = NULL;
        lf->timer_list_len = 0;
        return r < 0 ? r : 0;
}

static void note_bad(LineFeed *lf, const char *line, uint64_t malformed_before) {
        FtraceIdleTotals tot;

        ftrace_idle_totals(lf->idle, &tot);
        if (tot.malformed == malformed_before || lf->first_bad_line > 0)
                return;
        lf->first_bad_line = lf->lines;
        snprintf(lf->first_bad, sizeof(lf->first_bad), "%s", line);
}

/* One complete line (without its newline).  Returns 0, -ENOMEM, -ERANGE. */
static int feed_one(LineFeed *lf, const char *line) {
        FtraceIdleTotals before;
        unsigned n_cpus;
        int r;

        lf->lines++;
        if (strncmp(line, TIMER_LIST_PREFIX, strlen(TIMER_LIST_PREFIX)) == 0)
                return collect_timer_line(lf, line + strlen(TIMER_LIST_PREFIX));
        if ((r = seed_collected(lf)) < 0)
                return r;
        if (ftrace_parse_cpus_hint(line, &n_cpus))
                return ftrace_idle_reserve(lf->idle, n_cpus);
        ftrace_idle_totals(lf->idle, &before);
        r = ftrace_idle_feed_line(lf->idle, line);
        note_bad(lf, line, before.malformed);
        return r;
}

int line_feed_push(LineFeed *lf, const char *data, size_t n) {
        int r = tee_write(lf, data, n);

        lf->bytes += n;
        while (r >= 0 && n > 0) {
                size_t k = sizeof(lf->buf) - lf->len < n ? sizeof(lf->buf) - lf->len : n;
                memcpy(lf->buf + lf->len, data, k);
                lf->len += k;
                data += k;
                n -= k;
                char *start = lf->buf, *nl;
                while (r >= 0 && (nl = memchr(start, '\n', lf->len - (size_t) (start - lf->buf)))) {
                        *nl = '\0';
                        r = feed_one(lf, start);
                        start = nl + 1;
                }
                lf->len -= (size_t) (start - lf->buf);
                memmove(lf->buf, start, lf->len);
                if (lf->len == sizeof(lf->buf)) {       /* an absurdly long line: drop it */
                        lf->len = 0;
                        lf->long_lines++;
                }
        }
        return r;
}

int line_feed_finish(LineFeed *lf) {
        int r = 0;

        if (lf->len > 0) {
                lf->buf[lf->len] = '\0';       /* len < sizeof(buf): a full buffer was dropped */
                r = feed_one(lf, lf->buf);
                lf->len = 0;
        }
        int k = seed_collected(lf);
        return r < 0 ? r : k;
}

void line_feed_done(LineFeed *lf) {
        free(lf->timer_list);
        lf->timer_list = NULL;
}
