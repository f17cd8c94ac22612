/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_output.c  Output sets written through exclusive temporaries and
 * renamed into place together (sim_output.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "sim_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The signal handler's table ------------------------------------------ */

#define SIM_OUT_SLOTS 64

/* A slot is written while SIGINT and SIGTERM are blocked, so the handler
 * never reads a half-copied name. */
static char sig_paths[SIM_OUT_SLOTS][SIM_OUT_PATH];
static volatile sig_atomic_t sig_used[SIM_OUT_SLOTS];
static volatile sig_atomic_t sig_installed;

static void on_signal(int sig) {
    for (int i = 0; i < SIM_OUT_SLOTS; ++i)
        if (sig_used[i]) unlink(sig_paths[i]);
    /* SA_RESETHAND restored the default action: raising ends the process by
     * this signal once the handler returns. */
    raise(sig);
}

void sim_out_install_signals(void) {
    if (sig_installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sig_installed = 1;
}

static void block_signals(sigset_t* old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t* old) { sigprocmask(SIG_SETMASK, old, NULL); }

static int slot_take(const char* path) {
    for (int i = 0; i < SIM_OUT_SLOTS; ++i)
        if (!sig_used[i]) {
            snprintf(sig_paths[i], SIM_OUT_PATH, "%s", path);
            sig_used[i] = 1;
            return i;
        }
    return -1;
}

static void slot_release(int i) {
    if (i >= 0) sig_used[i] = 0;
}

/* ---- Inputs ---------------------------------------------------------------- */

#define SIM_OUT_INPUTS 16

static struct {
    dev_t dev;
    ino_t ino;
    char path[256];
} inputs[SIM_OUT_INPUTS];
static int ninputs;

int sim_out_protect(const char* path) {
    struct stat st;
    if (!path || !path[0] || stat(path, &st) != 0) return 0;
    if (ninputs == SIM_OUT_INPUTS) return -1;
    inputs[ninputs].dev = st.st_dev;
    inputs[ninputs].ino = st.st_ino;
    snprintf(inputs[ninputs].path, sizeof inputs[ninputs].path, "%s", path);
    ++ninputs;
    return 0;
}

static const char* kind_of(mode_t m) {
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

/* The directory of `path` ("." for a bare name). */
static void dir_of(const char* path, char* dir, size_t size) {
    snprintf(dir, size, "%s", path);
    char* slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, size, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
}

int sim_out_check(const char* path, char* err, size_t size) {
    struct stat st;
    const size_t len = path ? strlen(path) : 0;
    if (!len || len >= SIM_OUT_PATH - 32 || path[len - 1] == '/') {
        snprintf(err, size, "'%s' is not a file name mctally can write", path ? path : "");
        return -1;
    }
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, size, "'%s' is %s: mctally writes regular files only and leaves it as it is", path,
                     kind_of(st.st_mode));
            return -1;
        }
        for (int i = 0; i < ninputs; ++i)
            if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) {
                snprintf(err, size, "output '%s' is the input '%s': refusing to overwrite it", path, inputs[i].path);
                return -1;
            }
    } else if (errno != ENOENT) {
        snprintf(err, size, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    char dir[SIM_OUT_PATH];
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        snprintf(err, size, "cannot write '%s': '%s' is not a writable directory", path, dir);
        return -1;
    }
    return 0;
}

/* ---- Sets ------------------------------------------------------------------ */

/* Removes the temporaries of the target `base` in `dir` that writers killed
 * before they could remove them (SIGKILL, a crash) left behind: regular files
 * named .BASE.PID.XXXXXX whose PID is no running process. A live writer's are
 * kept, this process's too; a process that cannot be signalled is taken as
 * alive. */
static void sweep_dead_temporaries(const char* dir, const char* base) {
    DIR* d = opendir(dir);
    if (!d) return;
    const size_t blen = strlen(base);
    const struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        const char* n = e->d_name;
        if (n[0] != '.' || strncmp(n + 1, base, blen) != 0 || n[1 + blen] != '.') continue;
        const char* digits = n + 2 + blen;
        char* end;
        errno = 0;
        const long pid = strtol(digits, &end, 10);
        if (end == digits || *digits < '0' || *digits > '9' || *end != '.' || strlen(end + 1) != 6 || errno ||
            pid <= 0 || (pid_t)pid != pid || (pid_t)pid == getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[SIM_OUT_PATH];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, n) < (int)sizeof path && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode))
            unlink(path);
    }
    closedir(d);
}

