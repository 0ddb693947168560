/* Runs a libFuzzer harness over the files of its committed corpus, for
 * builds without libFuzzer: every ctest run (and the sanitizer build)
 * replays the seeds and the findings fixed so far. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int files = 0;
    for (int a = 1; a < argc; a++) {
        DIR *d = opendir(argv[a]);
        if (!d) {
            fprintf(stderr, "cannot open corpus folder %s\n", argv[a]);
            return 1;
        }
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            FILE *f = fopen(path, "rb");
            if (!f)
                continue;
            size_t cap = 1 << 16, n = 0;
            uint8_t *buf = malloc(cap);
            for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
                n += got;
                if (n == cap) {
                    uint8_t *b = realloc(buf, cap *= 2);
                    if (!b) {
                        free(buf);
                        buf = NULL;
                    } else {
                        buf = b;
                    }
                }
            }
            fclose(f);
            if (!buf)
                return 1;
            LLVMFuzzerTestOneInput(buf, n);
            free(buf);
            files++;
        }
        closedir(d);
    }
    printf("%d corpus inputs replayed\n", files);
    return files > 0 ? 0 : 1; /* an empty corpus is a mistake, not a pass */
}
