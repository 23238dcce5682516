/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "procstat.h"
#include "unit.h"

/* This VM's proc/stat (shortened after the cpu lines). */
static const char stat_vm[] =
        "cpu  2252 0 1902 34396 286 0 47 13 0 0\n"
        "cpu0 608 0 653 18159 7 0 11 1 0 0\n"
        "cpu1 1644 0 1249 16237 278 0 35 11 0 0\n"
        "intr 126117 0 0 0\n"
        "ctxt 262637\n"
        "btime 1795258411\n";

/* This VM's proc/interrupts, with a "timer" device row added. */
static const char interrupts_vm[] =
        "           CPU0       CPU1       \n"
        "  0:         44          0  IO-APIC   2-edge      timer\n"
        " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
        " 36:          0      40428 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
        " 41:       1683          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
        "NMI:          0          0   Non-maskable interrupts\n"
        "LOC:       9945      12371   Local timer interrupts\n"
        "IWI:          0          1   IRQ work interrupts\n"
        "RES:       5282       3854   Rescheduling interrupts\n"
        "CAL:      25790      21239   Function call interrupts\n"
        "TLB:       1128       1050   TLB shootdowns\n"
        "HYP:         39        110   Hypervisor callback interrupts\n"
        "ERR:          0\n"
        "MIS:          0\n"
        "PIN:          0          0   Posted-interrupt notification event\n";

typedef int (*Parser)(const char *text, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e);

static void parse_fails(Parser parse, const char *text, unsigned n_cpus, const char *needle) {
        ProcCpuSample out[4];
        ErrorInfo e = {};

        ck_assert_msg(parse(text, n_cpus, out, &e) == -EBADMSG, "accepted: %s", text);
        ck_assert_msg_has(e, needle);
}

#define stat_fails(...) parse_fails(procstat_parse_stat, __VA_ARGS__)
#define interrupts_fails(...) parse_fails(procstat_parse_interrupts, __VA_ARGS__)

START_TEST(test_stat_vm) {
        ProcCpuSample out[2];
        ErrorInfo e = {};

        ck_assert_int_eq(procstat_parse_stat(stat_vm, 2, out, &e), 0);
        ck_assert(out[0].has_stat && out[1].has_stat);
        /* busy = user + nice + system + irq + softirq + steal; total += idle + iowait */
        ck_assert_uint_eq(out[0].busy_jiffies, 608 + 653 + 11 + 1);
        ck_assert_uint_eq(out[0].total_jiffies, 608 + 653 + 11 + 1 + 18159 + 7);
        ck_assert_uint_eq(out[1].busy_jiffies, 1644 + 1249 + 35 + 11);
        ck_assert_uint_eq(out[1].total_jiffies, 1644 + 1249 + 35 + 11 + 16237 + 278);
}
END_TEST

START_TEST(test_stat_old_kernel_and_holes) {
        ProcCpuSample out[4];
        ErrorInfo e = {};

        /* four columns (2.4 kernels); cpu1 offline; cpu4 beyond n_cpus */
        ck_assert_int_eq(procstat_parse_stat("cpu  30 1 5 100\ncpu0 10 1 2 50\ncpu2 20 0 3 50\ncpu4 1 1 1 1\n",
                                             4, out, &e), 0);
        ck_assert(out[0].has_stat);
        ck_assert_uint_eq(out[0].busy_jiffies, 13);
        ck_assert_uint_eq(out[0].total_jiffies, 63);
        ck_assert(!out[1].has_stat);
        ck_assert_uint_eq(out[1].total_jiffies, 0);
        ck_assert(out[2].has_stat);
        ck_assert_uint_eq(out[2].busy_jiffies, 23);
        ck_assert(!out[3].has_stat);
        /* guest columns are part of user/nice already: not added again */
        ck_assert_int_eq(procstat_parse_stat("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\n",
                                             1, out, &e), 0);
        ck_assert_uint_eq(out[0].busy_jiffies, 1 + 2 + 3 + 6 + 7 + 8);
        ck_assert_uint_eq(out[0].total_jiffies, 1 + 2 + 3 + 6 + 7 + 8 + 4 + 5);
}
END_TEST

