/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pin on the machine: a process's threads get its CPUs, or a cgroup's
 * cpuset.cpus does, or a unit's AllowedCPUs; each as a change set of the
 * pin's owner (CHANGE_OWNER_PIN_ID(id), change-set.h): every original in
 * the restore journal before the first change, back when the pin ends
 * (change_restore() of the pin's owner).  A
 * watcher ends the pin with its workload: a pidfd for a process,
 * cgroup.events (or polling cgroup.procs on v1) for a cgroup.  A watcher
 * only marks its pin and enables Pins.ends: pins.c ends it from the loop,
 * never inside the watcher's callback or inside the call that made it. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fileio.h"
#include "change-set.h"
#include "knob-cgroup.h"
#include "knob-task.h"
#include "knob-unit.h"
#include "log.h"
#include "macro.h"
#include "pin-cgroup.h"
#include "pin-proc.h"
#include "pins-internal.h"

/* Returns the runtime of id, or NULL; with create, a new one (NULL on -ENOMEM). */
PinRuntime *pins_runtime(Pins *p, uint32_t id, bool create) {
        PinRuntime *n;

        for (size_t i = 0; i < p->n_runtimes; i++)
                if (p->runtimes[i]->id == id)
                        return p->runtimes[i];
        if (!create)
                return NULL;
        n = calloc(1, sizeof(PinRuntime));
        if (!n || array_reserve_one((void **) &p->runtimes, p->n_runtimes, &p->n_allocated, sizeof(PinRuntime *)) < 0) {
                free(n);
                return NULL;
        }
        *n = (PinRuntime) { .id = id, .owner = p };
        p->runtimes[p->n_runtimes++] = n;
        return n;
}

/* Frees rt's watcher and drops it from p. */
void pins_runtime_free(Pins *p, PinRuntime *rt) {
        for (size_t i = 0; i < p->n_runtimes; i++)
                if (p->runtimes[i] == rt) {
                        p->runtimes[i] = p->runtimes[--p->n_runtimes];
                        break;
                }
        process_watch_free(rt->process);
        cgroup_watch_free(rt->cgroup);
        systemd_unit_watch_free(rt->unit);
        free(rt);
}

void pins_runtimes_free(Pins *p) {
        while (p->n_runtimes > 0)
                pins_runtime_free(p, p->runtimes[0]);
        free(p->runtimes);
        p->runtimes = NULL;
}

/* Forgets what rt changed for process pid, which exited: its threads are
 * gone, and so is what there was to put back. */
void pins_runtime_forget_process(Pins *p, PinRuntime *rt, pid_t pid) {
        change_forget_tag(p->ctx.changes, CHANGE_OWNER_PIN_ID(rt->id), (uint64_t) pid);
}

/* The named error of a pin's failed change r, whose ErrorInfo says what
 * failed already and is kept as it is: the kernel's refusal of the CPUs
 * (no usable CPU in them) is InvalidCPUs, the rest WriteFailed. */
static int pin_change_error(const ChangeSet *set, int r) {
        if (r == -ENOMEM)
                return r;
        return set->write_error == -EINVAL ? -ERRNO_INVALID_CPUS : -EIO;
}

/* Adds thread tid of the set's process to the set.  A thread gone
 * meanwhile is left out.  Returns 0 or a negative errno with e set. */
static int task_add(Pins *p, ChangeSet *set, pid_t tid, const char *cpus, ErrorInfo *e) {
        ErrorInfo inner = {};
        char key[64];
        ProcStat st;
        int r;

        r = proc_read_stat(p->host_fd, tid, &st);
        if (r == -ESRCH)
                return 0;
        if (r < 0)
                return errinfo_set(e, -EIO, "Failed to read thread %d: %s", (int) tid, strerror(-r));
        r = change_set_add(set, knob_task_key(tid, st.start_time, key, sizeof(key)), cpus, &inner);
        if (r == -ENOENT)
                return 0;
        if (r < 0 && r != -ENOMEM)
                return errinfo_set(e, -EIO, "Failed to read thread %d: %s", (int) tid, inner.message);
        return r;
}

/* Whether the process of pidfd still runs (or is a zombie): its PID, and
 * so the threads listed under it, named nobody else meanwhile. */
static bool process_alive(int pidfd) {
        return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/* Opens x's pidfd (the process it was asked for, for the whole operation)
 * and adds its threads to set, tagged with its PID.  Returns 0, -ESRCH (it
 * is gone) or a negative errno with e set. */
static int process_add(Pins *p, ChangeSet *set, PinProcess *x, const char *list, ErrorInfo *e) {
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;
        int r;

        r = process_pidfd_open_verified(x->pid, x->start_time, &x->pidfd);
        if (r == -ESRCH || r == -ENOENT || r == -EINVAL)
                return -ESRCH;
        if (r < 0)
                return errinfo_set(e, -EIO, "Failed to open process %d: %s", (int) x->pid, strerror(-r));
        r = proc_list_tasks(p->host_fd, x->pid, &tids, &n);
        if (r < 0)
                return r == -ESRCH ? r : errinfo_set(e, -EIO, "Failed to list the threads of %d: %s", (int) x->pid,
                                                      strerror(-r));
        set->tag = (uint64_t) x->pid;
        for (size_t i = 0; i < n; i++) {
                r = task_add(p, set, tids[i], list, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Returns the number pinned, or a negative errno with e set. */
int pins_pin_processes(Pins *p, PinRuntime *rt, PinProcess *procs, size_t n, const CpuSet *cpus, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet set = {};
        _cleanup_free_ char *list = malloc(KNOB_CPULIST_MAX);
        ErrorInfo undo = {};
        int r, pinned = 0;

        if (!list || cpuset_format(cpus, list, KNOB_CPULIST_MAX) < 0)
                return -ENOMEM;
        change_set_init(&set, p->ctx.changes, CHANGE_OWNER_PIN_ID(rt->id));
        set.gone_ok = true;
        for (size_t i = 0; i < n; i++) {
                procs[i] = (PinProcess) { .pid = procs[i].pid, .start_time = procs[i].start_time, .pidfd = -1 };
                r = process_add(p, &set, &procs[i], list, e);
                if (r == -ESRCH)
                        continue;
                if (r < 0)
                        return r;
        }
        r = change_set_apply(&set, e);
        if (r < 0)
                return pin_change_error(&set, r);
        for (size_t i = 0; i < n; i++) {
                PinProcess *x = &procs[i];

                if (x->pidfd >= 0 && process_alive(x->pidfd)) {
                        x->pinned = true;
                        pinned++;
                } else if (x->pidfd >= 0 &&
                           change_restore_tag(p->ctx.changes, CHANGE_OWNER_PIN_ID(rt->id), (uint64_t) x->pid, &undo) < 0)
                        /* exited, its PID may name another process now: undone by what was changed */
                        log_warning("Pin %" PRIu32 ": process %d exited while being pinned: %s", rt->id, (int) x->pid,
                                    undo.message);
                fileio_closep(&x->pidfd);
        }
        return pinned;
}

/* Returns 0, -ESRCH (the process is gone) or a negative errno with e set. */
int pins_pin_process(Pins *p, PinRuntime *rt, pid_t pid, uint64_t start_time, const CpuSet *cpus, ErrorInfo *e) {
        PinProcess x = { .pid = pid, .start_time = start_time };
        int r = pins_pin_processes(p, rt, &x, 1, cpus, e);

        return r < 0 ? r : r == 1 ? 0 : -ESRCH;
}

static void on_process_exit(pid_t pid, void *userdata) {
        PinRuntime *rt = userdata;

        rt->ended = "the process exited";
        (void) sd_event_source_set_enabled(rt->owner->ends, SD_EVENT_ONESHOT);
}

static void on_cgroup_empty(const char *path, void *userdata) {
        PinRuntime *rt = userdata;

        rt->ended = "the cgroup is empty";
        (void) sd_event_source_set_enabled(rt->owner->ends, SD_EVENT_ONESHOT);
}

/* A pid: target names a process: another thread of one (its TID, which
 * proc/TID answers for too) is NotPinnable.  Returns 0 or a named negative
 * errno with e set. */
static int check_process(Pins *p, pid_t pid, ErrorInfo *e) {
        pid_t tgid;
        int r = proc_read_tgid(p->host_fd, pid, &tgid);

        if (r == -ESRCH)
                return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "No process %d", (int) pid);
        if (r < 0)
                return errinfo_set(e, r == -ENOMEM ? r : -ERRNO_NOT_PINNABLE, "Cannot read process %d: %s", (int) pid,
                                   strerror(-r));
        if (tgid != pid)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "%d is a thread of process %d, not a process: pin pid:%d "
                                   "(a pin takes a process with all its threads)", (int) pid, (int) tgid, (int) tgid);
        return 0;
}

/* Returns 0 or a named negative errno with e set. */
static int apply_pid(Pins *p, Pin *pin, PinRuntime *rt, ErrorInfo *e) {
        pid_t pid = pin->target.pid;
        ProcStat st;
        int r;

        r = check_process(p, pid, e);
        if (r < 0)
                return r;
        r = proc_read_stat(p->host_fd, pid, &st);
        if (r == -ESRCH || (r >= 0 && !pin_pid_matches(&pin->target, &st)))
                return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "No process %d%s", (int) pid,
                                   r >= 0 ? " (its PID now names another process)" : "");
        if (r < 0)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "Cannot read process %d: %s", (int) pid, strerror(-r));
        if (st.kthread || st.no_setaffinity)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "Process %d is %s: its affinity cannot be set", (int) pid,
                                   st.kthread ? "a kernel thread" : "marked PF_NO_SETAFFINITY");
        if (st.state == 'Z')
                return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "Process %d has exited (a zombie)", (int) pid);
        pin->target.start_time = st.start_time;
        if (!pin->cpus_given) {
                r = task_affinity_get(pid, &pin->cpus);
                if (r < 0)
                        return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "No process %d", (int) pid);
        }
        r = process_watch_new(p->ctx.event, pid, st.start_time, on_process_exit, rt, &rt->process);
        if (r == -ESRCH || r == -ENOENT)
                return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "No process %d (it exited while being pinned)", (int) pid);
        if (r == -EMFILE || r == -ENFILE)
                return errinfo_set(e, -ERRNO_LIMIT_REACHED, "No file descriptor left to watch process %d: %s", (int) pid,
                                   strerror(-r));
        if (r < 0)
                return errinfo_set(e, r == -ENOMEM ? r : -ERRNO_NOT_PINNABLE, "Cannot watch process %d: %s", (int) pid,
                                   strerror(-r));
        if (pin->cpus_given) {
                r = pins_pin_process(p, rt, pid, st.start_time, &pin->cpus, e);
                if (r == -ESRCH)
                        return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "No process %d", (int) pid);
                if (r < 0)
                        return r;
        }
        return pin_registry_set_pids(p->registry, pin->id, &pid, 1);
}

