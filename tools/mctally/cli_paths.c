/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_paths.c  Output paths checked before a run, so that a long run does not
 * end in an error that nothing could be written. */
#include <errno.h>
#include <stdio.h>
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
