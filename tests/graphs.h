/* Small hand-made graphs shared by the cost, plan and search tests. Each
 * helper adds one op to a builder and returns its name, so graphs read like
 * the diagrams in docs/cost-models.md. */
#ifndef LF_TEST_GRAPHS_H
#define LF_TEST_GRAPHS_H

#include "planner/graph.h"

static inline const char *tg_input(lf_graph_builder *b, const char *name, int c, int h, int w)
{
    lf_attrs a = {0};
    a.in_c = c;
    a.in_h = h;
    a.in_w = w;
    lf_graph_builder_add(b, LF_OP_INPUT, name, &a, NULL, 0);
    return name;
}

/* Square kernel k, stride s, symmetric padding p, no bias unless bias != 0. */
static inline const char *tg_conv(lf_graph_builder *b, const char *name, const char *in, int out_c,
                                  int k, int s, int p, int groups, int bias, lf_act act)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = a.kw = k;
    a.sh = a.sw = s;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = p;
    a.groups = groups;
    a.has_bias = bias;
    a.act = act;
    lf_graph_builder_add(b, LF_OP_CONV, name, &a, &in, 1);
    return name;
}

static inline const char *tg_pool(lf_graph_builder *b, lf_op_type t, const char *name, const char *in,
                                  int k, int s, int p)
{
    lf_attrs a = {0};
    a.kh = a.kw = k;
    a.sh = a.sw = s;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = p;
    lf_graph_builder_add(b, t, name, &a, &in, 1);
    return name;
}

static inline const char *tg_unary(lf_graph_builder *b, lf_op_type t, const char *name, const char *in)
{
    lf_graph_builder_add(b, t, name, NULL, &in, 1);
    return name;
}

static inline const char *tg_binary(lf_graph_builder *b, lf_op_type t, const char *name,
                                    const char *x, const char *y)
{
    const char *in[2] = {x, y};
    lf_graph_builder_add(b, t, name, NULL, in, 2);
    return name;
}

static inline const char *tg_concat(lf_graph_builder *b, const char *name, const char *const *in, int n)
{
    lf_graph_builder_add(b, LF_OP_CONCAT, name, NULL, in, n);
    return name;
}

static inline const char *tg_gemm(lf_graph_builder *b, const char *name, const char *in, int out, int bias)
{
    lf_attrs a = {0};
    a.out_channels = out;
    a.has_bias = bias;
    lf_graph_builder_add(b, LF_OP_GEMM, name, &a, &in, 1);
    return name;
}

#endif