/* The CPUs a cgroup may use now: cpuset.cpus.effective (v2, or v1's
 * effective_cpus), else cpuset.cpus, each read below the mount
 * (fileio_read_string_beneath()).  Returns 0 or a named negative errno
 * with e set (NotPinnable: none of them, or one refused). */
static int cgroup_cpus(int cg_fd, const char *rel, const char *dir, CpuSet *ret, ErrorInfo *e) {
        static const char *const files[] = { "cpuset.cpus.effective", "cpuset.effective_cpus", "cpuset.cpus" };
        _cleanup_free_ char *buf = malloc(KNOB_CPULIST_MAX);
        char path[PIN_TARGET_VALUE_MAX + 32];
        int r = -ENOENT;
        size_t i;

        if (!buf)
                return -ENOMEM;
        for (i = 0; i < ELEMENTSOF(files) && r == -ENOENT; i++) {
                snprintf(path, sizeof(path), "%s/%s", rel, files[i]);
                r = fileio_read_string_beneath(cg_fd, path, buf, KNOB_CPULIST_MAX);
        }
        if (r == -ENOENT)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "The cgroup %s has no cpuset (no cpuset controller)", dir);
        if (r < 0)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "The cgroup %s has no usable cpuset: its %s is %s", dir,
                                   files[i - 1], knob_cgroup_refusal(r) ?: strerror(-r));
        r = cpuset_parse(buf, ret, NULL);
        return r < 0 ? errinfo_set(e, -ERRNO_NOT_PINNABLE, "The cgroup %s has no usable cpuset: its %s is not a CPU list",
                                   dir, files[i - 1]) : 0;
}

