/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated string arrays, as sd_bus_message_read_strv() returns them. */

#include <stdbool.h>
#include <stddef.h>

/* Frees l and its strings (NULL allowed).  Returns NULL. */
char **strv_free(char **l);
/* Returns the number of strings in l (0 for NULL). */
size_t strv_length(char * const *l);
/* Returns true if l (NULL allowed) holds s. */
bool strv_contains(char * const *l, const char *s);
