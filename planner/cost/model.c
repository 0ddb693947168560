/* The cost model object: per-op constants, fusability, memoized evaluation,
 * the all-ops charge of unfusable ops and the explanation report. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

/* The schemes and their names, from the rows of LF__SCHEMES
 * (cost_internal.h), in the order help texts list them. */
#define LF__SCHEME_PTR(n) &lf__scheme_##n,
#define LF__SCHEME_NAME(n) #n,
static const lf__scheme *const lf__schemes[] = {LF__SCHEMES(LF__SCHEME_PTR)};
static const char *const lf__scheme_names[] = {LF__SCHEMES(LF__SCHEME_NAME) NULL};

const char *const *lf_cost_scheme_names(void) { return lf__scheme_names; }

static const lf__scheme *lf__scheme_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof lf__schemes / sizeof lf__schemes[0]; i++)
        if (strcmp(lf__schemes[i]->name, name) == 0)
            return lf__schemes[i];
    return NULL;
}

int lf_cost_scheme_weights_resident(const char *scheme)
{
    const lf__scheme *sc = lf__scheme_find(scheme);
    return sc ? sc->weights_resident : -1;
}

/* Flatten and Reshape (LF_OPF_RESHAPES_ROWS) are free views of vectors,
 * streaming reductions when a spatial map flows into a Gemm (which
 * accumulates row by row: LF_OPF_ACCUMULATES_ROWS), and need the whole map
 * otherwise. */
static lf_row_kind lf__resolve_kind(const lf_graph *g, int32_t v)
{
    const lf_op *op = &g->ops[v];
    lf_row_kind k = lf_op_row_kind(g, v);
    if (!lf_op_has(op->type, LF_OPF_RESHAPES_ROWS))
        return k;
    const lf_shape *in = &g->ops[op->inputs[0]].out;
    if (in->h <= 1 || op->out.h == in->h)
        return LF_ROWS_VIEW;
    int all_gemm = op->n_consumers > 0;
    for (int32_t c = 0; c < op->n_consumers; c++)
        all_gemm &= lf_op_has(g->ops[op->consumers[c]].type, LF_OPF_ACCUMULATES_ROWS);
    return all_gemm ? LF_ROWS_REDUCTION : LF_ROWS_FULL;
}

static void lf__op_constants(const lf_graph *g, const lf_hw *hw, int32_t v, lf__op_cost *c)
{
    const lf_op *op = &g->ops[v];
    memset(c, 0, sizeof *c);
    c->kind = lf__resolve_kind(g, v);
    lf_op_row_window(op, &c->k, &c->stride, &c->pad);
    c->linear = c->kind == LF_ROWS_RESIZE && op->attr.linear; /* reads one row more */
    c->h = op->out.h;
    c->row_bytes = op->out.w * op->out.c * hw->act_bytes;
    c->tensor_bytes = op->out.n * op->out.c * op->out.h * op->out.w * hw->act_bytes;
    c->weight_bytes = op->weight_elems * hw->weight_bytes;
    c->wblk = lf_op_weight_block(g, v) * hw->weight_bytes;
    for (int32_t j = 0; j < op->n_inputs; j++)
        c->reads_spatial |= g->ops[op->inputs[j]].out.h > 1;
    /* A constant of the output's height > 1 added or multiplied element-wise
     * (GPT-2's and BERT's position rows) streams a row per output row: it is
     * an input read once, not a weight re-read per tile (DESIGN §16). Its
     * one row in flight stays in the weight terms, so F_beta holds it. */
    int elementwise = op->type == LF_OP_ADD || op->type == LF_OP_MUL || op->type == LF_OP_SUB ||
                      op->type == LF_OP_DIV;
    for (int32_t j = 0; elementwise && op->out.h > 1 && j < op->n_operands; j++) {
        const lf_const *k = lf_op_const(g, v, j);
        if (!k || k->shape.h != op->out.h)
            continue;
        int64_t bytes = lf_const_elems(k) * hw->weight_bytes, row = bytes / k->shape.h;
        c->stream_bytes += bytes - row;
        c->weight_bytes -= bytes - row;
        c->wblk = c->weight_bytes;
    }
    /* An embedding lookup reads the rows its ids ask for, one output row
     * each, not the table (DESIGN §16): those rows stream like the position
     * rows above, read once, one row in flight. A table with fewer rows than
     * the lookups (BERT's two token types) is cheaper read whole, once: it
     * stays an ordinary weight. (As many rows as lookups, GPT-2's positions
     * at 1024 tokens: the same bytes either way, streamed needs one row.) */
    if (op->type == LF_OP_GATHER && op->n_operands == 2 && op->operands[0].kind == LF_OPND_CONST) {
        const lf_const *t = lf_op_const(g, v, 0);
        int64_t rows = op->out.n * op->out.c * op->out.h;
        if (t && rows <= t->shape.h) {
            int64_t row = t->shape.w * hw->weight_bytes;
            c->weight_bytes = row;
            c->wblk = row;
            c->stream_bytes = (rows - 1) * row;
        }
    }
    if (op->type == LF_OP_MATMUL && op->n_inputs == 1 && op->n_operands == 2 &&
        op->operands[0].kind != LF_OPND_CONST && op->operands[1].kind == LF_OPND_CONST &&
        !op->attr.trans_a && op->out.n * op->out.c == 1 && op->out.h > 1 && op->out.w > 1) {
        const lf_const *b = lf_op_const(g, v, 1);
        if (b && b->shape.n == 1 && b->shape.c == 1) {
            c->col_m = op->out.w;
            c->col_krow = g->ops[op->inputs[0]].out.w * hw->act_bytes;
        }
    }
}

