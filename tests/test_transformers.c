/* Built-in transformers (issue 35, DESIGN §16): parameters against the
 * published counts, MACs against a count by formula, the attention layout
 * (heads on C, tokens on H, the causal Softmax), --seq-len / --layers /
 * --batch / decode, the option errors, and the reference executor running
 * each at a small size. */
#include <math.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/exec/exec.h"
#include "planner/graph.h"
#include "testlib.h"

static lf_graph *build(const char *name, int32_t batch, int32_t seq, int32_t layers,
                       int32_t decode, int32_t context)
{
    lf_model_options opt = {0, batch};
    lf_model_seq_options so = {seq, layers, decode ? LF_PHASE_DECODE : LF_PHASE_PREFILL, context};
    lf_graph *g = NULL;
    lf_status st = lf_model_build_seq(name, &opt, &so, &g);
    if (st != LF_OK)
        fprintf(stderr, "%s: %s\n", name, lf_last_error());
    return g;
}

static int32_t count_type(const lf_graph *g, lf_op_type t)
{
    int32_t n = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        n += g->ops[v].type == t;
    return n;
}

static const lf_op *find(const lf_graph *g, const char *name)
{
    int32_t v = lf_graph_find(g, name);
    return v >= 0 ? &g->ops[v] : NULL;
}

/* GPT-2: Hugging Face's GPT2LMHeadModel has 124,439,808 parameters (small)
 * and 354,823,168 (medium), the LM head tied to the token table. Per layer
 * (D = 768): 2 LayerNorms 4D, c_attn D*3D + 3D, c_proj D*D + D, c_fc D*4D +
 * 4D, mlp.c_proj 4D*D + D = 12 D^2 + 13 D = 7,087,872; plus wte 50257 D,
 * wpe 1024 D, ln_f 2D. MACs per token and layer: 12 D^2 in the linears,
 * 2 T D in the two attention products (full, not halved by the mask), and
 * the LM head V D. */
static void test_gpt2(void)
{
    const int64_t D = 768, T = 1024, V = 50257;
    lf_graph *g = build("gpt2", 1, 0, 0, 0, 0);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK_EQ_I64(lf_graph_params(g), 124439808);
    CHECK_EQ_I64(12 * (12 * D * D + 13 * D) + V * D + 1024 * D + 2 * D, 124439808);
    CHECK_EQ_I64(lf_graph_macs(g), 12 * (12 * D * D * T + 2 * T * T * D) + V * D * T);
    /* one causal Softmax per layer, over W (the keys), of 12 heads x T x T */
    CHECK_EQ_I64(count_type(g, LF_OP_SOFTMAX), 12);
    const lf_op *sm = find(g, "transformer.h.0.attn.softmax");
    CHECK(sm && sm->attr.causal == 1 && sm->attr.axes == LF_AXES(LF_DIM_W));
    CHECK(sm && sm->out.n == 1 && sm->out.c == 12 && sm->out.h == T && sm->out.w == T);
    /* q: B x heads x T x dh; the score product reads K transposed */
    const lf_op *s = find(g, "transformer.h.0.attn.scores");
    CHECK(s && s->attr.trans_b == 1 && s->n_inputs == 2);
    if (s) {
        const lf_shape q = g->ops[s->inputs[0]].out;
        CHECK(q.n == 1 && q.c == 12 && q.h == T && q.w == 64);
    }
    /* the LM head reads the token table (the one copy) transposed: the
     * lookup's table, counted once in the parameters */
    const lf_op *head = find(g, "lm_head");
    CHECK(head && head->attr.trans_b == 1 && head->weight_elems == V * D && head->is_output);
    const lf_op *wte = find(g, "transformer.wte"), *wpe = find(g, "transformer.wpe");
    CHECK(wte && wte->type == LF_OP_GATHER && wte->out.h == T && wte->out.w == D);
    CHECK(wte && head && wte->operands[0].kind == LF_OPND_CONST &&
          wte->operands[0].id == head->operands[1].id && wte->param_count == V * D &&
          head->param_count == 0);
    CHECK(wpe && wpe->type == LF_OP_GATHER && wpe->weight_elems == 1024 * D);
    lf_graph_free(g);

    g = build("gpt2_medium", 1, 0, 0, 0, 0);
    CHECK(g && lf_graph_params(g) == 354823168);
    lf_graph_free(g);
}

