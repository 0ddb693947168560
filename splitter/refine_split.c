/* Local edits after the tree split (the second half of the cost-aware
 * continuation; contract in splitter/refine_split.h).
 *
 * The tree splitter cuts where the proposer's edges point and never looks
 * back: a cut between an Add and the ReLU after it leaves two parts that are
 * valid and cheaper as one (the pair fused reads and writes the Add's output
 * not at all), an op at a boundary may cost less on the other side, and a
 * cut one block off leaves parts that no single merge or move improves
 * (MobileNetV2 blocks 5-8 cut as [5, 6, 7's first conv | the rest of 7, 8]
 * where the optimum is [5 | 6, 7 | 8]: every step of moving a whole block
 * costs more). So the edits are, cheapest first:
 *
 *   merge     two parts joined by an edge;
 *   move      one op to a neighbouring part;
 *   re-split  two neighbouring parts, then a part with all its neighbours,
 *             by the optimal split of their union (lf_exact_split, at most
 *             LF__RESPLIT_CANDIDATES candidate sets: a deterministic limit),
 *             tried only when no merge or move saves anything.
 *
 * The edit that saves the most is made, while one saves anything. Parts
 * stay valid and connected, and free of cycles (checked over the edges inside
 * the group: a path through ops outside it cannot exist, since a group of an
 * acyclic plan is convex, and so is each part a tree cut makes of it).
 * Candidates are visited in member order, edges in the op's consumer and
 * then input order, and only a strictly larger saving replaces the best, so
 * the result is a pure function of the partition. */
#include "splitter/refine_split.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exact/exact.h"
#include "planner/util/hashmap.h"

typedef struct lf__refiner {
    lf_cost_model *cm;
    const lf_graph *g;
    const int32_t *members; /* ascending op ids */
    int32_t n;
    int32_t *part_of;       /* per member */
    int32_t n_parts;        /* labels 0 .. n_parts - 1, some unused after merges */
    int64_t *fd;            /* per label */
    int32_t *pos_of;        /* op id -> member index, -1 outside the group */
    uint8_t *reach;         /* scratch, per label or per member (n bytes) */
    int32_t *stack;         /* scratch: queue, in-degrees, saved labels (3 n) */
    lf_bitset set, pair;
    int32_t *best_labels;   /* per member: the labels after the best re-split so far */
    uint8_t *in_set;        /* per label: the labels a merge joins or a re-split solves together */
    lf_strmap solved;       /* a pair's members ("i,j,...") -> its optimal split's F_D + 1 */
    int64_t queries;
} lf__refiner;

/* Candidate sets one re-split of two parts may visit: the exact split of two
 * parts of a chain-like group takes far fewer, of a wide one can take far
 * more; past it the pair is left as it is (a deterministic limit, never a
 * time: the split must be a function of the group). */
#define LF__RESPLIT_CANDIDATES 5000

/* Whether the parts (labels of part_of) form no cycle: Kahn's algorithm over
 * the edges between labels (an edge counted once per member edge). */
static int lf__acyclic(lf__refiner *m)
{
    int32_t *indeg = m->stack + m->n, *queue = m->stack, head = 0, tail = 0, seen = 0, used = 0;
    memset(indeg, 0, (size_t)m->n * sizeof *indeg);
    memset(m->reach, 0, (size_t)m->n);
    for (int32_t i = 0; i < m->n; i++) {
        m->reach[m->part_of[i]] = 1;
        const lf_op *op = &m->g->ops[m->members[i]];
        for (int32_t c = 0; c < op->n_consumers; c++) {
            int32_t j = m->pos_of[op->consumers[c]];
            if (j >= 0 && m->part_of[j] != m->part_of[i])
                indeg[m->part_of[j]]++;
        }
    }
    for (int32_t q = 0; q < m->n; q++) {
        used += m->reach[q];
        if (m->reach[q] && indeg[q] == 0)
            queue[tail++] = q;
    }
    while (head < tail) {
        int32_t p = queue[head++];
        seen++;
        for (int32_t i = 0; i < m->n; i++) {
            if (m->part_of[i] != p)
                continue;
            const lf_op *op = &m->g->ops[m->members[i]];
            for (int32_t c = 0; c < op->n_consumers; c++) {
                int32_t j = m->pos_of[op->consumers[c]];
                if (j >= 0 && m->part_of[j] != p && --indeg[m->part_of[j]] == 0)
                    queue[tail++] = m->part_of[j];
            }
        }
    }
    return seen == used;
}

/* Whether the parts stay acyclic with every label flagged in m->in_set
 * joined into label `into` (the labels are restored before returning). */
