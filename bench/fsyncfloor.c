/* The fsync floor of make bench: how many durable appends per second this filesystem
 * takes, one thread appending ~600 bytes and calling fdatasync in a loop, for D seconds.
 * Creates/s with --fsync always are reported beside it: one fdatasync per acknowledged
 * create (or fewer, with group commit) is what durability costs.
 *
 * With "files", each op also writes two new files the emulator's way (a temporary file
 * renamed into place: a ~1.4 KB object and a ~1 KB Event), as one create does, before
 * the flush, and without flushing them: the filesystem's own floor for a create, new
 * inodes and directory entries included, which the ext4 journal must commit with each
 * fdatasync. "files-nosync" is the same without any fdatasync (the floor of --fsync never).
 *
 *   fsyncfloor DIR SECONDS [files|files-nosync]   prints: ops= secs= ops_per_s= */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: fsyncfloor DIR SECONDS [files|files-nosync]\n");
        return 2;
    }
    int files = argc == 4 && strncmp(argv[3], "files", 5) == 0;
    int nosync = argc == 4 && strcmp(argv[3], "files-nosync") == 0;
    char fdir[4096];
    snprintf(fdir, sizeof fdir, "%s/fsyncfloor-files.%ld", argv[1], (long)getpid());
    if (files && mkdir(fdir, 0755) != 0) {
        perror(fdir);
        return 1;
    }
    char file[4096];
    snprintf(file, sizeof file, "%s/fsyncfloor.%ld", argv[1], (long)getpid());
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(file);
        return 1;
    }
    char rec[600];
    memset(rec, 'x', sizeof rec);
    rec[sizeof rec - 1] = '\n';
    double secs = atof(argv[2]), t0 = now(), t;
    long ops = 0;
    static char body[1400];
    memset(body, 'y', sizeof body);
    do {
        for (int k = 0; files && k < 2; k++) {
            char tmp[4300], dst[4200];
            snprintf(dst, sizeof dst, "%s/o%ld-%d.json", fdir, ops, k);
            snprintf(tmp, sizeof tmp, "%s.tmp", dst);
            int f = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            size_t len = k ? 1000 : sizeof body;
            if (f < 0 || write(f, body, len) != (ssize_t)len || close(f) != 0 ||
                rename(tmp, dst) != 0) {
                perror(tmp);
                return 1;
            }
        }
        if (write(fd, rec, sizeof rec) != (ssize_t)sizeof rec || (!nosync && fdatasync(fd) != 0)) {
            perror(file);
            return 1;
        }
        ops++;
    } while ((t = now()) - t0 < secs);
    close(fd);
    unlink(file);
    if (files) {
        for (long i = 0; i < ops; i++) {
            for (int k = 0; k < 2; k++) {
                char dst[4200];
                snprintf(dst, sizeof dst, "%s/o%ld-%d.json", fdir, i, k);
                unlink(dst);
            }
        }
        rmdir(fdir);
    }
    printf("ops=%ld secs=%.3f ops_per_s=%.1f\n", ops, t - t0, (double)ops / (t - t0));
    return 0;
}