/* The published counts: BERT (HF BertModel with its pooler: base
 * 109,482,240, large 335,141,888; the word, position and token type tables
 * are Gathers' tables, whole at any length); Llama 3 8B (8,030,261,248, its
 * embed_tokens a Gather's table, the LM head untied) plus the 65 RMSNorm
 * epsilons the graph holds as scalar constants; ViT-B/16 is torchvision's
 * 86,567,656 plus the 12 attention scales of the export (docs/RESULTS.md),
 * 17.56 GMACs as torchvision's metadata. */
static void test_published(void)
{
    struct {
        const char *name;
        int64_t params, macs_min, macs_max;
    } nets[] = {
        {"vit_b_16", 86567656 + 12, 17555000000LL, 17570000000LL},
        {"bert_base", 109482240, 0, 0},
        {"bert_large", 335141888, 0, 0},
        {"llama3_8b", 8030261248LL, 0, 0},
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        lf_graph *g = build(nets[i].name, 1, 0, 0, 0, 0);
        CHECK(g != NULL);
        if (!g)
            continue;
        CHECK_EQ_I64(lf_graph_params(g), nets[i].params);
        if (nets[i].macs_max)
            CHECK(lf_graph_macs(g) >= nets[i].macs_min && lf_graph_macs(g) <= nets[i].macs_max);
        lf_graph_free(g);
    }
    /* BERT-base MACs at 128 tokens: 12 layers x (12 D^2 T + 2 T^2 D) + the
     * pooler D^2 */
    const int64_t D = 768, T = 128;
    lf_graph *g = build("bert_base", 1, 0, 0, 0, 0);
    CHECK(g && lf_graph_macs(g) == 12 * (12 * D * D * T + 2 * T * T * D) + D * D);
    lf_graph_free(g);
    /* Llama 3 8B, grouped-query attention: 4 query heads per key/value head
     * stacked on H, a causal Softmax of 4 stacks, K read per KV head */
    g = build("llama3_8b", 1, 64, 1, 0, 0);
    CHECK(g != NULL);
    if (g) {
        const lf_op *s = find(g, "model.layers.0.self_attn.scores");
        CHECK(s && s->out.c == 8 && s->out.h == 4 * 64 && s->out.w == 64);
        if (s) {
            const lf_shape k = g->ops[s->inputs[1]].out;
            CHECK(k.c == 8 && k.h == 64 && k.w == 128);
        }
        const lf_op *sm = find(g, "model.layers.0.self_attn.softmax");
        CHECK(sm && sm->attr.causal == 4);
        /* per layer: 4 D^2 (q, o) + 2 D (8 x 128) (k, v) + 3 D F, per token,
         * the two products 2 T^2 D, and the head V D per token */
        const int64_t d = 4096, f = 14336, t = 64;
        CHECK_EQ_I64(lf_graph_macs(g), (2 * d * d + 2 * d * 1024 + 3 * d * f) * t + 2 * t * t * d +
                                           128256LL * d * t);
    }
    lf_graph_free(g);
}

/* --seq-len, --layers and --batch change the graph as they say. */
static void test_sizes(void)
{
    lf_graph *g = build("gpt2", 3, 16, 2, 0, 0);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK_EQ_I64(count_type(g, LF_OP_SOFTMAX), 2);
    const lf_op *head = find(g, "lm_head");
    CHECK(head && head->out.n == 3 && head->out.h == 16 && head->out.w == 50257);
    CHECK(find(g, "transformer.h.2.ln_1") == NULL);
    lf_graph_free(g);
}

/* Decode: one token, the caches of P tokens per layer as inputs, the new
 * rows as outputs, N_q = 1 and N_kv = P + 1. */
static void test_decode(void)
{
    lf_graph *g = build("gpt2", 1, 0, 2, 1, 100);
    CHECK(g != NULL);
    if (!g)
        return;
    const lf_op *pk = find(g, "transformer.h.1.attn.past_key");
    CHECK(pk && pk->type == LF_OP_INPUT && pk->out.c == 12 && pk->out.h == 100 && pk->out.w == 64);
    const lf_op *s = find(g, "transformer.h.1.attn.scores");
    CHECK(s && s->out.h == 1 && s->out.w == 101);
    const lf_op *sm = find(g, "transformer.h.1.attn.softmax");
    CHECK(sm && sm->attr.causal == 0);
    const lf_op *nk = find(g, "transformer.h.1.attn.key.Transpose");
    CHECK(nk && nk->is_output && nk->out.h == 1);
    const lf_op *nv = find(g, "transformer.h.1.attn.value.Transpose");
    CHECK(nv && nv->is_output);
    const lf_op *head = find(g, "lm_head");
    CHECK(head && head->out.h == 1);
    /* weights do not depend on the phase (the position table is whole) */
    int64_t prefill_params = 0;
    lf_graph *p = build("gpt2", 1, 1, 2, 0, 0);
    if (p)
        prefill_params = lf_graph_params(p);
    CHECK_EQ_I64(lf_graph_params(g), prefill_params);
    lf_graph_free(p);
    lf_graph_free(g);
}

