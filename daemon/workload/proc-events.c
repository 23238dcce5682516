/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proc connector as an event source (proc-events.h).  libnl opens,
 * binds, sizes and subscribes the socket and sends the two control
 * messages; the events are read straight from its fd with recvmmsg() into
 * buffers allocated once.  libnl's own receive path (nl_recvmsgs) was not
 * used: it mallocs a buffer per datagram and an nl_msg per message, and it
 * turns ENOBUFS (an overrun, which must start a rescan) into NLE_NOMEM, the
 * same code as a failed allocation. */
#include <errno.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "cleanup.h"
#include "proc-events.h"

#if HAVE_LIBNL
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#endif

#define BATCH 32                       /* datagrams per recvmmsg() */
#define DATAGRAM_MAX 256               /* an event is 16 + 20 + at most 40 bytes */
#define ANSWER_TIMEOUT_MSEC 1000

/* The subscription with a filter (struct proc_input of Linux 6.6; older
 * uapi headers lack it, older kernels ignore a message of this size). */
typedef struct ProcInput {
        uint32_t mcast_op;
        uint32_t event_type;
} ProcInput;

/* Bytes of a struct proc_event up to and including event_data.member. */
#define EVENT_NEED(member) \
        (offsetof(struct proc_event, event_data) + sizeof(((struct proc_event *) NULL)->event_data.member))

struct ProcEvents {
        struct nl_sock *sock;
        int fd;                        /* the socket's, owned by sock */
        sd_event_source *source;
        ProcEventsCallbacks cb;
        void *userdata;
        uint32_t ack;                  /* of the last control message sent */
        bool listening;                /* PROC_CN_MCAST_LISTEN was accepted */
        bool waiting;                  /* for the kernel's answer: drop events */
        int answer;                    /* its error, once !waiting */
        bool overrun;
        bool paused;                   /* proc_events_pause(): events dropped */
        struct mmsghdr msgs[BATCH];
        struct iovec iov[BATCH];
        struct sockaddr_nl addr[BATCH];
        uint64_t buf[BATCH][DATAGRAM_MAX / sizeof(uint64_t)];
};

/* ---- the socket: libnl -------------------------------------------------- */

#if HAVE_LIBNL
/* Returns the negative errno for a negative libnl code of its socket calls. */
static int errno_from_nl(int r) {
        switch (-r) {
        case NLE_NOMEM:          return -ENOMEM;
        case NLE_PERM:           return -EPERM;
        case NLE_NOACCESS:       return -EACCES;
        case NLE_AGAIN:          return -EAGAIN;
        case NLE_INTR:           return -EINTR;
        case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
        case NLE_AF_NOSUPPORT:   return -EAFNOSUPPORT;
        case NLE_OPNOTSUPP:      return -EOPNOTSUPP;
        case NLE_BAD_SOCK:       return -ENOTSOCK;
        case NLE_INVAL:          return -EINVAL;
        case NLE_BUSY:           return -EBUSY;
        default:                 return -EIO;
        }
}

/* Opens, binds and subscribes p->sock.  Returns 0 or a negative errno. */
static int socket_open(ProcEvents *p) {
        int r;

        p->sock = nl_socket_alloc();
        if (!p->sock)
                return -ENOMEM;
        nl_socket_disable_seq_check(p->sock);
        nl_socket_disable_auto_ack(p->sock);
        r = nl_connect(p->sock, NETLINK_CONNECTOR);
        if (r < 0)
                return errno_from_nl(r);
        p->fd = nl_socket_get_fd(p->sock);
        r = nl_socket_set_nonblocking(p->sock);
        if (r < 0)
                return errno_from_nl(r);
        r = proc_events_set_buffer_size(p, PROC_EVENTS_BUFFER_DEFAULT);
        if (r < 0)
                return r;
        r = nl_socket_add_membership(p->sock, CN_IDX_PROC);
        return r < 0 ? errno_from_nl(r) : 0;
}

