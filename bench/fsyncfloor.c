/* The fsync floor of make bench: how many durable appends per second this filesystem
 * takes, one thread appending ~600 bytes and calling fdatasync in a loop, for D seconds.
 * Creates/s with --fsync always are reported beside it: one fdatasync per acknowledged
 * create (or fewer, with group commit) is what durability costs.
 *
 *   fsyncfloor DIR SECONDS      prints: ops= secs= ops_per_s= */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    if (argc != 3) {
        fprintf(stderr, "usage: fsyncfloor DIR SECONDS\n");
        return 2;
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
    do {
        if (write(fd, rec, sizeof rec) != (ssize_t)sizeof rec || fdatasync(fd) != 0) {
            perror(file);
            return 1;
        }
        ops++;
    } while ((t = now()) - t0 < secs);
    close(fd);
    unlink(file);
    printf("ops=%ld secs=%.3f ops_per_s=%.1f\n", ops, t - t0, (double)ops / (t - t0));
    return 0;
}
