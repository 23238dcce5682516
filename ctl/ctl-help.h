/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What each command does, for "idlepolicyctl --help", "idlepolicyctl help
 * [COMMAND]" and "idlepolicyctl COMMAND --help": one table, so that the
 * list, the per-command pages and the suggestions for a typo agree. */

#include <stddef.h>

typedef struct CtlVerbHelp {
        const char *name;
        const char *brief;      /* the command with its arguments, for the list */
        const char *summary;    /* one line */
        const char *usage;      /* the full synopsis after "idlepolicyctl [OPTIONS] " */
        const char *text;       /* what it does, its options, examples (ends with a newline) */
} CtlVerbHelp;

/* The help of every command in --help order; *ret_n entries. */
const CtlVerbHelp *ctl_help_verbs(size_t *ret_n);

/* The help of command name, or NULL. */
const CtlVerbHelp *ctl_help_find(const char *name);

/* Prints the whole help (the command list and the options) to stdout. */
void ctl_help_print_all(void);

/* Prints the page of one command to stdout. */
void ctl_help_print_verb(const CtlVerbHelp *h);

/* The command name most likely meant by a mistyped word, or NULL. */
const char *ctl_help_suggest(const char *word);
