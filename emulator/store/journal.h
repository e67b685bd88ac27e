/* journal.h: the journal, the write-ahead log under the store (DIR/history/journal.ndjson).
 *
 * Every change is one line (a record) appended here before the object file it changes
 * is written. A writer appends its record and its file write (an "op") under the
 * server lock, which costs no I/O; after the lock is released it calls em_journal_commit,
 * which returns once the record is on disk. Concurrent commits share one flush (group
 * commit): one of them (the leader) takes every record appended so far, writes them
 * with one write, flushes them with one fdatasync, and queues their file writes for the
 * file writer; the others wait for it; records appended while it flushed go out with the
 * next leader. The answer does not wait for the files: the record is what makes a change
 * durable, and a start writes a file a crash left behind from it (em_journal_read's tail).
 *
 * The file writer (a thread of em_journal_start_thread) takes everything queued at once
 * and writes it in order: an object file atomically (into a spare and the names exchanged,
 * journal_files.c), a later write of the same file in the same round making an earlier one
 * moot, and the appends to one hour file of Events in one write. Under always and batch,
 * a second thread, the flusher, flushes them with one syncfs(2) of the state directory's
 * filesystem (the files' data, the renames and the directories made; at most every
 * EM_JOURNAL_FILES_SYNC_US, at once for a drain or a stop), and only then are their
 * records counted applied.
 * More than EM_JOURNAL_QUEUE_MAX file writes behind make a leader wait for it before it
 * answers (backpressure); otherwise no answer waits for the files or their flush. Without
 * the writer (a journal nobody started a thread for), the leader writes the queue itself
 * before it answers.
 *
 * Each flush starts with a marker line {"wall": microseconds, "applied": revision}: the
 * real time the batch was written, and the revision up to which every earlier record's
 * file write is done (under always and batch: on the disk, so a power loss keeps it). At
 * start (em_journal_read) the records after the last marker are the ones whose files may
 * be missing or stale.
 *
 * Modes: always flushes at once; batch, when others are committing too, waits while
 * more records keep arriving (at most half the last flush's time, a millisecond at
 * most) so more commits share the flush; never skips the fdatasync (a crash
 * of the machine may lose what was acknowledged; a crash of the emulator loses nothing
 * the kernel already has).
 *
 * A failed write, flush or truncation of a batch (a full disk, an I/O error) fails every
 * record of that batch and every record appended after it until em_journal_recover: their
 * em_journal_commit returns -1, nothing of them stays in the file (it is cut back to the last
 * whole batch, or where the cut fails, their bytes are blanked out in place:
 * em_journal_drop_batch), and their file writes are dropped. The store, under the server lock,
 * then undoes them in memory (em_journal_recover says from which ticket). A file write that
 * fails after its record is on disk is kept and tried again by each later batch (the
 * record vouches for it: a start repairs the file), and the applied revision stays
 * before it until it is written. Each episode of failures is logged once, and its end.
 * Before a write changes anything, em_journal_reserve allocates the space ahead of the log
 * (fallocate, where the filesystem can), so that a full disk refuses the write up front.
 *
 * Thread-safe: its own mutex; em_journal_append is called with the server lock held,
 * em_journal_commit without it.
 */
#ifndef EM_JOURNAL_H
#define EM_JOURNAL_H

/* file writes queued behind the journal at most before a leader waits for the writer */
#define EM_JOURNAL_QUEUE_MAX 8192
/* file writes the writer takes at a time (whole batches) */
#define EM_JOURNAL_WRITE_CHUNK 512
/* spares the writer writes object files into between two flushes of the files (always,
 * batch); more writes than that in a round flush the files first (journal_files.c) */
#define EM_JOURNAL_SPARES 512
/* the writer flushes the files it wrote at most this often (always, batch) */
#define EM_JOURNAL_FILES_SYNC_US 10000

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "bytes.h"
#include "util/buf.h"

enum em_fsync { EM_FSYNC_ALWAYS, EM_FSYNC_BATCH, EM_FSYNC_NEVER };

/* A file write that follows a record: data written to path (or path unlinked when
 * data is NULL), or with append, data appended to it (em_append_line). */
struct em_journal_op {
    char *path;
    char *data;
    size_t len;
    bool append;
};

struct em_journal_counters {
    uint64_t flushes;  /* leaders' write+flush rounds */
    uint64_t records;  /* records written */
    uint64_t fsyncs;   /* fdatasync calls */
    uint64_t max_batch;
};

