/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_paths.c  Output paths checked before a run, so that a long run does not
 * end in an error that nothing could be written; input files opened only when
 * they are regular files. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The directory a new file or directory `path` would be made in. */
static void parent_of(const char* path, char* parent, size_t size) {
    snprintf(parent, size, "%s", path);
    size_t len = strlen(parent);
    while (len > 1 && parent[len - 1] == '/') parent[--len] = '\0'; /* "out/" names "out" */
    char* slash = strrchr(parent, '/');
    if (!slash) snprintf(parent, size, ".");
    else if (slash == parent) parent[1] = '\0';
    else *slash = '\0';
}

static int writable_dir(const char* dir) {
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0;
}

int mct_cli_check_out_dir(const char* dir) {
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return mct_cli_error("output directory '%s' is not a directory", dir);
        if (access(dir, W_OK | X_OK) != 0)
            return mct_cli_error("cannot write in output directory '%s': %s", dir, strerror(errno));
        return 0;
    }
    char parent[4096];
    parent_of(dir, parent, sizeof parent);
    if (!writable_dir(parent))
        return mct_cli_error("cannot create output directory '%s': '%s' is not a writable directory", dir, parent);
    return 0;
}

int mct_cli_check_out_file(const char* path) {
    char err[4400];
    return sim_out_check(path, err, sizeof err) ? mct_cli_error("%s", err) : 0;
}

/* What a path names, for a message. */
static const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/* stat() follows links, so a link to a regular file is accepted. A FIFO or a
 * device is refused before it is opened (opening a FIFO for reading blocks
 * until a writer comes); O_NONBLOCK and the fstat after the open close the
 * window in which the path could be replaced by one. */
int mct_cli_open_regular(const char* path, const char* what, FILE** out) {
    struct stat st;
    *out = NULL;
    if (stat(path, &st) != 0) return mct_cli_error("cannot open %s '%s': %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return mct_cli_error("%s '%s' is %s, not a regular file", what, path, kind_of(st.st_mode));
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return mct_cli_error("cannot open %s '%s': %s", what, path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mct_cli_error("%s '%s' is not a regular file", what, path);
    }
    FILE* f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return mct_cli_error("cannot open %s '%s': %s", what, path, strerror(errno));
    }
    *out = f;
    return 0;
}

int mct_cli_read_file(const char* path, const char* what, size_t max_bytes, char** data, size_t* size) {
    FILE* f = NULL;
    *data = NULL;
    *size = 0;
    if (mct_cli_open_regular(path, what, &f)) return 1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return mct_cli_error("cannot read %s '%s': %s", what, path, strerror(errno));
    }
    if ((uintmax_t)st.st_size > (uintmax_t)max_bytes) {
        fclose(f);
        return mct_cli_error("%s '%s' is %jd bytes; at most %zu are read", what, path, (intmax_t)st.st_size, max_bytes);
    }
    /* The size read is what the file holds when read (it may have changed
     * since the stat); one byte more than the limit shows that it grew. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char* buf = malloc(cap + 1);
    while (buf) {
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap || ferror(f)) break;
        if (cap > max_bytes) break;
        char* grown = realloc(buf, 2 * cap + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    const int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return mct_cli_error("cannot read %s '%s'%s", what, path, buf ? "" : ": out of memory");
    }
    if (n > max_bytes) {
        free(buf);
        return mct_cli_error("%s '%s' holds more than %zu bytes", what, path, max_bytes);
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return 0;
}
