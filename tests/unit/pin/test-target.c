/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "cleanup.h"
#include "pin-target.h"
#include "unit.h"

/* text → its normal form (NULL: text itself). */
static const struct {
        const char *text;
        const char *normal;
} accepted[] = {
        { "pid:1", NULL },
        { "pid:1234", NULL },
        { "pid:4194304", NULL },
        { "cgroup:system.slice/foo.service", NULL },
        { "cgroup:/system.slice/foo.service", "cgroup:system.slice/foo.service" },
        { "cgroup://system.slice//foo.service/", "cgroup:system.slice/foo.service" },
        { "cgroup:a.b/..c/.d", NULL },
        { "cgroup:with space", NULL },
        { "cgroup:kubepods-burstable-pod1.slice:cri-containerd:0a1b", NULL },
        { "cgroup::cri-containerd:0a1b", NULL },
        { "cgroup:/kubepods/burstable/pod1/0a1b", "cgroup:kubepods/burstable/pod1/0a1b" },
        { "unit:postgresql.service", NULL },
        { "unit:getty@tty1.service", NULL },
        { "unit:user-1000.slice", NULL },
        { "unit:session-2.scope", NULL },
        { "unit:dbus.socket", NULL },
        { "unit:multi-user.target", NULL },
        { "unit:fstrim.timer", NULL },
        { "unit:dev-sda1.device", NULL },
        { "unit:systemd-fsck@dev-disk-by\\x2duuid-1.service", NULL },
        { "unit:a:b_c.mount", NULL },
        { "exe:/usr/bin/ffmpeg", NULL },
        { "exe://usr//bin/ffmpeg/", "exe:/usr/bin/ffmpeg" },
        { "exe:/opt/a b/x", NULL },
        { "comm:ffmpeg", NULL },
        { "comm:x", NULL },
        { "comm:123456789012345", NULL },
        { "comm:kworker:0 x", NULL },
        { "comm:\xc3\xa9t\xc3\xa9", NULL },
        { "exe:/home/\xf0\x9f\x98\x80/\xe2\x82\xac", NULL },
};

/* text → a part of the message. */
static const struct {
        const char *text;
        const char *why;
} rejected[] = {
        { "", "expected KIND:VALUE" },
        { "1234", "expected KIND:VALUE" },
        { "PID:1", "expected KIND:VALUE" },
        { "task:1", "expected KIND:VALUE" },
        { ":x", "expected KIND:VALUE" },
        { "pid:", "decimal number" },
        { "pid:0", "between 1 and 4194304" },
        { "pid:-1", "decimal number" },
        { "pid:+1", "decimal number" },
        { "pid: 1", "decimal number" },
        { "pid:1 ", "decimal number" },
        { "pid:12a", "decimal number" },
        { "pid:0x10", "decimal number" },
        { "pid:007", "leading zeros" },
        { "pid:4194305", "between 1 and 4194304" },
        { "pid:99999999999999999999999", "between 1 and 4194304" },
        { "cgroup:", "the cgroup path is empty" },
        { "cgroup:/", "the cgroup path is empty" },
        { "cgroup:///", "the cgroup path is empty" },
        { "cgroup:../x", "components are not allowed" },
        { "cgroup:a/../b", "components are not allowed" },
        { "cgroup:a/..", "components are not allowed" },
        { "cgroup:a/./b", "components are not allowed" },
        { "cgroup:.", "components are not allowed" },
        { "cgroup:a\nb", "control characters" },
        { "cgroup:a\tb", "control characters" },
        { "cgroup:kubepods:cri-containerd:x", "must end in \".slice\"" },
        { "cgroup:a--b.slice:p:x", "empty dash-separated part" },
        { "cgroup:a.slice:p:", "name (after the second ':') is empty" },
        { "cgroup:a\x7f", "control characters" },
        { "unit:", "the unit name is empty" },
        { "unit:foo", "unit type" },
        { "unit:foo.", "unit type" },
        { "unit:foo.services", "unit type" },
        { "unit:.service", "unit type" },
        { "unit:foo@.service", "template" },
        { "unit:@x.service", "at most one '@'" },
        { "unit:a@b@c.service", "at most one '@'" },
        { "unit:foo bar.service", "only letters, digits" },
        { "unit:foo/bar.service", "only letters, digits" },
        { "unit:f\xc3\xa9.service", "only letters, digits" },
        { "exe:relative", "absolute path" },
        { "exe:", "absolute path" },
        { "exe:./x", "absolute path" },
        { "exe:/", "names no file" },
        { "exe:/usr/../bin/sh", "components are not allowed" },
        { "exe:/usr/./bin/sh", "components are not allowed" },
        { "exe:/usr/bin/a\rb", "control characters" },
        { "exe:/tmp/\xff", "not valid UTF-8" },
        { "exe:/tmp/\xc3", "not valid UTF-8" },
        { "cgroup:\xc0\xaf", "not valid UTF-8" },              /* overlong '/' */
        { "cgroup:\xed\xa0\x80", "not valid UTF-8" },          /* a surrogate */
        { "comm:\xf4\x90\x80\x80", "not valid UTF-8" },       /* above U+10FFFF */
        { "comm:\xf8\x88\x80\x80\x80", "not valid UTF-8" },
        { "comm:", "1 to 15 bytes" },
        { "comm:1234567890123456", "1 to 15 bytes" },
        { "comm:a/b", "cannot contain '/'" },
        { "comm:a\x1b", "control characters" },
};