static int lf__acyclic_joined(lf__refiner *m, int32_t into)
{
    int32_t *keep = m->stack + 2 * m->n;
    for (int32_t i = 0; i < m->n; i++) {
        keep[i] = m->part_of[i];
        if (m->in_set[m->part_of[i]])
            m->part_of[i] = into;
    }
    int ok = lf__acyclic(m);
    memcpy(m->part_of, keep, (size_t)m->n * sizeof *keep);
    return ok;
}

/* Whether label a, without member `skip`, is weakly connected (or empty). */
static int lf__connected_without(lf__refiner *m, int32_t a, int32_t skip)
{
    int32_t *queue = m->stack, head = 0, tail = 0, total = 0;
    memset(m->reach, 0, (size_t)m->n); /* per member here */
    for (int32_t i = 0; i < m->n; i++)
        if (i != skip && m->part_of[i] == a) {
            if (total++ == 0) {
                m->reach[i] = 1;
                queue[tail++] = i;
            }
        }
    while (head < tail) {
        int32_t i = queue[head++];
        const lf_op *op = &m->g->ops[m->members[i]];
        for (int32_t k = 0; k < op->n_consumers + op->n_inputs; k++) {
            int32_t v = k < op->n_consumers ? op->consumers[k] : op->inputs[k - op->n_consumers];
            int32_t j = m->pos_of[v];
            if (j >= 0 && j != skip && m->part_of[j] == a && !m->reach[j]) {
                m->reach[j] = 1;
                queue[tail++] = j;
            }
        }
    }
    return tail == total;
}

/* F_D and validity of labels a and b together (b < 0: a alone), plus member
 * `add`, less member `skip` (-1: none). */
static lf_status lf__price(lf__refiner *m, int32_t a, int32_t b, int32_t add, int32_t skip, lf_group_cost *out)
{
    lf_bitset_clear_all(&m->set);
    int32_t size = 0;
    for (int32_t i = 0; i < m->n; i++)
        if (i == add || (i != skip && (m->part_of[i] == a || m->part_of[i] == b))) {
            lf_bitset_set(&m->set, m->members[i]);
            size++;
        }
    if (size == 0) {
        memset(out, 0, sizeof *out);
        out->valid = 1;
        return LF_OK;
    }
    m->queries++;
    return lf_cost_eval(m->cm, &m->set, out);
}

/* The best edit so far: merge label b into a (member -1), move member from
 * label a to label b (member >= 0), or re-split a and b (member -2, the new
 * labels in best_labels). */
typedef struct lf__edit {
    int32_t a, b, member;
    int64_t saving;
    lf_group_cost first, second; /* a after the edit (the union for a merge), b after a move */
} lf__edit;

/* Tries merging b into a: a best edit when valid, cheaper than the best so far
 * and closing no cycle. */
static lf_status lf__try_merge(lf__refiner *m, int32_t a, int32_t b, lf__edit *best)
{
    lf_group_cost u;
    lf_status st = lf__price(m, a, b, -1, -1, &u);
    if (st)
        return st;
    int64_t saving = m->fd[a] + m->fd[b] - u.f_d;
    if (!u.valid || saving <= best->saving)
        return LF_OK;
    memset(m->in_set, 0, (size_t)m->n);
    m->in_set[a] = m->in_set[b] = 1;
    if (lf__acyclic_joined(m, a))
        *best = (lf__edit){a, b, -1, saving, u, {0}};
    return LF_OK;
}

/* Tries moving member i from its label to label b. */
static lf_status lf__try_move(lf__refiner *m, int32_t i, int32_t b, lf__edit *best)
{
    int32_t a = m->part_of[i];
    lf_group_cost from, to;
    lf_status st = lf__price(m, a, -1, -1, i, &from);
    if (!st)
        st = lf__price(m, b, -1, i, -1, &to);
    if (st)
        return st;
    int64_t saving = m->fd[a] + m->fd[b] - from.f_d - to.f_d;
    if (!from.valid || !to.valid || saving <= best->saving || !lf__connected_without(m, a, i))
        return LF_OK;
    m->part_of[i] = b;
    int ok = lf__acyclic(m);
    m->part_of[i] = a;
    if (ok)
        *best = (lf__edit){a, b, i, saving, from, to};
    return LF_OK;
}

/* Tries the optimal split of the labels flagged in m->in_set together
 * (lf_exact_split). Only for labels that could merge into one without a
 * cycle: then their union is convex within the group, as the exact split
 * requires, and any split of it keeps the parts acyclic (a path from one of
 * its parts out and back in would run through the union's outside and
 * back). Each union is solved once: the F_D of its optimum is kept in
 * m->solved, and the split itself is only computed again for the set that
 * wins. */
