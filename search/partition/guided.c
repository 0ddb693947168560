/* Cost-guided edits of a plan (issue 17 item 7), beside the paper's random
 * mutations: an expert's two moves when improving a fusion plan by hand.
 *
 *   merge  of every pair of groups joined by an edge, merge the pair whose
 *          union is valid and saves the most DRAM: F_D(a) + F_D(b) -
 *          F_D(a u b), largest first;
 *   move   of every op at a group boundary, move the one whose move to the
 *          group across the edge saves the most: F_D(a) + F_D(b) -
 *          F_D(a - u) - F_D(b + u), both sides valid.
 *
 * Only edits that save something are made (ties go to the lower edge
 * index, so the edit is a pure function of the plan); the result then goes
 * through the ordinary decoding like every proposal, which repairs a cycle
 * the merge may close or a group the move may disconnect. Costs come from
 * the cost model's memo, so a population that keeps meeting the same groups
 * prices them once. */
#include <string.h>

#include "search/partition/search_internal.h"

/* The groups of gof as member lists: group k's ops are
 * guide_members[guide_start[k] .. guide_start[k + 1]), ascending (a counting
 * sort, so pricing a group costs its size, not a scan of the graph).
 * Returns the number of groups. */
static int32_t lf__index_groups(lf__search *s, const int32_t *gof)
{
    int32_t n_groups = 0, *start = s->guide_start;
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] + 1 > n_groups)
            n_groups = gof[v] + 1;
    memset(start, 0, (size_t)(n_groups + 1) * sizeof *start);
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] >= 0)
            start[gof[v] + 1]++;
    for (int32_t k = 0; k < n_groups; k++)
        start[k + 1] += start[k];
    memcpy(s->guide_pos, start, (size_t)n_groups * sizeof *start);
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] >= 0)
            s->guide_members[s->guide_pos[gof[v]]++] = v;
    return n_groups;
}

/* F_D and validity of group `group` of the indexed plan (with group2's ops,
 * plus op `add`, minus op `drop`; -1 for none). An empty set costs 0 and is
 * valid. */
static lf_status lf__price(lf__search *s, int32_t group, int32_t group2, int32_t add, int32_t drop,
                           int64_t *fd, int *valid)
{
    lf_bitset *b = &s->guide;
    lf_bitset_clear_all(b);
    int32_t n = 0;
    for (int32_t g = 0; g < 2; g++) {
        int32_t k = g ? group2 : group;
        if (k < 0)
            continue;
        for (int32_t i = s->guide_start[k]; i < s->guide_start[k + 1]; i++)
            if (s->guide_members[i] != drop) {
                lf_bitset_set(b, s->guide_members[i]);
                n++;
            }
    }
    if (add >= 0) {
        lf_bitset_set(b, add);
        n++;
    }
    *fd = 0;
    *valid = 1;
    if (n == 0)
        return LF_OK;
    lf_group_cost c;
    lf_status st = lf_cost_eval(s->cm, b, &c);
    if (st == LF_OK) {
        *fd = c.f_d;
        *valid = c.valid;
    }
    return st;
}

/* Indexes gof and puts the F_D of every group into fd. */
static lf_status lf__group_costs(lf__search *s, const int32_t *gof, int64_t *fd)
{
    int32_t n_groups = lf__index_groups(s, gof);
    lf_status st = LF_OK;
    for (int32_t k = 0; k < n_groups && st == LF_OK; k++) {
        int valid;
        st = lf__price(s, k, -1, -1, -1, &fd[k], &valid);
    }
    return st;
}

lf_status lf__guided_merge(lf__search *s, const int32_t *in, int32_t *gof, int *done)
{
    *done = 0;
    int64_t *fd = s->guide_fd, best = 0;
    int32_t best_a = -1, best_b = -1;
    lf_status st = lf__group_costs(s, in, fd);
    for (int32_t e = 0; e < s->n_edges && st == LF_OK; e++) {
        int32_t a = in[s->map.eu[e]], b = in[s->map.ev[e]];
        if (a == b)
            continue; /* inside a group */
        int64_t joint;
        int valid;
        st = lf__price(s, a, b, -1, -1, &joint, &valid);
        if (st == LF_OK && valid && fd[a] + fd[b] - joint > best) {
            best = fd[a] + fd[b] - joint;
            best_a = a;
            best_b = b;
        }
    }
    if (st != LF_OK || best_a < 0)
        return st;
    memmove(gof, in, (size_t)s->n_ops * sizeof *gof);
    for (int32_t v = 0; v < s->n_ops; v++)
        if (gof[v] == best_b)
            gof[v] = best_a;
    *done = 1;
    return LF_OK;
}

lf_status lf__guided_move(lf__search *s, const int32_t *in, int32_t *gof, int *done)
{
    *done = 0;
    int64_t *fd = s->guide_fd, best = 0;
    int32_t best_op = -1, best_to = -1;
    lf_status st = lf__group_costs(s, in, fd);
    for (int32_t e = 0; e < s->n_edges && st == LF_OK; e++) {
        for (int side = 0; side < 2 && st == LF_OK; side++) {
            int32_t u = side ? s->map.ev[e] : s->map.eu[e];
            int32_t w = side ? s->map.eu[e] : s->map.ev[e];
            int32_t a = in[u], b = in[w];
            if (a == b)
                continue;
            int64_t left, right;
            int valid_left, valid_right;
            st = lf__price(s, a, -1, -1, u, &left, &valid_left);
            if (st == LF_OK)
                st = lf__price(s, b, -1, u, -1, &right, &valid_right);
            if (st == LF_OK && valid_left && valid_right && fd[a] + fd[b] - left - right > best) {
                best = fd[a] + fd[b] - left - right;
                best_op = u;
                best_to = b;
            }
        }
    }
    if (st != LF_OK || best_op < 0)
        return st;
    memmove(gof, in, (size_t)s->n_ops * sizeof *gof);
    gof[best_op] = best_to;
    *done = 1;
    return LF_OK;
}
