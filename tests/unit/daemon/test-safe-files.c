/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's own files (daemon/util/safe-dir.c, fs-util.c): which
 * directories safe_dir_open() takes and refuses, by name and why; and a
 * file replaced atomically beside planted FIFOs, links and devices, with
 * and without O_TMPFILE and linkat(AT_EMPTY_PATH).  Owners need root
 * (chown): those parts are skipped without it. */
#include <dirent.h>
#include <sys/stat.h>

#include "fs-util.h"
#include "fsync-count.h"
#include "safe-dir.h"
#include "unit.h"

#define NOBODY 65534
#define VICTIM "victim text\n"

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(fputs(text, f), 0);
        ck_assert_int_eq(fclose(f), 0);
}

/* A fresh directory under $TMPDIR (mode 0755) in buf.  Returns buf. */
static char *make_base(char *buf, size_t size) {
        snprintf(buf, size, "%s/safe-XXXXXX", getenv("TMPDIR"));
        ck_assert_ptr_nonnull(mkdtemp(buf));
        ck_assert_int_eq(chmod(buf, 0755), 0);
        return buf;
}

/* base/rel made a directory of mode and owner.  Returns the path (static). */
static const char *mkdir_at(const char *base, const char *rel, mode_t mode, uid_t owner) {
        static char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/%s", base, rel);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        ck_assert_int_eq(chmod(path, mode), 0);
        if (owner != 0)
                ck_assert_int_eq(chown(path, owner, owner), 0);
        return path;
}

/* Asserts safe_dir_open(path) fails with r and a message holding why. */
static void assert_refused(const char *path, int r, const char *why) {
        ErrorInfo e = {};

        ck_assert_int_eq(safe_dir_open(path, &e), r);
        ck_assert_msg_has(e, why);
}

static void assert_taken(const char *path) {
        ErrorInfo e = {};
        int fd = safe_dir_open(path, &e);

        ck_assert_msg(fd >= 0, "%s refused: %s", path, e.message);
        close(fd);
}

START_TEST(test_modes) {
        char base[256], p[512];

        make_base(base, sizeof(base));
        assert_taken(base);
        assert_taken(mkdir_at(base, "plain", 0755, 0));
        assert_refused(mkdir_at(base, "open", 0777, 0), -EPERM, "/open is writable by others (mode 0777)");
        assert_refused(mkdir_at(base, "sticky", 01777, 0), -EPERM, "/sticky is writable by others (mode 1777)");
        /* below a directory others may write to, not sticky: refused */
        snprintf(p, sizeof(p), "%s/open/sub", base);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        assert_refused(p, -EPERM, "/open is writable by others (mode 0777)");
        /* below a sticky one, an entry of root's: taken (like /tmp) */
        snprintf(p, sizeof(p), "%s/sticky/sub", base);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        assert_taken(p);
        /* group-writable: only root's group */
        mkdir_at(base, "group0", 0775, 0);
        snprintf(p, sizeof(p), "%s/group0/sub", base);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        assert_taken(p);
        assert_refused("relative/path", -EINVAL, "not an absolute path");
        snprintf(p, sizeof(p), "%s/missing/x", base);
        assert_refused(p, -ENOENT, "/missing: No such file or directory");
        snprintf(p, sizeof(p), "%s/file", base);
        write_text(p, "x");
        snprintf(p, sizeof(p), "%s/file/x", base);
        assert_refused(p, -ENOTDIR, "/file is not a directory");
        faketree_rm_rf(AT_FDCWD, base);
}
END_TEST