/* The scheme's evaluation with the squeeze-and-excite wait priced (DESIGN
 * §5). Kept resident, a tensor read before and after a wait holds its whole
 * map in the buffer: the one hull of its readers before the wait (at their
 * last rows) and after it (at their first) says so. Read again, the readers
 * after the wait stream it from DRAM through a window of their own. The
 * valid choice with the lower F_D wins (resident on a tie), and G->reread_waits
 * is left at the choice for lf__features_explain. */
static lf_status lf__eval_waits(lf__group *G, const lf__scheme *scheme, int64_t beta,
                                lf_group_cost *out, lf__peak *peak)
{
    memset(out, 0, sizeof *out);
    G->reread_waits = 0;
    lf__priced p;
    lf__group_priced(G, &p);
    lf_status st = scheme->price(&p, beta, out, peak);
    int64_t reread = st == LF_OK ? lf__wait_reread_bytes(G) : 0;
    if (reread == 0)
        return st;
    out->wait_resident = 1;
    /* Reading again adds DRAM, so it can only win where keeping does not
     * fit or makes the weights stream. */
    if (out->valid && out->weight_reads == 1)
        return st;
    lf_group_cost again;
    lf__peak again_peak = {-1, 0, 0};
    memset(&again, 0, sizeof again);
    G->reread_waits = 1;
    st = scheme->price(&p, beta, &again, &again_peak);
    again.f_d += reread;
    again.reread_bytes = reread;
    /* Neither valid: the smaller need is the group's F_beta. */
    int better = again.valid ? !out->valid || again.f_d < out->f_d
                             : !out->valid && again.f_beta < out->f_beta;
    if (st == LF_OK && better) {
        *out = again;
        *peak = again_peak;
    } else {
        G->reread_waits = 0;
    }
    return st;
}

static lf_status lf__compute_at(const lf_cost_model *cm, const lf__scheme *scheme, int64_t beta,
                                const int32_t *members, int32_t n, lf_group_cost *out, lf__peak *peak)
{
    lf__group G;
    lf_status st = lf__group_init(&G, cm, members, n);
    if (st != LF_OK)
        return st;
    lf__peak local;
    int handled = 0;
    st = lf__attn_price(&G, scheme, beta, out, peak ? peak : &local, &handled);
    if (st == LF_OK && !handled)
        st = lf__eval_waits(&G, scheme, beta, out, peak ? peak : &local);
    lf__group_destroy(&G);
    return st;
}

static lf_status lf__compute(const lf_cost_model *cm, const lf__scheme *scheme,
                             const int32_t *members, int32_t n, lf_group_cost *out, lf__peak *peak)
{
    return lf__compute_at(cm, scheme, cm->hw.buffer_bytes, members, n, out, peak);
}

