/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dirlist.h"
#include "fileio.h"
#include "knob-irq.h"

char *knob_irq_key(unsigned irq, char *buf, size_t size) {
        snprintf(buf, size, KNOB_IRQ_PREFIX "%u", irq);
        return buf;
}

/* Returns 0 or -errno. */
int knob_irq_list(const KnobEnv *env, unsigned **ret, size_t *ret_n) {
        return dir_list_numeric_at(env->root_fd, "proc/irq", KNOB_IRQ_MAX, ret, ret_n);
}

/* Parses "irq:N" (decimal, no leading zero).  Returns 0 or -EINVAL. */
static int irq_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        const char *n = key + strlen(KNOB_IRQ_PREFIX);
        uint64_t irq;

        if (strncmp(key, KNOB_IRQ_PREFIX, strlen(KNOB_IRQ_PREFIX)) != 0 || strspn(n, "0123456789") != strlen(n) ||
            (n[0] == '0' && n[1]) || parse_u64(n, &irq) < 0 || irq > KNOB_IRQ_MAX)
                return -EINVAL;
        *ret = (KnobAddr) { .type = &knob_type_irq, .cpu = KNOB_NO_CPU, .index = (unsigned) irq };
        snprintf(ret->buf, sizeof(ret->buf), "proc/irq/%u/smp_affinity_list", ret->index);
        ret->rel = ret->buf;
        return 0;
}

static bool irq_value_valid(const KnobAddr *a, const char *value) {
        return knob_cpulist_valid(value, false);
}

/* Returns 0, -ENOENT (no such interrupt) or another negative errno. */
static int irq_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        int r = fileio_read_string_at(env->root_fd, a->buf, buf, size);

        return r < 0 ? r : 0;
}

static int irq_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        return fileio_write_string_at(env->root_fd, a->buf, value);
}

const KnobType knob_type_irq = {
        .name = "irq",
        .value_max = KNOB_CPULIST_MAX,
        .write_when_absent = true,
        .parse = irq_parse,
        .value_valid = irq_value_valid,
        .read = irq_read,
        .write = irq_write,
};
