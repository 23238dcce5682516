/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proc connector source (daemon/proc-events.c) against real processes:
 * the exec and exit of /bin/true and of /bin/sleep with the right tgid, a
 * rename, a thread's exit, and an overrun of a shrunk receive buffer that
 * is reported and survived.  Listening needs the initial namespaces, and
 * CAP_NET_ADMIN before Linux 6.6: skipped where the kernel refuses. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "proc-events.h"
#include "watch-test.h"

/* What the callbacks saw of one process (want), and any overrun. */
typedef struct Seen {
        pid_t want;
        bool exec, exit, comm, thread_exit, overrun;
        pid_t exec_pid;
        unsigned n_exec_any;           /* exec events of any process */
        ProcEvents *pause_at_exec;     /* paused from the exec callback */
        int exit_code;
        char comm_name[17];
} Seen;

static void on_exec(pid_t pid, pid_t tgid, void *userdata) {
        Seen *s = userdata;

        s->n_exec_any++;
        if (s->pause_at_exec)
                ck_assert_int_eq(proc_events_pause(s->pause_at_exec), 0);
        if (tgid != s->want)
                return;
        s->exec = true;
        s->exec_pid = pid;
}

static void on_exit_event(pid_t pid, pid_t tgid, int exit_code, void *userdata) {
        Seen *s = userdata;

        if (tgid != s->want)
                return;
        if (pid != tgid) {
                s->thread_exit = true;
                return;
        }
        s->exit = true;
        s->exit_code = exit_code;
}

static void on_comm(pid_t pid, pid_t tgid, const char *comm, void *userdata) {
        Seen *s = userdata;

        if (tgid != s->want || pid != tgid)
                return;
        s->comm = true;
        snprintf(s->comm_name, sizeof(s->comm_name), "%s", comm);
}

static void on_overrun(void *userdata) {
        ((Seen *) userdata)->overrun = true;
}

static const ProcEventsCallbacks callbacks = {
        .on_exec = on_exec,
        .on_exit = on_exit_event,
        .on_comm = on_comm,
        .on_overrun = on_overrun,
};

static ProcEvents *listen_new(sd_event **e, Seen *s) {
        ProcEvents *p = NULL;

        ck_assert_int_eq(sd_event_new(e), 0);
        ck_assert_int_eq(proc_events_new(*e, &callbacks, s, &p), 0);
        return p;
}

static void listen_free(sd_event *e, ProcEvents *p) {
        proc_events_free(p);
        sd_event_unref(e);
}

/* Forks a child that execs argv (or, with argv NULL, runs fn).  Returns
 * its PID. */
static pid_t spawn(char *const argv[], void (*fn)(void)) {
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (argv)
                        execv(argv[0], argv);
                else
                        fn();
                _exit(127);
        }
        return pid;
}

static int reap(pid_t pid) {
        int status;

        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        return status;
}

/* Listens while a child execs argv (or runs fn) to its end, which it must
 * reach; *s is what was seen of it.  Returns its wait status. */
static int watch_child(char *const argv[], void (*fn)(void), Seen *s) {
        sd_event *e;
        ProcEvents *p = listen_new(&e, s);
        int status;

        s->want = spawn(argv, fn);
        /* One socket, in order: an exec comes before the exit. */
        ck_assert_msg(watch_test_run_until(e, &s->exit, WATCH_TEST_DEADLINE_USEC), "no exit event for PID %d",
                      (int) s->want);
        status = reap(s->want);
        listen_free(e, p);
        return status;
}

/* Events flow on p: a child's exec and exit reach *s (reset to watch
 * it); then p and e are freed. */
static void flows_then_free(sd_event *e, ProcEvents *p, Seen *s) {
        static char *const argv[] = { (char *) "/bin/true", NULL };

        *s = (Seen) { .want = spawn(argv, NULL) };
        ck_assert(watch_test_run_until(e, &s->exit, WATCH_TEST_DEADLINE_USEC));
        ck_assert(s->exec);
        (void) reap(s->want);
        listen_free(e, p);
}

START_TEST(test_exec_true) {
        static char *const argv[] = { (char *) "/bin/true", NULL };
        Seen s = {};

        ck_assert_int_eq(watch_child(argv, NULL, &s), 0);
        ck_assert_msg(s.exec, "no exec event for PID %d", (int) s.want);
        ck_assert_int_eq(s.exec_pid, s.want);
        ck_assert(WIFEXITED(s.exit_code) && WEXITSTATUS(s.exit_code) == 0);
}
END_TEST

START_TEST(test_exec_sleep) {
        static char *const argv[] = { (char *) "/bin/sleep", (char *) "60", NULL };
        Seen s = {};
        sd_event *e;
        ProcEvents *p = listen_new(&e, &s);

        s.want = spawn(argv, NULL);
        ck_assert(watch_test_run_until(e, &s.exec, WATCH_TEST_DEADLINE_USEC));
        ck_assert_int_eq(s.exec_pid, s.want);
        ck_assert(!s.exit);
        ck_assert_int_eq(kill(s.want, SIGTERM), 0);
        ck_assert(watch_test_run_until(e, &s.exit, WATCH_TEST_DEADLINE_USEC));
        ck_assert(WIFSIGNALED(s.exit_code) && WTERMSIG(s.exit_code) == SIGTERM);
        (void) reap(s.want);
        listen_free(e, p);
}
END_TEST