START_TEST(test_owners) {
        char base[256], p[512];

        if (geteuid() != 0)
                return;                 /* chown needs root */
        make_base(base, sizeof(base));
        /* the directory itself may be another user's (node_exporter's) */
        assert_taken(mkdir_at(base, "theirs", 0755, NOBODY));
        /* but what lies below it is theirs to swap */
        snprintf(p, sizeof(p), "%s/theirs/sub", base);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        assert_refused(p, -EPERM, "/theirs is owned by uid 65534, not root");
        /* a group other than root's */
        ck_assert_int_eq(chown(mkdir_at(base, "group", 0775, 0), 0, NOBODY), 0);
        snprintf(p, sizeof(p), "%s/group/sub", base);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        assert_refused(p, -EPERM, "/group is writable by group 65534 (mode 0775)");
        /* in a sticky directory, an entry of another user's */
        mkdir_at(base, "sticky", 01777, 0);
        mkdir_at(base, "sticky/planted", 0755, NOBODY);
        snprintf(p, sizeof(p), "%s/sticky/planted/sub", base);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        assert_refused(p, -EPERM, "/sticky/planted is owned by uid 65534 in");
        faketree_rm_rf(AT_FDCWD, base);
}
END_TEST

START_TEST(test_symlinks) {
        char base[256], p[512], t[512];

        make_base(base, sizeof(base));
        mkdir_at(base, "real", 0755, 0);
        mkdir_at(base, "real/sub", 0755, 0);
        /* a link in a directory of root's is root's choice: followed,
         * relative or absolute, through ".." */
        snprintf(p, sizeof(p), "%s/rel", base);
        ck_assert_int_eq(symlink("real/sub/../sub", p), 0);
        assert_taken(p);
        snprintf(p, sizeof(p), "%s/abs", base);
        snprintf(t, sizeof(t), "%s/real", base);
        ck_assert_int_eq(symlink(t, p), 0);
        snprintf(p, sizeof(p), "%s/abs/sub", base);
        assert_taken(p);
        /* the link's target is walked and checked as any path */
        mkdir_at(base, "open", 0777, 0);
        mkdir_at(base, "open/sub", 0755, 0);
        snprintf(p, sizeof(p), "%s/toopen", base);
        ck_assert_int_eq(symlink("open/sub", p), 0);
        assert_refused(p, -EPERM, "/open is writable by others");
        /* a loop */
        snprintf(p, sizeof(p), "%s/loop", base);
        ck_assert_int_eq(symlink("loop", p), 0);
        assert_refused(p, -ELOOP, "more than 40 symbolic links");
        if (geteuid() == 0) {
                /* a link someone else planted in a sticky directory */
                mkdir_at(base, "sticky", 01777, 0);
                snprintf(p, sizeof(p), "%s/sticky/link", base);
                ck_assert_int_eq(symlink(t, p), 0);
                ck_assert_int_eq(lchown(p, NOBODY, NOBODY), 0);
                assert_refused(p, -EPERM, "/sticky/link is owned by uid 65534 in");
        }
        faketree_rm_rf(AT_FDCWD, base);
}
END_TEST

START_TEST(test_stat_check) {
        struct stat st = { .st_uid = 0, .st_gid = 0, .st_mode = S_IFREG | 0644 };
        ErrorInfo e = {};

        ck_assert_int_eq(safe_stat_check(&st, &e), 0);
        st.st_mode = S_IFREG | 0664;
        ck_assert_int_eq(safe_stat_check(&st, &e), 0);             /* root's group */
        st.st_gid = 100;
        ck_assert_int_eq(safe_stat_check(&st, &e), -EPERM);
        ck_assert_str_eq(e.message, "writable by group 100 (mode 0664)");
        st.st_mode = S_IFREG | 0646;
        ck_assert_int_eq(safe_stat_check(&st, &e), -EPERM);
        ck_assert_str_eq(e.message, "writable by others (mode 0646)");
        st.st_uid = NOBODY;
        ck_assert_int_eq(safe_stat_check(&st, &e), -EPERM);
        ck_assert_str_eq(e.message, "owned by uid 65534, not root");
        st.st_uid = geteuid();
        st.st_mode = S_IFREG | 0600;
        ck_assert_int_eq(safe_stat_check(&st, &e), 0);              /* the daemon's user */
}
END_TEST

/* Returns the number of entries of dir (but . and ..). */
static unsigned count_entries(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;

        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d)))
                n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return n;
}

static void assert_content(const char *path, const char *want) {
        char buf[256] = "";
        FILE *f = fopen(path, "re");

        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
        fclose(f);
        ck_assert_str_eq(buf, want);
}