/* Checks that the cgroup rel is a directory below the mount cg_fd, reached
 * without a symbolic link (fileio_open_beneath()).  Returns 0 or a named
 * negative errno with e set: NoSuchProcess (missing), InvalidTarget (a
 * link or ".." on the way). */
static int cgroup_check_dir(const KnobEnv *env, int cg_fd, const char *rel, const char *dir, ErrorInfo *e) {
        _cleanup_close_ int fd = fileio_open_beneath(cg_fd, rel, O_PATH | O_DIRECTORY);

        if (fd >= 0)
                return 0;
        if (fd == -ENOENT || fd == -ENOTDIR)
                return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "No cgroup %s", dir);
        if (fd == -ELOOP || fd == -EXDEV)
                return errinfo_set(e, -ERRNO_INVALID_TARGET, "The cgroup path %s below %s is refused: %s", rel,
                                   env->cgroup_root, knob_cgroup_refusal(fd));
        return errinfo_set(e, -EIO, "Failed to open the cgroup %s: %s", dir, strerror(-fd));
}

/* The cgroup that the target value names, relative to the mount cg_fd
 * (pin-cgroup.h: the systemd form expanded, the v1 cpuset hierarchy found),
 * the key of its cpuset.cpus and its directory for messages.  Returns 0
 * or a named negative errno with e set. */