lf_status lf_cost_model_create(lf_cost_model **out, const lf_graph *g, const lf_hw *hw,
                               const char *scheme)
{
    *out = NULL;
    const lf__scheme *sc = lf__scheme_find(scheme);
    if (!sc)
        return lf_set_error(LF_ENOTFOUND, "unknown cost scheme '%s' (known: lbdf, brr)", scheme);
    if (hw->buffer_bytes <= 0 || hw->act_bytes <= 0 || hw->weight_bytes <= 0)
        return lf_set_error(LF_EINVAL, "hardware '%s': buffer and element sizes must be positive",
                            hw->name);
    lf_cost_model *cm = calloc(1, sizeof *cm);
    if (!cm)
        return lf_set_error(LF_ENOMEM, "out of memory creating the cost model");
    cm->g = g;
    cm->hw = *hw;
    cm->scheme = sc;
    lf_hw_energy_model(hw, &cm->energy);
    cm->ops = calloc((size_t)g->n_ops, sizeof *cm->ops);
    cm->fusable = calloc((size_t)g->n_ops, 1);
    lf_status st = (cm->ops && cm->fusable) ? lf__memo_create(&cm->memo)
                                            : lf_set_error(LF_ENOMEM, "out of memory creating the cost model");
    for (int32_t v = 0; st == LF_OK && v < g->n_ops; v++)
        lf__op_constants(g, hw, v, &cm->ops[v]);
    if (st == LF_OK)
        if (!hw->no_attention)
            lf__attn_analyze(cm);
    /* Activation bytes moved in the buffer (energy.h's
     * lf_energy_act_traffic): operands read, output written, 0 for a view;
     * kept, since the objective's sums add it per member of every group. */
    for (int32_t v = 0; st == LF_OK && v < g->n_ops; v++) {
        lf__op_cost *c = &cm->ops[v];
        c->act_traffic = 0;
        if (c->kind == LF_ROWS_VIEW)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
            c->act_traffic += cm->ops[g->ops[v].inputs[j]].tensor_bytes;
        c->act_traffic += c->tensor_bytes;
    }
    for (int32_t v = 0; st == LF_OK && v < g->n_ops; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        lf_group_cost c;
        st = lf__compute(cm, sc, &v, 1, &c, NULL);
        cm->fusable[v] = (uint8_t)(st == LF_OK && c.valid);
        cm->n_unfusable += !cm->fusable[v];
    }
    if (st == LF_OK)
        st = lf__shift_analyze(cm);
    if (st == LF_OK && cm->shift_p > 0)
        st = lf__steps_memo_create(&cm->steps_memo);
    if (st != LF_OK) {
        lf_cost_model_free(cm);
        return st;
    }
    *out = cm;
    return LF_OK;
}

/* Validity at a buffer is "some way needs less than the buffer", each way's
 * need fixed by the group (lbdf.c, brr.c's rows and column blocks, the
 * waits' two ways, attn.c's configurations): an op valid alone at a buffer
 * is valid at every larger one, so growing the buffer only re-prices the
 * ops unfusable so far. Everything else create derives (op constants,
 * attention analysis) reads no buffer; the memos are emptied, as their
 * prices were the old buffer's, and the repeated blocks analysed again
 * where an op's fusability changed (they compare it; 4 % of gpt2_medium's
 * energy staircase when analysed at every step). */
lf_status lf_cost_model_rebuffer(lf_cost_model *cm, int64_t beta)
{
    if (beta <= 0)
        return lf_set_error(LF_EINVAL, "hardware '%s': buffer and element sizes must be positive", cm->hw.name);
    int grown = beta >= cm->hw.buffer_bytes;
    cm->hw.buffer_bytes = beta;
    lf_hw_energy_model(&cm->hw, &cm->energy);
    int64_t limit = lf__memo_limit(cm->memo, 0);
    lf__memo_free(cm->memo);
    cm->memo = NULL;
    lf__steps_memo_free(cm->steps_memo);
    cm->steps_memo = NULL;
    int32_t shift_p = cm->shift_p;
    cm->shift_p = 0; /* as create prices the ops alone */
    lf_status st = lf__memo_create(&cm->memo);
    if (st != LF_OK)
        return st;
    lf__memo_limit(cm->memo, limit);
    cm->n_unfusable = 0;
    int changed = 0;
    for (int32_t v = 0; st == LF_OK && v < cm->g->n_ops; v++) {
        if (cm->g->ops[v].type == LF_OP_INPUT)
            continue;
        if (!grown || !cm->fusable[v]) {
            lf_group_cost c;
            st = lf__compute(cm, cm->scheme, &v, 1, &c, NULL);
            uint8_t f = (uint8_t)(st == LF_OK && c.valid);
            changed |= f != cm->fusable[v];
            cm->fusable[v] = f;
        }
        cm->n_unfusable += !cm->fusable[v];
    }
    if (st == LF_OK && !changed) {
        cm->shift_p = shift_p; /* the blocks as they were: the ops compare alike */
    } else if (st == LF_OK) {
        free(cm->shift_runs);
        cm->shift_runs = NULL;
        st = lf__shift_analyze(cm);
    }
    if (st == LF_OK && cm->shift_p > 0)
        st = lf__steps_memo_create(&cm->steps_memo);
    return st;
}

