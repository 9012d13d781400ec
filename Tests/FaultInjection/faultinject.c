/*
 * Fault injection for cinepack's tests: an LD_PRELOAD library that makes chosen calls of
 * write, pwrite, fsync/fdatasync, rename and link fail, as a full disk or a failing drive would.
 *
 * Build:  cc -shared -fPIC -o faultinject.so Tests/FaultInjection/faultinject.c -ldl
 * Use:    LD_PRELOAD=$PWD/faultinject.so FAULT_WRITE=3+ FAULT_ERRNO=ENOSPC cinepack pack ...
 *
 * Environment (each optional):
 *   FAULT_WRITE, FAULT_PWRITE, FAULT_FSYNC, FAULT_RENAME, FAULT_LINK
 *       "N"  the Nth call (1-based) fails;  "N+"  the Nth and every later call fails.
 *   FAULT_ERRNO   ENOSPC (default), EIO or EDQUOT.
 *
 * Only calls on regular files (and, for fsync, directories) opened by the program count, never
 * standard input/output/error or pipes, so the program can still report the failure. Counters
 * are per process: an ffmpeg started by cinepack inherits the variables and counts on its own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

struct rule {
    const char *variable;
    long at;       /* 0: never */
    int onward;    /* fail from `at` on */
    long calls;
    int ready;
};

static struct rule write_rule = {"FAULT_WRITE"}, pwrite_rule = {"FAULT_PWRITE"}, fsync_rule = {"FAULT_FSYNC"},
                   rename_rule = {"FAULT_RENAME"}, link_rule = {"FAULT_LINK"};

static int fault_errno(void) {
    const char *name = getenv("FAULT_ERRNO");
    if (name && strcmp(name, "EIO") == 0) return EIO;
    if (name && strcmp(name, "EDQUOT") == 0) return EDQUOT;
    return ENOSPC;
}

/* Whether this call of `rule` must fail. */
static int should_fail(struct rule *rule) {
    if (!rule->ready) {
        const char *text = getenv(rule->variable);
        if (text && *text) {
            char *end = NULL;
            rule->at = strtol(text, &end, 10);
            rule->onward = end && *end == '+';
        }
        rule->ready = 1;
    }
    if (rule->at <= 0) return 0;
    long call = __atomic_add_fetch(&rule->calls, 1, __ATOMIC_SEQ_CST);
    return rule->onward ? call >= rule->at : call == rule->at;
}

static int counts(int fd, int directories) {
    struct stat info;
    if (fd <= 2 || fstat(fd, &info) != 0) return 0;
    return S_ISREG(info.st_mode) || (directories && S_ISDIR(info.st_mode));
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef int (*fsync_fn)(int);
typedef int (*paths_fn)(const char *, const char *);

#define REAL(name, type) static type real_##name; if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write, write_fn);
    if (counts(fd, 0) && should_fail(&write_rule)) { errno = fault_errno(); return -1; }
    return real_write(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite, pwrite_fn);
    if (counts(fd, 0) && should_fail(&pwrite_rule)) { errno = fault_errno(); return -1; }
    return real_pwrite(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite64, pwrite_fn);
    if (counts(fd, 0) && should_fail(&pwrite_rule)) { errno = fault_errno(); return -1; }
    return real_pwrite64(fd, buffer, count, offset);
}

int fsync(int fd) {
    REAL(fsync, fsync_fn);
    if (counts(fd, 1) && should_fail(&fsync_rule)) { errno = fault_errno() == ENOSPC ? EIO : fault_errno(); return -1; }
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync, fsync_fn);
    if (counts(fd, 1) && should_fail(&fsync_rule)) { errno = EIO; return -1; }
    return real_fdatasync(fd);
}

int rename(const char *from, const char *to) {
    REAL(rename, paths_fn);
    if (should_fail(&rename_rule)) { errno = fault_errno(); return -1; }
    return real_rename(from, to);
}

int link(const char *from, const char *to) {
    REAL(link, paths_fn);
    if (should_fail(&link_rule)) { errno = fault_errno(); return -1; }
    return real_link(from, to);
}
