/* The exact planner's state table (downsets, looked up by their bitsets)
 * and its limits: states, candidate sets, memory and time, with the
 * messages that name what was reached (see downsets.h). */
#include "planner/exact/downsets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/clock.h"

/* The pace check (lf__dp_check_budget): from this fraction of the time
 * limit on, a run projected past this many times the limit stops. */
#define LF__PACE_AFTER 8
#define LF__PACE_MARGIN 4

/* What has been reached, for the limit messages. */
static void lf__reached(const lf__exact *x, char *buf, size_t len)
{
    snprintf(buf, len, "%lld states, %lld candidate sets, %lld groups priced, %.1f s, %.1f MB",
             (long long)x->st.states, (long long)x->st.candidates, (long long)x->st.groups,
             lf_now_seconds() - x->t0, (double)x->st.memory_bytes / 1e6);
}

void lf__dp_limit(lf__exact *x, const char *what, int64_t limit, const char *option)
{
    if (x->status != LF_OK)
        return;
    char r[160];
    lf__reached(x, r, sizeof r);
    x->status = lf_set_error(LF_ELIMIT,
                             "exact planner gave up on '%s' at beta %lld B: more than %lld %s "
                             "(reached %s); raise %s or use a heuristic search",
                             x->g->name, (long long)x->beta, (long long)limit, what, r, option);
}

/* Bytes the states take: bitsets, minima, the per-state arrays, the index
 * (key, value and flag per slot) and the size buckets. */
/* The time limit a message names: the caller's, or the tightened one when
 * the caller gave none (a deadline alone). */
static double lf__named_limit(const lf__exact *x)
{
    return x->named_limit_s > 0 ? x->named_limit_s : x->cfg.time_limit_s;
}

static int64_t lf__state_bytes(const lf__exact *x)
{
    return x->cap_states * ((int64_t)x->nwords * 16 + 8 + 3 * 4) + (int64_t)x->index.cap * 17 +
           x->n_states * 4 + (int64_t)x->cap_undo * (int64_t)sizeof(lf__undo);
}

/* Looks at the clock and the memory charge; sets the status past a limit. */
void lf__dp_check_budget(lf__exact *x)
{
    lf_cost_stats cs;
    lf_cost_stats_get(x->cm, &cs);
    int64_t bytes = lf__state_bytes(x) + cs.bytes + x->extra_bytes;
    if (bytes > x->st.memory_bytes)
        x->st.memory_bytes = bytes;
    if (x->status != LF_OK)
        return;
    char r[160];
    double now = lf_now_seconds() - x->t0;
    /* A run whose pace says it would take many times the limit stops as
     * soon as that is clear (NasNet-A at 256 KB: 2% of the sizes in 4 s),
     * not at the limit: a best-effort run spends the rest on bounds
     * instead (planner/app/pipeline.c). The pace is the states expanded per
     * size, which on these networks only slows as groups grow. */
    double pace = x->progress > 0 ? now / x->progress : 0;
    if (x->cfg.time_limit_s > 0 && now > x->cfg.time_limit_s) {
        lf__reached(x, r, sizeof r);
        x->status = lf_set_error(LF_ELIMIT,
                                 "exact planner gave up on '%s' at beta %lld B: time limit of "
                                 "%g s reached (%s); raise --time-limit or use a heuristic search",
                                 x->g->name, (long long)x->beta, lf__named_limit(x), r);
    } else if (x->cfg.time_limit_s > 0 && now >= x->cfg.time_limit_s / LF__PACE_AFTER &&
               pace > LF__PACE_MARGIN * x->cfg.time_limit_s) {
        lf__reached(x, r, sizeof r);
        x->status = lf_set_error(LF_ELIMIT,
                                 "exact planner gave up on '%s' at beta %lld B: time limit of "
                                 "%g s reached early (at this pace the run would take about %.0f s; "
                                 "%s); raise --time-limit or use a heuristic search",
                                 x->g->name, (long long)x->beta, lf__named_limit(x), pace, r);
    } else if (x->cfg.memory_limit > 0 && bytes > x->cfg.memory_limit) {
        lf__reached(x, r, sizeof r);
        x->status = lf_set_error(LF_ELIMIT,
                                 "exact planner gave up on '%s' at beta %lld B: memory limit of "
                                 "%.1f MB reached (%s: %.1f MB of states, %.1f MB of cost memo); "
                                 "raise --memory-limit or use a heuristic search",
                                 x->g->name, (long long)x->beta, (double)x->cfg.memory_limit / 1e6,
                                 r, (double)(lf__state_bytes(x) + x->extra_bytes) / 1e6,
                                 (double)cs.bytes / 1e6);
    }
}

