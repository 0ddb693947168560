/* Hostile ONNX models built byte by byte (issue 41), through the library:
 * nesting past the limit is refused before protobuf-c unpacks it (20,000
 * nested If subgraphs overflowed its recursion), and the shape rules have
 * no integer overflow (run under UBSan in CI): every Slice of a small
 * axis, with starts, ends and steps up to +-INT64_MAX and INT64_MIN, gets
 * the length a brute-force walk of ONNX's definition counts, and Pad with
 * pads of 2^62 is refused as out of range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx.h"
#include "testlib.h"

/* A growing byte buffer and the protobuf wire encoding. */
typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void put(wbuf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = 2 * (b->n + n) + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_varint(wbuf *b, uint64_t v)
{
    uint8_t c[10];
    size_t n = 0;
    while (v >= 128) {
        c[n++] = (uint8_t)(v | 128);
        v >>= 7;
    }
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

/* Appends m as sub-message `field` of b and frees m. */
static void put_msg(wbuf *b, int field, wbuf *m)
{
    put_bytes(b, field, m->p, m->n);
    free(m->p);
    memset(m, 0, sizeof *m);
}

/* GraphProto.initializer: an int64 vector. */
static void int64_init(wbuf *graph, const char *name, const int64_t *v, int n)
{
    wbuf t = {0};
    put_int(&t, 1, (uint64_t)n);       /* dims */
    put_int(&t, 2, 7);                 /* data_type INT64 */
    put_str(&t, 8, name);
    uint8_t raw[8 * 8];
    for (int k = 0; k < n; k++)
        for (int q = 0; q < 8; q++)
            raw[8 * k + q] = (uint8_t)((uint64_t)v[k] >> (8 * q));
    put_bytes(&t, 9, raw, (size_t)n * 8); /* raw_data, little-endian */
    put_msg(graph, 5, &t);
}

/* GraphProto.input: a float tensor of fixed shape. */
static void float_input(wbuf *graph, const char *name, const int64_t *dims, int rank)
{
    wbuf shape = {0}, tt = {0}, tp = {0}, vi = {0};
    for (int k = 0; k < rank; k++) {
        wbuf d = {0};
        put_int(&d, 1, (uint64_t)dims[k]); /* dim_value */
        put_msg(&shape, 1, &d);
    }
    put_int(&tt, 1, 1); /* elem_type FLOAT */
    put_msg(&tt, 2, &shape);
    put_msg(&tp, 1, &tt); /* tensor_type */
    put_str(&vi, 1, name);
    put_msg(&vi, 2, &tp);
    put_msg(graph, 11, &vi);
}

static void node(wbuf *graph, const char *op, const char *name, const char *const *in, int n_in, const char *out)
{
    wbuf nd = {0};
    for (int k = 0; k < n_in; k++)
        put_str(&nd, 1, in[k]);
    put_str(&nd, 2, out);
    put_str(&nd, 3, name);
    put_str(&nd, 4, op);
    put_msg(graph, 1, &nd);
}

/* ModelProto of opset 13 around graph (freed), with output y. */
static wbuf model(wbuf *graph)
{
    wbuf m = {0}, op = {0}, out = {0};
    put_str(&out, 1, "y");
    put_msg(graph, 12, &out);
    put_int(&m, 1, 7); /* ir_version */
    put_int(&op, 2, 13);
    put_msg(&m, 8, &op);
    put_msg(&m, 7, graph);
    return m;
}

/* Imports bytes; the Slice's (node "s") last dimension, or -1 when refused. */
static int64_t import_len(wbuf *m, lf_status *st)
{
    lf_graph *g = NULL;
    *st = lf_onnx_import_memory(m->p, m->n, "hostile.onnx", NULL, &g, NULL);
    int64_t w = -1;
    if (*st == LF_OK && g) {
        int32_t s = lf_graph_find(g, "s");
        w = s >= 0 ? g->ops[s].out.w : -2;
    }
    lf_graph_free(g);
    free(m->p);
    return w;
}

/* X[:, :, :, start:end:step] of X = [1, 2, 3, dim]. */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step, lf_status *st)
{
    wbuf gr = {0};
    int64_t dims[4] = {1, 2, 3, dim}, axes = 3;
    float_input(&gr, "x", dims, 4);
    int64_init(&gr, "starts", &start, 1);
    int64_init(&gr, "ends", &end, 1);
    int64_init(&gr, "axes", &axes, 1);
    int64_init(&gr, "steps", &step, 1);
    const char *in[] = {"x", "starts", "ends", "axes", "steps"};
    node(&gr, "Slice", "s", in, 5, "y");
    wbuf m = model(&gr);
    return import_len(&m, st);
}

/* ONNX's Slice with a positive step by its definition, walking the indices
 * (at most dim of them): negative start and end count from the end, both
 * are clamped to [0, dim], and start, start+step, ... before end are taken. */
static int64_t brute_len(int64_t dim, int64_t b, int64_t e, int64_t step)
{
    if (b < 0)
        b += dim;
    if (e < 0)
        e += dim;
    b = b < 0 ? 0 : b > dim ? dim : b;
    e = e < 0 ? 0 : e > dim ? dim : e;
    int64_t n = 0;
    for (int64_t i = b; i < e; i += step) {
        n++;
        if (e - i <= step)
            break; /* the next index would be past the end (and might not fit) */
    }
    return n;
}

static void test_slice_extremes(void)
{
    /* 320 imports: kept small, the sanitizer build runs them too */
    const int64_t vals[] = {INT64_MIN, -33, -1, 0, 5, 32, 33, INT64_MAX};
    const int64_t steps[] = {1, 3, 32, ((int64_t)1 << 62), INT64_MAX};
    const size_t nv = sizeof vals / sizeof vals[0];
    int mismatches = 0;
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++)
        for (size_t b = 0; b < nv; b++)
            for (size_t e = 0; e < nv; e++) {
                lf_status st;
                int64_t got = slice_len(32, vals[b], vals[e], steps[s], &st);
                int64_t want = brute_len(32, vals[b], vals[e], steps[s]);
                /* an empty result is refused ("an empty output tensor") */
                if (want == 0 ? st == LF_OK : got != want) {
                    if (mismatches++ < 5)
                        fprintf(stderr, "Slice [%lld:%lld:%lld] of 32: %lld elements, brute force %lld (%s)\n",
                                (long long)vals[b], (long long)vals[e], (long long)steps[s], (long long)got,
                                (long long)want, st == LF_OK ? "ok" : lf_last_error());
                }
            }
    CHECK_EQ_I64(mismatches, 0);
    /* The case: X[:, :, 0:32:INT64_MAX] has one row. */
    lf_status st;
    CHECK_EQ_I64(slice_len(32, 0, 32, INT64_MAX, &st), 1);
    CHECK_OK(st);
    /* Negative steps are computed without overflow, then refused by the
     * lowering (the IR's Slice steps forward). */
    const int64_t neg[] = {-1, -2, -INT64_MAX, INT64_MIN};
    for (size_t k = 0; k < sizeof neg / sizeof neg[0]; k++) {
        CHECK_EQ_I64(slice_len(32, -1, INT64_MIN, neg[k], &st), -1);
        CHECK(st == LF_EUNSUPPORTED && strstr(lf_last_error(), "negative step"));
        CHECK_EQ_I64(slice_len(32, INT64_MAX, -INT64_MAX, neg[k], &st), -1);
        CHECK(st == LF_EUNSUPPORTED && strstr(lf_last_error(), "negative step"));
    }
}

