/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "input-file.h"

#define CHUNK (1u << 16)

static const unsigned char trace_dat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

struct InputFile {
        int fd;
        bool own_fd;
        bool gzip, stream_end, eof, sniffed;
        z_stream z;
        unsigned char in[CHUNK];
        const unsigned char *next;      /* plain text read while sniffing, not yet delivered */
        size_t avail;
        uint64_t done, size;            /* file bytes consumed, file size (0 unknown) */
        uint64_t text, max_text;        /* text bytes delivered, limit */
};

/* Reads up to n file bytes.  Returns the number read, 0 at the end, -errno. */
static ssize_t read_raw(InputFile *in, void *buf, size_t n) {
        for (;;) {
                ssize_t k = read(in->fd, buf, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                in->done += (uint64_t) k;
                return k;
        }
}

static int check_kind(int fd, bool is_stdin) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (is_stdin && isatty(fd))
                return -ENOTTY;
        if (!is_stdin && !S_ISREG(st.st_mode))
                return -ESPIPE;
        return 0;
}

int input_file_open(const char *path, uint64_t max_bytes, InputFile **ret) {
        bool is_stdin = strcmp(path, "-") == 0;
        int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        int r = check_kind(fd, is_stdin);
        if (r >= 0 && !is_stdin && fcntl(fd, F_SETFL, O_RDONLY) < 0)   /* a regular file: blocking reads */
                r = -errno;
        InputFile *in = r >= 0 ? calloc(1, sizeof(*in)) : NULL;
        if (r >= 0 && !in)
                r = -ENOMEM;
        if (r < 0) {
                if (!is_stdin)
                        close(fd);
                return r;
        }
        struct stat st;
        in->fd = fd;
        in->own_fd = !is_stdin;
        in->max_text = max_bytes;
        in->size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t) st.st_size : 0;
        *ret = in;
        return 0;
}

/* Looks at the first bytes: gzip magic, a trace.dat, binary.  Returns 0
 * or an error of input-file.h. */
static int sniff(InputFile *in, ssize_t n) {
        in->eof = n == 0;
        if (n < 2 || in->in[0] != 0x1f || in->in[1] != 0x8b) {
                in->next = in->in;
                in->avail = (size_t) n;
                return in->max_text > 0 && in->size > in->max_text ? -EFBIG : 0;
        }
        in->gzip = true;
        if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK)
                return -ENOMEM;
        in->z.next_in = in->in;
        in->z.avail_in = (uInt) n;
        return 0;
}

/* The first text bytes: not a trace.dat, not binary. */
static int check_text(const char *buf, size_t n) {
        if (n >= sizeof(trace_dat_magic) && memcmp(buf, trace_dat_magic, sizeof(trace_dat_magic)) == 0)
                return -EPROTOTYPE;
        if (memchr(buf, '\0', n < 4096 ? n : 4096))
                return -EMEDIUMTYPE;
        return 0;
}

/* Inflates into buf.  Returns bytes, 0 at the end, or an error. */
static ssize_t read_gzip(InputFile *in, char *buf, size_t n) {
        in->z.next_out = (unsigned char *) buf;
        in->z.avail_out = (uInt) n;
        while (in->z.avail_out == n) {
                if (in->z.avail_in == 0 && !in->eof) {
                        ssize_t k = read_raw(in, in->in, sizeof(in->in));
                        if (k < 0)
                                return k;
                        in->eof = k == 0;
                        in->z.next_in = in->in;
                        in->z.avail_in = (uInt) k;
                }
                if (in->z.avail_in == 0 && in->eof)
                        return in->stream_end ? 0 : -ENODATA;
                if (in->stream_end) {           /* another gzip member follows */
                        if (inflateReset(&in->z) != Z_OK)
                                return -EBADMSG;
                        in->stream_end = false;
                }
                int z = inflate(&in->z, Z_NO_FLUSH);
                if (z == Z_STREAM_END)
                        in->stream_end = true;
                else if (z == Z_MEM_ERROR)
                        return -ENOMEM;
                else if (z != Z_OK && z != Z_BUF_ERROR)
                        return -EBADMSG;
        }
        return (ssize_t) (n - in->z.avail_out);
}

ssize_t input_file_read(InputFile *in, char *buf, size_t n) {
        ssize_t k;

        if (!in->sniffed) {
                k = read_raw(in, in->in, sizeof(in->in));
                if (k < 0)
                        return k;
                in->sniffed = true;
                int r = sniff(in, k);
                if (r < 0)
                        return r;
        }
        bool first = in->text == 0;
        if (in->gzip)
                k = read_gzip(in, buf, n);
        else if (in->avail > 0) {
                k = (ssize_t) (in->avail < n ? in->avail : n);
                memcpy(buf, in->next, (size_t) k);
                in->next += k;
                in->avail -= (size_t) k;
        } else
                k = in->eof ? 0 : read_raw(in, buf, n);
        if (k <= 0)
                return k;
        if (first) {
                int r = check_text(buf, (size_t) k);
                if (r < 0)
                        return r;
        }
        in->text += (uint64_t) k;
        if (in->max_text > 0 && in->text > in->max_text)
                return -EFBIG;
        return k;
}

void input_file_position(const InputFile *in, uint64_t *ret_done, uint64_t *ret_size) {
        *ret_done = in->done - in->avail;
        *ret_size = in->size;
}

bool input_file_is_gzip(const InputFile *in) {
        return in->gzip;
}

InputFile *input_file_close(InputFile *in) {
        if (!in)
                return NULL;
        if (in->gzip)
                inflateEnd(&in->z);
        if (in->own_fd)
                close(in->fd);
        free(in);
        return NULL;
}

void input_file_closep(InputFile **in) {
        input_file_close(*in);
}

const char *input_error_name(int error) {
        switch (error) {
        case -EISDIR: return "is a directory";
        case -ESPIPE: return "is not a regular file (a FIFO, socket or device): to read a pipe, use --from - with it on standard input";
        case -ENOTTY: return "standard input is a terminal: pipe or redirect the ftrace text into it";
        case -EPROTOTYPE: return "is a trace-cmd binary file (trace.dat): convert it with \"trace-cmd report -i FILE > FILE.txt\" and import the text";
        case -EMEDIUMTYPE: return "is binary data, not ftrace text";
        case -EBADMSG: return "has corrupt gzip data";
        case -ENODATA: return "is a truncated gzip file (the data ends early)";
        case -EFBIG: return "has more text than --max-mb allows";
        default: return NULL;
        }
}
