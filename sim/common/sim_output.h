/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_output.h  Output files that are never half written and never
 * written through someone else's name: every writer of the problems and of the
 * command-line tool goes through this one set of calls.
 *
 * A run's outputs form a set. Each file is written to a temporary created
 * exclusively (mkstemp: O_CREAT|O_EXCL, so no existing name, symbolic link or
 * not, is opened) in the target's own directory, flushed and synced. Only when
 * every file of the set is complete does sim_out_commit rename them into
 * place, the last one added last: a run adds its summary (result.json) last,
 * so the summary's presence means the whole set is there. Commit first removes
 * the previous summary, so a crash between renames leaves no summary beside a
 * mixed set. A target that exists and is not a regular file (a symbolic link,
 * a directory, a device, a FIFO) is refused, and so is one that is the same
 * file (st_dev, st_ino) as an input registered with sim_out_protect. Nothing is
 * removed that this module did not create, except the previous files at names
 * the caller lists (its own outputs) and only when they are regular files.
 * A temporary is named .NAME.PID.XXXXXX (PID: the writer's process): one left
 * by a writer that was killed (SIGKILL) or crashed is removed by the next
 * writer of NAME once no process has that PID.
 *
 * SIGINT and SIGTERM (sim_out_install_signals) remove the temporaries still
 * open and end the process by the same signal. The temporaries' names live in
 * a fixed table the handler reads, the one process-wide state here: a signal
 * handler can reach nothing else. */
#ifndef MCT_SIM_OUTPUT_H
#define MCT_SIM_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_OUT_MAX_FILES 16
#define SIM_OUT_PATH 4096

/** One set of outputs being written. */
typedef struct {
    int n;                                        /**< files added */
    int slot[SIM_OUT_MAX_FILES];                  /**< their entries in the signal table */
    char target[SIM_OUT_MAX_FILES][SIM_OUT_PATH]; /**< the final names */
    char temp[SIM_OUT_MAX_FILES][SIM_OUT_PATH];   /**< the temporaries */
    int open_fd;                                  /**< the file being written (-1 none) */
    char error[SIM_OUT_PATH + 256];               /**< the first failure, one line */
} sim_out_set_t;

/** An empty set. */
void sim_out_init(sim_out_set_t* s);

/** Installs the SIGINT and SIGTERM handlers (once per process). */
void sim_out_install_signals(void);

/** Registers an input: no output may be the same file. A path that does not
 * exist is ignored. 0, or -1 when the table of inputs is full. */
int sim_out_protect(const char* path);

/** Whether `path` may be written: absent, or a regular file that is no
 * registered input, in an existing directory. 0, or -1 with the reason in
 * err (one line naming the path). */
int sim_out_check(const char* path, char* err, size_t size);

/** Starts the set's next file for `path`: a temporary beside it. NULL, with
 * s->error, when the target is refused or nothing can be created. */
FILE* sim_out_begin(sim_out_set_t* s, const char* path);

/** Completes the file sim_out_begin returned (flush, sync, close). 0, or -1
 * with s->error. */
int sim_out_end(sim_out_set_t* s, FILE* f);

/** Puts the set in place: checks every target again, removes the previous
 * file at the last target and at the names in `stale` (regular files only; a
 * name the set writes is replaced, not removed), renames the temporaries in
 * the order they were added and syncs the directories. SIGINT and SIGTERM wait
 * until it is done. 0, or -1 with s->error and the temporaries removed. */
int sim_out_commit(sim_out_set_t* s, const char* const* stale, int nstale);

/** Removes the set's temporaries (after a failure); nothing else. */
void sim_out_abort(sim_out_set_t* s);

/** A set of one file holding `bytes` bytes: begin, write, end, commit. 0, or
 * -1 with the reason in err. */
int sim_out_write_file(const char* path, const void* data, size_t bytes, char* err, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_OUTPUT_H */