/* Pad whose pads (input 1) are `pads` on the last axis' both ends. */
static lf_status pad_with(int64_t before, int64_t after)
{
    wbuf gr = {0};
    int64_t dims[4] = {1, 2, 3, 4}, pads[8] = {0, 0, 0, before, 0, 0, 0, after};
    float_input(&gr, "x", dims, 4);
    int64_init(&gr, "pads", pads, 8);
    const char *in[] = {"x", "pads"};
    node(&gr, "Pad", "s", in, 2, "y");
    wbuf m = model(&gr);
    lf_status st;
    import_len(&m, &st);
    return st;
}

static void test_pad_extremes(void)
{
    const int64_t big[][2] = {{(int64_t)1 << 62, (int64_t)1 << 62}, {INT64_MAX, INT64_MAX}, {INT64_MAX, 0},
                              {INT64_MIN, 0}, {INT64_MIN, INT64_MIN}, {65537, 0}, {-5, 0}};
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
        lf_status st = pad_with(big[k][0], big[k][1]);
        CHECK_EQ_I64(st, LF_ERANGE);
        CHECK(strstr(lf_last_error(), "hostile.onnx: node 's' (Pad): padding out of range") != NULL);
    }
}

/* A ModelProto whose graph nests n If nodes, each in the last one's
 * then_branch, built from the inside out. */
