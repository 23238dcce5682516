/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wteo-cost: the per-entry cost of the wteo core (libidlepolicy/wteo/
 * wteo-core.h, built as the simulator builds it): one wteo_select() and one
 * wteo_reflect(), as the governor runs them at every idle entry and exit,
 * for tables of 2 to 10 states (issue 14's target: under 100 ns, O(n)).
 *
 *   wteo-cost [--entries N] [--repeats R] [--out FILE]
 *
 * The inputs (the time to the timer and its state, teo's choice, the
 * right state, the idle time, whether the timer ended it) come from a
 * precomputed pseudo-random sequence, so the figure is the core's alone;
 * the state entered is the one wteo_select() returned.  Prints JSON (and writes it to FILE); the median of R runs. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-clock.h"
#include "wteo-core.h"

#define SEQ 4096u

/* ns per entry (select + reflect) over entries entries on n states. */
static double run(unsigned n, unsigned long entries) {
        static uint8_t s[SEQ], c[SEQ], right[SEQ];
        static uint32_t idle_ns[SEQ], sleep_ns[SEQ];
        struct wteo_params p;
        struct wteo_cpu cpu;
        uint32_t x = 12345, sink = 0;
        uint64_t t0;

        for (unsigned i = 0; i < SEQ; i++) {
                x = x * 1103515245u + 12345u;
                s[i] = (uint8_t) ((x >> 16) % n);
                c[i] = (uint8_t) ((x >> 8) % (s[i] + 1u));
                right[i] = (uint8_t) ((x >> 24) % n);
                idle_ns[i] = (x >> 4) & 0xfffff;
                x = x * 1103515245u + 12345u;
                sleep_ns[i] = (x >> 2) >> (x & 15u);
        }
        wteo_params_default(&p);
        wteo_init(&cpu, n, WTEO_TOLERANCE_DEFAULT);
        for (unsigned j = 0; j < n; j++)
                wteo_set_state(&cpu, j, j ? 2000ull << (2 * j) : 0, j ? 1000ull << (2 * j) : 0);
        t0 = bench_now_ns();
        for (unsigned long i = 0; i < entries; i++) {
                unsigned k = (unsigned) (i & (SEQ - 1));

                uint32_t got = wteo_select(&cpu, &p, s[k], sleep_ns[k], c[k], n - 1, (1u << n) - 1);

                wteo_reflect(&cpu, &p, right[k], got, idle_ns[k], idle_ns[k] < sleep_ns[k]);
                sink += got;
        }
        __asm__ volatile("" : : "r"(sink) : "memory");
        return (double) (bench_now_ns() - t0) / (double) entries;
}

int main(int argc, char **argv) {
        static const unsigned sizes[] = { 2, 4, 6, 8, 10 };
        unsigned long entries = 4000000;
        unsigned repeats = 5;
        const char *out = NULL;
        char json[2048];
        size_t len = 0;
        int opt, err;

        static const struct option options[] = {
                { "entries", required_argument, NULL, 'n' },
                { "repeats", required_argument, NULL, 'r' },
                { "out",     required_argument, NULL, 'o' },
                {}
        };

        while ((opt = getopt_long(argc, argv, "n:r:o:", options, NULL)) >= 0)
                switch (opt) {
                case 'n': entries = strtoul(optarg, NULL, 10); break;
                case 'r': repeats = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'o': out = optarg; break;
                default:
                        fprintf(stderr, "usage: wteo-cost [--entries N] [--repeats R] [--out FILE]\n");
                        return 2;
                }
        if (entries == 0 || repeats == 0 || repeats > 64) {
                fprintf(stderr, "wteo-cost: --entries must be > 0, --repeats 1..64\n");
                return 2;
        }
        len += (size_t) snprintf(json + len, sizeof(json) - len,
                                 "{\n  \"command\": \"build/bench/wteo-cost --entries %lu --repeats %u\",\n"
                                 "  \"what\": \"ns per idle entry: wteo_select() + wteo_reflect(), median of the repeats\",\n"
                                 "  \"states\": {", entries, repeats);
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                double v[64];

                for (unsigned r = 0; r < repeats; r++)
                        v[r] = run(sizes[i], entries);
                qsort(v, repeats, sizeof(double), bench_cmp_double);
                len += (size_t) snprintf(json + len, sizeof(json) - len, "%s\"%u\": %.2f", i ? ", " : "",
                                         sizes[i], v[repeats / 2]);
        }
        len += (size_t) snprintf(json + len, sizeof(json) - len, "}\n}\n");
        err = bench_json_out(json, out);
        if (err < 0) {
                fprintf(stderr, "wteo-cost: %s: %s\n", out, strerror(-err));
                return 1;
        }
        return 0;
}