/* One write_file_atomic_mode() beside planted entries, with the
 * fallbacks disabled as asked; with sync two fsyncs, without none. */
static void write_beside_planted(unsigned disabled) {
        char base[256], victim[300], p[320];
        struct stat st;
        mode_t old_umask;
        int dir_fd;

        make_base(base, sizeof(base));
        snprintf(victim, sizeof(victim), "%s/victim", base);
        write_text(victim, VICTIM);
        dir_fd = open(mkdir_at(base, "d2", 0755, 0), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(dir_fd, 0);
        /* what older versions wrote through: the fixed temporary name */
        ck_assert_int_eq(mkfifoat(dir_fd, "f.prom.tmp", 0600), 0);
        ck_assert_int_eq(mkfifoat(dir_fd, "g.prom", 0600), 0);
        ck_assert_int_eq(linkat(AT_FDCWD, victim, dir_fd, "h.prom.tmp", 0), 0);
        ck_assert_int_eq(symlinkat(victim, dir_fd, "h.prom"), 0);
        new_file_test_disable(disabled);
        old_umask = umask(0077);
        n_fsync = 0;
        ck_assert_int_eq(write_file_atomic_mode(dir_fd, "f.prom", "one\n", 0644, true), 0);
        ck_assert_uint_eq(n_fsync, 2);                  /* the file and the directory */
        ck_assert_int_eq(write_file_atomic_mode(dir_fd, "g.prom", "two\n", 0644, false), 0);
        ck_assert_int_eq(write_file_atomic_mode(dir_fd, "h.prom", "three\n", 0644, false), 0);
        ck_assert_int_eq(write_file_atomic_mode(dir_fd, "h.prom", "four\n", 0644, false), 0);
        ck_assert_uint_eq(n_fsync, 2);                  /* none without sync (the metrics textfile) */
        umask(old_umask);
        new_file_test_disable(0);
        snprintf(p, sizeof(p), "%s/d2/h.prom", base);
        assert_content(p, "four\n");
        ck_assert_int_eq(lstat(p, &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0644);
        ck_assert(S_ISREG(st.st_mode));
        snprintf(p, sizeof(p), "%s/d2/g.prom", base);
        assert_content(p, "two\n");
        assert_content(victim, VICTIM);
        ck_assert_int_eq(fstatat(dir_fd, "f.prom.tmp", &st, AT_SYMLINK_NOFOLLOW), 0);
        ck_assert(S_ISFIFO(st.st_mode));
        /* f.prom, g.prom, h.prom and the two planted .tmp: nothing left over */
        snprintf(p, sizeof(p), "%s/d2", base);
        ck_assert_uint_eq(count_entries(p), 5);
        /* a directory at the name stays, and so does the old content */
        ck_assert_int_eq(mkdirat(dir_fd, "dir.prom", 0755), 0);
        ck_assert_int_lt(write_file_atomic(dir_fd, "dir.prom", "x\n"), 0);
        ck_assert_uint_eq(count_entries(p), 6);
        close(dir_fd);
        faketree_rm_rf(AT_FDCWD, base);
}

START_TEST(test_write_beside_planted) {
        write_beside_planted(0);
}
END_TEST

START_TEST(test_write_without_tmpfile) {
        write_beside_planted(NEW_FILE_TEST_NO_TMPFILE);
}
END_TEST

START_TEST(test_write_without_empty_path) {
        write_beside_planted(NEW_FILE_TEST_NO_EMPTY_PATH);
}
END_TEST

static Suite *safe_files_suite(void) {
        Suite *s = suite_create("safe-files");
        TCase *tc = unit_tcase(s, "directories");

        tcase_add_test(tc, test_modes);
        tcase_add_test(tc, test_owners);
        tcase_add_test(tc, test_symlinks);
        tcase_add_test(tc, test_stat_check);
        tc = unit_tcase(s, "files");
        tcase_add_test(tc, test_write_beside_planted);
        tcase_add_test(tc, test_write_without_tmpfile);
        tcase_add_test(tc, test_write_without_empty_path);
        return s;
}

int main(void) {
        return unit_run(safe_files_suite());
}
