/* Unit tests of nd_buf_read_file, nd_buf_read_fd and nd_buf_take (pkg/util/buf.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/xmalloc.h"

#include "store_tmpdir.h"

/* Writes n bytes of data to dir/name; its NEW path. */
static char *put(const char *dir, const char *name, const char *data, size_t n)
{
    char *path = nd_xasprintf("%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

/* Removes path (when not NULL) and dir, freeing both names. */
static void drop(char *path, char *dir)
{
    if (path)
        unlink(path);
    free(path);
    rmdir(dir);
    free(dir);
}

static void test_read_file(void **state)
{
    (void)state;
    char *dir = store_tmpdir("buf");
    char *path = put(dir, "f", "a\0b\nc", 5);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, ">");
    assert_int_equal(nd_buf_read_file(&b, path), 0); /* appends */
    assert_int_equal(b.len, 6);
    assert_memory_equal(b.data, ">a\0b\nc", 7); /* and stays NUL-terminated */
    nd_buf_release(&b);
    drop(path, dir);
}

static void test_read_empty_file(void **state)
{
    (void)state;
    char *dir = store_tmpdir("buf");
    char *path = put(dir, "empty", "", 0);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, path), 0);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    nd_buf_release(&b);
    drop(path, dir);
}

static void test_read_missing_file(void **state)
{
    (void)state;
    char *dir = store_tmpdir("buf");
    char *path = nd_xasprintf("%s/missing", dir);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "kept");
    errno = 0;
    assert_int_equal(nd_buf_read_file(&b, path), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(b.data, "kept");
    /* a directory opens but does not read */
    errno = 0;
    assert_int_equal(nd_buf_read_file(&b, dir), -1);
    assert_int_equal(errno, EISDIR);
    assert_string_equal(b.data, "kept");
    nd_buf_release(&b);
    drop(path, dir);
}

/* Larger than the first allocation (64 bytes) and than one read (64 KiB). */
static void test_read_large_file(void **state)
{
    (void)state;
    size_t n = 200 * 1024 + 7;
    char *data = nd_xmalloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + i % 26);
    char *dir = store_tmpdir("buf");
    char *path = put(dir, "large", data, n);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_file(&b, path), 0);
    assert_int_equal(b.len, n);
    assert_memory_equal(b.data, data, n);
    assert_int_equal(b.data[n], '\0');
    nd_buf_release(&b);
    free(data);
    drop(path, dir);
}

/* A capped buffer takes a file of exactly its cap and refuses one byte more. */
static void test_read_capped(void **state)
{
    (void)state;
    char *dir = store_tmpdir("buf");
    char *path = put(dir, "ten", "0123456789", 10);
    struct nd_buf b;
    nd_buf_init(&b, 10);
    assert_int_equal(nd_buf_read_file(&b, path), 0);
    assert_string_equal(b.data, "0123456789");
    assert_false(b.overflow);
    nd_buf_release(&b);
    nd_buf_init(&b, 9);
    errno = 0;
    assert_int_equal(nd_buf_read_file(&b, path), -1);
    assert_int_equal(errno, EFBIG);
    assert_true(b.overflow);
    assert_int_equal(b.len, 0);
    nd_buf_release(&b);
    drop(path, dir);
}

/* A pipe: several writes, read to its end; the fd stays open. */
static void test_read_fd_pipe(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "one,", 4), 4);
    assert_int_equal(write(fds[1], "two", 3), 3);
    close(fds[1]);
    struct nd_buf b = ND_BUF_INIT;
    assert_int_equal(nd_buf_read_fd(&b, fds[0]), 0);
    assert_string_equal(b.data, "one,two");
    assert_int_equal(b.len, 7);
    assert_int_not_equal(fcntl(fds[0], F_GETFD), -1);
    assert_int_equal(nd_buf_read_fd(&b, fds[0]), 0); /* at its end: nothing more */
    assert_int_equal(b.len, 7);
    close(fds[0]);
    errno = 0;
    assert_int_equal(nd_buf_read_fd(&b, fds[0]), -1); /* closed */
    assert_int_equal(errno, EBADF);
    nd_buf_release(&b);
}

/* nd_buf_take hands out pending bytes in pieces, then empties the buffer. */
static void test_take(void **state)
{
    (void)state;
    struct nd_buf b = ND_BUF_INIT;
    size_t taken = 0;
    char out[8];
    assert_int_equal(nd_buf_take(&b, &taken, out, sizeof out), 0); /* nothing yet */
    nd_buf_adds(&b, "0123456789");
    assert_int_equal(nd_buf_take(&b, &taken, out, 4), 4);
    assert_memory_equal(out, "0123", 4);
    assert_int_equal(taken, 4);
    assert_int_equal(nd_buf_take(&b, &taken, out, sizeof out), 6);
    assert_memory_equal(out, "456789", 6);
    assert_int_equal(taken, 0); /* all handed out: emptied */
    assert_int_equal(b.len, 0);
    assert_int_equal(nd_buf_take(&b, &taken, out, sizeof out), 0);
    nd_buf_adds(&b, "ab"); /* appended after: handed out from the start */
    assert_int_equal(nd_buf_take(&b, &taken, out, 1), 1);
    nd_buf_adds(&b, "c"); /* appended while partly handed out */
    assert_int_equal(nd_buf_take(&b, &taken, out, sizeof out), 2);
    assert_memory_equal(out, "bc", 2);
    assert_int_equal(taken, 0);
    nd_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_file),         cmocka_unit_test(test_read_empty_file),
        cmocka_unit_test(test_read_missing_file), cmocka_unit_test(test_read_large_file),
        cmocka_unit_test(test_read_capped),       cmocka_unit_test(test_read_fd_pipe),
        cmocka_unit_test(test_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
