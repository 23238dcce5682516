/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The profile's "wteo" object (profile.h's ProfileWteo), parsed and
 * written back; profile.c calls these for the one key. */

#include <jansson.h>

#include "errinfo.h"
#include "profile.h"

/* Applies the JSON object v to w (keys left out keep w's values).  fn
 * names the file in messages.  Returns 0, or -EINVAL with e =
 * "FN: key \"wteo.K\": reason" (or "key \"wteo\"" when v is not an
 * object); w untouched on failure. */
int profile_wteo_parse(json_t *v, const char *fn, ProfileWteo *w, ErrorInfo *e);

/* The object with every field of w.  Returns a new reference or NULL. */
json_t *profile_wteo_to_json(const ProfileWteo *w);