struct em_journal {
    char *path;
    int fd;
    enum em_fsync mode;
    pthread_mutex_t lock;
    pthread_cond_t cond;   /* durable moved or a record was appended */
    struct nd_buf buf;     /* records appended, not yet written */
    struct em_journal_op *ops; /* file writes waiting for buf's flush, in order */
    size_t nops, capops;
    uint64_t appended, flushed, durable; /* record counts: appended, on disk (or failed),
                                          * and on disk with their files written */
    uint64_t batch_seq, apply_turn; /* batches taken; the one whose files go next */
    /* the file writer: the flushed batches' file writes, in order, not yet taken */
    struct em_journal_op *queue;
    size_t nqueue, capqueue;
    size_t nwriting;            /* file writes taken by the writer, not yet done */
    bool writing;               /* someone is writing queued files */
    uint64_t queued_seq;        /* batches queued (failed ones too): apply_turn's goal */
    int64_t queued_rev;         /* the newest revision of a batch queued that did not fail */
    struct em_journal_mark {
        size_t end;             /* the batch's file writes end here in the queue */
        uint64_t seq, target;   /* apply_turn and durable once they are written */
        int64_t rev;            /* applied_rev then */
    } *marks;                   /* one a batch queued, in order */
    size_t nmarks, capmarks;
    pthread_t files;
    pthread_cond_t files_cond;  /* something was queued, or the writer is to stop */
    bool files_running, files_stopping;
    unsigned files_waiters;     /* threads waiting for the writer (it wakes them) */
    pthread_cond_t late_cond;   /* a record was appended, or a flush ended (late thread) */
    bool late_idle;             /* the late thread waits on late_cond */
    bool hold_files;            /* tests: the writer waits until someone drains the queue */
    /* tests: a batch's flush fails (ENOSPC) after its write went through; the cut back
     * after a failed batch fails (ENOSPC), as on an ext4 that needs a block to split an
     * extent and has none */
    bool test_fail_sync, test_fail_cut;
    int64_t appended_rev;       /* highest revision appended */
    int64_t applied_rev;        /* every record up to this revision has its file written
                                 * (always, batch: and flushed) */
    int64_t durable_rev;        /* every record up to this revision is flushed (watches
                                 * show nothing newer) */
    /* a group of records that goes to the log in one batch (em_journal_hold): the records
     * after hold_from (hold_len bytes into buf, hold_nops into ops) wait for its end,
     * except for the holder's own commits */
    bool held;
    pthread_t holder;
    uint64_t hold_from;
    size_t hold_len, hold_nops;
    int64_t hold_rev;           /* appended_rev before the group */
    bool flushing;
    unsigned waiters;           /* threads in em_journal_commit */
    int64_t last_sync_us;       /* how long the last fdatasync took */
    int error;                  /* errno of the current episode of failures (0: none) */
    char *error_path;           /* the file that failed first in it */
    off_t size;                 /* bytes of whole batches in the file */
    off_t reserved;             /* space allocated ahead up to this offset (fallocate) */
    bool no_reserve;            /* the filesystem cannot allocate ahead */
    bool broken;                /* a batch failed: what is appended fails too, until
                                 * em_journal_recover */
    uint64_t broken_from;       /* the first ticket that failed in this run */
    struct em_journal_range {
        uint64_t lo, hi;
    } *failed;                  /* tickets that failed, in order, merged */
    size_t nfailed, capfailed;
    bool stale;                 /* the log holds refused records from stale_from on that
                                 * could be neither cut off nor blanked out (the leader
                                 * tries again) */
    off_t stale_from;
    struct em_journal_op *retry;    /* file writes that failed after their record was flushed */
    size_t nretry;
    /* the file writer's spare files (path + ".spare", then ".spare.1" ...): an object file
     * is written into one and exchanged with it (journal_files.c); spare_name: the name of
     * one (em_journal_spare); under always and batch they go round (spare_seq: how many were
     * taken, by the one writing files; spares_done: how many it is done with; spares_free:
     * it may take spare_seq while below it, moved on by a flush), each one written once
     * between two flushes of the files; under never the first only. no_exchange: the
     * filesystem cannot, or NODUS_EMULATOR_TEST_RENAME_FILES asks for the temporary file
     * and rename */
    char *spare, *spare_name;
    uint64_t spare_seq;
    _Atomic uint64_t spares_done, spares_free;
    bool no_exchange;
    /* the flusher (always, batch: journal_files.c), a thread that flushes the journal's
     * filesystem (syncfs of dir_fd, the journal's directory) after the file writes;
     * files_unsynced: a flush failed, so the applied revision stays where it was for the
     * rest of the run (the next start writes the files again) */
    int dir_fd;
    _Atomic bool files_unsynced;
    int64_t written_rev;        /* every record up to it has its file written */
    bool files_dirty;           /* files written since the last flush began */
    unsigned files_flushing;    /* flushes running */
    int64_t synced_at_us;       /* when the last flush ended (CLOCK_MONOTONIC) */
    unsigned flush_asked;       /* threads waiting for the files to be flushed (a drain) */
    pthread_t flusher;
    pthread_cond_t flush_cond;  /* files written, or the flusher is to stop */
    bool flusher_running, flusher_stopping;
    /* a line for the log (no lock held but the log's own); NULL: stderr */
    void (*log)(void *ctx, const char *msg);
    void *log_ctx;
    struct em_journal_counters count;
    /* a thread that commits what nobody waits for (controllers' writes) */
    pthread_t thread;
    bool thread_running, stopping;
    /* called (with no lock held) after that thread made something durable */
    void (*notify)(void *ctx);
    void *notify_ctx;
};

