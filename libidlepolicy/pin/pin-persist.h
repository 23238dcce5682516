/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pins as JSON: the daemon's state file and the admin's rule files.  The
 * daemon reads and writes the files; this module only turns text into
 * pins and back.
 *
 * The state file (pins.json in the state directory) keeps the pins made
 * over the bus across restarts:
 *
 *   { "version": 1, "next_id": 8,
 *     "pins": [ { "id": 3, "target": "pid:1234", "start_time": 123456,
 *                 "cpus": "2-3", "profile": "latency",
 *                 "created_usec": 1700000000000000, "reason": "db",
 *                 "owner_uid": 0 } ] }
 *
 * "cpus" is "" for a pin that keeps its workload's CPUs; "start_time"
 * appears for pid targets only, and they need one (not 0): a PID alone may
 * name another process after a restart.  Holds are not kept (their holders are
 * gone with the daemon's bus connection), nor pins from rule files (they
 * come from the rules directory again), nor ended pins.
 *
 * A rule file (/etc/idlepolicy/pins.d/NAME.json) holds one rule or an array
 * of them:
 *
 *   { "target": "exe:/usr/bin/ffmpeg", "cpus": "4-7",
 *     "profile": "performance", "reason": "transcoding" }
 *
 * with "target" and "profile" required, "cpus" and "reason" optional.  An
 * exe: target's symbolic links are resolved by the daemon when it takes
 * the rule (pin-exe.h), not here: parsing reads no file. */

#include <stddef.h>

#include "errinfo.h"
#include "pin-registry.h"

#define PIN_PERSIST_VERSION 1
/* The most rules one rule file holds. */
#define PIN_RULES_PER_FILE_MAX 1024

/* Serialises the pins of r that are kept (see above), in id order, with
 * r's next id.  Returns a malloc'ed NUL-terminated string, or NULL on
 * -ENOMEM or when a pin's profile or reason is not UTF-8 (the registry
 * does not check; the bus and JSON only carry UTF-8). */
char *pin_persist_to_json(const PinRegistry *r);

/* Parses the len bytes of a state file at text and adds its pins to r under
 * their ids, in state PIN_STATE_WAITING (the daemon re-applies each and
 * sets it active or ended), and raises r's next id to the file's.  Load
 * it into a registry before the rule files, so that rule pins get ids
 * after the restored ones.  A file that is not valid JSON, is truncated,
 * has another version, a missing, unknown or wrongly typed key, or one bad
 * entry (a target, CPU list or profile name that does not parse, a pid
 * target without a start time or with 0, an id
 * used twice or not below next_id, two entries on one target) is
 * rejected as a whole: -EBADMSG with e naming the key or the entry
 * ("pins[2] (id 5): key \"cpus\": ...").  A file that does not fit r
 * (an id or target r already has, too many pins) gives -EEXIST or -EDQUOT.
 * Returns 0, or one of those or -ENOMEM; r is unchanged on failure. */
int pin_persist_load(const char *text, size_t len, PinRegistry *r, ErrorInfo *e);

/* Parses the len bytes of a rule file (filename names it in messages) into
 * a malloc'ed array of pin specs (*ret, NULL when the array is empty; free
 * it with free()), each with target, cpus, cpus_given, profile, reason,
 * from_rules_dir = true and state PIN_STATE_WAITING, for
 * pin_registry_add().  Unknown keys, wrong types, a pid target (pids do
 * not outlive a boot), bad targets or CPU lists, a profile name that is
 * empty or too long, and more than PIN_RULES_PER_FILE_MAX rules are
 * rejected: -EBADMSG with e like "FILE: rules[1]: key \"cpus\": ..."
 * ("FILE: key ..." for a file of one rule).
 * Whether the profile exists is for the caller to check.  Returns 0, or
 * -EBADMSG or -ENOMEM; *ret and *ret_n untouched on failure. */
int pin_rules_parse(const char *text, size_t len, const char *filename, Pin **ret, size_t *ret_n, ErrorInfo *e);
