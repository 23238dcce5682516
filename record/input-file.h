/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The file --from reads: a path or "-" (standard input), plain or gzip
 * (told by its magic, not its name; inflated with zlib, concatenated
 * members too).  What is not ftrace text is refused with its own error:
 *
 *   -EISDIR       a directory
 *   -ESPIPE       a FIFO, socket or device named as FILE (read a pipe
 *                 through "--from -" instead: opening a FIFO by name blocks
 *                 until someone writes)
 *   -ENOTTY       standard input is a terminal
 *   -EPROTOTYPE   a trace-cmd binary file (trace.dat): give trace-cmd
 *                 report's text instead
 *   -EMEDIUMTYPE  binary data (NUL bytes at the start)
 *   -EBADMSG      corrupt gzip data
 *   -ENODATA      gzip data that ends early (a truncated file)
 *   -EFBIG        more text than the limit
 *
 * input_error_name() gives each one's message. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct InputFile InputFile;

/* Opens path ("-": standard input) with a limit of max_bytes of text.
 * Returns 0 or one of the errors above, or -errno. */
int input_file_open(const char *path, uint64_t max_bytes, InputFile **ret);

/* Reads up to n bytes of text.  Returns the number read, 0 at the end, or
 * one of the errors above / -errno. */
ssize_t input_file_read(InputFile *in, char *buf, size_t n);

/* How far reading got in the file's own bytes (compressed bytes for gzip),
 * and its size (0 when unknown: a pipe). */
void input_file_position(const InputFile *in, uint64_t *ret_done, uint64_t *ret_size);

bool input_file_is_gzip(const InputFile *in);

InputFile *input_file_close(InputFile *in);
void input_file_closep(InputFile **in);
#define _cleanup_input_file_ __attribute__((cleanup(input_file_closep)))

/* A message for the errors above (NULL for other errnos). */
const char *input_error_name(int error);