/* Opens path for appending (creating it and its directory). applied_rev: the revision
 * up to which files are known to be written (after the start's repair). */
int em_journal_open(struct em_journal *w, const char *path, enum em_fsync mode, int64_t applied_rev,
                struct nd_buf *err);
/* Commits everything, writes a final marker, stops the thread and closes: 0, or -1 when
 * something could not be written (a message in err). */
int em_journal_close(struct em_journal *w, struct nd_buf *err);
/* Starts the thread that commits records nobody waits for within a few milliseconds, and
 * the file writer (see above). */
int em_journal_start_thread(struct em_journal *w);
/* Waits until nothing is flushing and every batch's file writes are done (or kept for a
 * retry). Lock held. */
void em_journal_wait_files(struct em_journal *w);
/* Commits everything and returns once every file write is done (or kept for a retry). */
void em_journal_drain(struct em_journal *w);

/* Appends a record (one line, no newline: it is added) for revision rev and takes the
 * file write op (its strings are owned by the log from now; op may be NULL). Returns
 * the ticket to pass to em_journal_commit. */
uint64_t em_journal_append(struct em_journal *w, int64_t rev, const char *line, size_t len,
                       struct em_journal_op *op);
/* The records appended from now until em_journal_unhold go to the log in one batch, so a
 * failure fails all of them or none (a request's change and its Event: refused whole,
 * never half kept while it is answered refused). Others' commits of them wait for
 * em_journal_unhold; the holder's own do not. A hold while another thread holds is a
 * no-op (its records join that group). */
void em_journal_hold(struct em_journal *w);
void em_journal_unhold(struct em_journal *w);
/* A watch event's type as a static string: "ADDED", "DELETED", else "MODIFIED". */
const char *em_journal_type_name(const char *t);
/* The ticket of the last record appended (0 when none). */
uint64_t em_journal_ticket(struct em_journal *w);
/* Returns once every record up to ticket is on disk (with the file writer running; without
 * it, once their files are written too); 0, or -1 when a write or flush failed (errno in
 * w->error). */
int em_journal_commit(struct em_journal *w, uint64_t ticket);
/* Allocates the space ahead of the log for need more bytes (beyond what is buffered)
 * where the filesystem can; called before a write changes anything. 0, or the errno that
 * refuses the write (the disk is full). */
int em_journal_reserve(struct em_journal *w, size_t need);
/* After a failed batch: fails every record appended so far (they were never written),
 * ends the broken run and returns the first ticket that failed, whose changes and every
 * later one the caller undoes; 0 when nothing failed since the last call. */
uint64_t em_journal_recover(struct em_journal *w);
/* Whether ticket failed. Lock held. */
bool em_journal_ticket_failed(const struct em_journal *w, uint64_t ticket);
/* An episode of failures: its first failure is logged (path and errno), later ones are
 * not; em_journal_note_ok logs its end. Lock held. */
void em_journal_note_error(struct em_journal *w, const char *path, int err);
void em_journal_note_ok(struct em_journal *w);
/* After a failed batch written to the log from start: nothing of it may come back at a
 * start. The log is cut back to start; where the cut fails (ext4 may need a block to split
 * an extent, and a full disk has none) the batch's bytes are overwritten in place with
 * newlines, blank lines a start skips (bytes the file holds need no new block). Returns
 * where the log ends now, the next batch's start; what could be neither cut nor blanked is
 * said and left to em_journal_blank_stale. Without the lock, by the leader. */
off_t em_journal_drop_batch(struct em_journal *w, off_t start);
/* Blanks out what em_journal_drop_batch could not, if anything; returns the log's end (the
 * next batch's start), start when that is unchanged. Without the lock, by the leader. */
off_t em_journal_blank_stale(struct em_journal *w, off_t start);
/* Marks tickets lo..hi failed. Lock held. */
void em_journal_fail_range(struct em_journal *w, uint64_t lo, uint64_t hi);