static mode_t file_mode(void) {
    /* Reading the mask sets it: put it back at once. */
    const mode_t mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

void sim_out_init(sim_out_set_t* s) {
    memset(s, 0, sizeof *s);
    s->open_fd = -1;
}

FILE* sim_out_begin(sim_out_set_t* s, const char* path) {
    if (s->n == SIM_OUT_MAX_FILES) {
        snprintf(s->error, sizeof s->error, "too many output files in one set (writing '%s')", path);
        return NULL;
    }
    if (sim_out_check(path, s->error, sizeof s->error)) return NULL;
    for (int i = 0; i < s->n; ++i)
        if (!strcmp(s->target[i], path)) {
            snprintf(s->error, sizeof s->error, "'%s' is written twice in one set", path);
            return NULL;
        }
    char dir[SIM_OUT_PATH];
    dir_of(path, dir, sizeof dir);
    const char* base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    sweep_dead_temporaries(dir, base);
    char* temp = s->temp[s->n];
    if (snprintf(temp, SIM_OUT_PATH, "%s/.%s.%ld.XXXXXX", dir, base, (long)getpid()) >= SIM_OUT_PATH) {
        snprintf(s->error, sizeof s->error, "cannot write '%s': the name is too long", path);
        return NULL;
    }
    sigset_t old;
    block_signals(&old);
    const int fd = mkstemp(temp);
    const int err = errno;
    const int slot = fd >= 0 ? slot_take(temp) : -1;
    restore_signals(&old);
    if (fd < 0 || slot < 0) {
        if (fd >= 0) close(fd), unlink(temp);
        snprintf(s->error, sizeof s->error, "cannot create a temporary file for '%s': %s", path,
                 fd < 0 ? strerror(err) : "too many open outputs");
        return NULL;
    }
    fchmod(fd, file_mode());
    FILE* f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(temp);
        slot_release(slot);
        snprintf(s->error, sizeof s->error, "cannot write '%s': %s", path, strerror(errno));
        return NULL;
    }
    snprintf(s->target[s->n], SIM_OUT_PATH, "%s", path);
    s->slot[s->n] = slot;
    s->open_fd = fd;
    ++s->n;
    return f;
}

int sim_out_end(sim_out_set_t* s, FILE* f) {
    const int i = s->n - 1;
    int ok = f && i >= 0 && fileno(f) == s->open_fd;
    int err = 0;
    if (ok && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0)) ok = 0, err = errno;
    if (f && fclose(f) != 0 && ok) ok = 0, err = errno;
    s->open_fd = -1;
    if (!ok) {
        if (!s->error[0])
            snprintf(s->error, sizeof s->error, "cannot write '%s': %s", i >= 0 ? s->target[i] : "?",
                     err ? strerror(err) : "write failed");
        return -1;
    }
    return 0;
}

static void sync_dir(const char* path) {
    char dir[SIM_OUT_PATH];
    dir_of(path, dir, sizeof dir);
    const int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Removes the regular file at `path` when there is one; 0 when none is left. */
static int remove_previous(const char* path, char* err, size_t size) {
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, size, "'%s' is %s: mctally writes regular files only and leaves it as it is", path,
                 kind_of(st.st_mode));
        return -1;
    }
    if (unlink(path) != 0) {
        snprintf(err, size, "cannot replace '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int sim_out_commit(sim_out_set_t* s, const char* const* stale, int nstale) {
    if (s->n == 0) return 0;
    for (int i = 0; i < s->n; ++i)
        if (sim_out_check(s->target[i], s->error, sizeof s->error)) {
            sim_out_abort(s);
            return -1;
        }
    sigset_t old;
    block_signals(&old);
    int rc = remove_previous(s->target[s->n - 1], s->error, sizeof s->error);
    for (int k = 0; !rc && k < nstale; ++k) {
        int written = 0;
        for (int i = 0; i < s->n; ++i) written |= !strcmp(stale[k], s->target[i]);
        if (!written) rc = remove_previous(stale[k], s->error, sizeof s->error);
    }
    if (!rc) sync_dir(s->target[s->n - 1]);
    for (int i = 0; !rc && i < s->n; ++i) {
        if (i == s->n - 1)
            for (int j = 0; j < i; ++j) sync_dir(s->target[j]);
        if (rename(s->temp[i], s->target[i]) != 0) {
            snprintf(s->error, sizeof s->error, "cannot write '%s': %s", s->target[i], strerror(errno));
            rc = -1;
            break;
        }
        slot_release(s->slot[i]);
        s->temp[i][0] = '\0';
    }
    if (!rc) sync_dir(s->target[s->n - 1]);
    if (rc) sim_out_abort(s);
    restore_signals(&old);
    return rc;
}

void sim_out_abort(sim_out_set_t* s) {
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < s->n; ++i) {
        if (s->temp[i][0]) unlink(s->temp[i]);
        s->temp[i][0] = '\0';
        slot_release(s->slot[i]);
        s->slot[i] = -1;
    }
    restore_signals(&old);
    s->n = 0;
}

int sim_out_write_file(const char* path, const void* data, size_t bytes, char* err, size_t size) {
    sim_out_set_t* s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, size, "out of memory writing '%s'", path);
        return -1;
    }
    sim_out_init(s);
    FILE* f = sim_out_begin(s, path);
    int rc = -1;
    if (f) {
        if (bytes && fwrite(data, 1, bytes, f) != bytes) snprintf(s->error, sizeof s->error, "cannot write '%s': %s", path, strerror(errno));
        rc = sim_out_end(s, f);
        if (!rc && s->error[0]) rc = -1;
        if (!rc) rc = sim_out_commit(s, NULL, 0);
    }
    if (rc) {
        sim_out_abort(s);
        snprintf(err, size, "%s", s->error);
    }
    free(s);
    return rc;
}
