/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Text for a terminal: how many columns a string takes, cutting it to a
 * width with a marker, the width of a terminal, and the one-line progress
 * report the tools rewrite on stderr.  Pure: the caller passes the time,
 * the environment's $COLUMNS and the fd. */

#include <stddef.h>
#include <stdint.h>

#define TERMINAL_COLUMNS_DEFAULT 80u

/* The columns s takes: its UTF-8 characters (continuation bytes do not
 * count; every character is taken as one column wide). */
size_t terminal_text_columns(const char *s);

/* Copies in into buf (size bytes), cut to at most columns columns: a text
 * too wide (or too long for buf) keeps what fits of its first columns - 1
 * columns and ends with marker (one column wide, e.g. "…" or "~").  Never
 * cuts a UTF-8 character.  Returns buf, always NUL-terminated. */
char *terminal_text_fit(const char *in, size_t columns, const char *marker, char *buf, size_t size);

/* The width of the terminal: columns_env ($COLUMNS) when it is a number
 * from 1 to 10000, else the window size of fd (TIOCGWINSZ) when fd is a
 * terminal, else TERMINAL_COLUMNS_DEFAULT. */
unsigned terminal_columns(int fd, const char *columns_env);

/* The marker terminal_text_fit() should use for a locale's codeset: "…"
 * for UTF-8, "~" otherwise. */
const char *terminal_ellipsis(const char *codeset);

/* Formats a progress line into buf, at most columns wide:
 * "<label>: 45% (9/20), about 1min 5s left" — the time left estimated
 * from elapsed_usec over the done parts (none before the first is done).
 * total 0: "<label>: <done> done".  Returns buf. */
char *terminal_progress_format(char *buf, size_t size, size_t columns, const char *label, uint64_t done,
                               uint64_t total, uint64_t elapsed_usec);
