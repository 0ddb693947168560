/* libFuzzer harness for ONNX external data paths (issue 41): the input is
 * the location of a Conv weight's external data (up to the first NUL, at
 * most 255 bytes), written into a model file inside a model folder that
 * holds a valid data file and the traps: links to files and folders
 * outside it (one to /etc), a link that stays inside, a FIFO (once a hang),
 * a link to /dev/zero, a folder, a link loop. An accepted model must have
 * read a regular file whose real path is inside the folder, named without
 * ".." or a leading "/"; a refusal is one printable line naming the model.
 * The check is the harness's own (realpath and stat), not the importer's.
 *
 * Built by tests/fuzz/CMakeLists.txt; seeds in corpus/onnx_external. */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/graph.h"
#include "planner/io/onnx.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct wbuf {
    uint8_t p[1024];
    size_t n;
} wbuf;

static void put(wbuf *b, const void *d, size_t n)
{
    LF_FUZZ_REQUIRE(b->n + n <= sizeof b->p);
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_varint(wbuf *b, uint64_t v)
{
    uint8_t c[10];
    size_t n = 0;
    for (; v >= 128; v >>= 7)
        c[n++] = (uint8_t)(v | 128);
    c[n++] = (uint8_t)v;
    put(b, c, n);
}

static void put_int(wbuf *b, int field, uint64_t v)
{
    put_varint(b, (uint64_t)field << 3);
    put_varint(b, v);
}

static void put_bytes(wbuf *b, int field, const void *d, size_t n)
{
    put_varint(b, (uint64_t)field << 3 | 2);
    put_varint(b, n);
    put(b, d, n);
}

static void put_str(wbuf *b, int field, const char *s) { put_bytes(b, field, s, strlen(s)); }
static void put_msg(wbuf *b, int field, const wbuf *m) { put_bytes(b, field, m->p, m->n); }

static void entry(wbuf *t, const char *key, const char *value)
{
    wbuf e = {.n = 0};
    put_str(&e, 1, key);
    put_str(&e, 2, value);
    put_msg(t, 13, &e); /* TensorProto.external_data */
}

static void value_info(wbuf *g, int field, const char *name)
{
    static const int64_t dims[4] = {1, 4, 8, 8};
    wbuf shape = {.n = 0}, tt = {.n = 0}, tp = {.n = 0}, vi = {.n = 0};
    for (int k = 0; k < 4; k++) {
        wbuf d = {.n = 0};
        put_int(&d, 1, (uint64_t)dims[k]);
        put_msg(&shape, 1, &d);
    }
    put_int(&tt, 1, 1);
    put_msg(&tt, 2, &shape);
    put_msg(&tp, 1, &tt);
    put_str(&vi, 1, name);
    put_msg(&vi, 2, &tp);
    put_msg(g, field, &vi);
}

/* external.onnx of tests/data/onnx with the weight's location given:
 * y = Conv(x[1,4,8,8], w[4,4,1,1]), w's 64 bytes in external data. */
static void make_model(wbuf *m, const char *location)
{
    wbuf t = {.n = 0}, nd = {.n = 0}, g = {.n = 0}, op = {.n = 0};
    for (int k = 0; k < 4; k++)
        put_int(&t, 1, k < 2 ? 4 : 1); /* dims */
    put_int(&t, 2, 1);                 /* FLOAT */
    put_str(&t, 8, "w");
    entry(&t, "location", location);
    entry(&t, "offset", "0");
    entry(&t, "length", "64");
    put_int(&t, 14, 1); /* data_location EXTERNAL */
    put_str(&nd, 1, "x");
    put_str(&nd, 1, "w");
    put_str(&nd, 2, "y");
    put_str(&nd, 3, "conv");
    put_str(&nd, 4, "Conv");
    put_msg(&g, 1, &nd);
    put_msg(&g, 5, &t);
    value_info(&g, 11, "x");
    value_info(&g, 12, "y");
    m->n = 0;
    put_int(m, 1, 7);
    put_int(&op, 2, 13);
    put_msg(m, 8, &op);
    put_msg(m, 7, &g);
}

static char lf__root[PATH_MAX], lf__model_dir[PATH_MAX + 16], lf__model[PATH_MAX + 32];

static void write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    LF_FUZZ_REQUIRE(f != NULL);
    LF_FUZZ_REQUIRE(fwrite(d, 1, n, f) == n);
    LF_FUZZ_REQUIRE(fclose(f) == 0);
}

