/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "errinfo.h"

int errinfo_set(ErrorInfo *e, int error, const char *fmt, ...) {
        if (e) {
                va_list ap;

                va_start(ap, fmt);
                vsnprintf(e->message, sizeof(e->message), fmt, ap);
                va_end(ap);
        }
        return error < 0 ? error : -error;
}