START_TEST(test_stat_bad) {
        stat_fails("", 2, "proc/stat: no \"cpu\" line");
        stat_fails("intr 5\nctxt 7\n", 2, "proc/stat: no \"cpu\" line");
        stat_fails("cpu  1 2 3 4\ncpu0 1 2 3\n", 2, "proc/stat:2: expected at least 4 values, got 3");
        stat_fails("cpu  1 2 3\n", 2, "proc/stat:1: expected at least 4 values, got 3");
        stat_fails("cpu  1 2 3 4 5\ncpu0 1 2 3 4\n", 2, "proc/stat:2: 4 values, but the \"cpu\" line has a different count");
        stat_fails("cpu0 1 2 3 4\n", 2, "proc/stat:1: 4 values, but no \"cpu\" line before it");
        stat_fails("cpu  1 2 3 4\ncpu0 1 x 3 4\n", 2, "proc/stat:2: invalid value \"x\"");
        stat_fails("cpu  1 2 3 4\ncpu0 1 -2 3 4\n", 2, "proc/stat:2: invalid value \"-2\"");
        stat_fails("cpu  1 2 3 4\ncpu0 1 2 3 99999999999999999999\n", 2, "proc/stat:2: invalid value");
        stat_fails("cpu  1 2 3 4\ncpu1x 1 2 3 4\n", 2, "proc/stat:2: invalid CPU label");
        stat_fails("cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n", 2, "proc/stat:3: cpu0 listed twice");
        /* cut off in the middle of a cpu line */
        stat_fails("cpu  1 2 3 4 5\ncpu0 1 2 3 4 5\ncpu1 1 2 3 4", 2, "proc/stat:3: truncated line");
        stat_fails("cpu  1 2 3 4 5\ncpu0 1 2 3 4 5\ncpu1 1 2 3 4 5", 2, "proc/stat:3: truncated line");
}
END_TEST

START_TEST(test_interrupts_vm) {
        ProcCpuSample out[2];
        ErrorInfo e = {};

        ck_assert_int_eq(procstat_parse_interrupts(interrupts_vm, 2, out, &e), 0);
        ck_assert(out[0].has_irq && out[1].has_irq);
        ck_assert_uint_eq(out[0].timer_irqs, 9945 + 44);
        ck_assert_uint_eq(out[1].timer_irqs, 12371);
        ck_assert_uint_eq(out[0].other_irqs, 1 + 1683 + 5282 + 25790 + 1128 + 39);
        ck_assert_uint_eq(out[1].other_irqs, 40428 + 1 + 3854 + 21239 + 1050 + 110);
}
END_TEST

START_TEST(test_interrupts_offline_columns) {
        ProcCpuSample out[4];
        ErrorInfo e = {};

        /* cpu1 offline: the columns are cpu0, cpu2, cpu3 */
        ck_assert_int_eq(procstat_parse_interrupts(
                        "           CPU0       CPU2       CPU3       \n"
                        "LOC:        100        200        300   Local timer interrupts\n"
                        " 10:          1          2          3   GICv3  27 Level     arch_timer\n"
                        "RES:         10         20         30   Rescheduling interrupts\n"
                        "ERR:          0\n",
                        4, out, &e), 0);
        ck_assert(out[0].has_irq);
        ck_assert(!out[1].has_irq);
        ck_assert_uint_eq(out[1].timer_irqs + out[1].other_irqs, 0);
        ck_assert_uint_eq(out[2].timer_irqs, 202);             /* LOC + arch_timer */
        ck_assert_uint_eq(out[2].other_irqs, 20);
        ck_assert_uint_eq(out[3].timer_irqs, 303);
        ck_assert_uint_eq(out[3].other_irqs, 30);
        /* columns beyond n_cpus are ignored */
        ck_assert_int_eq(procstat_parse_interrupts("      CPU0       CPU7\nLOC:  5  6  Local timer interrupts\n",
                                                   2, out, &e), 0);
        ck_assert_uint_eq(out[0].timer_irqs, 5);
        ck_assert(!out[1].has_irq);
}
END_TEST