/* Removes what setup made (at exit). */
static void cleanup(void)
{
    static const char *const made[] = {"model/m.onnx", "model/fifo", "model/abs_in", "model/sub/up", "model/loop",
                                       "model/zero", "model/etclink", "model/dirlink", "model/link_out",
                                       "model/link_in", "model/sub/w.bin", "model/w.bin", "model/dir",
                                       "model/sub", "model", "outside/secret.bin", "outside", ""};
    char p[PATH_MAX + 64];
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++) {
        snprintf(p, sizeof p, "%s/%s", lf__root, made[k]);
        if (unlink(p) != 0)
            rmdir(p);
    }
}

/* The folders, once per process, in a fresh folder under /tmp. */
static void setup(void)
{
    char tmpl[] = "/tmp/lf_fuzz_external.XXXXXX", p[PATH_MAX + 64];
    LF_FUZZ_REQUIRE(mkdtemp(tmpl) != NULL);
    LF_FUZZ_REQUIRE(realpath(tmpl, lf__root) != NULL);
    atexit(cleanup);
    float w[16] = {0};
    snprintf(p, sizeof p, "%s/outside", lf__root);
    LF_FUZZ_REQUIRE(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/outside/secret.bin", lf__root);
    write_file(p, w, sizeof w);
    snprintf(lf__model_dir, sizeof lf__model_dir, "%s/model", lf__root);
    LF_FUZZ_REQUIRE(mkdir(lf__model_dir, 0755) == 0);
    static const char *const dirs[] = {"sub", "dir"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s", lf__model_dir, dirs[k]);
        LF_FUZZ_REQUIRE(mkdir(p, 0755) == 0);
    }
    static const char *const files[] = {"w.bin", "sub/w.bin"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s", lf__model_dir, files[k]);
        write_file(p, w, sizeof w);
    }
    static const char *const links[][2] = {{"link_in", "sub/w.bin"},    {"link_out", "../outside/secret.bin"},
                                           {"dirlink", "../outside"},    {"etclink", "/etc"},
                                           {"zero", "/dev/zero"},        {"loop", "loop"},
                                           {"sub/up", "../w.bin"},       {"abs_in", "ABSOLUTE_INSIDE"}};
    for (size_t k = 0; k < sizeof links / sizeof links[0]; k++) {
        char target[PATH_MAX + 64];
        if (strcmp(links[k][1], "ABSOLUTE_INSIDE") == 0) /* an absolute link that stays inside */
            snprintf(target, sizeof target, "%s/w.bin", lf__model_dir);
        else
            snprintf(target, sizeof target, "%s", links[k][1]);
        snprintf(p, sizeof p, "%s/%s", lf__model_dir, links[k][0]);
        LF_FUZZ_REQUIRE(symlink(target, p) == 0);
    }
    snprintf(p, sizeof p, "%s/fifo", lf__model_dir);
    LF_FUZZ_REQUIRE(mkfifo(p, 0644) == 0);
    snprintf(lf__model, sizeof lf__model, "%s/m.onnx", lf__model_dir);
}

/* The harness's own verdict on a location the importer accepted. */
static int inside_regular(const char *loc)
{
    if (!loc[0] || loc[0] == '/')
        return 0;
    for (const char *q = loc; *q;) {
        size_t k = strcspn(q, "/");
        if (k == 2 && q[0] == '.' && q[1] == '.')
            return 0;
        q += k + (q[k] == '/');
    }
    char path[2 * PATH_MAX], real[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", lf__model_dir, loc);
    struct stat sb;
    if (!realpath(path, real) || stat(real, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    size_t n = strlen(lf__model_dir);
    return strncmp(real, lf__model_dir, n) == 0 && real[n] == '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!lf__model[0])
        setup();
    char loc[256];
    size_t n = 0;
    while (n < size && n < sizeof loc - 1 && data[n])
        loc[n] = (char)data[n], n++;
    loc[n] = '\0';
    wbuf m;
    make_model(&m, loc);
    write_file(lf__model, m.p, m.n);
    lf_graph *g = NULL;
    lf_onnx_report *rep = NULL;
    if (lf_onnx_import(lf__model, NULL, &g, &rep) == LF_OK) {
        LF_FUZZ_REQUIRE(g != NULL && rep != NULL);
        LF_FUZZ_REQUIRE(inside_regular(loc));
        lf_graph_free(g);
        lf_onnx_report_free(rep);
    } else {
        LF_FUZZ_REQUIRE(g == NULL && rep == NULL);
        lf_fuzz_check_message(lf__model);
    }
    return 0;
}
