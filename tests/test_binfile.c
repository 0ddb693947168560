/* The container of the weight and dataset files (planner/util/binfile.h):
 * a round trip, every truncation and every flipped byte refused with one
 * line naming the file, the header fields' own messages, a file past the
 * size cap, and the shipped weight files still loading and saving back to
 * the same bytes (so the container kept the format on disk). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/explainer.h"
#include "explain/weights.h"
#include "planner/util/binfile.h"
#include "planner/util/fileio.h"
#include "search/subst/gso/gso.h"
#include "tests/testlib.h"

static const lf__binfile kind = {"LFTESTF", 3, 0x0123456789abcdefULL, "test file", "remake it"};

/* One line, naming the origin. */
static int one_line(const char *origin)
{
    const char *e = lf_last_error();
    return strchr(e, '\n') == NULL && strncmp(e, origin, strlen(origin)) == 0;
}

/* Header, a u32 and 5 floats, checksum: 20 + 4 + 20 + 8 = 52 bytes. */
static void make(lf__wbuf *b, const lf__binfile *f)
{
    memset(b, 0, sizeof *b);
    lf__bin_begin(b, f);
    lf__w_u32(b, 5);
    for (int i = 0; i < 5; i++)
        lf__w_f32(b, (float)i * 0.5f);
    lf__w_checksum(b);
}

static void test_round_trip(void)
{
    char path[] = "/tmp/lf_binfile_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    lf__wbuf b = {0};
    lf__bin_begin(&b, &kind);
    lf__w_u32(&b, 5);
    for (int i = 0; i < 5; i++)
        lf__w_f32(&b, (float)i * 0.5f);
    CHECK_OK(lf__bin_commit(&b, path));
    CHECK(b.p == NULL && b.len == 0); /* commit frees */
    char *data = NULL;
    size_t len = 0;
    CHECK_OK(lf__bin_read(&kind, path, 1 << 20, &data, &len));
    CHECK_EQ_I64(len, LF__BIN_HEADER + 4 + 20 + LF__BIN_TRAILER);
    /* The header as documented: magic, version 3 little-endian, schema. */
    CHECK(data && memcmp(data, "LFTESTF\0\3\0\0\0\xef\xcd\xab\x89\x67\x45\x23\x01", 20) == 0);
    lf__rbuf r;
    CHECK_OK(lf__bin_open(&kind, data, len, path, &r));
    CHECK_EQ_I64(r.pos, LF__BIN_HEADER);
    CHECK_EQ_I64(r.len, len - LF__BIN_TRAILER);
    CHECK_OK(lf__bin_rest(&kind, &r, 24, path));
    CHECK(lf__bin_rest(&kind, &r, 28, "f") == LF_EPARSE);
    CHECK_STR(lf_last_error(), "f: truncated test file (52 bytes, expected 56)");
    CHECK(lf__bin_rest(&kind, &r, 20, "f") == LF_EPARSE);
    CHECK_STR(lf_last_error(), "f: oversized test file (52 bytes, expected 48)");
    CHECK(lf__bin_rest(&kind, &r, UINT64_MAX, "f") == LF_EPARSE); /* an absurd size from a header */
    CHECK_EQ_I64(lf__r_u32(&r), 5);
    CHECK(lf__bin_done(&kind, &r, path, "the values") == LF_EPARSE); /* 20 bytes left */
    CHECK_STR(strstr(lf_last_error(), "20 bytes after the values"), "20 bytes after the values");
    float sum = 0;
    for (int i = 0; i < 5; i++)
        sum += lf__r_f32(&r);
    CHECK(sum == 5.0f);
    CHECK_OK(lf__bin_done(&kind, &r, path, "the values"));
    (void)lf__r_u32(&r); /* past the end: the checksum is not body */
    CHECK(lf__bin_done(&kind, &r, path, "the values") == LF_EPARSE && one_line(path));
    CHECK(strstr(lf_last_error(), "truncated test file (the values)") != NULL);
    free(data);

    /* The cap: a file longer than it is refused before it is read. */
    CHECK(lf__bin_read(&kind, path, 16, &data, &len) != LF_OK && one_line(path));
    CHECK(data == NULL);
    /* Another kind's file is refused by its magic before the read. */
    lf__binfile other = kind;
    other.magic = "LFOTHER";
    other.what = "other file";
    CHECK(lf__bin_read(&other, path, 1 << 20, &data, &len) == LF_EPARSE && one_line(path));
    CHECK(strstr(lf_last_error(), "not a fusionplan other file (bad magic)") != NULL);
    unlink(path);
    CHECK(lf__bin_read(&kind, path, 1 << 20, &data, &len) == LF_EIO && one_line(path));
}