static int cgroup_key(const Pins *p, int cg_fd, const char *value, char rel[static PIN_CGROUP_PATH_MAX],
                      char dir[static KNOB_CGROUP_PATH_MAX], char key[static KNOB_KEY_MAX], ErrorInfo *e) {
        const KnobEnv *env = change_layer_env(p->ctx.changes);
        int r;

        if (cg_fd < 0)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "No cgroup mount at %s", env->cgroup_root);
        r = pin_cgroup_resolve(p->host_fd, cg_fd, env->cgroup_root, value, rel, e);
        if (r < 0)
                return r == -EBADMSG ? -ERRNO_INVALID_TARGET : r;
        if ((size_t) snprintf(dir, KNOB_CGROUP_PATH_MAX, "%s/%s", env->cgroup_root, rel) >= KNOB_CGROUP_PATH_MAX)
                return errinfo_set(e, -ERRNO_INVALID_TARGET, "The cgroup path %s is too long", rel);
        r = cgroup_check_dir(env, cg_fd, rel, dir, e);
        if (r < 0)
                return r;
        if (knob_cgroup_key(env, dir, key, KNOB_KEY_MAX) < 0)
                return errinfo_set(e, -ERRNO_INVALID_TARGET, "Cannot pin the cgroup %s", dir);
        return 0;
}

/* NotPinnable for a cpuset.cpus refused (knob_cgroup_refusal(r)): a link
 * on its way, a FIFO, a directory, found by the read or (the path changed
 * since) by the write.  Returns it with e set. */
static int cpuset_refused(const char *dir, int r, ErrorInfo *e) {
        return errinfo_set(e, -ERRNO_NOT_PINNABLE, "The cgroup %s has no usable cpuset: its cpuset.cpus is %s", dir,
                           knob_cgroup_refusal(r));
}

/* Sets the cgroup's cpuset.cpus (key) to cpus as a change of the pin.
 * Returns 0 or a named negative errno with e set (NotPinnable: its
 * cpuset.cpus is refused). */
static int cgroup_set(Pins *p, uint32_t id, const char *key, const char *dir, const CpuSet *cpus, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet set = {};
        _cleanup_free_ char *want = malloc(KNOB_CPULIST_MAX);
        int r;

        if (!want || cpuset_format(cpus, want, KNOB_CPULIST_MAX) < 0)
                return -ENOMEM;
        change_set_init(&set, p->ctx.changes, CHANGE_OWNER_PIN_ID(id));
        r = change_set_add(&set, key, want, e);
        if (r == -ENOMEM)
                return r;
        if (knob_cgroup_refusal(r))
                return cpuset_refused(dir, r, e);
        if (r < 0)
                return -EIO;            /* e says which file and why */
        r = change_set_apply(&set, e);
        if (r < 0 && r != -ENOMEM && knob_cgroup_refusal(set.write_error))
                return cpuset_refused(dir, set.write_error, e);
        if (r < 0)
                return pin_change_error(&set, r);
        return 0;
}