static void expect_error(const char *name, int32_t seq, int32_t layers, int32_t decode,
                         int32_t context, lf_status want, const char *needle)
{
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {seq, layers, decode ? LF_PHASE_DECODE : LF_PHASE_PREFILL, context};
    lf_graph *g = NULL;
    lf_status st = lf_model_build_seq(name, &opt, &so, &g);
    CHECK(st == want && g == NULL);
    CHECK(strstr(lf_last_error(), needle) != NULL);
    if (!strstr(lf_last_error(), needle))
        fprintf(stderr, "message: %s\n", lf_last_error());
    lf_graph_free(g);
}

static void test_errors(void)
{
    expect_error("gpt2", 1025, 0, 0, 0, LF_ERANGE, "--seq-len 1025 is out of range (1 to 1024)");
    expect_error("gpt2", 0, 13, 0, 0, LF_ERANGE, "--layers 13 is out of range (1 to 12)");
    expect_error("gpt2", 0, 0, 1, 1024, LF_ERANGE, "--context 1024 is out of range (1 to 1023)");
    expect_error("gpt2", 0, 0, 0, 5, LF_EINVAL, "--context applies to --phase decode");
    expect_error("gpt2", 8, 0, 1, 5, LF_EINVAL, "give --context, not --seq-len");
    expect_error("resnet18", 8, 0, 0, 0, LF_EINVAL, "apply to transformer networks only");
}

/* The executor runs each family at a small size (one layer, 8 tokens; the
 * medium and large variants are the same code at other widths): finite
 * outputs, and every row of probabilities a distribution (a causal one:
 * token 0 sees key 0 only). Llama's decode step is left out: its LM head
 * alone is 525 M generated values, as in its prefill. */
static void test_run(void)
{
    struct {
        const char *name, *out, *softmax;
        int decoder;
    } nets[] = {
        {"gpt2", "lm_head", "transformer.h.0.attn.softmax", 1},
        {"llama3_8b", "lm_head.MatMul", "model.layers.0.self_attn.softmax", 2},
        {"bert_base", "pooler.activation", "encoder.layer.0.attention.self.softmax", 0},
        {"vit_b_16", "heads.head", "encoder.layers.encoder_layer_0.self_attention.Softmax", 0},
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        for (int decode = 0; decode < 1 + (nets[i].decoder == 1); decode++) {
            int vit = strcmp(nets[i].name, "vit_b_16") == 0;
            lf_graph *g = build(nets[i].name, 1, decode || vit ? 0 : 8, 1, decode, decode ? 5 : 0);
            CHECK(g != NULL);
            if (!g)
                continue;
            lf_exec_options eo = {1, 2, 1};
            lf_exec *ex = NULL;
            CHECK_OK(lf_exec_create(&ex, g, &eo));
            if (ex && lf_exec_run(ex) == LF_OK) {
                lf_shape sh;
                const float *y = lf_exec_output(ex, lf_graph_find(g, nets[i].out), &sh);
                int finite = y != NULL;
                for (int64_t k = 0; y && k < sh.n * sh.c * sh.h * sh.w; k++)
                    finite &= isfinite(y[k]) != 0;
                CHECK(finite);
                /* rows of the probabilities sum to 1 over the keys they see */
                const float *p = lf_exec_output(ex, lf_graph_find(g, nets[i].softmax), &sh);
                CHECK(p != NULL);
                for (int64_t row = 0; p && row < sh.n * sh.c * sh.h; row++) {
                    double sum = 0;
                    for (int64_t k = 0; k < sh.w; k++)
                        sum += p[row * sh.w + k];
                    CHECK_NEAR(sum, 1.0, 1e-5);
                }
                /* causal: token 0 of a prefill sees key 0 only */
                if (p && !decode && nets[i].decoder)
                    CHECK_NEAR(p[0], 1.0, 1e-6);
            } else {
                CHECK(0);
            }
            lf_exec_free(ex);
            lf_graph_free(g);
        }
    }
}

/* Gather: output row r is table row ids[r]; an id that is not a row
 * (fractional, negative, past the table) fails naming it; the ids generated
 * for an unset input are rows of the table. */