static void test_corruption(void)
{
    lf__wbuf b;
    make(&b, &kind);
    CHECK(!b.oom && b.len == 52);
    lf__rbuf r;
    CHECK_OK(lf__bin_open(&kind, b.p, b.len, "f.bin", &r));
    /* Every truncation: the magic, then the header, then the checksum says so. */
    for (size_t cut = 0; cut < b.len; cut++) {
        lf_status st = lf__bin_open(&kind, b.p, cut, "f.bin", &r);
        CHECK(st == LF_EPARSE && one_line("f.bin"));
        const char *want = cut < 8 ? "bad magic" : cut < 28 ? "truncated test file (header)" : "checksum mismatch";
        if (!strstr(lf_last_error(), want))
            fprintf(stderr, "cut %zu: %s\n", cut, lf_last_error());
        CHECK(strstr(lf_last_error(), want) != NULL);
    }
    /* Every flipped byte is refused, by the field it falls in. */
    for (size_t at = 0; at < b.len; at++) {
        b.p[at] ^= 0x20;
        lf_status st = lf__bin_open(&kind, b.p, b.len, "f.bin", &r);
        lf_status want = at < 8 ? LF_EPARSE : at < 12 ? LF_EUNSUPPORTED : at < 20 ? LF_EINVAL : LF_EPARSE;
        CHECK_EQ_I64(st, want);
        CHECK(one_line("f.bin"));
        if (at >= 20)
            CHECK(strstr(lf_last_error(), "test file truncated or corrupted (checksum mismatch)") != NULL);
        b.p[at] ^= 0x20;
    }
    b.p[8] = 4;
    CHECK(lf__bin_open(&kind, b.p, b.len, "f.bin", &r) == LF_EUNSUPPORTED);
    CHECK_STR(lf_last_error(), "f.bin: test file format version 4, this build reads version 3");
    b.p[8] = 3;
    b.p[12] ^= 1;
    CHECK(lf__bin_open(&kind, b.p, b.len, "f.bin", &r) == LF_EINVAL);
    CHECK_STR(lf_last_error(), "f.bin: test file made for feature schema 0123456789abcdee, this "
                               "build's is 0123456789abcdef (remake it)");
    b.p[12] ^= 1;
    /* An oversized file: the checksum no longer sits at the end. */
    lf__w_u32(&b, 0);
    CHECK(lf__bin_open(&kind, b.p, b.len, "f.bin", &r) == LF_EPARSE);
    lf__w_free(&b);
    CHECK(lf__bin_open(&kind, NULL, 0, "empty", &r) == LF_EPARSE && one_line("empty"));
}

/* Absurd sizes in a body with a good checksum: the readers bound them
 * before allocating (the GNN's parameter count, the GSO model count). */