START_TEST(test_accepted) {
        for (size_t i = 0; i < ELEMENTSOF(accepted); i++) {
                const char *normal = accepted[i].normal ? accepted[i].normal : accepted[i].text;
                char buf[PIN_TARGET_TEXT_MAX];
                ErrorInfo e = {};
                PinTarget t, again;

                ck_assert_msg(pin_target_parse(accepted[i].text, &t, &e) == 0, "%s: %s", accepted[i].text, e.message);
                ck_assert_uint_eq(t.start_time, 0);
                ck_assert_int_eq(pin_target_format(&t, buf, sizeof(buf)), 0);
                ck_assert_str_eq(buf, normal);
                /* the normal form is a fixed point */
                ck_assert_int_eq(pin_target_parse(buf, &again, &e), 0);
                ck_assert(pin_target_equal(&t, &again));
        }
}
END_TEST

START_TEST(test_rejected) {
        for (size_t i = 0; i < ELEMENTSOF(rejected); i++) {
                PinTarget t = { .pid = 77 };
                ErrorInfo e = {};

                ck_assert_msg(pin_target_parse(rejected[i].text, &t, &e) == -EBADMSG, "accepted: %s", rejected[i].text);
                ck_assert_msg_has(e, "invalid pin target");
                ck_assert_msg_has(e, rejected[i].why);
                ck_assert_int_eq(t.pid, 77);
        }
        ck_assert_int_eq(pin_target_parse(NULL, &(PinTarget) {}, NULL), -EBADMSG);
}
END_TEST

START_TEST(test_fields) {
        PinTarget t;
        ErrorInfo e = {};

        ck_assert_int_eq(pin_target_parse("pid:1234", &t, &e), 0);
        ck_assert_int_eq(t.kind, PIN_TARGET_PID);
        ck_assert_int_eq(t.pid, 1234);
        ck_assert_str_eq(t.value, "");
        ck_assert(!pin_target_is_rule(&t));
        ck_assert_int_eq(pin_target_parse("cgroup:/a//b/", &t, &e), 0);
        ck_assert_int_eq(t.kind, PIN_TARGET_CGROUP);
        ck_assert_str_eq(t.value, "a/b");
        ck_assert_int_eq(pin_target_parse("unit:x.service", &t, &e), 0);
        ck_assert_int_eq(t.kind, PIN_TARGET_UNIT);
        ck_assert(!pin_target_is_rule(&t));
        ck_assert_int_eq(pin_target_parse("exe:/bin/sh", &t, &e), 0);
        ck_assert_int_eq(t.kind, PIN_TARGET_EXE);
        ck_assert_str_eq(t.value, "/bin/sh");
        ck_assert(pin_target_is_rule(&t));
        ck_assert_int_eq(pin_target_parse("comm:sh", &t, &e), 0);
        ck_assert_int_eq(t.kind, PIN_TARGET_COMM);
        ck_assert(pin_target_is_rule(&t));
        ck_assert_str_eq(pin_target_kind_to_string(PIN_TARGET_CGROUP), "cgroup");
        ck_assert_ptr_null(pin_target_kind_to_string(_PIN_TARGET_KIND_MAX));
}
END_TEST

/* Builds "PREFIX" + n times c (+ suffix) into buf. */
static const char *repeat(char *buf, const char *prefix, char c, size_t n, const char *suffix) {
        size_t len = strlen(prefix);

        memcpy(buf, prefix, len);
        memset(buf + len, c, n);
        strcpy(buf + len + n, suffix);
        return buf;
}