/* Opens the cgroup mount.  Returns the fd or -errno. */
static int cgroup_mount(const Pins *p) {
        int fd = open(change_layer_env(p->ctx.changes)->cgroup_root, O_PATH | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : fd;
}

/* Watches the cgroup for its end (cgroup-watch.h).  Returns 0 or a named
 * negative errno with e set. */
static int cgroup_watch(Pins *p, PinRuntime *rt, int cg_fd, const char *rel, const char *dir, ErrorInfo *e) {
        int r = cgroup_watch_new(p->ctx.event, cg_fd, rel, on_cgroup_empty, rt, &rt->cgroup);

        if (r == -ENOENT)
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "The cgroup %s has none of cgroup.events, cgroup.procs "
                                   "and tasks: its end cannot be seen", dir);
        if (knob_cgroup_refusal(r))
                return errinfo_set(e, -ERRNO_NOT_PINNABLE, "The cgroup %s cannot be watched for its end: its "
                                   "cgroup.events, cgroup.procs or tasks is %s", dir, knob_cgroup_refusal(r));
        if (r < 0)
                return errinfo_set(e, r == -ENOMEM ? r : -EIO, "Failed to watch the cgroup %s: %s", dir, strerror(-r));
        return 0;
}

/* Every file of the cgroup is opened below the mount, never through a
 * symbolic link; the watch is made before the write, so that a cgroup
 * that cannot be watched is never changed.  Returns 0 or a named negative
 * errno with e set. */
static int apply_cgroup(Pins *p, Pin *pin, PinRuntime *rt, ErrorInfo *e) {
        char rel[PIN_CGROUP_PATH_MAX], dir[KNOB_CGROUP_PATH_MAX], key[KNOB_KEY_MAX];
        _cleanup_close_ int cg_fd = cgroup_mount(p);
        CpuSet orig;
        int r;

        r = cgroup_key(p, cg_fd, pin->target.value, rel, dir, key, e);
        if (r < 0)
                return r;
        r = cgroup_cpus(cg_fd, rel, dir, &orig, e);
        if (r < 0)
                return r;
        r = cgroup_watch(p, rt, cg_fd, rel, dir, e);
        if (r < 0)
                return r;
        if (!pin->cpus_given)
                pin->cpus = orig;
        else
                return cgroup_set(p, pin->id, key, dir, &pin->cpus, e);
        return 0;
}

static void on_unit_stop(const char *unit, const char *why, void *userdata) {
        PinRuntime *rt = userdata;

        rt->ended = strcmp(why, "unwatched") == 0 ? "its stop can no longer be seen (the bus refused a match)" :
                    strcmp(why, "removed") == 0 ? "the unit was unloaded" : "the unit stopped";
        (void) sd_event_source_set_enabled(rt->owner->ends, SD_EVENT_ONESHOT);
}

/* Sets the unit's AllowedCPUs to the pin's CPUs as a change of the pin.
 * Returns 0 or a named negative errno with e set. */