START_TEST(test_interrupts_single_cpu) {
        ProcCpuSample out[1];
        ErrorInfo e = {};

        /* with one column, ERR and MIS look like per-CPU rows: still skipped */
        ck_assert_int_eq(procstat_parse_interrupts("      CPU0\nLOC:  5  Local timer interrupts\n"
                                                   "RES:  3  Rescheduling interrupts\nERR:  9\nMIS:  4\n\n",
                                                   1, out, &e), 0);
        ck_assert_uint_eq(out[0].timer_irqs, 5);
        ck_assert_uint_eq(out[0].other_irqs, 3);
        /* LOC is the timer whatever its description says; "Timer" in any case */
        ck_assert_int_eq(procstat_parse_interrupts("      CPU0\nLOC:  5  Local APIC\n 7:  2  XT-PIC  HPET-TIMER\n"
                                                   " 9:  4  XT-PIC  acpi\n", 1, out, &e), 0);
        ck_assert_uint_eq(out[0].timer_irqs, 7);
        ck_assert_uint_eq(out[0].other_irqs, 4);
}
END_TEST

START_TEST(test_interrupts_bad) {
        interrupts_fails("", 2, "proc/interrupts: empty file");
        interrupts_fails("   CPU0   CPU1", 2, "proc/interrupts:1: truncated header");
        interrupts_fails("   CPU0   CPUx\n", 2, "proc/interrupts:1: invalid column \"CPUx\"");
        interrupts_fails("   CPU0   GPU1\n", 2, "proc/interrupts:1: invalid column \"GPU1\"");
        interrupts_fails("\n", 2, "proc/interrupts:1: no CPU column");
        interrupts_fails("   CPU0   CPU1\nLOC  5  6  Local timer interrupts\n", 2,
                         "proc/interrupts:2: no \"LABEL:\" at the start");
        interrupts_fails("   CPU0   CPU1\nLOC:  5  Local timer interrupts\n", 2,
                         "proc/interrupts:2: expected 2 values, got 1");
        interrupts_fails("   CPU0   CPU1\nLOC:  12x  6  Local timer interrupts\n", 2,
                         "proc/interrupts:2: expected 2 values, got 0");
        interrupts_fails("   CPU0   CPU1\nLOC:  5  99999999999999999999999  Local timer\n", 2,
                         "proc/interrupts:2: invalid value");
        interrupts_fails("   CPU0   CPU1   CPU2\nRES:  1  2\n", 3, "proc/interrupts:2: expected 3 values, got 2");
        /* cut off at the end of the text */
        interrupts_fails("   CPU0   CPU1\nLOC:  5  6  Local timer interrupts\nRES:  1  2  Resched", 2,
                         "proc/interrupts:3: truncated line");
}
END_TEST

/* The machine's context switch count: the first complete "ctxt N" line. */
START_TEST(test_ctxt) {
        static const struct {
                const char *text;
                uint64_t value;
        } cases[] = {
                { stat_vm, 262637 },
                { "ctxt 0\n", 0 },
                { "ctxt 18446744073709551615\n", UINT64_MAX },
                { "intr 5\nctxt  12\t\nctxt 13\n", 12 },
                { "ctxt 5\nctxt 6", 5 },                /* a truncated last line is not taken */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 7;

                ck_assert_msg(procstat_parse_ctxt(cases[i].text, &v) == 0, "refused: \"%s\"", cases[i].text);
                ck_assert_uint_eq(v, cases[i].value);
        }
}
END_TEST

/* No ctxt line is -ENODATA, a value that is not a number -EBADMSG; *ret
 * untouched either way. */
START_TEST(test_ctxt_bad) {
        static const char *const none[] = {
                "",
                "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5\nbtime 1795258411\n",
                "ctxt 262637",                  /* cut off: not a complete line */
                "cpu  1 2 3 4\nctxt 262",
                "ctxt\n",
                "ctxt \n",
                "ctxts 5\n",
                "xctxt 5\n",
                " ctxt 5\n",
        };
        static const char *const garbage[] = {
                "ctxt x\n",
                "ctxt 12x\n",
                "ctxt -5\n",
                "ctxt 18446744073709551616\n",
                "ctxt 99999999999999999999999999999999\n",
                "ctxt 1.5\n",
        };
        uint64_t v = 7;

        for (size_t i = 0; i < ELEMENTSOF(none); i++) {
                ck_assert_msg(procstat_parse_ctxt(none[i], &v) == -ENODATA, "not -ENODATA: \"%s\"", none[i]);
                ck_assert_uint_eq(v, 7);
        }
        for (size_t i = 0; i < ELEMENTSOF(garbage); i++) {
                ck_assert_msg(procstat_parse_ctxt(garbage[i], &v) == -EBADMSG, "not -EBADMSG: \"%s\"", garbage[i]);
                ck_assert_uint_eq(v, 7);
        }
}
END_TEST

