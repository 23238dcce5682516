/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* PreviewProfile(s profile) on the Manager's interface: what SetProfile
 * would do (profile-preview.h), read-only, for anyone. */

typedef struct Manager Manager;

/* Adds the method's vtable to m->bus.  Returns 0 or a negative errno. */
int bus_preview_register(Manager *m);
