/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "terminal.h"

static int is_continuation(unsigned char c) {
        return (c & 0xc0) == 0x80;
}

size_t terminal_text_columns(const char *s) {
        size_t n = 0;

        for (; *s; s++)
                n += !is_continuation((unsigned char) *s);
        return n;
}

/* The byte offset in s after its first columns characters. */
static size_t prefix_bytes(const char *s, size_t columns) {
        size_t i = 0;

        for (size_t seen = 0; s[i]; i++) {
                if (!is_continuation((unsigned char) s[i]) && seen++ == columns)
                        break;
        }
        return i;
}

char *terminal_text_fit(const char *in, size_t columns, const char *marker, char *buf, size_t size) {
        size_t keep;

        if (size == 0)
                return buf;
        if (terminal_text_columns(in) <= columns && strlen(in) < size) {
                snprintf(buf, size, "%s", in);
                return buf;
        }
        keep = columns > 0 ? prefix_bytes(in, columns - 1) : 0;
        if (keep + strlen(marker) >= size)
                keep = size > strlen(marker) + 1 ? size - strlen(marker) - 1 : 0;
        while (keep > 0 && is_continuation((unsigned char) in[keep]))
                keep--;
        snprintf(buf, size, "%.*s%s", (int) keep, in, columns > 0 ? marker : "");
        return buf;
}

unsigned terminal_columns(int fd, const char *columns_env) {
        struct winsize ws = {};

        if (columns_env && *columns_env) {
                char *end;
                unsigned long v = strtoul(columns_env, &end, 10);

                if (*end == '\0' && columns_env[0] != '-' && v >= 1 && v <= 10000)
                        return (unsigned) v;
        }
        if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col;
        return TERMINAL_COLUMNS_DEFAULT;
}

const char *terminal_ellipsis(const char *codeset) {
        return codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0) ? "…" : "~";
}

/* "1h 2min", "3min 5s", "12s". */
static void format_left(uint64_t sec, char *buf, size_t size) {
        if (sec >= 3600)
                snprintf(buf, size, "%" PRIu64 "h %" PRIu64 "min", sec / 3600, sec % 3600 / 60);
        else if (sec >= 60)
                snprintf(buf, size, "%" PRIu64 "min %" PRIu64 "s", sec / 60, sec % 60);
        else
                snprintf(buf, size, "%" PRIu64 "s", sec);
}

char *terminal_progress_format(char *buf, size_t size, size_t columns, const char *label, uint64_t done,
                               uint64_t total, uint64_t elapsed_usec) {
        char line[512], left[64] = "";

        if (total == 0)
                snprintf(line, sizeof(line), "%s: %" PRIu64 " done", label, done);
        else {
                if (done > total)
                        done = total;
                if (done > 0 && done < total) {
                        char t[32];

                        format_left((uint64_t) ((double) elapsed_usec / (double) done * (double) (total - done) / 1e6 + 0.5),
                                    t, sizeof(t));
                        snprintf(left, sizeof(left), ", about %s left", t);
                }
                snprintf(line, sizeof(line), "%s: %" PRIu64 "%% (%" PRIu64 "/%" PRIu64 ")%s", label,
                         done * 100 / total, done, total, left);
        }
        return terminal_text_fit(line, columns, "~", buf, size);
}