static void socket_close(ProcEvents *p) {
        nl_socket_free(p->sock);       /* closes p->fd */
        p->sock = NULL;
        p->fd = -1;
}

/* Sends len bytes of data to the proc connector as a cn_msg, with the next
 * ack number (the kernel answers with ack + 1).  Returns 0 or a negative
 * errno. */
static int socket_send(ProcEvents *p, const void *data, uint16_t len) {
        uint8_t m[sizeof(struct cn_msg) + sizeof(ProcInput)] = {};
        struct cn_msg cn = {
                .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
                .ack = ++p->ack,
                .len = len,
        };
        int r;

        if (len > sizeof(ProcInput))
                return -EINVAL;
        memcpy(m, &cn, sizeof(cn));
        memcpy(m + sizeof(cn), data, len);
        r = nl_send_simple(p->sock, NLMSG_DONE, 0, m, sizeof(cn) + len);
        return r < 0 ? errno_from_nl(r) : 0;
}

int proc_events_set_buffer_size(ProcEvents *p, size_t bytes) {
        int v = bytes > INT_MAX / 2 ? INT_MAX / 2 : (int) bytes;
        int r = nl_socket_set_buffer_size(p->sock, v, 0);

        if (r < 0)
                return errno_from_nl(r);
        /* SO_RCVBUF (above) stops at net.core.rmem_max, this does not; it
         * needs CAP_NET_ADMIN, which the daemon has. */
        (void) setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v));
        return 0;
}
#else
static int socket_open(ProcEvents *p) {
        return -EOPNOTSUPP;
}

static void socket_close(ProcEvents *p) {
}

static int socket_send(ProcEvents *p, const void *data, uint16_t len) {
        return -EOPNOTSUPP;
}

int proc_events_set_buffer_size(ProcEvents *p, size_t bytes) {
        return -EOPNOTSUPP;
}
#endif

/* ---- the events ---------------------------------------------------------- */

static void handle_event(ProcEvents *p, const struct cn_msg *cn) {
        struct proc_event ev = {};
        size_t n = cn->len;
        char comm[sizeof(ev.event_data.comm.comm) + 1];

        /* A copy: the event is not 8-byte aligned behind the headers. */
        memcpy(&ev, cn->data, n < sizeof(ev) ? n : sizeof(ev));
        if (p->waiting) {
                if (ev.what == PROC_EVENT_NONE && cn->ack == p->ack + 1 && n >= EVENT_NEED(ack)) {
                        p->answer = -(int) ev.event_data.ack.err;
                        p->waiting = false;
                }
                return;
        }
        if (p->paused)
                return;
        switch (ev.what) {
        case PROC_EVENT_EXEC:
                if (p->cb.on_exec && n >= EVENT_NEED(exec))
                        p->cb.on_exec(ev.event_data.exec.process_pid, ev.event_data.exec.process_tgid, p->userdata);
                break;
        case PROC_EVENT_EXIT:
                if (p->cb.on_exit && n >= offsetof(struct proc_event, event_data.exit.exit_signal))
                        p->cb.on_exit(ev.event_data.exit.process_pid, ev.event_data.exit.process_tgid,
                                      (int) ev.event_data.exit.exit_code, p->userdata);
                break;
        case PROC_EVENT_COMM:
                if (p->cb.on_comm && n >= EVENT_NEED(comm)) {
                        memcpy(comm, ev.event_data.comm.comm, sizeof(ev.event_data.comm.comm));
                        comm[sizeof(comm) - 1] = '\0';
                        p->cb.on_comm(ev.event_data.comm.process_pid, ev.event_data.comm.process_tgid, comm,
                                      p->userdata);
                }
                break;
        default:                       /* forks, ids, answers, ...: not asked for */
                break;
        }
}

/* One netlink message of nh->nlmsg_len bytes (checked): a proc connector
 * message, or dropped. */
