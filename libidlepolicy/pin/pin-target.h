/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a pin applies to, as a user writes it (DESIGN.md §5 "Pins"):
 *
 *   pid:N        one process (N decimal, 1..PIN_TARGET_PID_MAX)
 *   cgroup:PATH  a cgroup, relative to the cgroup mount
 *   unit:NAME    a systemd unit (the daemon sets AllowedCPUs on it)
 *   exe:PATH     rule: every process running the executable PATH
 *   comm:NAME    rule: every process whose comm is NAME
 *
 * Parsing normalises, so that two spellings of one target compare equal
 * and format to the same text.  Control characters (below 0x20, 0x7f) and
 * invalid UTF-8 are refused in every value: values end up in the journal,
 * on the bus and in JSON. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "errinfo.h"

/* The kernel's PID_MAX_LIMIT on 64-bit: no pid is larger. */
#define PIN_TARGET_PID_MAX 4194304
/* A value's bytes, NUL included (paths up to 1023 bytes). */
#define PIN_TARGET_VALUE_MAX 1024
/* A unit name's bytes without the NUL (systemd's UNIT_NAME_MAX - 1). */
#define PIN_TARGET_UNIT_MAX 255
/* A comm's bytes without the NUL (the kernel's TASK_COMM_LEN - 1). */
#define PIN_TARGET_COMM_MAX 15
/* The longest pin_target_format() text, NUL included ("cgroup:" + value). */
#define PIN_TARGET_TEXT_MAX (PIN_TARGET_VALUE_MAX + 8)

typedef enum PinTargetKind {
        PIN_TARGET_PID,
        PIN_TARGET_CGROUP,
        PIN_TARGET_UNIT,
        PIN_TARGET_EXE,
        PIN_TARGET_COMM,
        _PIN_TARGET_KIND_MAX,
} PinTargetKind;

typedef struct PinTarget {
        PinTargetKind kind;
        pid_t pid;                      /* PIN_TARGET_PID only */
        uint64_t start_time;            /* pid: /proc/PID/stat field 22, clock ticks since boot;
                                         * 0 = not known yet (the daemon fills it in) */
        char value[PIN_TARGET_VALUE_MAX]; /* cgroup path (relative, normalised, no leading '/'),
                                           * unit name, exe path (absolute), comm; "" for pid */
} PinTarget;

/* Returns "pid", "cgroup", "unit", "exe" or "comm"; NULL for an invalid kind. */
const char *pin_target_kind_to_string(PinTargetKind k);

/* Parses "KIND:VALUE" into *ret (start_time 0):
 *   pid:N        decimal, 1..4194304, no sign, spaces or leading zeros;
 *   cgroup:PATH  a leading '/' is stripped, "//" and a trailing '/' are
 *                collapsed; refused: empty (the root cgroup), a "." or
 *                ".." component, more than 1023 bytes;
 *   unit:NAME    systemd's rules: PREFIX[@INSTANCE].TYPE of letters,
 *                digits and ":-_.\\", TYPE one of service, socket, target,
 *                device, mount, automount, swap, timer, path, slice, scope;
 *                at most 255 bytes; a template ("foo@.service") is refused;
 *   exe:PATH     absolute; "//" and a trailing '/' collapsed; a "." or
 *                ".." component refused; at most 1023 bytes;
 *   comm:NAME    1..15 bytes, no '/'.
 * Returns 0, or -EBADMSG with e naming what is wrong (e.g. "invalid pin
 * target \"pid:0\": the pid must be between 1 and 4194304"); *ret untouched
 * on failure. */
int pin_target_parse(const char *text, PinTarget *ret, ErrorInfo *e);

/* Formats t as pin_target_parse() reads it ("pid:1234", "cgroup:a/b"; the
 * start time is not part of the text).  Returns 0, -ENOBUFS if it does not
 * fit into size bytes (buf then holds a truncated text), -EINVAL for an
 * invalid kind. */
int pin_target_format(const PinTarget *t, char *buf, size_t size);

/* Returns true if a and b name the same workload: the same kind and value;
 * for pid targets the same pid and, when both start times are known, the
 * same start time (a reused pid is another process). */
bool pin_target_equal(const PinTarget *a, const PinTarget *b);

/* Returns true for the rule kinds (exe, comm): targets matched against
 * processes as they start, rather than named directly. */
bool pin_target_is_rule(const PinTarget *t);
