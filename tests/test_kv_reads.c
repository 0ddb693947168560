/* The re-reads of a streamed causal K/V (planner/cost/attn.c, DESIGN §16):
 * lf__kv_reads sums them in closed form per run of query tiles inside one
 * stack of grouped-query rows; here they are counted again tile by tile from
 * the definition, over random parameter sets and Llama-sized cases, and
 * lf__kv_reads_floor, which lets lf__cheapest stop walking down the tile
 * heights, is checked to stay at or below every height's reads and to grow
 * only as the tiles shrink.
 *
 * The definition: hq query rows are g stacks of nq = hq / g queries (one per
 * query head of a key/value head; g = 0: not causal, every row sees every
 * key); row q is query t = q mod nq and sees the keys j <= t + nk - nq
 * (DESIGN §16 and the executor's causal softmax, planner/exec/k_reduce.c;
 * with fewer keys than queries, torch's mask: the first min(t + 1, nk)).
 * Query tiles of h rows are [i h, min((i + 1) h, hq)), r = ceil(hq / h) of
 * them. A tile reads, for every head, the key blocks of bc rows at or
 * before its diagonal: whole blocks below it, and of the block across it the
 * keys some row of the tile sees (no row needs the rest, so bc moves no
 * DRAM, docs/cost-models.md). Every head's mask is the same, and heads in
 * flight together or one after another read the same rows, so the key rows
 * of one head times the heads are the key-row reads; a head's key row is
 * bytes / (nk heads). */
#include <stdint.h>
#include <stdio.h>

#include "planner/cost/cost_internal.h"
#include "planner/util/rng.h"
#include "testlib.h"

typedef struct kvcase {
    int64_t hq, nk, bytes, heads;
    int32_t g;
} kvcase;

/* Failures by kind; the first few of each are printed with their case. */
enum { F_WALK, F_FLOOR_LE, F_FLOOR_MONO, F_FLOOR_MIN, F_FLOOR_EXACT, F_KINDS };
static const char *kind_name[F_KINDS] = {"closed form != tile walk", "floor > reads",
                                         "floor falls as the tiles shrink",
                                         "floor > reads at a smaller height",
                                         "floor != its value on aligned tiles"};
static int64_t failures[F_KINDS], compared[F_KINDS];

