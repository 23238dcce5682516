/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy-sim: loading what the command line names (state tables,
 * workloads, traces, governors). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "fileio.h"
#include "sim-calibrate.h"
#include "sim-cli.h"
#include "sim-trace.h"
#include "sim-util.h"
#include "sim-workload.h"
#include "trace-format.h"

#define TABLE_SUFFIX ".table"
#define ITEM_MAX 512

int cli_list_add(CliList *l, const char *item) {
        if (l->n == CLI_LIST_MAX) {
                fprintf(stderr, "idlepolicy-sim: more than %d values for one option\n", CLI_LIST_MAX);
                return -E2BIG;
        }
        l->items[l->n++] = item;
        return 0;
}

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);

        return n >= k && streq(s + n - k, suffix);
}

/* The table's name: the file name without directory and ".table". */
static void table_name(const char *path, char *buf, size_t size) {
        const char *base = strrchr(path, '/');

        snprintf(buf, size, "%s", base ? base + 1 : path);
        if (has_suffix(buf, TABLE_SUFFIX))
                buf[strlen(buf) - strlen(TABLE_SUFFIX)] = '\0';
}

static int table_load_path(const char *path, CliInputs *in) {
        _cleanup_fclose_ FILE *f = NULL;
        char name[SIM_TABLE_NAME_MAX];
        ErrorInfo e = {};
        int r;

        if (in->n_tables == CLI_TABLES_MAX) {
                fprintf(stderr, "idlepolicy-sim: more than %d tables\n", CLI_TABLES_MAX);
                return -E2BIG;
        }
        f = fopen(path, "re");
        if (!f) {
                r = -errno;
                fprintf(stderr, "idlepolicy-sim: Failed to open table %s: %s\n", path, strerror(-r));
                return r;
        }
        table_name(path, name, sizeof(name));
        r = sim_table_parse(f, name, &in->tables[in->n_tables], &e);
        if (r < 0) {
                fprintf(stderr, "idlepolicy-sim: %s: %s\n", path, e.message);
                return r;
        }
        in->n_tables++;
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Loads every DIR/\*.table in name order. */
static int table_load_all(const char *dir, CliInputs *in) {
        char *names[CLI_TABLES_MAX];
        size_t n = 0;
        struct dirent *de;
        DIR *d = opendir(dir);
        int r = 0;

        if (!d) {
                r = -errno;
                fprintf(stderr, "idlepolicy-sim: Failed to open tables directory %s: %s\n", dir, strerror(-r));
                return r;
        }
        while ((de = readdir(d)) && n < CLI_TABLES_MAX)
                if (has_suffix(de->d_name, TABLE_SUFFIX) && de->d_name[0] != '.')
                        if (asprintf(&names[n], "%s/%s", dir, de->d_name) >= 0)
                                n++;
        closedir(d);
        qsort(names, n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < n; i++) {
                if (r >= 0)
                        r = table_load_path(names[i], in);
                free(names[i]);
        }
        return r;
}

static int table_load(const CliOptions *o, const char *spec, CliInputs *in) {
        _cleanup_free_ char *path = NULL;

        if (streq(spec, "all"))
                return table_load_all(o->tables_dir, in);
        if (strchr(spec, '/') || has_suffix(spec, TABLE_SUFFIX))
                return table_load_path(spec, in);
        if (asprintf(&path, "%s/%s%s", o->tables_dir, spec, TABLE_SUFFIX) < 0)
                return -ENOMEM;
        return table_load_path(path, in);
}

/* Calls fn for every comma-separated item of every value in l. */
static int for_each_item(const CliOptions *o, const CliList *l, CliInputs *in,
                         int (*fn)(const CliOptions *o, const char *item, CliInputs *in)) {
        for (size_t i = 0; i < l->n; i++) {
                char buf[ITEM_MAX], *save = NULL;

                snprintf(buf, sizeof(buf), "%s", l->items[i]);
                for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
                        int r = fn(o, it, in);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int governor_add(const CliOptions *o, const char *name, CliInputs *in) {
        size_t n_all;
        const GovernorOps *const *all = governor_all(&n_all);
        const GovernorOps *ops;

        if (streq(name, "all")) {
                for (size_t i = 0; i < n_all; i++)
                        if (!all[i]->not_in_all)
                                (void) governor_add(o, all[i]->name, in);
                return 0;
        }
        ops = governor_find(name);
        if (!ops) {
                fprintf(stderr, "idlepolicy-sim: unknown governor \"%s\" (see --list)\n", name);
                return -EINVAL;
        }
        for (size_t i = 0; i < in->n_governors; i++)
                if (in->governors[i] == ops)
                        return 0;
        in->governors[in->n_governors++] = ops;
        return 0;
}

static CliSource *source_new(CliInputs *in, const char *label) {
        CliSource *s;

        if (in->n_sources == CLI_LIST_MAX) {
                fprintf(stderr, "idlepolicy-sim: more than %d workloads and traces\n", CLI_LIST_MAX);
                return NULL;
        }
        s = &in->sources[in->n_sources];
        *s = (CliSource) {};
        snprintf(s->label, sizeof(s->label), "%s", label);
        return s;
}

static int workload_add(const CliOptions *o, const char *spec, CliInputs *in) {
        CliSource *s;
        ErrorInfo e = {};
        int r;

        if (streq(spec, "all")) {
                const char *summary, *params, *name;

                for (size_t i = 0; (name = workload_describe(i, &summary, &params)); i++) {
                        r = workload_add(o, name, in);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        s = source_new(in, spec);
        if (!s)
                return -E2BIG;
        r = workload_generate(spec, o->seed, o->intervals, &s->intervals, &e);
        if (r < 0) {
                fprintf(stderr, "idlepolicy-sim: %s\n", r == -ENOMEM ? strerror(ENOMEM) : e.message);
                return r == -ENOMEM ? r : -EINVAL;
        }
        s->n = o->intervals;
        in->n_sources++;
        return 0;
}

static int trace_add(const CliOptions *o, const char *path, CliInputs *in) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        _cleanup_trace_ Trace *t = NULL;
        const char *base = strrchr(path, '/');
        CliSource *s = source_new(in, base ? base + 1 : path);
        ErrorInfo e = {};
        int r;

        if (!s)
                return -E2BIG;
        if (!f) {
                r = -errno;
                fprintf(stderr, "idlepolicy-sim: Failed to open trace %s: %s\n", path, strerror(-r));
                return r;
        }
        r = trace_read(f, &t, &e);
        if (r >= 0)
                r = sim_trace_intervals(t, &s->intervals, &s->n, &e);
        if (r >= 0)
                r = sim_trace_table(t, s->label, &s->table, &e);
        if (r < 0) {
                fprintf(stderr, "idlepolicy-sim: %s: %s\n", path, r == -ENOMEM ? strerror(ENOMEM) : e.message);
                free(TAKE_PTR(s->intervals));
                return r;
        }
        s->has_table = true;
        in->n_sources++;
        return 0;
}

/* Applies --disable to every table that has the state. */
static int apply_disable(const CliOptions *o, CliInputs *in) {
        for (size_t d = 0; d < o->disable.n; d++) {
                bool found = false;

                for (size_t i = 0; i < in->n_tables; i++)
                        found |= sim_table_set_disabled(&in->tables[i], o->disable.items[d], true) == 0;
                for (size_t i = 0; i < in->n_sources; i++)
                        if (in->sources[i].has_table)
                                found |= sim_table_set_disabled(&in->sources[i].table, o->disable.items[d], true) == 0;
                if (!found) {
                        fprintf(stderr, "idlepolicy-sim: no table has a state \"%s\"\n", o->disable.items[d]);
                        return -EINVAL;
                }
        }
        return 0;
}

/* The whole text of path (a calibration.json: at most 64 MiB) into *ret.
 * Returns 0 or a negative errno (printed). */
static int read_text(const char *path, char **ret) {
        _cleanup_free_ char *dir = strdup(path), *base = strdup(path);
        int fd, r;

        if (!dir || !base)
                return -ENOMEM;
        fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = fd < 0 ? -errno : fileio_read_regular_at(fd, basename(base), FILEIO_ALLOC_MAX, 0, ret, NULL);
        if (fd >= 0)
                close(fd);
        if (r < 0)
                fprintf(stderr, "idlepolicy-sim: Failed to read calibration %s: %s\n", path, fileio_error_reason(r));
        return r;
}

/* --calibration: the real costs of every table (the command line's and the
 * traces' own) from the daemon's calibration.json.  Returns 0 or a negative
 * errno (printed; -ENODATA: no table has a state it measured). */
static int apply_calibration(const CliOptions *o, CliInputs *in) {
        _cleanup_calibration_ Calibration *c = NULL;
        _cleanup_free_ char *text = NULL;
        ErrorInfo e = {};
        int r, done = 0;

        if (!o->calibration)
                return 0;
        r = read_text(o->calibration, &text);
        if (r < 0)
                return r;
        r = calibration_parse(text, o->calibration, &c, &e);
        if (r < 0) {
                fprintf(stderr, "idlepolicy-sim: %s\n", r == -ENOMEM ? strerror(ENOMEM) : e.message);
                return r == -ENOMEM ? r : -EBADMSG;
        }
        for (size_t i = 0; r >= 0 && i < in->n_tables; i++)
                done += r = sim_table_calibrate(&in->tables[i], c, o->calibration);
        for (size_t i = 0; r >= 0 && i < in->n_sources; i++)
                if (in->sources[i].has_table)
                        done += r = sim_table_calibrate(&in->sources[i].table, c, o->calibration);
        if (r < 0)
                return r;
        if (done == 0) {
                fprintf(stderr, "idlepolicy-sim: %s measured no state of the tables (by index and name)\n",
                        o->calibration);
                return -ENODATA;
        }
        return 0;
}

int cli_inputs_load(const CliOptions *o, CliInputs *in) {
        CliList all = { .items = { "all" }, .n = 1 };
        int r;

        r = for_each_item(o, &o->tables, in, table_load);
        if (r >= 0)
                r = for_each_item(o, o->governors.n ? &o->governors : &all, in, governor_add);
        if (r >= 0)
                r = governor_add(o, "oracle", in);
        if (r >= 0)
                r = for_each_item(o, &o->workloads, in, workload_add);
        if (r >= 0)
                r = for_each_item(o, &o->traces, in, trace_add);
        if (r >= 0)
                r = apply_disable(o, in);
        if (r >= 0)
                r = apply_calibration(o, in);
        return r;
}

void cli_inputs_done(CliInputs *in) {
        for (size_t i = 0; i < in->n_sources; i++)
                free(in->sources[i].intervals);
        in->n_sources = 0;
}
