/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* no-openat2 ERRNO PROGRAM [ARG...]: runs PROGRAM with openat2(2) answering
 * ERRNO (ENOSYS: a kernel before 5.6; EPERM: a container runtime whose
 * seccomp profile does not know the call), as if the machine had none, so
 * that the daemon's fileio_open_beneath() walks instead.  A seccomp filter
 * (no privileges needed with no_new_privs), checked to be in force before
 * the exec.  Exits 2 on a usage error, 1 when the filter cannot be set. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#else
#error "no-openat2: add this architecture's AUDIT_ARCH_*"
#endif

int main(int argc, char **argv) {
        int error = argc > 2 && strcmp(argv[1], "ENOSYS") == 0 ? ENOSYS :
                    argc > 2 && strcmp(argv[1], "EPERM") == 0 ? EPERM : 0;
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned) error & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = (unsigned short) (sizeof(f) / sizeof(f[0])), .filter = f };

        if (!error) {
                fprintf(stderr, "Usage: no-openat2 ENOSYS|EPERM PROGRAM [ARG...]\n");
                return 2;
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
                fprintf(stderr, "no-openat2: cannot set the seccomp filter: %s\n", strerror(errno));
                return 1;
        }
        if (syscall(SYS_openat2, -1, "", NULL, 0) >= 0 || errno != error) {
                fprintf(stderr, "no-openat2: the filter is not in force (openat2 answered %s)\n", strerror(errno));
                return 1;
        }
        execvp(argv[2], argv + 2);
        fprintf(stderr, "no-openat2: cannot run %s: %s\n", argv[2], strerror(errno));
        return 1;
}