static void tally(int kind, int ok, const kvcase *c, int64_t h, int64_t got, int64_t want)
{
    compared[kind]++;
    if (ok)
        return;
    if (failures[kind]++ < 4)
        fprintf(stderr, "%s: hq %lld nk %lld g %d bytes %lld heads %lld h %lld: %lld vs %lld\n",
                kind_name[kind], (long long)c->hq, (long long)c->nk, c->g, (long long)c->bytes,
                (long long)c->heads, (long long)h, (long long)got, (long long)want);
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The keys row q sees. */
static int64_t seen(const kvcase *c, int64_t q)
{
    if (c->g == 0)
        return c->nk;
    int64_t nq = c->hq / c->g;
    if (nq < 1)
        nq = 1;
    int64_t last = q % nq + c->nk - nq; /* the last key it sees */
    if (last < q % nq)
        last = q % nq; /* fewer keys than queries: keys up to its own index */
    return last + 1 < c->nk ? last + 1 : c->nk;
}

/* The K/V bytes of r = ceil(hq / h) tiles of h rows, walked tile by tile
 * and key block by key block. */
static int64_t walk(const kvcase *c, int64_t h, int64_t bc)
{
    int64_t reads = 0; /* key rows of one head */
    for (int64_t first = 0; first < c->hq; first += h) {
        int64_t end = first + h < c->hq ? first + h : c->hq, keys = 0;
        for (int64_t q = first; q < end; q++) { /* the union of the rows' prefixes */
            int64_t k = seen(c, q);
            keys = k > keys ? k : keys;
        }
        for (int64_t b0 = 0; b0 < keys; b0 += bc) /* blocks at or before the diagonal */
            reads += (b0 + bc < keys ? b0 + bc : keys) - b0;
    }
    int64_t total = reads * c->heads; /* key rows of every head */
    CHECK(total <= INT64_MAX / c->bytes);
    return total * c->bytes / (c->nk * c->heads);
}

static int64_t reads(const kvcase *c, int64_t h)
{
    return lf__kv_reads(c->hq, c->nk, c->bytes, c->g, cdiv(c->hq, h), h);
}

static int64_t floor_of(const kvcase *c, int64_t h)
{
    return lf__kv_reads_floor(c->hq, c->nk, c->bytes, c->g, cdiv(c->hq, h), h);
}

/* The floor where it is known exactly: hq = g nq, h dividing nq and
 * nk >= nq. Every tile lies in one stack and its last query is t = (k + 1)
 * h - 1 for the k-th tile of the stack; the floor counts t from the tile
 * ends' lowest places, h - 1 below, so it is the reads less g (nq / h)
 * (h - 1) key rows (nothing at h = 1, where it is tight). */
static void check_aligned_floor(const kvcase *c, int64_t h, int64_t fl, int64_t rd)
{
    if (c->g == 0 || c->hq % c->g || c->nk < c->hq / c->g || (c->hq / c->g) % h ||
        c->bytes % c->nk)
        return;
    int64_t row = c->bytes / c->nk, gap = (int64_t)c->g * (c->hq / c->g / h) * (h - 1) * row;
    tally(F_FLOOR_EXACT, fl == rd - gap, c, h, fl, rd - gap);
}

/* Checks the heights hs[0..n) (ascending): the closed form against the walk
 * (at every height when walk_at is NULL, else where walk_at[i]), the floor
 * at or below the reads and not below the floor of any larger height, and
 * at or below the reads of every smaller height (what lf__cheapest needs). */
static void check_heights(const kvcase *c, const int64_t *hs, const uint8_t *walk_at, int32_t n,
                          lf_rng *rng)
{
    int64_t min_reads = INT64_MAX, prev_floor = INT64_MAX;
    for (int32_t i = 0; i < n; i++) {
        int64_t h = hs[i], rd = reads(c, h), fl = floor_of(c, h);
        if (!walk_at || walk_at[i]) {
            /* any key block gives the same bytes: the online softmax's
             * min(h, nk), whole key rows or any other; past 256 rows at
             * least 256 keys, which keeps the walk fast */
            int64_t bc = 1 + (int64_t)lf_rng_below(rng, (uint32_t)c->nk);
            uint32_t way = lf_rng_below(rng, 3);
            if (way < 2)
                bc = way == 0 && h < c->nk ? h : c->nk;
            if (c->hq > 256 && bc < 256)
                bc = c->nk < 256 ? c->nk : 256;
            int64_t w = walk(c, h, bc);
            tally(F_WALK, rd == w, c, h, rd, w);
        }
        if (rd < min_reads)
            min_reads = rd;
        tally(F_FLOOR_LE, fl <= rd, c, h, fl, rd);
        tally(F_FLOOR_MIN, fl <= min_reads, c, h, fl, min_reads);
        if (i > 0)
            tally(F_FLOOR_MONO, fl <= prev_floor, c, h, fl, prev_floor);
        prev_floor = fl;
        check_aligned_floor(c, h, fl, rd);
    }
}

/* Bytes of a K/V: whole key rows of dh elements per head (act bytes each),
 * or any count (the closed form rounds rows x bytes / nk down). */
static int64_t random_bytes(lf_rng *rng, int64_t nk, int64_t heads)
{
    if (lf_rng_bernoulli(rng, 0.25))
        return 1 + (int64_t)lf_rng_below(rng, 1u << 20);
    static const int64_t act[3] = {1, 2, 4};
    return nk * heads * (1 + (int64_t)lf_rng_below(rng, 128)) * act[lf_rng_below(rng, 3)];
}

/* Small random cases, every height 1..hq: causal or not, 1-8 stacks (most
 * a divisor of the rows, as the executor requires, some not: the cost
 * model takes any graph), as many keys as queries per stack, more (a
 * context before them) or fewer (torch's mask). */
static void test_random_small(void)
{
    lf_rng rng;
    lf_rng_seed(&rng, 35, 1);
    int64_t hs[200];
    for (int32_t it = 0; it < 1000; it++) {
        kvcase c = {0};
        c.g = lf_rng_bernoulli(&rng, 0.1) ? 0 : 1 + (int32_t)lf_rng_below(&rng, 8);
        int64_t nq = 1 + (int64_t)lf_rng_below(&rng, 48);
        c.hq = c.g ? nq * c.g : nq;
        if (lf_rng_bernoulli(&rng, 0.15))
            c.hq = 1 + (int64_t)lf_rng_below(&rng, 200); /* g need not divide the rows */
        if (c.hq > 200)
            c.hq = 200;
        int64_t nqs = c.g && c.hq / c.g > 0 ? c.hq / c.g : 1;
        switch (lf_rng_below(&rng, 4)) {
        case 0: c.nk = nqs; break;
        case 1: c.nk = nqs + 1 + (int64_t)lf_rng_below(&rng, 64); break;
        case 2: c.nk = 1 + (int64_t)lf_rng_below(&rng, (uint32_t)nqs); break;
        default: c.nk = 1 + (int64_t)lf_rng_below(&rng, 256); break;
        }
        c.heads = 1 + (int64_t)lf_rng_below(&rng, 8);
        c.bytes = random_bytes(&rng, c.nk, c.heads);
        for (int64_t h = 1; h <= c.hq; h++)
            hs[h - 1] = h;
        check_heights(&c, hs, NULL, (int32_t)c.hq, &rng);
    }
}

/* The balanced heights ceil(hq / R), ascending; n of them. */
static int32_t balanced(int64_t hq, int64_t *hs, int32_t cap)
{
    int32_t n = 0;
    for (int64_t r = hq; r >= 1 && n < cap; r--) {
        int64_t h = cdiv(hq, r);
        if (n == 0 || hs[n - 1] != h)
            hs[n++] = h;
    }
    return n;
}

/* Mid-sized random cases (up to 4,096 rows), every balanced height, the
 * walk at about one in four of them. */
static void test_random_balanced(void)
{
    lf_rng rng;
    lf_rng_seed(&rng, 35, 2);
    static int64_t hs[400];
    static uint8_t at[400];
    for (int32_t it = 0; it < 60; it++) {
        kvcase c = {0};
        c.g = 1 + (int32_t)lf_rng_below(&rng, 8);
        int64_t nq = 64 + (int64_t)lf_rng_below(&rng, 4096 / (uint32_t)c.g - 63);
        c.hq = nq * c.g;
        c.nk = lf_rng_bernoulli(&rng, 0.5) ? nq : nq + (int64_t)lf_rng_below(&rng, 2048);
        c.heads = 1 + (int64_t)lf_rng_below(&rng, 8);
        c.bytes = random_bytes(&rng, c.nk, c.heads);
        int32_t n = balanced(c.hq, hs, 400);
        for (int32_t i = 0; i < n; i++)
            at[i] = lf_rng_below(&rng, 4) == 0 || hs[i] == 1 || hs[i] == c.hq;
        check_heights(&c, hs, at, n, &rng);
    }
}

static int is_listed(const int64_t *v, int32_t n, int64_t x)
{
    for (int32_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* Llama-sized cases at every balanced height, the walk at the heights that
 * matter: Br = 1, 2, 3, tiles just under, at and over 64 and 128 (the
 * straddling tiles of lf__cheapest's comment), at a stack's length and one
 * either side, two stacks, thirds (a partial last tile), Br = N_q - 1 and
 * Br = N_q, and every height of at most 32 tiles. */
static void check_large(const kvcase *c, lf_rng *rng)
{
    static int64_t hs[1200];
    static uint8_t at[1200];
    int32_t n = balanced(c->hq, hs, 1200);
    int64_t nq = c->g ? c->hq / c->g : c->hq;
    int64_t want[] = {1,          2,          3,         63,        64,        65,
                      127,        128,        129,       nq - 1,    nq,        nq + 1,
                      2 * nq - 1, 2 * nq + 1, c->hq / 3, c->hq / 3 + 1, c->hq - 1, c->hq};
    int32_t nw = (int32_t)(sizeof want / sizeof want[0]), walked = 0;
    for (int32_t i = 0; i < n; i++) {
        at[i] = cdiv(c->hq, hs[i]) <= 32;
        /* a wanted height that is not balanced is checked at the balanced
         * one just above it, which has as many tiles */
        for (int32_t k = 0; k < nw && !at[i]; k++)
            at[i] = want[k] >= 1 && want[k] <= c->hq && cdiv(c->hq, cdiv(c->hq, want[k])) == hs[i];
        walked += at[i];
    }
    CHECK(n < 1200);
    CHECK(walked >= 20);
    check_heights(c, hs, at, n, rng);
    /* heights that are not balanced (the closed form takes any) */
    for (int32_t k = 0; k < nw; k++)
        if (want[k] >= 1 && want[k] <= c->hq && !is_listed(hs, n, want[k])) {
            int64_t w = walk(c, want[k], c->nk < 512 ? c->nk : 512), rd = reads(c, want[k]);
            tally(F_WALK, rd == w, c, want[k], rd, w);
            tally(F_FLOOR_LE, floor_of(c, want[k]) <= rd, c, want[k], floor_of(c, want[k]), rd);
        }
}

static void test_llama_sized(void)
{
    lf_rng rng;
    lf_rng_seed(&rng, 35, 3);
    /* Llama-3-8B: 32 query heads over 8 key/value heads, dh 128, int8:
     * K of one layer is 8 heads x N x 128 B; 4 stacks of N query rows. */
    const kvcase cases[] = {
        {4 * 8192, 8192, 8LL * 8192 * 128, 8, 4},          /* N = 8,192 */
        {4 * 16384, 16384, 8LL * 16384 * 128, 8, 4},       /* 65,536 query rows */
        {8 * 8192, 8192, 8LL * 8192 * 128, 8, 8},          /* 65,536 rows in 8 stacks */
        {65536, 65536, 65536LL * 64 * 2, 1, 1},            /* one stack of 65,536 */
        {4 * 2048, 2048, 8LL * 2048 * 128, 8, 4},          /* 128 x 64 against 127 x 65 */
        {4 * 8192, 8192 + 2048, 8LL * 10240 * 128, 8, 4},  /* a context of 2,048 before */
        {4 * 8192 + 3, 8192, 8LL * 8192 * 128 + 77, 8, 4}, /* stacks that do not divide */
        {12 * 1024, 1024, 12LL * 1024 * 64 * 2, 12, 0},    /* GPT-2 sized, not causal */
        {32768, 4096, 4096LL * 128, 1, 1},                 /* fewer keys than queries */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_large(&cases[i], &rng);
}

/* lf__cheapest's comment, figures: Llama-3-8B's 4 x 2,048 stacked query
 * rows in 128 tiles of 64 move less K than in 127 tiles of 65 (a tile
 * across two stacks reads every key); the closed form agrees with the walk
 * at both, and the floor at 65 stays below both. */
static void test_straddle_figures(void)
{
    kvcase c = {4 * 2048, 2048, 2048, 1, 4}; /* one byte per key row */
    int64_t w64 = walk(&c, 64, 64), w65 = walk(&c, 65, 65);
    /* 64: each stack 32 tiles reading 64, 128, ..., 2,048 keys */
    CHECK_EQ_I64(w64, 4LL * 64 * 32 * 33 / 2);
    CHECK(w64 < w65);
    CHECK_EQ_I64(reads(&c, 64), w64);
    CHECK_EQ_I64(reads(&c, 65), w65);
    CHECK(floor_of(&c, 65) <= w64);
    /* Br = 1 reads each query's own prefix: 4 x 2,048 x 2,049 / 2, and the
     * floor is exact there */
    CHECK_EQ_I64(reads(&c, 1), 4LL * 2048 * 2049 / 2);
    CHECK_EQ_I64(floor_of(&c, 1), reads(&c, 1));
    /* Br = N_q: one tile reads every key once */
    CHECK_EQ_I64(reads(&c, c.hq), 2048);
    /* not causal: every tile reads every key */
    kvcase nc = {1000, 300, 4096, 2, 0};
    CHECK_EQ_I64(reads(&nc, 7), cdiv(1000, 7) * 4096);
    CHECK_EQ_I64(floor_of(&nc, 7), cdiv(1000, 7) * 4096);
}

int main(void)
{
    test_straddle_figures();
    test_random_small();
    test_random_balanced();
    test_llama_sized();
    for (int k = 0; k < F_KINDS; k++) {
        printf("%-40s %lld compared, %lld differ\n", kind_name[k], (long long)compared[k],
               (long long)failures[k]);
        CHECK(compared[k] > 0);
        CHECK_EQ_I64(failures[k], 0);
    }
    return lf_test_result();
}