void lf_cost_model_free(lf_cost_model *cm)
{
    if (!cm)
        return;
    lf__memo_free(cm->memo);
    free(cm->shift_runs);
    lf__steps_memo_free(cm->steps_memo);
    free(cm->ops);
    free(cm->fusable);
    free(cm);
}

const lf_graph *lf_cost_graph(const lf_cost_model *cm) { return cm->g; }
const lf_hw *lf_cost_hw(const lf_cost_model *cm) { return &cm->hw; }
const char *lf_cost_scheme_name(const lf_cost_model *cm) { return cm->scheme->name; }
int64_t lf_cost_beta(const lf_cost_model *cm) { return cm->hw.buffer_bytes; }
int lf_cost_fusable(const lf_cost_model *cm, int32_t v) { return cm->fusable[v]; }
int32_t lf_cost_unfusable_count(const lf_cost_model *cm) { return cm->n_unfusable; }
int lf_cost_weights_resident(const lf_cost_model *cm) { return cm->scheme->weights_resident; }

void lf_cost_weight_bound(const lf_cost_model *cm, int32_t v, int64_t *term, int64_t *block)
{
    cm->scheme->weight_bound(&cm->ops[v], term, block);
}

int64_t lf_cost_row_bytes(const lf_cost_model *cm, int32_t v)
{
    return cm->ops[v].row_bytes;
}

int64_t lf_cost_row_floor(const lf_cost_model *cm, int32_t v) { return cm->ops[v].row_floor; }
int lf_cost_column_tiled(const lf_cost_model *cm, int32_t v)
{
    return !cm->scheme->weights_resident && cm->ops[v].col_m > 0; /* brr.c's lf__brr_cols */
}
int lf_cost_view(const lf_cost_model *cm, int32_t v) { return cm->ops[v].kind == LF_ROWS_VIEW; }
int lf_cost_global_operand(const lf_cost_model *cm, int32_t v, int32_t j)
{
    return j >= 0 && j < 8 && ((cm->ops[v].global_in >> j) & 1);
}

int lf_cost_group_attn(const lf_cost_model *cm, const int32_t *members, int32_t n)
{
    for (int32_t i = 0; i < n; i++) /* lf__attn_setup's test */
        if (cm->ops[members[i]].global_in)
            return 1;
    return 0;
}

int64_t lf_cost_act_traffic(const lf_cost_model *cm, int32_t v) { return cm->ops[v].act_traffic; }
int64_t lf_cost_tensor_bytes(const lf_cost_model *cm, int32_t v) { return cm->ops[v].tensor_bytes; }
int64_t lf_cost_weight_bytes(const lf_cost_model *cm, int32_t v) { return cm->ops[v].weight_bytes; }

int64_t lf_cost_const_read_bytes(const lf_cost_model *cm, int32_t v)
{
    return cm->ops[v].weight_bytes + cm->ops[v].stream_bytes;
}

/* A group's bitset against the graph: its size, and not empty. */
static lf_status lf__group_check(const lf_cost_model *cm, const lf_bitset *group)
{
    if (group->nbits != cm->g->n_ops)
        return lf_set_error(LF_EINVAL, "group bitset has %d bits, graph '%s' has %d ops",
                            (int)group->nbits, cm->g->name, (int)cm->g->n_ops);
    if (lf_bitset_count(group) == 0)
        return lf_set_error(LF_EINVAL, "empty group");
    return LF_OK;
}

/* Member list of a bitset; validates the size against the graph. */
static lf_status lf__members(const lf_cost_model *cm, const lf_bitset *group, int32_t **members,
                             int32_t *n)
{
    lf_status st = lf__group_check(cm, group);
    if (st != LF_OK)
        return st;
    *n = lf_bitset_count(group);
    *members = malloc((size_t)*n * sizeof(int32_t));
    if (!*members)
        return lf_set_error(LF_ENOMEM, "out of memory evaluating a group");
    lf_bitset_to_list(group, *members);
    return LF_OK;
}

/* Words of a key kept on the caller's stack (graphs up to 2,048 ops): the
 * staircase asks millions of keys (bert_large BRR: 6.1 million), where a
 * malloc and a free each showed in the profile. */
#define LF__KEY_WORDS 32
/* The steps memo's tag (its `cap`, never a real one) for attention prices. */
#define LF__ATTN_PRICES (-1)

