/* A memo of candidate sets' values (set_memo.h). The windows' DP reaches one
 * set from many states, and under BRR it asks each time for the set's weight
 * re-reads, a tile floor that depends on the set alone within a window: on
 * PP-OCRv4 detection at 256 KB the window 1-189 asks about 20 times per
 * distinct set (docs/results/exact.md, branch ocrbrr3). A set is its bitset's
 * words; the hash only finds the entry, the words decide, so a collision is a
 * miss and never another set's value. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/set_memo.h"

lf_status lf__set_memo_init(lf__set_memo *m, int32_t nbits)
{
    memset(m, 0, sizeof *m);
    m->nwords = LF_BITSET_WORDS(nbits);
    return lf_hashmap_init(&m->map, 1024);
}

void lf__set_memo_destroy(lf__set_memo *m)
{
    lf_hashmap_destroy(&m->map);
    free(m->words);
    free(m->values);
    memset(m, 0, sizeof *m);
}

void lf__set_memo_clear(lf__set_memo *m)
{
    if (m->n == 0)
        return;
    /* A large map emptied for a small window would be swept whole each
     * time: a fresh small one instead (a failed one only disables puts). */
    if (m->map.cap > 65536) {
        lf_hashmap_destroy(&m->map);
        if (lf_hashmap_init(&m->map, 1024) != LF_OK)
            lf_clear_error(); /* an empty map: the next put grows it, or remembers nothing */
    } else {
        lf_hashmap_clear(&m->map);
    }
    m->n = 0;
}

int lf__set_memo_get(const lf__set_memo *m, const lf_bitset *s, int64_t *value)
{
    void *v = NULL;
    if (m->n == 0 || !lf_hashmap_get(&m->map, lf_bitset_hash(s), &v))
        return 0;
    int64_t i = (int64_t)(uintptr_t)v - 1;
    if (memcmp(&m->words[i * m->nwords], s->words, (size_t)m->nwords * sizeof *s->words) != 0)
        return 0;
    *value = m->values[i];
    return 1;
}

void lf__set_memo_put(lf__set_memo *m, const lf_bitset *s, int64_t value)
{
    int64_t entry_bytes = ((int64_t)m->nwords + 1) * (int64_t)sizeof(uint64_t);
    if (m->n >= LF__SET_MEMO_MAX || (m->n + 1) * entry_bytes > LF__SET_MEMO_BYTES || s->nwords != m->nwords)
        return;
    if (m->n == m->cap) {
        int64_t cap = m->cap ? 2 * m->cap : 4096, most = LF__SET_MEMO_BYTES / entry_bytes;
        if (cap > most)
            cap = most;
        uint64_t *words = realloc(m->words, (size_t)(cap * m->nwords) * sizeof *words);
        if (!words)
            return;
        m->words = words;
        int64_t *values = realloc(m->values, (size_t)cap * sizeof *values);
        if (!values)
            return;
        m->values = values;
        m->cap = cap;
    }
    /* A colliding set replaces the entry the hash finds: still a miss for
     * the other set, by its words. */
    if (lf_hashmap_put(&m->map, lf_bitset_hash(s), (void *)(uintptr_t)(m->n + 1)) != LF_OK) {
        lf_clear_error(); /* out of memory: the set is computed again when asked */
        return;
    }
    memcpy(&m->words[m->n * m->nwords], s->words, (size_t)m->nwords * sizeof *s->words);
    m->values[m->n++] = value;
}