static lf_status lf__try_resplit(lf__refiner *m, lf__edit *best)
{
    int32_t first = -1, second = -1;
    int64_t before = 0;
    for (int32_t q = 0; q < m->n; q++)
        if (m->in_set[q]) {
            before += m->fd[q];
            if (first < 0)
                first = q;
            else if (second < 0)
                second = q;
        }
    if (second < 0 || !lf__acyclic_joined(m, first))
        return LF_OK;
    char key[4096];
    size_t len = 0;
    lf_bitset_clear_all(&m->pair);
    for (int32_t i = 0; i < m->n; i++)
        if (m->in_set[m->part_of[i]]) {
            lf_bitset_set(&m->pair, m->members[i]);
            if (len >= sizeof key - 16)
                return LF_OK; /* a union this large is past the candidate limit anyway */
            len += (size_t)snprintf(key + len, sizeof key - len, "%d,", (int)i);
        }
    void *known = NULL;
    int64_t dram = -1;
    if (lf_strmap_get(&m->solved, key, &known)) {
        dram = (int64_t)(intptr_t)known - 1;
        if (dram < 0 || before - dram <= best->saving)
            return LF_OK;
    }
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    cfg.max_candidates = LF__RESPLIT_CANDIDATES;
    cfg.time_limit_s = 0;
    cfg.memory_limit = 0;
    lf_plan opt;
    lf_exact_stats xs;
    lf_status st = lf_exact_split(m->cm, &m->pair, &cfg, &opt, &dram, &xs);
    m->queries += xs.groups;
    if (st == LF_ELIMIT) /* remembered as past the limit: F_D + 1 = 0 */
        return lf_strmap_put(&m->solved, key, NULL);
    if (st)
        return st;
    if (!known && (st = lf_strmap_put(&m->solved, key, (void *)(intptr_t)(dram + 1)))) {
        lf_plan_destroy(&opt);
        return st;
    }
    int64_t saving = before - dram;
    if (saving > best->saving) {
        /* The union's parts take the flagged labels in order, then labels
         * no member carries. */
        memset(m->reach, 0, (size_t)m->n);
        for (int32_t i = 0; i < m->n; i++)
            m->reach[m->part_of[i]] = 1;
        int32_t *label_of = m->stack, next_set = 0, next_free = 0;
        for (int32_t q = 0; q < opt.n_groups; q++) {
            while (next_set < m->n && !m->in_set[next_set])
                next_set++;
            if (next_set < m->n) {
                label_of[q] = next_set++;
                continue;
            }
            while (m->reach[next_free])
                next_free++;
            label_of[q] = next_free++;
        }
        for (int32_t i = 0; i < m->n; i++) {
            int32_t q = opt.group_of[m->members[i]];
            m->best_labels[i] = q >= 0 ? label_of[q] : m->part_of[i];
        }
        *best = (lf__edit){first, second, -2, saving, {0}, {0}};
    }
    lf_plan_destroy(&opt);
    return LF_OK;
}

/* The edit that saves the most, over every pair of labels joined by an edge
 * (merge) and every member with a neighbour in another label (move). */
static lf_status lf__best_edit(lf__refiner *m, lf__edit *best)
{
    memset(best, 0, sizeof *best);
    best->a = -1;
    lf_status st = LF_OK;
    for (int32_t i = 0; i < m->n && !st; i++) {
        const lf_op *op = &m->g->ops[m->members[i]];
        for (int32_t k = 0; k < op->n_consumers + op->n_inputs && !st; k++) {
            int32_t v = k < op->n_consumers ? op->consumers[k] : op->inputs[k - op->n_consumers];
            int32_t j = m->pos_of[v];
            if (j < 0 || m->part_of[j] == m->part_of[i])
                continue;
            if (k < op->n_consumers)
                st = lf__try_merge(m, m->part_of[i], m->part_of[j], best);
            if (!st)
                st = lf__try_move(m, i, m->part_of[j], best);
        }
    }
    /* Only when no merge or move saves anything: the optimal split of two
     * neighbouring parts together, which can move a whole block across; then
     * of each part with all its neighbours. */
    int resplit = best->a < 0;
    for (int32_t i = 0; i < m->n && !st && resplit; i++) {
        const lf_op *op = &m->g->ops[m->members[i]];
        for (int32_t c = 0; c < op->n_consumers && !st; c++) {
            int32_t j = m->pos_of[op->consumers[c]];
            if (j < 0 || m->part_of[j] == m->part_of[i])
                continue;
            memset(m->in_set, 0, (size_t)m->n);
            m->in_set[m->part_of[i]] = m->in_set[m->part_of[j]] = 1;
            st = lf__try_resplit(m, best);
        }
    }
    resplit = best->a < 0;
    for (int32_t q = 0; q < m->n && !st && resplit; q++) {
        memset(m->in_set, 0, (size_t)m->n);
        int32_t count = 0;
        for (int32_t i = 0; i < m->n; i++) {
            if (m->part_of[i] != q)
                continue;
            if (!m->in_set[q]) {
                m->in_set[q] = 1;
                count++;
            }
            const lf_op *op = &m->g->ops[m->members[i]];
            for (int32_t k = 0; k < op->n_consumers + op->n_inputs; k++) {
                int32_t v = k < op->n_consumers ? op->consumers[k] : op->inputs[k - op->n_consumers];
                int32_t j = m->pos_of[v];
                if (j >= 0 && !m->in_set[m->part_of[j]]) {
                    m->in_set[m->part_of[j]] = 1;
                    count++;
                }
            }
        }
        if (count >= 3)
            st = lf__try_resplit(m, best);
    }
    return st;
}