/* The memo's key of a group: its canonical copy (shift.c) in *key, whose
 * words live in stack (LF__KEY_WORDS of them) or in *buf (free it), or the
 * group itself; *shared is 1 when some other group has the same key (a
 * copy moved up or down). */
static lf_status lf__key(const lf_cost_model *cm, const lf_bitset *group, lf_bitset *key,
                         uint64_t *stack, uint64_t **buf, int *shared)
{
    int32_t up = 0, k = lf__shift_moves(cm, group, &up);
    *key = *group;
    *buf = NULL;
    *shared = k > 0 || up > 0;
    if (k == 0)
        return LF_OK;
    if (group->nwords <= LF__KEY_WORDS)
        key->words = stack;
    else if (!(key->words = *buf = malloc((size_t)group->nwords * sizeof **buf)))
        return lf_set_error(LF_ENOMEM, "out of memory evaluating a group");
    lf__shift_down(group, k * cm->shift_p, key);
    return LF_OK;
}

/* Prices a group, through the memo when `memo` (always) or when its key is
 * shared with a copy (lf_cost_eval_once: a group the caller meets once may
 * still be met again moved by a block). */
static lf_status lf__eval_keyed(lf_cost_model *cm, const lf_bitset *group, int memo, lf_group_cost *out)
{
    if (group->nbits != cm->g->n_ops)
        return lf_set_error(LF_EINVAL, "group bitset has %d bits, graph '%s' has %d ops",
                            (int)group->nbits, cm->g->name, (int)cm->g->n_ops);
    lf_bitset key;
    uint64_t *buf = NULL, stack[LF__KEY_WORDS];
    int shared = 0;
    lf_status st = lf__key(cm, group, &key, stack, &buf, &shared);
    memo |= shared;
    if (st == LF_OK && memo && lf__memo_get(cm->memo, &key, out)) {
        free(buf);
        return LF_OK;
    }
    int32_t *members = NULL, n = 0;
    if (st == LF_OK)
        st = lf__members(cm, group, &members, &n);
    if (st == LF_OK)
        st = lf__compute(cm, cm->scheme, members, n, out, NULL);
    free(members);
    if (st == LF_OK && memo)
        st = lf__memo_put(cm->memo, &key, out);
    free(buf);
    return st;
}

lf_status lf_cost_eval(lf_cost_model *cm, const lf_bitset *group, lf_group_cost *out)
{
    return lf__eval_keyed(cm, group, 1, out);
}

lf_status lf_cost_eval_once(lf_cost_model *cm, const lf_bitset *group, lf_group_cost *out)
{
    return lf__eval_keyed(cm, group, 0, out);
}

lf_status lf_cost_eval_at(lf_cost_model *cm, const int32_t *members, int32_t n, int64_t beta,
                          lf_group_cost *out)
{
    if (!cm || !members || n < 1 || beta < 1 || !out)
        return lf_set_error(LF_EINVAL, "lf_cost_eval_at: bad argument");
    return lf__compute_at(cm, cm->scheme, beta, members, n, out, NULL);
}

/* Steps of a member list under a scheme; with `at`, each step k whose
 * successor needs at least `from` priced at buffer need + 1 into at[k] (the
 * others left invalid; an attention group not at all, cost.h)
 * from the walk's own view of the group: its windows
 * are kept for both ways through a wait (rows.c), so these evaluations sum
 * kept terms where lf_cost_eval_at would build and walk the group afresh,
 * to the same figures. */
