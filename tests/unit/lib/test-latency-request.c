/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "latency-request.h"
#include "unit.h"

/* Writes len raw bytes as the device's content. */
static void device_bytes(FakeTree *t, const void *bytes, size_t len) {
        int fd = openat(t->fd, LATENCY_REQUEST_DEVICE, O_WRONLY | O_TRUNC | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, bytes, len), (ssize_t) len);
        close(fd);
}

START_TEST(test_no_request) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_(latency_holders_done) LatencyHolders h = LATENCY_HOLDERS_NULL;
        int32_t usec = 7;

        ck_assert_int_eq(latency_request_read(t->fd, &usec), 0);
        ck_assert_int_eq(usec, LATENCY_REQUEST_NONE);
        ck_assert(!latency_request_in_force(usec));
        ck_assert_int_eq(latency_holders_scan(t->fd, 0, &h), 0);
        ck_assert_uint_eq(h.n, 0);
        ck_assert_uint_eq(h.hidden, 0);
}
END_TEST

START_TEST(test_request_and_holders) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_(latency_holders_done) LatencyHolders h = LATENCY_HOLDERS_NULL, again = LATENCY_HOLDERS_NULL;
        int32_t usec = -1;

        ck_assert_int_eq(faketree_latency_set(t->fd, 20), 0);
        ck_assert_int_eq(faketree_latency_hold(t->fd, 4242, "cyclictest"), 0);
        ck_assert_int_eq(faketree_latency_hold(t->fd, 77, "tuned"), 0);
        ck_assert_int_eq(faketree_latency_hold(t->fd, 100, "idlepolicyd"), 0);
        ck_assert_int_eq(latency_request_read(t->fd, &usec), 0);
        ck_assert_int_eq(usec, 20);
        ck_assert(latency_request_in_force(usec));
        ck_assert(latency_request_in_force(0));
        /* ascending pid, the caller left out */
        ck_assert_int_eq(latency_holders_scan(t->fd, 100, &h), 0);
        ck_assert_uint_eq(h.n, 2);
        ck_assert_uint_eq(h.holders[0].pid, 77);
        ck_assert_str_eq(h.holders[0].comm, "tuned");
        ck_assert_uint_eq(h.holders[1].pid, 4242);
        ck_assert_str_eq(h.holders[1].comm, "cyclictest");
        ck_assert_int_eq(latency_holders_scan(t->fd, 100, &again), 0);
        ck_assert(latency_holders_equal(&h, &again));
        /* one lets go */
        latency_holders_done(&again);
        ck_assert_int_eq(faketree_latency_release(t->fd, 4242), 0);
        ck_assert_int_eq(latency_holders_scan(t->fd, 100, &again), 0);
        ck_assert_uint_eq(again.n, 1);
        ck_assert(!latency_holders_equal(&h, &again));
}
END_TEST

START_TEST(test_other_files_are_not_holders) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_(latency_holders_done) LatencyHolders h = LATENCY_HOLDERS_NULL;

        ck_assert_int_eq(faketree_write(t->fd, "proc/12/comm", "cat\n"), 0);
        ck_assert_int_eq(mkdirat(t->fd, "proc/12/fd", 0755), 0);
        /* a look-alike path, the deleted file, a relative link, a file instead of a link */
        ck_assert_int_eq(symlinkat("/dev/cpu_dma_latency2", t->fd, "proc/12/fd/3"), 0);
        ck_assert_int_eq(symlinkat("/dev/cpu_dma_latency (deleted)", t->fd, "proc/12/fd/4"), 0);
        ck_assert_int_eq(symlinkat("dev/cpu_dma_latency", t->fd, "proc/12/fd/5"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "proc/12/fd/6", "/dev/cpu_dma_latency"), 0);
        /* not a process: a name that is not a PID, a PID without fd/ (a process gone) */
        ck_assert_int_eq(symlinkat("/dev/cpu_dma_latency", t->fd, "proc/self"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "proc/13/comm", "gone\n"), 0);
        ck_assert_int_eq(latency_holders_scan(t->fd, 0, &h), 0);
        ck_assert_uint_eq(h.n, 0);
        ck_assert_uint_eq(h.hidden, 0);
}
END_TEST

