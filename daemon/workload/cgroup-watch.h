/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The moment a cgroup empties: a cgroup pin ends then.
 *
 * cgroup v2: the kernel keeps "populated 0|1" in the cgroup's cgroup.events
 * and signals every change of it as IN_MODIFY on that file.  The watch is
 * an inotify source on the file (opened relative to the cgroup root handle,
 * watched through /proc/self/fd/N) that reads it again at each event; a
 * read that finds no "populated" line (a test's file between truncation
 * and write) waits for the next event.  Regular files behave the same,
 * which is how the tests fake a cgroup.
 *
 * cgroup v1 has no cgroup.events, and its release notification
 * (notify_on_release, release_agent) is one program for the whole
 * hierarchy that the kernel spawns, nothing a daemon can listen to.  So in
 * a v1 cgroup (one with cgroup.procs, or only tasks) the watch reads that
 * file on a re-armed timer, every second by default: empty = not one byte.
 * The end is seen up to one interval late there.
 *
 * A cgroup that disappears counts as empty (it must have been to be
 * removed). */

#include <stdint.h>
#include <systemd/sd-event.h>

typedef struct CgroupWatch CgroupWatch;

typedef enum CgroupWatchKind {
        CGROUP_WATCH_EVENTS,           /* v2: inotify on cgroup.events */
        CGROUP_WATCH_POLL,             /* v1: cgroup.procs (or tasks) on a timer */
} CgroupWatchKind;

#define CGROUP_WATCH_INTERVAL_USEC_DEFAULT ((uint64_t) 1000000)

/* Called once, from the event loop, with the path the watch was made with.
 * It may free the watch. */
typedef void (*CgroupWatchEmpty)(const char *path, void *userdata);

/* Watches the cgroup at path, relative to root_fd (the cgroup file
 * system's root: /sys/fs/cgroup in the daemon, a temp dir in tests), v2 if
 * it has cgroup.events, else v1: on_empty(path, userdata) is called once
 * from e when it is empty, at the first iteration if it already is.
 * Every file is opened below root_fd with fileio_open_beneath(): no
 * symbolic link is followed, in path or as one of the cgroup's files.
 * Returns 0, or
 *   -EINVAL  path is empty, absolute, or has a ".." component
 *   -ENOENT  no such directory, or it has none of cgroup.events,
 *            cgroup.procs and tasks (not a cgroup)
 *   -ELOOP   a symbolic link in path, or as cgroup.events, cgroup.procs
 *            or tasks
 *   -ENOTDIR a component of path is not a directory
 *   -EBADFD  cgroup.events, cgroup.procs or tasks is not a regular file
 *            (a FIFO, a directory)
 *   -ENOMEM, or a negative errno of the open or sd-event.
 * *ret is untouched on failure. */
int cgroup_watch_new(sd_event *e, int root_fd, const char *path, CgroupWatchEmpty on_empty, void *userdata,
                     CgroupWatch **ret);

/* Returns how w watches. */
CgroupWatchKind cgroup_watch_get_kind(const CgroupWatch *w);

/* Sets the interval of the v1 poll and re-arms it to usec from now (unless
 * it has fired); nothing for v2.  Returns 0, -EINVAL for 0, or a negative
 * errno of sd-event. */
int cgroup_watch_set_interval(CgroupWatch *w, uint64_t usec);

/* Stops watching.  NULL is fine.  Returns NULL. */
CgroupWatch *cgroup_watch_free(CgroupWatch *w);
void cgroup_watch_freep(CgroupWatch **w);
