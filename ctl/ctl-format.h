/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pure parsing and formatting for idlepolicyctl: command-line values in,
 * table cells out.  No bus, no output. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "errinfo.h"

/* Parses a resume latency as typed: "n/a" → UINT32_MAX, or a decimal u32
 * (range checks are the daemon's).  Returns 0, or -EINVAL/-ERANGE; *ret
 * untouched on failure. */
int ctl_parse_latency(const char *s, uint32_t *ret);

/* Parses a --cpu argument: NULL or "all" set *ret_all; otherwise kernel list
 * syntax ("0-3,5") into *ret.  An empty list is -EINVAL.  Returns 0 or
 * -EINVAL/-ERANGE with e explaining; outputs untouched on failure. */
int ctl_parse_cpus(const char *s, bool *ret_all, CpuSet *ret, ErrorInfo *e);

/* Parses a duration as typed for --interval: a number with the unit us,
 * ms, s, min or h ("10s", "1.5s", "500ms"); a bare number is seconds.
 * Returns 0, or -EINVAL (not a duration, or 0) / -ERANGE (above a day);
 * *ret_usec untouched on failure. */
int ctl_parse_duration(const char *s, uint64_t *ret_usec);

/* Parses "enable"/"disable".  Returns 0 and sets *ret_disable, or -EINVAL. */
int ctl_parse_state_action(const char *s, bool *ret_disable);

/* Copies in into buf (size bytes) as text the daemon accepts for a
 * reason or an application id: printable ASCII kept, any other byte
 * (control characters, and UTF-8 it need not judge) becomes '?', cut to
 * size - 1 bytes.  Returns buf. */
char *ctl_text_sanitize(const char *in, char *buf, size_t size);

/* The cells below return buf, always NUL-terminated. */

/* "-" for none, "1234", "1234,1240", or the first ones and the count
 * when they do not all fit: "1234,1240,1250,... (12)". */
const char *ctl_format_pids(const uint32_t *pids, size_t n, char *buf, size_t size);

/* "no constraint" for 0, "n/a" for UINT32_MAX, else "20us". */
const char *ctl_format_latency(uint32_t usec, char *buf, size_t size);
/* A duration: "250us", "10ms", "1.5s", "2min". */
const char *ctl_format_usec(uint64_t usec, char *buf, size_t size);
/* A long total, as a counter sums up: "250us", "1.5s", "12.5min", "3.2h". */
const char *ctl_format_total(uint64_t usec, char *buf, size_t size);
/* "12.3%" (with precision one decimal), or "-" when value < 0 or not finite. */
const char *ctl_format_percent(double value, char *buf, size_t size);
/* "250.0" per second, or "-" when value < 0 or not finite. */
const char *ctl_format_rate(double value, char *buf, size_t size);

/* 100 * part / whole, or -1 (unknown) when whole is 0. */
double ctl_pct(uint64_t part, uint64_t whole);

/* true if value is a real measurement (finite and >= 0). */
bool ctl_value_known(double value);
