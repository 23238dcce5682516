/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated string arrays, as sd_bus_message_read_strv() returns
 * them, and growing the arrays and strings the bus replies are read into. */

#include <stdbool.h>
#include <stddef.h>

/* Frees l and its strings (NULL allowed).  Returns NULL. */
char **strv_free(char **l);
/* Returns the number of strings in l (0 for NULL). */
size_t strv_length(char * const *l);
/* Returns true if l (NULL allowed) holds s. */
bool strv_contains(char * const *l, const char *s);

/* Grows *array (of *n elements of size bytes) by one zeroed element.
 * Returns the new element, or NULL on -ENOMEM (*array and *n untouched). */
void *ctl_array_append(void **array, size_t *n, size_t size);

/* Replaces *dst (freed) with a copy of src.  Returns 0 or -ENOMEM (*dst
 * untouched). */
int ctl_strdup_replace(char **dst, const char *src);