static void test_absurd_sizes(void)
{
    lf__wbuf b = {0};
    lf__binfile gnn = {"LFGNNWT", LF_GNN_WEIGHTS_VERSION, lf_feat_schema_hash(), "GNN weight file", ""};
    lf__bin_begin(&b, &gnn);
    lf__w_u32(&b, LF_FEAT_DIM);
    lf__w_u32(&b, 64);
    lf__w_u32(&b, 3);
    lf__w_u32(&b, 2);
    lf__w_u32(&b, 1);
    lf__w_bytes(&b, "lbdf\0\0\0", 8);
    lf__w_u64(&b, UINT64_MAX / 2); /* parameters */
    lf__w_checksum(&b);
    lf_gnn m;
    CHECK(lf_gnn_load_memory(&m, b.p, b.len, "huge.bin", NULL) == LF_EPARSE && one_line("huge.bin"));
    CHECK(strstr(lf_last_error(), "truncated GNN weight file") != NULL);
    lf_gnn_destroy(&m);
    lf__w_free(&b);

    lf__binfile gso = {"LFGSOWT", LF_GSO_WEIGHTS_VERSION, lf_gso_schema_hash(), "GSO weight file", ""};
    memset(&b, 0, sizeof b);
    lf__bin_begin(&b, &gso);
    lf__w_u32(&b, LF_GSO_GCN);
    lf__w_u32(&b, LF_GSO_FEAT_DIM);
    lf__w_u32(&b, LF_GSO_H1);
    lf__w_u32(&b, LF_GSO_H2);
    lf__w_u32(&b, 0xffffffffu); /* models */
    lf__w_u64(&b, (uint64_t)lf_gso_n_params(LF_GSO_GCN));
    lf__w_checksum(&b);
    lf_gso_set s;
    CHECK(lf_gso_load_memory(&s, b.p, b.len, "many.bin") == LF_EPARSE && one_line("many.bin"));
    CHECK(s.n == 0 && s.names == NULL);
    lf__w_free(&b);
}

/* Loads a shipped file and saves it again: the same bytes. */
static void resave(const char *file, int kind_of)
{
    char src[4096], dst[] = "/tmp/lf_binfile_resave_XXXXXX";
    snprintf(src, sizeof src, "%s/explain/weights/%s", LF_SOURCE_DIR, file);
    int fd = mkstemp(dst);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    lf_status st = LF_EINVAL;
    if (kind_of == 0) {
        lf_gnn m;
        if ((st = lf_gnn_load(&m, src, NULL)) == LF_OK)
            st = lf_gnn_save(&m, dst);
        lf_gnn_destroy(&m);
    } else if (kind_of == 1) {
        lf_pgx p;
        if ((st = lf_pgx_load(&p, src)) == LF_OK)
            st = lf_pgx_save(&p, dst);
        lf_pgx_destroy(&p);
    } else if (kind_of == 2) {
        lf_rgx p;
        if ((st = lf_rgx_load(&p, src)) == LF_OK)
            st = lf_rgx_save(&p, dst);
        lf_rgx_destroy(&p);
    } else {
        lf_gso_set s;
        if ((st = lf_gso_load(&s, src)) == LF_OK)
            st = lf_gso_save(&s, dst);
        lf_gso_set_destroy(&s);
    }
    CHECK_OK(st);
    char *a = NULL, *b = NULL;
    long la = 0, lb = 0;
    CHECK_OK(lf_read_file(src, &a, &la));
    CHECK_OK(lf_read_file(dst, &b, &lb));
    if (!(a && b && la == lb && memcmp(a, b, (size_t)la) == 0))
        fprintf(stderr, "%s: saved again, %ld bytes differ from the shipped %ld\n", file, lb, la);
    CHECK(a && b && la == lb && memcmp(a, b, (size_t)la) == 0);
    free(a);
    free(b);
    unlink(dst);
}

static void test_shipped_files(void)
{
    static const char *const gnn[] = {"gnn-lbdf.bin", "gnn-brr.bin"};
    static const char *const pg[] = {"pg-lbdf.bin", "pg-brr.bin"};
    static const char *const rg[] = {"rg-lbdf.bin", "rg-brr.bin"};
    for (int i = 0; i < 2; i++) {
        resave(gnn[i], 0);
        resave(pg[i], 1);
        resave(rg[i], 2);
    }
    resave(LF_GSO_SHIPPED_GCN, 3);
    resave(LF_GSO_SHIPPED_LR, 3);
}

int main(void)
{
    test_round_trip();
    test_corruption();
    test_absurd_sizes();
    test_shipped_files();
    return lf_test_result();
}