/* The highest revision whose record is flushed (and its file written). */
int64_t em_journal_durable_rev(struct em_journal *w);
/* Whether every record up to ticket is settled as em_journal_commit waits for it: on disk
 * (and, without the file writer, its files written), or failed and already recovered
 * (em_journal_recover). A failed record not yet recovered is not settled: a reader that
 * saw it commits and hears that it failed. */
bool em_journal_settled(struct em_journal *w, uint64_t ticket);
/* Replaces the log with data (whole lines, kept records) after committing everything:
 * a temporary file, flushed, renamed, and the directory flushed. */
int em_journal_rewrite(struct em_journal *w, const char *data, size_t len);

/* The file writer (journal_files.c), for journal.c: */
/* Frees op's strings. */
void em_journal_op_release(struct em_journal_op *op);
/* Applies file writes in order, after the ones kept from a failure before (w->retry); one
 * that fails is kept there. The first error's errno (0: none), its file in *path (NEW).
 * Without the lock, by one thread at a time. */
int em_journal_apply_ops(struct em_journal *w, struct em_journal_op *ops, size_t n, char **path);
/* Queues a flushed batch's file writes (ops, taken; dropped when it failed) for the writer;
 * without it, writes them at once. Lock held. */
void em_journal_queue(struct em_journal *w, struct em_journal_op *ops, size_t nops, uint64_t seq,
                      uint64_t target, int64_t target_rev, bool failed);
/* Flushes the object files written so far (syncfs of the journal's filesystem) under
 * always and batch; 0, or -1 with errno (said once, and w->files_unsynced set). Without
 * the lock. */
int em_journal_sync_files(struct em_journal *w);
/* The name of the spare i (w->spare, then w->spare + ".i" in w->spare_name, valid until
 * the next call). */
const char *em_journal_spare(struct em_journal *w, unsigned i);
/* The name of the spare i of the journal at log (NEW): em_journal_spare's, before the
 * journal is open. */
char *em_journal_spare_path(const char *log, unsigned i);
/* Writes data as path's whole text through the spare (written over, then exchanged with
 * path: renameat2 RENAME_EXCHANGE), so no inode is allocated; a path not there yet takes
 * the spare's name. Where the filesystem cannot exchange, sets *no_exchange; then, or
 * when the spare cannot be opened, em_write_atomic. 0, or -1 with errno. */
int em_spare_write(const char *spare, const char *path, const char *data, size_t len,
                   bool *no_exchange);
/* A line for the log (w->log, else stderr). */
void em_journal_say(struct em_journal *w, const char *msg);
/* Starts the flusher (always, batch; nothing under never): 0 or -1. */
int em_journal_start_flusher(struct em_journal *w);
/* The writer thread's body (arg: the journal), and its stop (with the flusher's) once all
 * is written and flushed. */
void *em_journal_files_main(void *arg);
void em_journal_stop_files(struct em_journal *w);

/* Writes data to path atomically (temporary file beside it, renamed); flushed (file and
 * directory) when flush is true. 0 or -1 with errno set. */
int em_write_atomic(const char *path, const char *data, size_t len, bool flush);
/* Writes all of data to fd (again after EINTR). 0 or -1 with errno set. */
int em_write_all(int fd, const char *data, size_t len);

/* One record read back at start: its fields, and its object as compact JSON only (the
 * tree each line parses to is dropped at once, so reading a long log costs about its
 * size, not a tree per record). */
struct em_journal_record {
    int64_t rev, time_ms;
    const char *type;       /* "ADDED", "MODIFIED" or "DELETED" (static strings) */
    char *plural;
    char *ns, *name;        /* the object's metadata (ns "" when it has none) */
    char *rv;               /* its metadata.resourceVersion, or NULL */
    struct em_bytes *json;  /* the object (one reference, the record's) */
    int64_t wall_us;        /* the marker before it (0: none) */
    bool tail;              /* after the last marker: its file write may not have happened */
};

/* The reader at start (journal_read.c). */

/* Reads the log at path: every whole record, in order. A torn last line (a crash in the
 * middle of a write) is cut off the file; a line that does not parse is skipped and
 * counted in *bad. The records are NEW (em_journal_records_free). 0, or -1 when the file
 * exists but cannot be read. A missing file is 0 records. *parsed counts the lines that
 * were not as the store writes them and went to jansson's parser (journal_scan.h). */
int em_journal_read(const char *path, struct em_journal_record **out, size_t *n, size_t *bad,
                    size_t *parsed, size_t *torn_bytes, int64_t *applied_rev, struct nd_buf *err);
void em_journal_records_free(struct em_journal_record *r, size_t n);

#endif
