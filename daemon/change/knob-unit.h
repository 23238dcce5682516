/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A systemd unit's AllowedCPUs as a knob (a unit pin, consolidation's
 * background), set at runtime through systemd's D-Bus API
 * (systemd-unit.h):
 *
 *   unit:NAME    NAME as pin_target_parse() accepts it, of a type with a
 *                cgroup (.service, .scope, .slice, .socket, .mount, .swap)
 *
 * The value is a CPU list, "" when AllowedCPUs is not set.  Units are
 * reached through KnobEnv.bus; without one a unit knob is -ENOTCONN ("not
 * now": a restore keeps it for later). */

#include <stddef.h>

#include "knob-type.h"

#define KNOB_UNIT_PREFIX "unit:"

extern const KnobType knob_type_unit;

/* Formats the key of unit's AllowedCPUs into buf.  Returns 0, -EINVAL (a
 * name pin_target_parse() refuses, or a type without a cgroup),
 * -ENAMETOOLONG. */
int knob_unit_key(const char *unit, char *buf, size_t size);