static void test_gather_exec(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "lookup"));
    lf_attrs in = {.batch = 1, .in_c = 1, .in_h = 3, .in_w = 1};
    lf_graph_builder_add(b, LF_OP_INPUT, "ids", &in, NULL, 0);
    float t[12] = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32};
    lf_graph_builder_add_const(b, "table", (lf_shape){1, 1, 4, 3}, t);
    const char *ops[2] = {"table", "ids"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_GATHER, "lookup", NULL, ops, 2) >= 0);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    const lf_op *op = find(g, "lookup");
    CHECK(op && op->out.n == 1 && op->out.c == 1 && op->out.h == 3 && op->out.w == 3);
    CHECK_EQ_I64(lf_graph_params(g), 12);
    lf_exec_options eo = {0, 1, 1};
    lf_exec *ex = NULL;
    CHECK_OK(lf_exec_create(&ex, g, &eo));
    if (ex) {
        CHECK_OK(lf_exec_run(ex)); /* generated ids: rows 0..3 */
        const float *y = lf_exec_output(ex, lf_graph_find(g, "ids"), NULL);
        for (int k = 0; y && k < 3; k++)
            CHECK(y[k] >= 0 && y[k] <= 3 && y[k] == (float)(int)y[k]);
        float ids[3] = {2, 0, 3};
        CHECK_OK(lf_exec_set_input(ex, 0, ids, 3));
        CHECK_OK(lf_exec_run(ex));
        y = lf_exec_output(ex, lf_graph_find(g, "lookup"), NULL);
        const float want[9] = {20, 21, 22, 0, 1, 2, 30, 31, 32};
        CHECK(y && memcmp(y, want, sizeof want) == 0);
        const float bad[3][3] = {{0, 1.5f, 2}, {0, 1, -1}, {4, 0, 0}};
        const char *why[3] = {"Gather: id 1.5 at position 1 is not a row of the table (an integer 0 to 3)",
                              "Gather: id -1 at position 2 is not", "Gather: id 4 at position 0 is not"};
        for (int k = 0; k < 3; k++) {
            CHECK_OK(lf_exec_set_input(ex, 0, bad[k], 3));
            CHECK(lf_exec_run(ex) == LF_EINVAL);
            CHECK(strstr(lf_last_error(), "op 'lookup': ") != NULL && strstr(lf_last_error(), why[k]) != NULL);
            if (!strstr(lf_last_error(), why[k]))
                fprintf(stderr, "message: %s\n", lf_last_error());
        }
    }
    lf_exec_free(ex);
    lf_graph_free(g);
}

/* The cost models price a lookup's rows, not its table (DESIGN §16): GPT-2
 * at 16 tokens reads 16 rows of its 50257-row token table (one row in
 * flight, 15 streamed), BERT's 2-row token type table is cheaper whole (an
 * ordinary weight); the lookup alone as a group moves its ids, its rows and
 * its output, by hand. */
static void test_gather_cost(void)
{
    lf_graph *g = build("gpt2", 1, 16, 1, 0, 0);
    lf_graph *bert = build("bert_base", 1, 16, 1, 0, 0);
    CHECK(g && bert);
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 256 << 10;
    lf_cost_model *cm = NULL, *cb = NULL;
    if (g && bert && lf_cost_model_create(&cm, g, &hw, "lbdf") == LF_OK &&
        lf_cost_model_create(&cb, bert, &hw, "lbdf") == LF_OK) {
        int64_t wb = hw.weight_bytes, ab = hw.act_bytes;
        int32_t v = lf_graph_find(g, "transformer.wte");
        CHECK_EQ_I64(lf_cost_weight_bytes(cm, v), 768 * wb);
        CHECK_EQ_I64(lf_cost_const_read_bytes(cm, v), 16 * 768 * wb);
        lf_bitset one = {0};
        CHECK_OK(lf_bitset_init(&one, g->n_ops));
        lf_bitset_set(&one, v);
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &one, &c));
        CHECK(c.valid);
        CHECK_EQ_I64(c.f_d, 16 * ab + 16 * 768 * wb + 16 * 768 * ab);
        lf_bitset_destroy(&one);
        int32_t t = lf_graph_find(bert, "embeddings.token_type_embeddings");
        CHECK_EQ_I64(lf_cost_weight_bytes(cb, t), 2 * 768 * wb);
        CHECK_EQ_I64(lf_cost_const_read_bytes(cb, t), 2 * 768 * wb);
    } else {
        CHECK(0);
    }
    lf_cost_model_free(cm);
    lf_cost_model_free(cb);
    lf_graph_free(g);
    lf_graph_free(bert);
}

int main(void)
{
    test_gather_exec();
    test_gather_cost();
    test_gpt2();
    test_published();
    test_sizes();
    test_decode();
    test_errors();
    test_run();
    return lf_test_result();
}
