/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* "Did you mean ...?": the candidate closest to a mistyped word. */

#include <stddef.h>

/* The candidate (of n, NULL entries skipped) that word most likely
 * meant: the one at the smallest edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours; letter case ignored), if that
 * distance is at most 2 and below half of word's length; else the only
 * candidate word is a prefix of (at least 2 characters).  A tie between
 * two candidates suggests nothing.  Returns the candidate, or NULL. */
const char *ctl_suggest(const char *word, const char *const *candidates, size_t n);
