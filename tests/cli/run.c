#include "run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* All of fd, NUL-terminated; its length (without the NUL) in *n if n. */
static char *slurp(int fd, size_t *n)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while (buf && (k = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)k;
        if (cap - len < 2) {
            char *more = realloc(buf, cap * 2);
            if (!more) {
                free(buf);
                return NULL;
            }
            buf = more;
            cap *= 2;
        }
    }
    if (buf)
        buf[len] = '\0';
    if (n)
        *n = len;
    return buf;
}

char *run_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    char *b = slurp(fd, len);
    close(fd);
    return b;
}

run_result run_cmd(char *const argv[], const char *stdin_text)
{
    run_result r = {-1, NULL, NULL};
    char outp[] = "/tmp/tt_run_outXXXXXX", errp[] = "/tmp/tt_run_errXXXXXX", inp[] = "/tmp/tt_run_inXXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp), fi = mkstemp(inp);
    if (fo < 0 || fe < 0 || fi < 0)
        return r;
    if (stdin_text && write(fi, stdin_text, strlen(stdin_text)) < 0)
        return r;
    lseek(fi, 0, SEEK_SET);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    lseek(fo, 0, SEEK_SET);
    lseek(fe, 0, SEEK_SET);
    r.out = slurp(fo, NULL);
    r.err = slurp(fe, NULL);
    close(fo);
    close(fe);
    close(fi);
    unlink(outp);
    unlink(errp);
    unlink(inp);
    return r;
}

void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
