/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "ctl-suggest.h"

#define WORD_MAX 64

/* The optimal string alignment distance of a and b (case ignored), or
 * SIZE_MAX when either is longer than WORD_MAX. */
static size_t distance(const char *a, const char *b) {
        size_t n = strlen(a), m = strlen(b);
        size_t d[WORD_MAX + 1][WORD_MAX + 1];

        if (n > WORD_MAX || m > WORD_MAX)
                return SIZE_MAX;
        for (size_t i = 0; i <= n; i++)
                d[i][0] = i;
        for (size_t j = 0; j <= m; j++)
                d[0][j] = j;
        for (size_t i = 1; i <= n; i++)
                for (size_t j = 1; j <= m; j++) {
                        size_t cost = tolower((unsigned char) a[i - 1]) != tolower((unsigned char) b[j - 1]);
                        size_t best = d[i - 1][j - 1] + cost;

                        if (d[i - 1][j] + 1 < best)
                                best = d[i - 1][j] + 1;
                        if (d[i][j - 1] + 1 < best)
                                best = d[i][j - 1] + 1;
                        if (i > 1 && j > 1 && tolower((unsigned char) a[i - 1]) == tolower((unsigned char) b[j - 2]) &&
                            tolower((unsigned char) a[i - 2]) == tolower((unsigned char) b[j - 1]) &&
                            d[i - 2][j - 2] + 1 < best)
                                best = d[i - 2][j - 2] + 1;
                        d[i][j] = best;
                }
        return d[n][m];
}

/* The only candidate that starts with word, or NULL. */
static const char *only_prefix(const char *word, const char *const *candidates, size_t n) {
        const char *found = NULL;
        size_t len = strlen(word);

        if (len < 2)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (!candidates[i] || strncasecmp(candidates[i], word, len) != 0)
                        continue;
                if (found)
                        return NULL;
                found = candidates[i];
        }
        return found;
}

const char *ctl_suggest(const char *word, const char *const *candidates, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX, len = strlen(word);
        bool tie = false;

        for (size_t i = 0; i < n; i++) {
                size_t d;

                if (!candidates[i])
                        continue;
                d = distance(word, candidates[i]);
                if (d < best_d) {
                        best = candidates[i];
                        best_d = d;
                        tie = false;
                } else if (d == best_d)
                        tie = true;
        }
        if (best && !tie && best_d <= 2 && 2 * best_d < len)
                return best;
        return only_prefix(word, candidates, n);
}