static void handle_message(ProcEvents *p, const struct nlmsghdr *nh) {
        const struct cn_msg *cn = NLMSG_DATA(nh);
        size_t payload = nh->nlmsg_len - NLMSG_HDRLEN;

        if (nh->nlmsg_type != NLMSG_DONE || payload < sizeof(struct cn_msg) ||
            payload - sizeof(struct cn_msg) < cn->len || cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
                return;
        handle_event(p, cn);
}

/* Datagram i: netlink messages from the kernel.  Anything else (another
 * sender, a truncated datagram) is dropped. */
static void handle_datagram(ProcEvents *p, unsigned i) {
        const uint8_t *data = (const uint8_t *) p->buf[i];
        size_t len = p->msgs[i].msg_len, off = 0;

        if ((p->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ||
            p->msgs[i].msg_hdr.msg_namelen != sizeof(struct sockaddr_nl) || p->addr[i].nl_pid != 0)
                return;
        while (off < len && len - off >= NLMSG_HDRLEN) {
                const struct nlmsghdr *nh = (const struct nlmsghdr *) (data + off);

                if (nh->nlmsg_len < NLMSG_HDRLEN || nh->nlmsg_len > len - off)
                        return;
                handle_message(p, nh);
                off += NLMSG_ALIGN(nh->nlmsg_len);
        }
}

/* Reads and handles what the socket holds now; an ENOBUFS on the way sets
 * p->overrun.  Returns 0 or a negative errno (the read failed otherwise). */
static int drain(ProcEvents *p) {
        for (;;) {
                int n;

                for (unsigned i = 0; i < BATCH; i++)
                        p->msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_nl);
                n = recvmmsg(p->fd, p->msgs, BATCH, MSG_DONTWAIT, NULL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == ENOBUFS) {
                        p->overrun = true;
                        continue;
                }
                if (n < 0)
                        return errno == EAGAIN ? 0 : -errno;
                for (unsigned i = 0; i < (unsigned) n; i++)
                        handle_datagram(p, i);
                /* A short batch means the queue was empty; an error met
                 * after the first datagram is kept as the socket's error
                 * (EPOLLERR), so the loop wakes again for it. */
                if (n < BATCH)
                        return 0;
        }
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        ProcEvents *p = userdata;
        int r = drain(p);

        /* Any other failure to read may have lost events too. */
        if (r < 0 || p->overrun) {
                p->overrun = false;
                if (p->cb.on_overrun)
                        p->cb.on_overrun(p->userdata);
        }
        return 0;
}

/* ---- subscribing ---------------------------------------------------------- */

static uint64_t now_msec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Waits for the kernel's answer to the last control message, dropping the
 * events before it.  Returns its error (0: accepted), -ETIMEDOUT, or a
 * negative errno. */
static int wait_answer(ProcEvents *p) {
        uint64_t deadline = now_msec() + ANSWER_TIMEOUT_MSEC;
        struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
        int r;

        p->waiting = true;
        for (;;) {
                uint64_t now;

                r = drain(p);
                if (r < 0)
                        return r;
                if (!p->waiting)
                        return p->answer;
                /* The answer may have been lost in an overflow; events
                 * flow, and the overrun is reported at the first wakeup. */
                if (p->overrun)
                        return 0;
                now = now_msec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                r = poll(&pfd, 1, (int) (deadline - now));
                if (r < 0 && errno != EINTR)
                        return -errno;
        }
}

/* Returns the kinds of events p has callbacks for, as a filter. */
static uint32_t wanted_events(const ProcEvents *p) {
        return (p->cb.on_exec ? PROC_EVENT_EXEC : 0) | (p->cb.on_exit ? PROC_EVENT_EXIT : 0) |
               (p->cb.on_comm ? PROC_EVENT_COMM : 0);
}

/* Asks for the wanted kinds only (after PROC_CN_MCAST_LISTEN).  An older
 * kernel ignores a message of this size and keeps sending every kind. */
static void filter_events(ProcEvents *p) {
        ProcInput filter = { .mcast_op = PROC_CN_MCAST_LISTEN, .event_type = wanted_events(p) };

        if (filter.event_type != 0)
                (void) socket_send(p, &filter, sizeof(filter));
}

/* Sends PROC_CN_MCAST_LISTEN and waits for the answer, then asks for the
 * wanted kinds only.  Returns 0 or a negative errno. */
static int listen_events(ProcEvents *p) {
        static uint32_t instances;
        uint32_t op = PROC_CN_MCAST_LISTEN;
        int r;

        /* The answer goes to every listener, with ack + 1 (its seq is the
         * kernel's own counter since Linux 5.x): the PID and a count of
         * instances make ours. */
        p->ack = (uint32_t) getpid() << 10 | (__atomic_add_fetch(&instances, 1, __ATOMIC_RELAXED) & 0xff) << 2;
        r = socket_send(p, &op, sizeof(op));
        if (r < 0)
                return r;
        r = wait_answer(p);
        p->waiting = false;
        if (r < 0)
                return r;
        p->listening = true;
        filter_events(p);
        return 0;
}

int proc_events_new(sd_event *e, const ProcEventsCallbacks *callbacks, void *userdata, ProcEvents **ret) {
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        int r;

        p = calloc(1, sizeof(ProcEvents));
        if (!p)
                return -ENOMEM;
        p->fd = -1;
        p->cb = *callbacks;
        p->userdata = userdata;
        for (unsigned i = 0; i < BATCH; i++) {
                p->iov[i] = (struct iovec) { .iov_base = p->buf[i], .iov_len = sizeof(p->buf[i]) };
                p->msgs[i].msg_hdr = (struct msghdr) {
                        .msg_name = &p->addr[i],
                        .msg_iov = &p->iov[i],
                        .msg_iovlen = 1,
                };
        }
        r = socket_open(p);
        if (r < 0)
                return r;
        r = listen_events(p);
        if (r < 0)
                return r;
        r = sd_event_add_io(e, &p->source, p->fd, EPOLLIN, on_io, p);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(p->source, "proc-events");
        *ret = TAKE_PTR(p);
        return 0;
}

int proc_events_pause(ProcEvents *p) {
        uint32_t op = PROC_CN_MCAST_IGNORE;
        int r;

        if (p->paused)
                return 0;
        p->paused = true;
        r = sd_event_source_set_enabled(p->source, SD_EVENT_OFF);
        if (p->listening) {
                int s = socket_send(p, &op, sizeof(op));

                if (s >= 0)
                        p->listening = false;
                else if (r >= 0)
                        r = s;
        }
        return r;
}

int proc_events_resume(ProcEvents *p) {
        uint32_t op = PROC_CN_MCAST_LISTEN;
        int r;

        if (!p->paused)
                return 0;
        /* What came while paused (an older kernel's, or another
         * listener's events, and the answers) is dropped; so is an
         * overrun meanwhile. */
        r = drain(p);
        p->overrun = false;
        if (r < 0)
                return r;
        r = socket_send(p, &op, sizeof(op));
        if (r < 0)
                return r;
        p->listening = true;
        filter_events(p);
        r = sd_event_source_set_enabled(p->source, SD_EVENT_ON);
        if (r < 0)
                return r;
        p->paused = false;
        return 0;
}

bool proc_events_paused(const ProcEvents *p) {
        return p->paused;
}

ProcEvents *proc_events_free(ProcEvents *p) {
        uint32_t op = PROC_CN_MCAST_IGNORE;

        if (!p)
                return NULL;
        sd_event_source_disable_unref(p->source);
        if (p->listening)
                (void) socket_send(p, &op, sizeof(op));
        if (p->sock)
                socket_close(p);
        free(p);
        return NULL;
}

void proc_events_freep(ProcEvents **p) {
        proc_events_free(*p);
}