static wbuf nested_ifs(int n)
{
    wbuf g = {0};
    for (int k = 0; k < n; k++) {
        wbuf attr = {0}, nd = {0}, outer = {0};
        put_str(&attr, 1, "then_branch");
        put_bytes(&attr, 6, g.p, g.n);
        put_str(&nd, 4, "If");
        put_msg(&nd, 5, &attr);
        put_msg(&outer, 1, &nd);
        free(g.p);
        g = outer;
    }
    wbuf m = {0}, op = {0};
    put_int(&m, 1, 7);
    put_int(&op, 2, 13);
    put_msg(&m, 8, &op);
    put_msg(&m, 7, &g);
    return m;
}

static void test_nesting(void)
{
    /* 5,000 levels: protobuf-c's recursion overflowed the stack. */
    wbuf m = nested_ifs(5000);
    lf_graph *g = NULL;
    lf_status st = lf_onnx_import_memory(m.p, m.n, "deep.onnx", NULL, &g, NULL);
    CHECK_EQ_I64(st, LF_ERANGE);
    CHECK(strstr(lf_last_error(), "deep.onnx: field 'node' of GraphProto at byte 967 nests messages more than 100 "
                                  "levels deep") != NULL);
    free(m.p);
    /* The limit is exact: 33 Ifs reach depth 100 and are unpacked (If is
     * then an unsupported op); 34 reach depth 101. */
    m = nested_ifs(33);
    st = lf_onnx_import_memory(m.p, m.n, "d33.onnx", NULL, &g, NULL);
    CHECK(st == LF_EUNSUPPORTED && strstr(lf_last_error(), "op type If is not supported"));
    free(m.p);
    m = nested_ifs(34);
    st = lf_onnx_import_memory(m.p, m.n, "d34.onnx", NULL, &g, NULL);
    CHECK(st == LF_ERANGE && strstr(lf_last_error(), "at byte 854 nests messages more than 100 levels deep"));
    free(m.p);
    CHECK(g == NULL);
}

/* The importer unpacks a model without its initializers and reads each one
 * in place from the bytes (onnx_strip.c); protobuf's rules must hold as if
 * protobuf-c had read it all: a graph written as two `graph` fields is one
 * graph (here its initializer in the first, its node in the second), and of
 * two raw_data fields in one tensor the last one counts. */
static void test_initializers_in_place(void)
{
    wbuf g1 = {0}, g2 = {0}, t = {0}, m = {0}, op = {0}, out = {0};
    int64_t dims[4] = {1, 1, 1, 4};
    float_input(&g1, "x", dims, 4);
    float wrong[4] = {9, 9, 9, 9}, w[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    put_int(&t, 1, 4); /* dims */
    put_int(&t, 2, 1); /* data_type FLOAT */
    put_bytes(&t, 9, wrong, sizeof wrong);
    put_str(&t, 8, "w");
    put_bytes(&t, 9, w, sizeof w); /* the raw_data that counts */
    put_msg(&g1, 5, &t);
    const char *in[2] = {"x", "w"};
    node(&g2, "Add", "a", in, 2, "y");
    put_str(&out, 1, "y");
    put_msg(&g2, 12, &out);
    put_int(&m, 1, 7);
    put_int(&op, 2, 13);
    put_msg(&m, 8, &op);
    put_msg(&m, 7, &g1);
    put_msg(&m, 7, &g2);
    lf_graph *g = NULL;
    lf_status st = lf_onnx_import_memory(m.p, m.n, "split.onnx", NULL, &g, NULL);
    CHECK(st == LF_OK);
    int found = 0;
    for (int32_t c = 0; g && c < g->n_consts; c++)
        if (g->consts[c].data && g->consts[c].shape.n * g->consts[c].shape.c * g->consts[c].shape.h *
                                         g->consts[c].shape.w == 4) {
            found = 1;
            CHECK(memcmp(g->consts[c].data, w, sizeof w) == 0);
        }
    CHECK(found);
    lf_graph_free(g);
    /* Cut inside the second raw_data: refused, never read past the end. */
    st = lf_onnx_import_memory(m.p, m.n - 30, "cut.onnx", NULL, &g, NULL);
    CHECK(st != LF_OK && !g);
    free(m.p);
}

int main(void)
{
    test_nesting();
    test_slice_extremes();
    test_pad_extremes();
    test_initializers_in_place();
    return lf_test_result();
}
