/* replay_main.c - runs a libFuzzer harness over files, without libFuzzer:
 * every file named on the command line, or in a folder named there, is fed
 * once to LLVMFuzzerTestOneInput.  Built with the normal (gcc, ASan+UBSan)
 * test build, so every committed corpus file and crash reproducer is a
 * regression test even where clang is missing. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay__file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 65536 > cap) {
            cap = (n + 65536) * 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, 65536, f);
        n += got;
    } while (got > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "no such file or folder: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad |= replay__file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            bad |= replay__file(p);
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("replayed %d file(s)\n", files);
    return bad || files == 0;
}