START_TEST(test_unreadable_process_counted) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_(latency_holders_done) LatencyHolders h = LATENCY_HOLDERS_NULL;

        ck_assert_int_eq(faketree_latency_hold(t->fd, 5, "holder"), 0);
        /* an fd directory that cannot be opened (a loop: ELOOP, as EACCES
         * would be for a process the reader may not look into) */
        ck_assert_int_eq(faketree_write(t->fd, "proc/9/comm", "secret\n"), 0);
        ck_assert_int_eq(symlinkat("fd", t->fd, "proc/9/fd"), 0);
        ck_assert_int_eq(latency_holders_scan(t->fd, 0, &h), 0);
        ck_assert_uint_eq(h.n, 1);
        ck_assert_uint_eq(h.holders[0].pid, 5);
        ck_assert_uint_eq(h.hidden, 1);
}
END_TEST

START_TEST(test_comm_made_printable) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_(latency_holders_done) LatencyHolders h = LATENCY_HOLDERS_NULL;

        ck_assert_int_eq(faketree_latency_hold(t->fd, 31, "a\xff" "b\x01" "c d"), 0);
        ck_assert_int_eq(faketree_latency_hold(t->fd, 32, "x"), 0);
        ck_assert_int_eq(faketree_rm_rf(t->fd, "proc/32/comm"), 0);
        ck_assert_int_eq(latency_holders_scan(t->fd, 0, &h), 0);
        ck_assert_uint_eq(h.n, 2);
        ck_assert_str_eq(h.holders[0].comm, "a?b?c d");
        ck_assert_str_eq(h.holders[1].comm, "?");       /* no comm to read */
}
END_TEST

START_TEST(test_bad_device) {
        FakeTree *t = unit_tree(NULL);
        const unsigned char three[3] = { 1, 2, 3 }, eight[8] = { 20 };
        int32_t negative = -5, too_large = LATENCY_REQUEST_NONE + 1, usec = 42;

        device_bytes(t, three, sizeof(three));
        ck_assert_int_eq(latency_request_read(t->fd, &usec), -EBADMSG);
        device_bytes(t, eight, sizeof(eight));
        ck_assert_int_eq(latency_request_read(t->fd, &usec), -EBADMSG);
        device_bytes(t, &negative, sizeof(negative));
        ck_assert_int_eq(latency_request_read(t->fd, &usec), -EBADMSG);
        device_bytes(t, &too_large, sizeof(too_large));
        ck_assert_int_eq(latency_request_read(t->fd, &usec), -EBADMSG);
        ck_assert_int_eq(faketree_rm_rf(t->fd, LATENCY_REQUEST_DEVICE), 0);
        ck_assert_int_eq(latency_request_read(t->fd, &usec), -ENOENT);
        ck_assert_int_eq(usec, 42);                     /* untouched on failure */
        ck_assert(!latency_request_in_force(-1));
}
END_TEST

START_TEST(test_no_proc) {
        FakeTree *t = unit_tree(NULL);
        LatencyHolders h = LATENCY_HOLDERS_NULL;

        ck_assert_int_eq(faketree_rm_rf(t->fd, "proc"), 0);
        ck_assert_int_eq(latency_holders_scan(t->fd, 0, &h), -ENOENT);
        ck_assert_ptr_null(h.holders);
}
END_TEST

int main(void) {
        Suite *s = suite_create("latency-request");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_no_request);
        tcase_add_test(tc, test_request_and_holders);
        tcase_add_test(tc, test_other_files_are_not_holders);
        tcase_add_test(tc, test_unreadable_process_counted);
        tcase_add_test(tc, test_comm_made_printable);
        tcase_add_test(tc, test_bad_device);
        tcase_add_test(tc, test_no_proc);
        return unit_run(s);
}