/* ---- the reader on a fake tree ------------------------------------------- */

static void reader_read_ok(ProcReader *r, unsigned n, ProcCpuSample *out) {
        ErrorInfo e = {};

        ck_assert_msg(procreader_read(r, n, out, &e) == 0, "procreader_read: %s", e.message);
}

START_TEST(test_reader_tree) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_procreader_ ProcReader *r = NULL;
        ProcCpuSample a[2], b[2];
        ErrorInfo e = {};

        ck_assert_int_eq(procreader_new(t->fd, &r, &e), 0);
        reader_read_ok(r, 2, a);
        ck_assert(a[0].has_stat && a[0].has_irq && a[1].has_stat && a[1].has_irq);
        ck_assert_int_eq(faketree_bump_proc(t->fd, 1, 30, 70, 100, 5), 0);
        reader_read_ok(r, 2, b);
        ck_assert_uint_eq(b[1].busy_jiffies - a[1].busy_jiffies, 30);
        ck_assert_uint_eq(b[1].total_jiffies - a[1].total_jiffies, 100);
        ck_assert_uint_eq(b[1].timer_irqs - a[1].timer_irqs, 100);
        ck_assert_uint_eq(b[1].other_irqs - a[1].other_irqs, 5);
        ck_assert_uint_eq(b[0].total_jiffies, a[0].total_jiffies);
        ck_assert_uint_eq(b[0].timer_irqs, a[0].timer_irqs);

        /* offline: gone from both files */
        ck_assert_int_eq(faketree_set_offline(t->fd, 1), 0);
        reader_read_ok(r, 2, b);
        ck_assert(b[0].has_stat && b[0].has_irq);
        ck_assert(!b[1].has_stat && !b[1].has_irq);
}
END_TEST

/* procreader_ctxt(): the ctxt line of the last successful read, none
 * without one or after a read that failed. */
START_TEST(test_reader_ctxt) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_procreader_ ProcReader *r = NULL;
        ProcCpuSample out[2];
        ErrorInfo e = {};
        uint64_t v = 7;

        ck_assert_int_eq(procreader_new(t->fd, &r, &e), 0);
        ck_assert(!procreader_ctxt(r, &v));             /* nothing read yet */
        ck_assert_uint_eq(v, 7);
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 2 3 4\n"
                                                           "intr 9\nctxt 4242\nbtime 1795258411\n"), 0);
        reader_read_ok(r, 2, out);
        ck_assert(procreader_ctxt(r, &v));
        ck_assert_uint_eq(v, 4242);
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\nctxt 4300\n"), 0);
        reader_read_ok(r, 2, out);
        ck_assert(procreader_ctxt(r, &v));
        ck_assert_uint_eq(v, 4300);

        /* a file without it, with garbage in it, or that did not parse */
        v = 7;
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\n"), 0);
        reader_read_ok(r, 2, out);
        ck_assert(!procreader_ctxt(r, &v));
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\nctxt lots\n"), 0);
        reader_read_ok(r, 2, out);
        ck_assert(!procreader_ctxt(r, &v));
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\nctxt 4400\n"), 0);
        reader_read_ok(r, 2, out);
        ck_assert(procreader_ctxt(r, &v));
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 x 3 4\nctxt 4500\n"), 0);
        ck_assert_int_eq(procreader_read(r, 2, out, &e), -EBADMSG);
        v = 7;
        ck_assert(!procreader_ctxt(r, &v));
        ck_assert_uint_eq(v, 7);

        /* the fake tree's own proc/stat carries this VM's count */
        ck_assert_int_eq(faketree_bump_proc(t->fd, 1, 30, 70, 100, 5), 0);
        reader_read_ok(r, 2, out);
        ck_assert(procreader_ctxt(r, &v));
        ck_assert_uint_eq(v, 262637);
}
END_TEST