static lf_status lf__steps(const lf_cost_model *cm, const lf__scheme *scheme,
                           const int32_t *members, int32_t n, int64_t below, lf_cost_step *steps,
                           int32_t cap, int32_t *n_out, int64_t from, lf_group_cost *at)
{
    lf__group G;
    lf_status st = lf__group_init(&G, cm, members, n);
    if (st != LF_OK)
        return st;
    lf__priced p;
    G.reread_waits = 0;
    /* The walk asks for many tile heights: keep the windows from the first
     * evaluation on (lf__features records from the second otherwise), both
     * ways through a wait, each snapshot set up once for both. */
    G.full_evals = 1;
    G.both_modes = 1;
    lf__group_priced(&G, &p);
    int handled = 0;
    st = lf__attn_steps(&G, scheme, below, steps, cap, n_out, &handled);
    if (st == LF_OK && !handled)
        st = scheme->steps(&p, below, steps, cap, n_out);
    int64_t reread = st == LF_OK && !handled ? lf__wait_reread_bytes(&G) : 0;
    if (reread > 0) {
        /* Both ways through a squeeze-and-excite wait are steps: reading
         * again needs the smaller buffer, keeping resident the smaller F_D. */
        lf_cost_step again[LF_COST_MAX_STEPS];
        int32_t n_again = 0;
        G.reread_waits = 1;
        st = scheme->steps(&p, below, again, LF_COST_MAX_STEPS, &n_again);
        for (int32_t k = 0; st == LF_OK && k < n_again; k++)
            st = lf__step_push(steps, cap, n_out, again[k].need, again[k].f_d + reread);
    }
    /* An attention group (handled) is priced at every buffer by its caller
     * instead (lf_cost_attn_prices): none of its steps is priced here. */
    for (int32_t k = 0; at && st == LF_OK && k < *n_out; k++) {
        lf__peak peak;
        if (handled || (k + 1 < *n_out && steps[k + 1].need < from)) {
            memset(&at[k], 0, sizeof at[k]);
            continue;
        }
        st = lf__eval_waits(&G, scheme, steps[k].need + 1, &at[k], &peak);
    }
    lf__group_destroy(&G);
    return st;
}

static lf_status lf__steps_of(lf_cost_model *cm, const lf_bitset *group, int64_t below,
                              lf_cost_step *steps, int32_t cap, int32_t *n, int64_t from,
                              lf_group_cost *at, int *priced)
{
    int32_t *members = NULL, nm = 0;
    *n = 0;
    lf_status st = lf__group_check(cm, group);
    if (st != LF_OK)
        return st;
    /* A group with a copy one block away: its steps are its canonical
     * copy's (steps_memo.c). The members are listed only when the memo
     * does not answer (most asks of a long stack of layers). */
    lf_bitset key;
    uint64_t *buf = NULL, stack[LF__KEY_WORDS];
    int shared = 0;
    if (cm->steps_memo)
        st = lf__key(cm, group, &key, stack, &buf, &shared);
    if (st == LF_OK && shared && lf__steps_memo_get(cm->steps_memo, &key, below, steps, cap, n)) {
        free(buf);
        return LF_OK;
    }
    if (st == LF_OK)
        st = lf__members(cm, group, &members, &nm);
    if (st == LF_OK)
        st = lf__steps(cm, cm->scheme, members, nm, below, steps, cap, n, from, at);
    if (st == LF_OK && priced)
        *priced = at != NULL;
    if (st == LF_OK && shared)
        st = lf__steps_memo_put(cm->steps_memo, &key, below, steps, cap, *n);
    free(buf);
    free(members);
    return st;
}

lf_status lf__steps_keyed(lf_cost_model *cm, const lf_bitset *group, int64_t below, lf_cost_step *steps,
                          int32_t cap, int32_t *n, lf__steps_fn fn, void *ctx)
{
    *n = 0;
    lf_status st = lf__group_check(cm, group);
    lf_bitset key;
    uint64_t *buf = NULL, stack[LF__KEY_WORDS];
    int shared = 0;
    if (st == LF_OK && cm->steps_memo)
        st = lf__key(cm, group, &key, stack, &buf, &shared);
    if (st == LF_OK && shared && lf__steps_memo_get(cm->steps_memo, &key, below, steps, cap, n)) {
        free(buf);
        return LF_OK;
    }
    if (st == LF_OK)
        st = fn(ctx, below, steps, cap, n);
    if (st == LF_OK && shared)
        st = lf__steps_memo_put(cm->steps_memo, &key, below, steps, cap, *n);
    free(buf);
    return st;
}

lf_status lf_cost_op_schedules(lf_cost_model *cm, int32_t v, int64_t below, lf_cost_step *steps, int32_t cap,
                               int32_t *n)
{
    *n = 0;
    lf__group G;
    lf_status st = lf__group_init(&G, cm, &v, 1);
    if (st != LF_OK)
        return st;
    lf__priced p;
    G.reread_waits = 0;
    G.full_evals = 1;
    lf__group_priced(&G, &p);
    p.keep_all = 1;
    st = cm->scheme->steps(&p, below, steps, cap, n);
    lf__group_destroy(&G);
    return st;
}

