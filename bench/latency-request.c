/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* latency-request: what watching the CPU latency request costs the daemon
 * (libidlepolicy/latency-request.h): one read of dev/cpu_dma_latency (done
 * every tick) and one scan of proc/PID/fd for its holders (done only while
 * a request is in force), on this machine's real / and on fake trees of P
 * processes with F open files each (a desktop has a few hundred processes
 * and tens of thousands of open files).
 *
 *   latency-request [--reads N] [--scans N] [--out FILE]
 *
 * Reading the real device opens it, which adds a request at the kernel's
 * default (no limit) while it is open: the aggregate does not move.
 * Prints JSON (and writes it to FILE): the median of the runs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench-clock.h"
#include "dirlist.h"
#include "faketree.h"
#include "latency-request.h"

/* Median µs of one read over n reads (in 5 runs).  Returns -1 if the
 * device cannot be read. */
static double read_usec(int root_fd, unsigned n) {
        double runs[5];
        int32_t v;

        for (unsigned r = 0; r < 5; r++) {
                uint64_t t0 = bench_now_ns();

                for (unsigned i = 0; i < n; i++)
                        if (latency_request_read(root_fd, &v) < 0)
                                return -1;
                runs[r] = (double) (bench_now_ns() - t0) / 1000.0 / n;
        }
        qsort(runs, 5, sizeof(double), bench_cmp_double);
        return runs[2];
}

/* Median ms of one scan over n scans; *ret_holders the holders found. */
static double scan_msec(int root_fd, unsigned n, size_t *ret_holders) {
        double runs[5];

        for (unsigned r = 0; r < 5; r++) {
                uint64_t t0 = bench_now_ns();

                for (unsigned i = 0; i < n; i++) {
                        LatencyHolders h = LATENCY_HOLDERS_NULL;

                        if (latency_holders_scan(root_fd, 0, &h) < 0)
                                return -1;
                        *ret_holders = h.n;
                        latency_holders_done(&h);
                }
                runs[r] = (double) (bench_now_ns() - t0) / 1e6 / n;
        }
        qsort(runs, 5, sizeof(double), bench_cmp_double);
        return runs[2];
}

/* The processes and open files under root_fd/proc (those it may list). */
static void count_proc(int root_fd, unsigned *ret_procs, unsigned long *ret_fds) {
        unsigned *pids = NULL;
        size_t n = 0;

        *ret_fds = 0;
        if (dir_list_numeric_at(root_fd, "proc", UINT32_MAX, &pids, &n) < 0)
                n = 0;
        for (size_t i = 0; i < n; i++) {
                char path[32];
                int fd;
                DIR *d;

                snprintf(path, sizeof(path), "proc/%u/fd", pids[i]);
                fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                d = fd >= 0 ? fdopendir(fd) : NULL;
                for (struct dirent *de; d && (de = readdir(d)); )
                        *ret_fds += de->d_name[0] != '.';
                if (d)
                        closedir(d);
                else if (fd >= 0)
                        close(fd);
        }
        *ret_procs = (unsigned) n;
        free(pids);
}

/* A fake tree under dir of procs processes with fds open files each, one
 * of which holds the device.  Returns its fd or -1. */
static int fake_tree(const char *dir, unsigned procs, unsigned fds) {
        FakeTreeOptions o;
        int fd;

        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -1;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        faketree_options_init(&o);
        if (fd < 0 || faketree_create(fd, &o) < 0 || faketree_latency_set(fd, 10) < 0)
                return -1;
        for (unsigned p = 1; p <= procs; p++) {
                char path[64];

                if (faketree_latency_hold(fd, 1000 + p, "proc") < 0)
                        return -1;
                snprintf(path, sizeof(path), "proc/%u/fd/3", 1000 + p);
                if (p != procs / 2 && unlinkat(fd, path, 0) < 0)
                        return -1;
                for (unsigned k = 4; k < fds + 3; k++) {
                        snprintf(path, sizeof(path), "proc/%u/fd/%u", 1000 + p, k);
                        if (symlinkat("socket:[12345]", fd, path) < 0)
                                return -1;
                }
        }
        return fd;
}

int main(int argc, char **argv) {
        static const unsigned shapes[][2] = { { 100, 20 }, { 400, 50 }, { 1000, 50 } };
        unsigned reads = 20000, scans = 20, procs;
        unsigned long fds;
        const char *out = NULL;
        char json[4096], tmp[] = "/tmp/latency-request-bench-XXXXXX";
        size_t len = 0, holders = 0;
        double read_us, scan_ms;
        int opt, root_fd;

        static const struct option options[] = {
                { "reads", required_argument, NULL, 'r' },
                { "scans", required_argument, NULL, 's' },
                { "out",   required_argument, NULL, 'o' },
                {}
        };
        while ((opt = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (opt) {
                case 'r': reads = (unsigned) strtoul(optarg, NULL, 10); break;
                case 's': scans = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'o': out = optarg; break;
                default: return 2;
                }
        if (reads == 0 || scans == 0 || !mkdtemp(tmp))
                return 2;
        root_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        count_proc(root_fd, &procs, &fds);
        read_us = read_usec(root_fd, reads);
        scan_ms = scan_msec(root_fd, scans, &holders);
        len += (size_t) snprintf(json + len, sizeof(json) - len,
                                 "{\"real\": {\"read_usec\": %.3f, \"scan_msec\": %.3f, \"processes\": %u, "
                                 "\"open_files\": %lu, \"holders\": %zu},\n \"fake\": [",
                                 read_us, scan_ms, procs, fds, holders);
        for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
                char dir[sizeof(tmp) + 16];
                int fd;

                snprintf(dir, sizeof(dir), "%s/%zu", tmp, i);
                fd = fake_tree(dir, shapes[i][0], shapes[i][1]);
                scan_ms = fd >= 0 ? scan_msec(fd, scans, &holders) : -1;
                len += (size_t) snprintf(json + len, sizeof(json) - len,
                                         "%s{\"processes\": %u, \"open_files\": %u, \"scan_msec\": %.3f, \"holders\": %zu}",
                                         i ? ", " : "", shapes[i][0], shapes[i][0] * shapes[i][1], scan_ms, holders);
                if (fd >= 0)
                        close(fd);
        }
        len += (size_t) snprintf(json + len, sizeof(json) - len, "]}\n");
        faketree_rm_rf(AT_FDCWD, tmp);
        return bench_json_out(json, out) < 0;
}