/* The aggregate "cpu" line and ctxt: a light tick's look at the machine. */
START_TEST(test_totals) {
        static const char *const bad[] = {
                "", "ctxt 5\n", "cpu0 1 2 3 4\nctxt 5\n", "cpu  1 2 3\nctxt 5\n", "cpu  1 2 x 4\n", "cpu  1 2 3 4",
        };
        ProcTotals t = {};
        ErrorInfo e = {};

        ck_assert_int_eq(procstat_parse_totals(stat_vm, &t, &e), 0);
        ck_assert(t.has_cpu && t.has_ctxt);
        ck_assert_uint_eq(t.busy_jiffies, 2252 + 1902 + 47 + 13);
        ck_assert_uint_eq(t.total_jiffies, 2252 + 1902 + 47 + 13 + 34396 + 286);
        ck_assert_uint_eq(t.ctxt, 262637);
        /* no ctxt, or a bad one: the "cpu" line still counts */
        ck_assert_int_eq(procstat_parse_totals("cpu  1 2 3 4\ncpux 9\nctxt many\n", &t, &e), 0);
        ck_assert(t.has_cpu && !t.has_ctxt);
        ck_assert_uint_eq(t.busy_jiffies, 1 + 2 + 3);
        ck_assert_uint_eq(t.total_jiffies, 1 + 2 + 3 + 4);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ProcTotals u = { .ctxt = 77 };

                e = (ErrorInfo) {};
                ck_assert_msg(procstat_parse_totals(bad[i], &u, &e) == -EBADMSG, "accepted: \"%s\"", bad[i]);
                ck_assert_msg_has(e, "proc/stat");
                ck_assert_uint_eq(u.ctxt, 77);  /* untouched */
        }
}
END_TEST

/* The CPUs proc/stat lists, the online ones: a line each, in any order
 * and with gaps; the aggregate line, "cpux", a cut-off last line and an id
 * the set cannot hold are not CPUs. */
START_TEST(test_online) {
        CpuSet s;
        char big[64];

        ck_assert_uint_eq(procstat_parse_online(stat_vm, &s), 2);
        ck_assert_uint_eq(cpuset_count(&s), 2);
        ck_assert(cpuset_contains(&s, 0) && cpuset_contains(&s, 1));
        ck_assert_uint_eq(procstat_parse_online("cpu  1 2 3 4\ncpu3 1 1 1 1\ncpu0 1 1 1 1\ncpux 9\n"
                                                "cpu12 1 1 1 1\ncpu\ncpu5", &s), 3);
        ck_assert_uint_eq(cpuset_count(&s), 3);
        ck_assert(cpuset_contains(&s, 0) && cpuset_contains(&s, 3) && cpuset_contains(&s, 12));
        ck_assert(!cpuset_contains(&s, 5));
        snprintf(big, sizeof(big), "cpu  1 1 1 1\ncpu%u 1 1 1 1\ncpu2x 1\n", CPUSET_MAX);
        ck_assert_uint_eq(procstat_parse_online(big, &s), 0);
        ck_assert_uint_eq(cpuset_count(&s), 0);
        ck_assert_uint_eq(procstat_parse_online("", &s), 0);
}
END_TEST

/* procreader_read_totals() reads proc/stat alone; both reads leave the
 * totals for procreader_totals(). */