lf_status lf_cost_attn_prices(lf_cost_model *cm, const int32_t *members, int32_t n, int64_t lo, int64_t below,
                              lf_cost_sched **out, int32_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    /* A group with a copy one block away prices as its canonical copy does
     * at every buffer (shift.c), so its pieces are kept in the steps memo
     * (tag LF__ATTN_PRICES; entry 0 holds lo, then two entries a piece). */
    lf_bitset group, key;
    uint64_t *buf = NULL, stack[LF__KEY_WORDS];
    int shared = 0;
    lf_status st = LF_OK;
    if (cm->steps_memo && (st = lf_bitset_init(&group, cm->g->n_ops)) == LF_OK) {
        for (int32_t i = 0; i < n; i++)
            lf_bitset_set(&group, members[i]);
        st = lf__key(cm, &group, &key, stack, &buf, &shared);
        lf_cost_step *kept = NULL;
        int32_t nk = 0;
        if (st == LF_OK && shared &&
            lf__steps_memo_get_copy(cm->steps_memo, &key, below, LF__ATTN_PRICES, &kept, &nk)) {
            if (nk >= 1 && kept[0].need == lo && (*out = malloc((size_t)(nk / 2 ? nk / 2 : 1) * sizeof **out))) {
                for (int32_t k = 0; k < nk / 2; k++)
                    (*out)[k] = (lf_cost_sched){kept[1 + 2 * k].need, kept[1 + 2 * k].f_d,
                                                kept[2 + 2 * k].need, (int32_t)kept[2 + 2 * k].f_d};
                *n_out = nk / 2;
            }
            free(kept);
            if (*out) {
                free(buf);
                lf_bitset_destroy(&group);
                return LF_OK;
            }
        }
    }
    lf__group G;
    if (st == LF_OK)
        st = lf__group_init(&G, cm, members, n);
    if (st == LF_OK) {
        int handled = 0;
        st = lf__attn_prices(&G, cm->scheme, lo, below, out, n_out, &handled);
        lf__group_destroy(&G);
    }
    if (st == LF_OK && shared && *out) {
        lf_cost_step *kept = malloc(((size_t)*n_out * 2 + 1) * sizeof *kept);
        if (kept) {
            kept[0] = (lf_cost_step){lo, 0};
            for (int32_t k = 0; k < *n_out; k++) {
                kept[1 + 2 * k] = (lf_cost_step){(*out)[k].at, (*out)[k].f_d};
                kept[2 + 2 * k] = (lf_cost_step){(*out)[k].steps, (*out)[k].valid};
            }
            st = lf__steps_memo_put(cm->steps_memo, &key, below, kept, LF__ATTN_PRICES, 2 * *n_out + 1);
            free(kept);
        }
    }
    if (cm->steps_memo && group.words)
        lf_bitset_destroy(&group);
    free(buf);
    return st;
}

lf_status lf_cost_steps(lf_cost_model *cm, const lf_bitset *group, int64_t below,
                        lf_cost_step *steps, int32_t cap, int32_t *n)
{
    return lf__steps_of(cm, group, below, steps, cap, n, 0, NULL, NULL);
}

lf_status lf_cost_steps_priced(lf_cost_model *cm, const lf_bitset *group, int64_t below,
                               int64_t from, lf_cost_step *steps, lf_group_cost *at, int32_t cap,
                               int32_t *n, int *priced)
{
    if (!at || !priced)
        return lf_set_error(LF_EINVAL, "lf_cost_steps_priced: NULL argument");
    *priced = 0;
    return lf__steps_of(cm, group, below, steps, cap, n, from, at, priced);
}

lf_status lf_cost_singleton_at(lf_cost_model *cm, int32_t v, int64_t beta, int64_t *f_d)
{
    /* The one rule for a lone op (DESIGN §4): the scheme's price where v
     * fits at beta, else the BRR rule at beta, valid or not (below BRR's
     * own threshold it still runs, one row per tile). lf_plan_metrics_compute
     * charges the same at the model's buffer. */
    lf_group_cost c;
    *f_d = 0;
    lf_status st = lf__compute_at(cm, cm->scheme, beta, &v, 1, &c, NULL);
    if (st == LF_OK && !c.valid && cm->scheme != &lf__scheme_brr)
        st = lf__compute_at(cm, &lf__scheme_brr, beta, &v, 1, &c, NULL);
    if (st == LF_OK)
        *f_d = c.f_d;
    return st;
}

