/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by cpuidle.c and cpuidle-sampler.c; not part of the API. */

#include <stddef.h>

#include "errinfo.h"

/* Reads dirfd/path into buf (trailing newline stripped).  Returns 0;
 * -ENOENT if the file is missing (e untouched); -EBADMSG if it does not fit;
 * another negative errno; e names the file in the last two cases. */
int cpuidle_read_value(int dirfd, const char *path, char *buf, size_t size, ErrorInfo *e);