START_TEST(test_reader_totals) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_procreader_ ProcReader *r = NULL;
        ProcCpuSample out[2];
        ProcTotals x = {};
        ErrorInfo e = {};

        ck_assert_int_eq(procreader_new(t->fd, &r, &e), 0);
        ck_assert(!procreader_totals(r).has_cpu);
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  10 0 5 100\ncpu0 5 0 5 50\ncpu1 5 0 0 50\nctxt 900\n"), 0);
        reader_read_ok(r, 2, out);
        x = procreader_totals(r);
        ck_assert(x.has_cpu && x.has_ctxt);
        ck_assert_uint_eq(x.busy_jiffies, 15);
        ck_assert_uint_eq(x.ctxt, 900);
        /* proc/interrupts is not read: garbage there does not matter */
        ck_assert_int_eq(faketree_write(t->fd, "proc/interrupts", "garbage\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  12 0 5 198\ncpu0 1 2 3 4\nctxt 950\n"), 0);
        ck_assert_int_eq(procreader_read(r, 2, out, &e), -EBADMSG);
        ck_assert_int_eq(procreader_read_totals(r, &x, NULL, &e), 0);
        ck_assert_uint_eq(x.busy_jiffies, 17);
        ck_assert_uint_eq(x.total_jiffies, 215);
        ck_assert_uint_eq(x.ctxt, 950);
        ck_assert_uint_eq(procreader_totals(r).ctxt, 950);
        /* asked, the CPUs it lists: cpu1 went offline */
        {
                CpuSet online;

                ck_assert_int_eq(procreader_read_totals(r, &x, &online, &e), 0);
                ck_assert_uint_eq(cpuset_count(&online), 1);
                ck_assert(cpuset_contains(&online, 0));
        }
        /* a bad proc/stat: an error, and no totals left behind */
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "intr 1\n"), 0);
        ck_assert_int_eq(procreader_read_totals(r, &x, NULL, &e), -EBADMSG);
        ck_assert_msg_has(e, "no \"cpu\" line");
        ck_assert(!procreader_totals(r).has_cpu);
        ck_assert_uint_eq(x.ctxt, 950);
}
END_TEST

START_TEST(test_reader_missing_and_garbage) {
        FakeTree *t = unit_tree(NULL);
        ProcReader *r = NULL;
        ProcCpuSample out[2];
        ErrorInfo e = {};

        ck_assert_int_eq(faketree_rm_rf(t->fd, "proc/interrupts"), 0);
        ck_assert_int_eq(procreader_new(t->fd, &r, &e), 0);
        reader_read_ok(r, 2, out);
        ck_assert(out[0].has_stat);
        ck_assert(!out[0].has_irq);
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 zz\n"), 0);
        ck_assert_int_eq(procreader_read(r, 2, out, &e), -EBADMSG);
        ck_assert_msg_has(e, "proc/stat:2: invalid value \"zz\"");
        ck_assert_int_eq(faketree_write(t->fd, "proc/stat", "cpu  1 2 3 4\ncpu0 1 2%c3 4\n", 0), 0);
        ck_assert_int_eq(procreader_read(r, 2, out, &e), -EBADMSG);
        ck_assert_msg_has(e, "proc/stat: contains a NUL byte");
        ck_assert_ptr_null(procreader_free(r));

        ck_assert_int_eq(faketree_rm_rf(t->fd, "proc/stat"), 0);
        r = (ProcReader *) 0x1;
        ck_assert_int_eq(procreader_new(t->fd, &r, &e), -ENOENT);
        ck_assert_msg_has(e, "proc/stat");
        ck_assert_ptr_eq(r, (ProcReader *) 0x1);
}
END_TEST

int main(void) {
        Suite *s = suite_create("procstat");
        TCase *stat = unit_tcase(s, "stat");
        TCase *irq = unit_tcase(s, "interrupts");
        TCase *ctxt = unit_tcase(s, "ctxt");
        TCase *reader = unit_tcase(s, "reader");

        tcase_add_test(stat, test_stat_vm);
        tcase_add_test(stat, test_stat_old_kernel_and_holes);
        tcase_add_test(stat, test_stat_bad);
        tcase_add_test(irq, test_interrupts_vm);
        tcase_add_test(irq, test_interrupts_offline_columns);
        tcase_add_test(irq, test_interrupts_single_cpu);
        tcase_add_test(irq, test_interrupts_bad);
        tcase_add_test(ctxt, test_ctxt);
        tcase_add_test(ctxt, test_ctxt_bad);
        tcase_add_test(reader, test_reader_tree);
        tcase_add_test(reader, test_reader_ctxt);
        tcase_add_test(ctxt, test_totals);
        tcase_add_test(ctxt, test_online);
        tcase_add_test(reader, test_reader_totals);
        tcase_add_test(reader, test_reader_missing_and_garbage);
        return unit_run(s);
}
