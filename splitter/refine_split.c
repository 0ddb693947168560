/* Local edits after the tree split (the second half of the cost-aware
 * continuation; contract in splitter/refine_split.h).
 *
 * The tree splitter cuts where the proposer's edges point and never looks
 * back: a cut between an Add and the ReLU after it leaves two parts that are
 * valid and cheaper as one (the pair fused reads and writes the Add's output
 * not at all), and an op at a boundary may cost less on the other side.
 * Measured under BRR at 128 KB (Table III's setting), such edits close most
 * of the gap between the tree's split and the optimal one: merges are the
 * bulk, moves a few per network; cutting a part again never helped once the
 * continuation had split the parts a cut makes cheaper, so it is not tried.
 *
 * Two parts joined by an edge may merge, and an op may move, when the parts
 * stay free of cycles (checked over the edges inside the group: a path
 * through ops outside it cannot exist, since a group of an acyclic plan is
 * convex, and so is each part a tree cut makes of it) and the part an op
 * leaves stays connected. Candidates are visited in member order, edges in
 * the op's consumer and then input order, and only a strictly larger saving
 * replaces the best, so the result is a pure function of the partition. */
#include "splitter/refine_split.h"

#include <stdlib.h>
#include <string.h>

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
    lf_bitset set;
    int64_t queries;
} lf__refiner;

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

/* The best edit so far: merge label b into a (member < 0), or move member
 * from label a to label b. */
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
    int32_t *keep = m->stack + 2 * m->n; /* the labels of b, restored below */
    for (int32_t i = 0; i < m->n; i++) {
        keep[i] = m->part_of[i];
        if (m->part_of[i] == b)
            m->part_of[i] = a;
    }
    int ok = lf__acyclic(m);
    memcpy(m->part_of, keep, (size_t)m->n * sizeof *keep);
    if (ok)
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
        if (e.member < 0) {
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
    lf_status st = LF_OK;
    if (!members || !m.pos_of || !m.fd || !m.reach || !m.stack)
        st = lf_set_error(LF_ENOMEM, "out of memory refining a split");
    if (!st)
        st = lf_bitset_init(&m.set, m.g->n_ops);
    if (!st) {
        m.members = members;
        lf_bitset_to_list(group, members);
        for (int32_t v = 0; v < m.g->n_ops; v++)
            m.pos_of[v] = -1;
        for (int32_t i = 0; i < m.n; i++)
            m.pos_of[members[i]] = i;
        st = lf__refine(&m, f_d);
        lf_bitset_destroy(&m.set);
    }
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
    return st;
}