/* ---- states ------------------------------------------------------------- */

static uint64_t lf__words_hash(const uint64_t *w, int32_t n)
{
    lf_bitset b = {n * 64, n, (uint64_t *)w};
    return lf_bitset_hash(&b);
}

/* The state of bitset w, or -1 when there is none; *free_key receives the
 * index key a new state would take. The index maps 64-bit hashes to states;
 * different sets with equal hashes take the next slot of a fixed probe
 * sequence. */
static int32_t lf__dp_lookup(const lf__exact *x, const uint64_t *w, uint64_t *free_key)
{
    uint64_t base = lf__words_hash(w, x->nwords), k = base;
    for (uint64_t probe = 1;; probe++) {
        void *val;
        if (!lf_hashmap_get(&x->index, k, &val))
            break;
        int32_t s = (int32_t)((intptr_t)val - 1);
        if (memcmp(x->words + (size_t)s * x->nwords, w, (size_t)x->nwords * 8) == 0)
            return s;
        k = base + probe * 0x9e3779b97f4a7c15ull;
    }
    if (free_key)
        *free_key = k;
    return -1;
}

/* Finds or creates the state for bitset w; returns its index or -1 on error. */
int32_t lf__dp_state(lf__exact *x, const uint64_t *w, int32_t size)
{
    uint64_t k = 0;
    int32_t found = lf__dp_lookup(x, w, &k);
    if (found >= 0)
        return found;
    if (x->n_states >= x->cfg.max_states) {
        lf__dp_limit(x, "states", x->cfg.max_states, "--max-states");
        return -1;
    }
    if (x->n_states == x->cap_states) {
        int64_t cap = x->cap_states ? x->cap_states * 2 : 1024;
        uint64_t *words = realloc(x->words, (size_t)cap * x->nwords * 8);
        if (words)
            x->words = words;
        int64_t *dram = realloc(x->dram, (size_t)cap * sizeof *dram);
        if (dram)
            x->dram = dram;
        int32_t *groups = realloc(x->groups, (size_t)cap * sizeof *groups);
        if (groups)
            x->groups = groups;
        uint64_t *minima = realloc(x->minima, (size_t)cap * x->nwords * 8);
        if (minima)
            x->minima = minima;
        int32_t *prev = realloc(x->prev, (size_t)cap * sizeof *prev);
        if (prev)
            x->prev = prev;
        int32_t *size = realloc(x->size, (size_t)cap * sizeof *size);
        if (size)
            x->size = size;
        if (!words || !dram || !groups || !minima || !prev || !size) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            return -1;
        }
        x->cap_states = cap;
    }
    int32_t s = (int32_t)x->n_states++;
    memcpy(x->words + (size_t)s * x->nwords, w, (size_t)x->nwords * 8);
    x->dram[s] = INT64_MAX;
    x->groups[s] = INT32_MAX;
    memset(x->minima + (size_t)s * x->nwords, 0, (size_t)x->nwords * 8);
    x->prev[s] = -1;
    x->size[s] = size;
    if (lf_hashmap_put(&x->index, k, (void *)(intptr_t)(s + 1)) != LF_OK)
        x->status = lf_last_status();
    if (x->bucket_n[size] == x->bucket_cap[size]) {
        int32_t cap = x->bucket_cap[size] ? x->bucket_cap[size] * 2 : 64;
        int32_t *b = realloc(x->bucket[size], (size_t)cap * sizeof *b);
        if (!b) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            return -1;
        }
        x->bucket[size] = b;
        x->bucket_cap[size] = cap;
    }
    x->bucket[size][x->bucket_n[size]++] = s;
    x->st.states++;
    return s;
}

int32_t lf__dp_find(const lf__exact *x, const uint64_t *w) { return lf__dp_lookup(x, w, NULL); }

int32_t lf__dp_target(lf__exact *x, const lf_bitset *s, int32_t n)
{
    const uint64_t *d = x->words + (size_t)x->cur * x->nwords;
    for (int32_t i = 0; i < x->nwords; i++)
        x->next.words[i] = d[i] | s->words[i];
    return lf__dp_state(x, x->next.words, x->size[x->cur] + n);
}

int32_t lf__dp_target_find(lf__exact *x, const lf_bitset *s)
{
    const uint64_t *d = x->words + (size_t)x->cur * x->nwords;
    for (int32_t i = 0; i < x->nwords; i++)
        x->next.words[i] = d[i] | s->words[i];
    return lf__dp_lookup(x, x->next.words, NULL);
}
