/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The machine-wide CPU latency request (the kernel's CPU latency QoS,
 * /dev/cpu_dma_latency) and the processes that hold it.
 *
 * Any process may open the device and write a latency in microseconds (a
 * 4-byte s32); the request lasts while the file stays open.  The kernel
 * keeps the smallest request in force on every CPU: no governor enters an
 * idle state whose exit latency is above it.  Reading the device returns
 * that aggregate as a 4-byte s32 in host byte order; with no request it
 * is PM_QOS_CPU_LATENCY_DEFAULT_VALUE, 2000000000 (include/linux/pm_qos.h).
 * Opening the device to read adds a request at that default for as long
 * as it is open, which changes nothing.
 *
 * The holders are the processes with the device open, found through their
 * proc/PID/fd links (the text "/dev/cpu_dma_latency", as the kernel shows
 * a file opened under that path: a holder that opened it under another
 * path, or one whose thread has its own file table, is not found).
 *
 * Pure: through a root directory handle, no clock, no logging. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LATENCY_REQUEST_DEVICE "dev/cpu_dma_latency"
/* What the device reads with no request (PM_QOS_CPU_LATENCY_DEFAULT_VALUE). */
#define LATENCY_REQUEST_NONE INT32_C(2000000000)
/* A holder's comm, NUL included (the kernel's TASK_COMM_LEN). */
#define LATENCY_COMM_MAX 16

/* Reads the request in force from root_fd/dev/cpu_dma_latency into
 * *ret_usec (LATENCY_REQUEST_NONE: none).  Returns 0, -EBADMSG if the
 * device gave something other than 4 bytes of a value in 0..2000000000,
 * or the errno of open/read (-ENOENT: no such device, -EACCES/-EPERM:
 * not allowed, e.g. by a sandbox). */
int latency_request_read(int root_fd, int32_t *ret_usec);

/* Returns true if usec is a request in force (not the kernel's default). */
bool latency_request_in_force(int32_t usec);

typedef struct LatencyHolder {
        uint32_t pid;
        char comm[LATENCY_COMM_MAX];   /* printable ASCII: other bytes become '?' */
} LatencyHolder;

typedef struct LatencyHolders {
        LatencyHolder *holders;         /* ascending pid */
        size_t n;
        unsigned hidden;                /* processes whose open files could not be read
                                         * (EACCES/EPERM): the list may miss them */
} LatencyHolders;

#define LATENCY_HOLDERS_NULL ((LatencyHolders) {})

/* Finds the processes under root_fd/proc with the device open, leaving out
 * skip_pid (the caller, 0: none).  A process that exits meanwhile is left
 * out.  Returns 0 with *ret filled (replacing nothing: ret must be
 * LATENCY_HOLDERS_NULL or done), or -ENOMEM, or the errno of listing proc/. */
int latency_holders_scan(int root_fd, uint32_t skip_pid, LatencyHolders *ret);

/* Frees what h holds and resets it to LATENCY_HOLDERS_NULL. */
void latency_holders_done(LatencyHolders *h);

/* Returns true if a and b list the same processes with the same names
 * and the same number of hidden ones. */
bool latency_holders_equal(const LatencyHolders *a, const LatencyHolders *b);