static lf_status lf__refine(lf__refiner *m, int64_t *f_d)
{
    lf_status st = LF_OK;
    for (int32_t q = 0; q < m->n_parts && !st; q++) {
        lf_group_cost c;
        if (!(st = lf__price(m, q, -1, -1, -1, &c)))
            m->fd[q] = c.f_d;
    }
    lf__edit e;
    while (!st && !(st = lf__best_edit(m, &e)) && e.a >= 0) {
        if (e.member == -2) { /* a re-split: labels from best_labels, their F_D from the memo */
            memcpy(m->part_of, m->best_labels, (size_t)m->n * sizeof *m->part_of);
            memset(m->fd, 0, (size_t)m->n * sizeof *m->fd);
            for (int32_t q = 0; q < m->n && !st; q++) {
                lf_group_cost c;
                int present = 0;
                for (int32_t i = 0; i < m->n && !present; i++)
                    present = m->part_of[i] == q;
                if (present && !(st = lf__price(m, q, -1, -1, -1, &c)))
                    m->fd[q] = c.f_d;
            }
        } else if (e.member < 0) {
            for (int32_t i = 0; i < m->n; i++)
                if (m->part_of[i] == e.b)
                    m->part_of[i] = e.a;
            m->fd[e.a] = e.first.f_d;
            m->fd[e.b] = 0;
        } else {
            m->part_of[e.member] = e.b;
            m->fd[e.a] = e.first.f_d;
            m->fd[e.b] = e.second.f_d;
        }
        *f_d -= e.saving;
    }
    return st;
}

lf_status lf_split_refine(lf_cost_model *cm, const lf_bitset *group, int32_t *part_of, int32_t *n_parts,
                          int64_t *f_d, int64_t *queries)
{
    lf__refiner m;
    memset(&m, 0, sizeof m);
    m.cm = cm;
    m.g = lf_cost_graph(cm);
    m.n = lf_bitset_count(group);
    m.part_of = part_of;
    m.n_parts = *n_parts;
    if (m.n_parts < 2)
        return LF_OK;
    int32_t *members = malloc((size_t)m.n * sizeof *members);
    m.pos_of = malloc((size_t)m.g->n_ops * sizeof *m.pos_of);
    m.fd = calloc((size_t)m.n, sizeof *m.fd);
    m.reach = malloc((size_t)m.n);
    m.stack = malloc((size_t)(3 * m.n) * sizeof *m.stack); /* queues, in-degrees, saved labels */
    m.best_labels = malloc((size_t)m.n * sizeof *m.best_labels);
    m.in_set = malloc((size_t)m.n);
    lf_status st = LF_OK;
    if (!members || !m.pos_of || !m.fd || !m.reach || !m.stack || !m.best_labels || !m.in_set)
        st = lf_set_error(LF_ENOMEM, "out of memory refining a split");
    int have_sets = 0;
    if (!st && !(st = lf_bitset_init(&m.set, m.g->n_ops)) && !(st = lf_bitset_init(&m.pair, m.g->n_ops)) &&
        !(st = lf_strmap_init(&m.solved, 16)))
        have_sets = 1;
    if (!st) {
        m.members = members;
        lf_bitset_to_list(group, members);
        for (int32_t v = 0; v < m.g->n_ops; v++)
            m.pos_of[v] = -1;
        for (int32_t i = 0; i < m.n; i++)
            m.pos_of[members[i]] = i;
        st = lf__refine(&m, f_d);
    }
    if (have_sets)
        lf_strmap_destroy(&m.solved);
    lf_bitset_destroy(&m.set); /* safe when never initialised (zeroed) */
    lf_bitset_destroy(&m.pair);
    if (!st) { /* renumber by smallest op id, the order split results use */
        int32_t *map = m.stack, parts = 0;
        for (int32_t q = 0; q < m.n; q++)
            map[q] = -1;
        for (int32_t i = 0; i < m.n; i++) {
            if (map[part_of[i]] < 0)
                map[part_of[i]] = parts++;
            part_of[i] = map[part_of[i]];
        }
        *n_parts = parts;
    }
    if (queries)
        *queries += m.queries;
    free(members);
    free(m.pos_of);
    free(m.fd);
    free(m.reach);
    free(m.stack);
    free(m.best_labels);
    free(m.in_set);
    return st;
}
