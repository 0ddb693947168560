/* Loading what every model command needs: the network, the hardware and the
 * cost model, from the shared options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/app/cli/cli.h"
#include "planner/app/registry.h"

int lf_cli_seq_options(const lf_cli_command *cmd, lf_model_source *src)
{
    static const char *const phases[] = {"prefill", "decode", NULL};
    int64_t seq = 0, layers = 0, context = 0;
    const char *phase = "prefill";
    int rc;
    if ((rc = lf_cli_int(cmd, "seq-len", 0, 1, LF_MODEL_MAX_SEQ, &seq)) ||
        (rc = lf_cli_int(cmd, "layers", 0, 1, 1024, &layers)) ||
        (rc = lf_cli_int(cmd, "context", 0, 1, LF_MODEL_MAX_CONTEXT, &context)) ||
        (rc = lf_cli_choice(cmd, "phase", phases, &phase)))
        return rc;
    src->seq_len = (int32_t)seq;
    src->layers = (int32_t)layers;
    src->context = (int32_t)context;
    src->phase = strcmp(phase, "decode") == 0 ? LF_PHASE_DECODE : LF_PHASE_PREFILL;
    return 0;
}

int lf_cli_model_source(const lf_cli_command *cmd, lf_model_source *src)
{
    memset(src, 0, sizeof *src);
    int64_t input = 0, batch = 1;
    int rc;
    if ((rc = lf_cli_int(cmd, "input-size", 0, 1, LF_MODEL_MAX_INPUT, &input)) ||
        (rc = lf_cli_int(cmd, "batch", 1, 1, LF_MODEL_MAX_BATCH, &batch)))
        return rc;
    src->model = lf_cli_get(cmd, "model");
    src->input_size = (int32_t)input;
    src->batch = (int32_t)batch;
    if ((rc = lf_cli_seq_options(cmd, src)))
        return rc;
    src->onnx = lf_cli_get(cmd, "onnx");
    src->input_shapes = lf_cli_get(cmd, "input-shape");
    src->no_rewrite = lf_cli_get(cmd, "no-rewrite");
    return 0;
}

int lf_cli_load_graph(const lf_cli_command *cmd, const lf_model_source *src, lf_graph **g,
                      lf_onnx_report **rep)
{
    *g = NULL;
    if (lf_model_source_check(src) != LF_OK)
        return lf_cli_usage_error(cmd, "%s", lf_last_error());
    lf_status st = lf_model_source_load(src, g, rep);
    return st == LF_OK ? 0 : lf_cli_fail(st);
}

int lf_cli_load_listed(const lf_cli_command *cmd, const char *name, lf_graph **g)
{
    lf_model_source src;
    memset(&src, 0, sizeof src);
    if (lf_cli_get(cmd, "onnx")) {
        src.onnx = name;
        src.input_shapes = lf_cli_get(cmd, "input-shape");
        src.no_rewrite = lf_cli_get(cmd, "no-rewrite");
    } else {
        src.model = name;
    }
    return lf_cli_load_graph(cmd, &src, g, NULL);
}

int lf_cli_session_open(lf_cli_session *s, const lf_cli_command *cmd)
{
    memset(s, 0, sizeof *s);
    lf_model_source src;
    int rc;
    if ((rc = lf_cli_model_source(cmd, &src)))
        return rc;
    const char *scheme = lf_cli_get(cmd, "scheme");
    if (!scheme)
        scheme = "lbdf";
    if (!lf_name_known(LF_NAMES_SCHEME, scheme)) {
        char list[128];
        return lf_cli_usage_error(cmd, "unknown --scheme '%s' (use %s)", scheme,
                                  lf_names_format(LF_NAMES_SCHEME, list, sizeof list));
    }
    const char *hwfile = lf_cli_get(cmd, "hw");
    lf_hw_default(&s->hw);
    lf_status st;
    if (hwfile && (st = lf_hw_load(&s->hw, hwfile)) != LF_OK)
        return lf_cli_fail(st);
    const char *buffer = lf_cli_get(cmd, "buffer");
    if (buffer) {
        int64_t bytes;
        if (lf_hw_parse_size(buffer, &bytes) != LF_OK)
            return lf_cli_usage_error(cmd, "--buffer: %s", lf_last_error());
        s->hw.buffer_bytes = bytes;
    }
    s->hw.no_attention = lf_cli_get(cmd, "no-attention") != NULL;
    if ((rc = lf_cli_load_graph(cmd, &src, &s->graph, NULL)))
        return rc;
    s->model_name = src.onnx ? s->graph->name : lf_model_source_name(&src);
    if ((st = lf_cost_model_create(&s->cm, s->graph, &s->hw, scheme)) != LF_OK) {
        lf_cli_session_close(s);
        return lf_cli_fail(st);
    }
    return 0;
}

void lf_cli_session_close(lf_cli_session *s)
{
    lf_cost_model_free(s->cm);
    lf_graph_free(s->graph);
    s->cm = NULL;
    s->graph = NULL;
}

/* Parses one id or a name; ids win only when the whole token is digits. */
static int32_t lf__resolve_op(const lf_graph *g, const char *tok)
{
    char *end = NULL;
    errno = 0;
    long id = strtol(tok, &end, 10);
    if (!errno && end != tok && *end == '\0')
        return (id >= 0 && id < g->n_ops) ? (int32_t)id : -1;
    return lf_graph_find(g, tok);
}

lf_status lf_cli_parse_ops(const lf_graph *g, const char *list, lf_bitset *out)
{
    char *copy = strdup(list);
    if (!copy)
        return lf_set_error(LF_ENOMEM, "out of memory");
    lf_status st = LF_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && st == LF_OK; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        char *dash = strchr(tok, '-');
        int32_t a, b;
        /* "3-7" is a range only when both ends are ids; names may contain '-'. */
        if (dash && dash != tok) {
            *dash = '\0';
            char *e1, *e2;
            long x = strtol(tok, &e1, 10), y = strtol(dash + 1, &e2, 10);
            if (*e1 == '\0' && *e2 == '\0' && dash[1]) {
                if (x < 0 || y >= g->n_ops || x > y) {
                    st = lf_set_error(LF_EINVAL, "op range %ld-%ld outside 0-%d", x, y,
                                      (int)g->n_ops - 1);
                    break;
                }
                for (long k = x; k <= y; k++)
                    if (g->ops[k].type != LF_OP_INPUT)
                        lf_bitset_set(out, (int32_t)k);
                continue;
            }
            *dash = '-';
        }
        a = lf__resolve_op(g, tok);
        b = a;
        if (a < 0) {
            st = lf_set_error(LF_ENOTFOUND, "no op '%s' in %s", tok, g->name);
            break;
        }
        if (g->ops[a].type == LF_OP_INPUT) {
            st = lf_set_error(LF_EINVAL, "'%s' is a graph input, not a compute op", g->ops[a].name);
            break;
        }
        lf_bitset_set(out, b);
    }
    free(copy);
    if (st == LF_OK && lf_bitset_is_empty(out))
        st = lf_set_error(LF_EINVAL, "empty op list");
    return st;
}