static void rename_and_exit(void) {
        (void) prctl(PR_SET_NAME, "ipd) comm (x");
        _exit(3);
}

START_TEST(test_comm_and_exit_code) {
        Seen s = {};

        (void) watch_child(NULL, rename_and_exit, &s);
        ck_assert(s.comm);
        ck_assert_str_eq(s.comm_name, "ipd) comm (x");
        ck_assert(!s.exec);
        ck_assert(WIFEXITED(s.exit_code) && WEXITSTATUS(s.exit_code) == 3);
}
END_TEST

static void *thread_main(void *arg) {
        return arg;
}

static void thread_and_exit(void) {
        pthread_t t;

        if (pthread_create(&t, NULL, thread_main, NULL) == 0)
                (void) pthread_join(t, NULL);
        _exit(0);
}

/* A thread's end comes before its process's, with pid != tgid. */
START_TEST(test_thread_exit) {
        Seen s = {};

        (void) watch_child(NULL, thread_and_exit, &s);
        ck_assert(s.thread_exit);
}
END_TEST

/* The overrun: a buffer of a few events, 300 × /bin/true while nobody
 * reads, then the loop; and events flow again afterwards. */
START_TEST(test_overrun) {
        static char *const argv[] = { (char *) "/bin/true", NULL };
        Seen s = {};
        sd_event *e;
        ProcEvents *p = listen_new(&e, &s);

        ck_assert_int_eq(proc_events_set_buffer_size(p, 1), 0);
        for (unsigned i = 0; i < 300; i++)
                (void) reap(spawn(argv, NULL));
        ck_assert(watch_test_run_until(e, &s.overrun, WATCH_TEST_DEADLINE_USEC));

        ck_assert_int_eq(proc_events_set_buffer_size(p, PROC_EVENTS_BUFFER_DEFAULT), 0);
        watch_test_run_for(e, 100 * 1000);       /* what is left of the storm */
        flows_then_free(e, p, &s);
}
END_TEST

/* Paused, a child's exec and exit reach no callback, not even after the
 * resume (dropped, not late); resumed, the next child's do.  The events
 * of a child are sent before its parent can reap it (the exit's before
 * exit_notify()), so once reaped they are queued or filtered: nothing
 * here depends on time. */
START_TEST(test_pause_resume) {
        static char *const argv[] = { (char *) "/bin/true", NULL };
        Seen s = {};
        sd_event *e;
        ProcEvents *p = listen_new(&e, &s);

        ck_assert(!proc_events_paused(p));
        ck_assert_int_eq(proc_events_resume(p), 0);     /* a no-op */
        ck_assert_int_eq(proc_events_pause(p), 0);
        ck_assert(proc_events_paused(p));
        ck_assert_int_eq(proc_events_pause(p), 0);      /* a no-op */
        s.want = spawn(argv, NULL);
        (void) reap(s.want);
        watch_test_run_for(e, 100 * 1000);
        ck_assert(!s.exec && !s.exit);

        ck_assert_int_eq(proc_events_resume(p), 0);
        ck_assert(!proc_events_paused(p));
        watch_test_run_for(e, 100 * 1000);
        ck_assert(!s.exec && !s.exit);

        flows_then_free(e, p, &s);
}
END_TEST

/* Paused from its own exec callback (the daemon's exec wake): of two
 * execs queued, one reaches it; resumed, events flow again. */
START_TEST(test_pause_in_callback) {
        static char *const argv[] = { (char *) "/bin/true", NULL };
        Seen s = {};
        sd_event *e;
        ProcEvents *p = listen_new(&e, &s);

        s.pause_at_exec = p;
        (void) reap(spawn(argv, NULL));
        (void) reap(spawn(argv, NULL));
        watch_test_run_for(e, 100 * 1000);
        ck_assert_uint_eq(s.n_exec_any, 1);
        ck_assert(proc_events_paused(p));

        s = (Seen) {};
        ck_assert_int_eq(proc_events_resume(p), 0);
        flows_then_free(e, p, &s);
}
END_TEST

START_TEST(test_free_null) {
        ck_assert_ptr_null(proc_events_free(NULL));
}
END_TEST

int main(void) {
        const TTest *const tests[] = {
                test_exec_true, test_exec_sleep, test_comm_and_exit_code, test_thread_exit, test_overrun, test_pause_resume,
                test_pause_in_callback, test_free_null,
        };
        ProcEvents *p = NULL;
        sd_event *e = NULL;
        char why[128];
        int r;

        r = sd_event_new(&e);
        if (r >= 0)
                r = proc_events_new(e, &callbacks, &(Seen) {}, &p);
        proc_events_free(p);
        sd_event_unref(e);
        if (r < 0) {
                snprintf(why, sizeof(why), "cannot listen to the proc connector here: %s", strerror(-r));
                return watch_test_skip(why);
        }
        return watch_test_main("proc-events", tests, ELEMENTSOF(tests), NULL, NULL);
}