START_TEST(test_lengths) {
        char text[4096], buf[PIN_TARGET_TEXT_MAX];
        ErrorInfo e = {};
        PinTarget t;

        /* unit names: 255 bytes in all */
        ck_assert_int_eq(pin_target_parse(repeat(text, "unit:", 'u', 255 - 8, ".service"), &t, &e), 0);
        ck_assert_uint_eq(strlen(t.value), 255);
        ck_assert_int_eq(pin_target_parse(repeat(text, "unit:", 'u', 256 - 8, ".service"), &t, &e), -EBADMSG);
        ck_assert_msg_has(e, "longer than 255 bytes");
        /* paths: 1023 bytes after normalisation */
        ck_assert_int_eq(pin_target_parse(repeat(text, "cgroup:", 'c', 1023, ""), &t, &e), 0);
        ck_assert_int_eq(pin_target_parse(repeat(text, "cgroup:", 'c', 1024, ""), &t, &e), -EBADMSG);
        ck_assert_msg_has(e, "longer than 1023 bytes");
        ck_assert_int_eq(pin_target_parse(repeat(text, "cgroup:///", 'c', 1023, "///"), &t, &e), 0);
        ck_assert_int_eq(pin_target_parse(repeat(text, "exe:/", 'x', 1022, ""), &t, &e), 0);
        ck_assert_int_eq(pin_target_format(&t, buf, sizeof(buf)), 0);
        ck_assert_int_eq(pin_target_parse(repeat(text, "exe:/", 'x', 1023, ""), &t, &e), -EBADMSG);
        /* messages quote at most 200 bytes, whole characters, and nothing unprintable */
        ck_assert_int_eq(pin_target_parse(repeat(text, "cgroup:", 'c', 300, "/.."), &t, &e), -EBADMSG);
        ck_assert_msg_has(e, "invalid pin target \"cgroup:ccc");
        ck_assert_msg_has(e, "ccc...\": \".\" and \"..\" components are not allowed");
        ck_assert_uint_eq(strspn(e.message + strlen("invalid pin target \""), "cgroup:"), 200);
        ck_assert_int_eq(pin_target_parse(repeat(text, "cgroup:/", '\xe9', 0, "\xc3\xa9\xc3\xa9"), &t, &e), 0);
        repeat(text, "exe:/", 'x', 194, "\xc3\xa9/..");
        ck_assert_int_eq(pin_target_parse(text, &t, &e), -EBADMSG);
        ck_assert_msg_has(e, "xx...\": ");                  /* the cut é is left out */
        ck_assert_int_eq(pin_target_parse("exe:/tmp/\xff", &t, &e), -EBADMSG);
        ck_assert_str_eq(e.message, "invalid pin target \"...\": the value is not valid UTF-8");
        ck_assert_int_eq(pin_target_parse("comm:a\nb", &t, &e), -EBADMSG);
        ck_assert_str_eq(e.message, "invalid pin target \"...\": control characters are not allowed");

        /* formatting into a short buffer */
        ck_assert_int_eq(pin_target_parse("comm:ffmpeg", &t, &e), 0);
        ck_assert_int_eq(pin_target_format(&t, buf, 6), -ENOBUFS);
        ck_assert_int_eq(pin_target_format(&t, buf, 12), 0);
        ck_assert_str_eq(buf, "comm:ffmpeg");
        t.kind = _PIN_TARGET_KIND_MAX;
        ck_assert_int_eq(pin_target_format(&t, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_equal) {
        PinTarget a, b;

        ck_assert_int_eq(pin_target_parse("pid:10", &a, NULL), 0);
        ck_assert_int_eq(pin_target_parse("pid:10", &b, NULL), 0);
        ck_assert(pin_target_equal(&a, &b));
        a.start_time = 500;
        ck_assert(pin_target_equal(&a, &b));      /* b's start time unknown */
        b.start_time = 500;
        ck_assert(pin_target_equal(&a, &b));
        b.start_time = 501;                        /* the pid was reused */
        ck_assert(!pin_target_equal(&a, &b));
        ck_assert_int_eq(pin_target_parse("pid:11", &b, NULL), 0);
        ck_assert(!pin_target_equal(&a, &b));
        ck_assert_int_eq(pin_target_parse("comm:10", &b, NULL), 0);
        ck_assert(!pin_target_equal(&a, &b));
        ck_assert_int_eq(pin_target_parse("cgroup:/a/b", &a, NULL), 0);
        ck_assert_int_eq(pin_target_parse("cgroup:a//b/", &b, NULL), 0);
        ck_assert(pin_target_equal(&a, &b));
        ck_assert_int_eq(pin_target_parse("exe:/a/b", &b, NULL), 0);
        ck_assert(!pin_target_equal(&a, &b));       /* same text, another kind */
        ck_assert_int_eq(pin_target_parse("unit:a.service", &a, NULL), 0);
        ck_assert_int_eq(pin_target_parse("unit:a.socket", &b, NULL), 0);
        ck_assert(!pin_target_equal(&a, &b));
}
END_TEST

int main(void) {
        Suite *s = suite_create("pin-target");
        TCase *tc = unit_tcase(s, "parse");

        tcase_add_test(tc, test_accepted);
        tcase_add_test(tc, test_rejected);
        tcase_add_test(tc, test_fields);
        tcase_add_test(tc, test_lengths);
        tcase_add_test(tc, test_equal);
        return unit_run(s);
}
