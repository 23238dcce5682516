/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The path an exe:PATH rule matches.  The kernel shows a process's
 * executable (proc/PID/exe) as the file it runs, with every symbolic link
 * on the way resolved: a rule naming a link (/usr/bin/python3 ->
 * python3.12, /bin/sleep where /bin -> usr/bin) would never match.  So a
 * rule's path is resolved when the rule is made, the way the kernel
 * resolves it, through a root directory fd (the host's for the daemon:
 * processes are always the host's), and the rule names the file itself.
 *
 * The resolution walks the path one component at a time: each symbolic
 * link is read and its target taken in its place (an absolute target from
 * the root, a relative one from the link's directory), ".." in a target
 * goes up one resolved component (never above the root), at most
 * PIN_EXE_LINKS_MAX links in all (the kernel's MAXSYMLINKS).  A component
 * that does not exist ends the walk: it and the rest are kept as they are
 * (a rule may wait for a program to be installed).  What the path names in
 * the end, if it exists, must be a regular file that is not a script: a
 * script's processes run its interpreter, which is what proc/PID/exe
 * shows. */

#include <stddef.h>

#include "errinfo.h"

#define PIN_EXE_LINKS_MAX 40

/* Resolves path (absolute, as pin_target_parse() normalises exe: values)
 * under root_fd into ret (size bytes, absolute).  Returns 1 if ret differs
 * from path (symbolic links were resolved), 0 if it is path, or with e
 * set: -ELOOP (more than PIN_EXE_LINKS_MAX links), -ENAMETOOLONG (the
 * resolved path or a link does not fit into size bytes), -ENOTDIR (a
 * component before the last is not a directory), -EISDIR (the path names a
 * directory), -ENOEXEC (a script: e names its interpreter), -EBADFD (not a
 * regular file), -EINVAL (path not absolute), or the errno of a lookup
 * that failed other than with -ENOENT (-EACCES, ...); ret untouched on
 * failure. */
int pin_exe_resolve(int root_fd, const char *path, char *ret, size_t size, ErrorInfo *e);