lf_status lf_cost_singleton_steps(lf_cost_model *cm, int32_t v, int64_t lo, int64_t below,
                                  lf_cost_step *steps, int32_t cap, int32_t *n)
{
    lf_cost_step brr[LF_COST_MAX_STEPS];
    int32_t nb = 0;
    *n = 0;
    lf_status st = lf__steps(cm, cm->scheme, &v, 1, below, steps, cap, n, 0, NULL);
    if (st == LF_OK)
        st = lf__steps(cm, &lf__scheme_brr, &v, 1, INT64_MAX, brr, LF_COST_MAX_STEPS, &nb, 0, NULL);
    /* From no buffer at all: the price at lo, not at BRR's threshold, which
     * may differ (a weight MatMul under BRR re-reads its input per output
     * channel just above its threshold, dearer than the charge below it). */
    int64_t at_lo = 0;
    if (st == LF_OK)
        st = lf_cost_singleton_at(cm, v, lo, &at_lo);
    if (st == LF_OK)
        st = lf__step_push(steps, cap, n, 0, at_lo);
    for (int32_t k = 0; st == LF_OK && k < nb && brr[k].need < below; k++)
        st = lf__step_push(steps, cap, n, brr[k].need, brr[k].f_d);
    return st;
}

lf_status lf_cost_singleton_rises(lf_cost_model *cm, int32_t v, int64_t lo, int64_t hi, int64_t *cuts,
                                  int32_t *n)
{
    /* The price changes kind only where v starts to fit alone, under the
     * scheme or under BRR (its unfusable charge): a rise is one of those. */
    const lf__scheme *schemes[2] = {cm->scheme, &lf__scheme_brr};
    lf_status st = LF_OK;
    for (int s = 0; s < 2 && st == LF_OK; s++) {
        lf_group_cost c;
        if ((st = lf__compute_at(cm, schemes[s], hi, &v, 1, &c, NULL)) != LF_OK)
            break;
        int64_t t = c.f_beta + 1, below = 0, above = 0;
        if (!c.valid || t <= lo || t > hi || (s == 1 && cm->scheme == &lf__scheme_brr))
            continue;
        if ((st = lf_cost_singleton_at(cm, v, t - 1, &below)) == LF_OK &&
            (st = lf_cost_singleton_at(cm, v, t, &above)) == LF_OK && above > below)
            cuts[(*n)++] = t;
    }
    return st;
}

lf_status lf_cost_unfusable_dram(lf_cost_model *cm, int32_t v, int64_t *bytes)
{
    lf_group_cost c;
    lf_status st = lf__compute(cm, &lf__scheme_brr, &v, 1, &c, NULL);
    *bytes = st == LF_OK ? c.f_d : 0;
    return st;
}

void lf_cost_stats_get(const lf_cost_model *cm, lf_cost_stats *s)
{
    lf__memo_stats(cm->memo, &s->hits, &s->misses, &s->entries, &s->bytes, &s->evictions);
}

int64_t lf_cost_memo_limit(lf_cost_model *cm, int64_t bytes) { return lf__memo_limit(cm->memo, bytes); }

lf_status lf_cost_explain(lf_cost_model *cm, const lf_bitset *group, lf_cost_report *rep)
{
    memset(rep, 0, sizeof *rep);
    int32_t *members = NULL, n = 0;
    lf_status st = lf__members(cm, group, &members, &n);
    if (st != LF_OK)
        return st;
    lf__group G;
    st = lf__group_init(&G, cm, members, n);
    free(members);
    if (st != LF_OK)
        return st;
    lf__peak peak = {-1, 0, 0};
    int handled = 0;
    st = lf__attn_price(&G, cm->scheme, cm->hw.buffer_bytes, &rep->cost, &peak, &handled);
    if (st == LF_OK && !handled)
        st = lf__eval_waits(&G, cm->scheme, cm->hw.buffer_bytes, &rep->cost, &peak);
    rep->rows = st == LF_OK ? calloc((size_t)G.nt, sizeof *rep->rows) : NULL;
    if (st == LF_OK && !rep->rows)
        st = lf_set_error(LF_ENOMEM, "out of memory explaining a group");
    if (st == LF_OK) {
        lf__features_explain(&G, &peak, rep->rows, &rep->n_rows);
        rep->phase = peak.phase;
        rep->n_snapshots = peak.n_snapshots;
        if (peak.snapshot_op < 0)
            snprintf(rep->snapshot, sizeof rep->snapshot, "group sinks producing row %d",
                     (int)peak.phase);
        else
            snprintf(rep->snapshot, sizeof rep->snapshot,
                     "start of '%s' (after the reduction it waits for)",
                     cm->g->ops[peak.snapshot_op].name);
    }
    lf__group_destroy(&G);
    return st;
}

void lf_cost_report_destroy(lf_cost_report *rep)
{
    free(rep->rows);
    rep->rows = NULL;
    rep->n_rows = 0;
}