static int unit_set(Pins *p, const Pin *pin, ErrorInfo *e) {
        _cleanup_(change_set_done) ChangeSet set = {};
        _cleanup_free_ char *want = malloc(KNOB_CPULIST_MAX);
        char key[KNOB_KEY_MAX];
        int r;

        if (!want || cpuset_format(&pin->cpus, want, KNOB_CPULIST_MAX) < 0)
                return -ENOMEM;
        if (knob_unit_key(pin->target.value, key, sizeof(key)) < 0)
                return errinfo_set(e, -ERRNO_INVALID_TARGET, "Cannot pin the unit %s", pin->target.value);
        change_set_init(&set, p->ctx.changes, CHANGE_OWNER_PIN_ID(pin->id));
        r = change_set_add(&set, key, want, e);
        if (r >= 0)
                r = change_set_apply(&set, e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return set.write_error == -EHOSTUNREACH || r == -EHOSTUNREACH ? -EHOSTUNREACH : -EIO;
        return 0;
}

/* A unit: its AllowedCPUs through systemd (systemd-unit.h), the original
 * read and journaled first; the pin ends when the unit stops.  Returns 0
 * or a named negative errno with e set. */
static int apply_unit(Pins *p, Pin *pin, PinRuntime *rt, ErrorInfo *e) {
        sd_bus *bus = change_layer_env(p->ctx.changes)->bus;
        const char *unit = pin->target.value;
        CpuSet orig;
        bool set = false;
        int r;

        if (!bus)
                return errinfo_set(e, -ERRNO_NO_SYSTEMD, "No system bus: unit pins need systemd");
        r = systemd_unit_get_allowed_cpus(bus, unit, &orig, &set, e);
        if (r >= 0)
                r = systemd_unit_is_active(bus, unit, e);
        if (r == 0)
                return errinfo_set(e, -ERRNO_NO_SUCH_PROCESS, "The unit %s is not running", unit);
        if (r == -ENOENT)
                return -ERRNO_NO_SUCH_PROCESS;
        if (r < 0)
                return r == -EHOSTUNREACH || r == -EOPNOTSUPP || r == -EINVAL ? r : -EIO;
        r = systemd_unit_watch_new(bus, unit, on_unit_stop, rt, &rt->unit, e);
        if (r < 0)
                return -EIO;
        if (!pin->cpus_given) {
                pin->cpus = set ? orig : p->ctx.topology(p->ctx.userdata)->online;
                return 0;
        }
        return unit_set(p, pin, e);
}

/* Returns 0 or a named negative errno with e set (nothing left changed). */
int pins_apply(Pins *p, Pin *pin, ErrorInfo *e) {
        PinRuntime *rt = pins_runtime(p, pin->id, true);
        ErrorInfo undo = {};
        int r;

        if (!rt)
                return errinfo_set(e, -ENOMEM, "Out of memory");
        r = pin->target.kind == PIN_TARGET_PID ? apply_pid(p, pin, rt, e) :
            pin->target.kind == PIN_TARGET_CGROUP ? apply_cgroup(p, pin, rt, e) :
            pin->target.kind == PIN_TARGET_UNIT ? apply_unit(p, pin, rt, e) :
            errinfo_set(e, -ERRNO_NOT_PINNABLE, "%s targets are not applied by this build yet",
                        pin_target_kind_to_string(pin->target.kind));
        if (r < 0 && pins_undo(p, pin->id, &undo) < 0)
                log_error("Pin %" PRIu32 ": %s", pin->id, undo.message);
        return r;
}

/* Returns 0 or -EIO with e set. */
int pins_undo(Pins *p, uint32_t id, ErrorInfo *e) {
        PinRuntime *rt = pins_runtime(p, id, false);
        int r;

        if (!rt)
                return 0;
        r = change_restore(p->ctx.changes, CHANGE_OWNER_PIN_ID(id), e);
        pins_runtime_free(p, rt);
        return r < 0 ? r : 0;
}

/* The cgroup pin's cpuset.cpus set to cpus again if it holds anything
 * else (cgroup v1 drops an offline CPU from it for good).  Returns 0 or a
 * named negative errno with e set. */
static int reassert_cgroup(Pins *p, const Pin *pin, const CpuSet *cpus, ErrorInfo *e) {
        char rel[PIN_CGROUP_PATH_MAX], dir[KNOB_CGROUP_PATH_MAX], key[KNOB_KEY_MAX];
        _cleanup_close_ int cg_fd = cgroup_mount(p);
        int r;

        r = cgroup_key(p, cg_fd, pin->target.value, rel, dir, key, e);
        return r < 0 ? r : cgroup_set(p, pin->id, key, dir, cpus, e);
}

int pins_reassert(Pins *p, Pin *pin, const CpuSet *online, ErrorInfo *e) {
        PinRuntime *rt = pins_runtime(p, pin->id, false);
        CpuSet cpus;
        int r = 0;

        if (!rt || !pin->cpus_given || (pin->state != PIN_STATE_ACTIVE && !pin_target_is_rule(&pin->target)))
                return 0;
        cpuset_clear(&cpus);
        CPUSET_FOREACH(cpu, &pin->cpus)
                if (cpuset_contains(online, (unsigned) cpu))
                        cpuset_add(&cpus, (unsigned) cpu);
        if (cpuset_count(&cpus) == 0)
                return 0;
        if (pin->target.kind == PIN_TARGET_CGROUP)
                return reassert_cgroup(p, pin, &cpus, e);
        if (pin->target.kind == PIN_TARGET_UNIT)
                return 0;               /* AllowedCPUs outlives hotplug (cgroup v2) */
        for (size_t i = 0; r >= 0 && i < pin->n_pids; i++) {
                r = pins_pin_process(p, rt, pin->pids[i],
                                     pin->target.kind == PIN_TARGET_PID ? pin->target.start_time : PROCESS_START_TIME_ANY,
                                     &cpus, e);
                if (r == -ESRCH)
                        r = 0;          /* gone: its watcher or the exit event ends it */
        }
        return r;
}
