/* ONNX's own conformance data (Debian libonnx-testdata: data/node,
 * data/pytorch-converted, data/pytorch-operator, data/simple): every
 * <case>/model.onnx (or the case folder itself, given alone) is imported (weights given as graph inputs are bound to
 * the test's values where the IR needs constants), run with the reference
 * executor on test_data_set_N/input_K.pb and compared with output_K.pb at
 * max |a - b| <= 1e-4 * max(1, |b|). A model the importer refuses
 * (LF_EUNSUPPORTED: an op type, a data type, a rank above 4) is "unsupported". */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "planner/exec/exec.h"
#include "planner/io/onnx_conformance.h"
#include "planner/io/onnx_proto.h"

static int lf__cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir that start with prefix (NULL-terminated, malloc'd). */
static char **lf__list(const char *dir, const char *prefix, int32_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    int32_t cap = 16;
    char **names = malloc((size_t)cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d))) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (*n + 1 >= cap) {
            char **more = realloc(names, (size_t)(cap *= 2) * sizeof *names);
            if (!more)
                break;
            names = more;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)*n, sizeof *names, lf__cmp_str);
    return names;
}

static void lf__free_list(char **l, int32_t n)
{
    for (int32_t i = 0; l && i < n; i++)
        free(l[i]);
    free(l);
}

/* "Conv" or "Conv+Relu": the distinct op types of the model in file order. */
static void lf__op_label(const char *path, char *out, size_t len)
{
    snprintf(out, len, "?");
    uint8_t *bytes;
    size_t n;
    if (lf__ox_read_capped(path, (int64_t)256 << 20, &onnx__model_proto__descriptor, "ONNX model", &bytes, &n) !=
        LF_OK)
        return;
    if (lf__ox_wire_check(bytes, n, &onnx__model_proto__descriptor, path, "ONNX model") != LF_OK) {
        free(bytes);
        return;
    }
    lf__ox_alloc al;
    lf__ox_alloc_init(&al, (int64_t)1 << 30);
    Onnx__ModelProto *m = onnx__model_proto__unpack(&al.base, n, bytes);
    free(bytes);
    if (!m || !m->graph) {
        if (m)
            onnx__model_proto__free_unpacked(m, &al.base);
        return;
    }
    out[0] = '\0';
    for (size_t k = 0; k < m->graph->n_node; k++) {
        const char *op = m->graph->node[k]->op_type ? m->graph->node[k]->op_type : "?";
        char token[80];
        snprintf(token, sizeof token, "+%s+", op);
        char padded[600];
        snprintf(padded, sizeof padded, "+%s+", out);
        if (strstr(padded, token))
            continue;
        if (strlen(out) + strlen(op) + 2 < len)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "+" : "", op);
    }
    onnx__model_proto__free_unpacked(m, &al.base);
}

/* Runs one data set; returns 1 on pass, 0 on a mismatch (why set). */
static int lf__run_set(const char *set_dir, const char *model, lf_conf_case *c)
{
    int32_t n_in = 0, n_out = 0;
    char **ins = lf__list(set_dir, "input_", &n_in), **outs = lf__list(set_dir, "output_", &n_out);
    lf_onnx_tensor *tin = calloc((size_t)(n_in ? n_in : 1), sizeof *tin);
    lf_graph *g = NULL;
    lf_onnx_report *rep = NULL;
    lf_exec *ex = NULL;
    int pass = 0;
    char path[4600];
    lf_status st = LF_OK;
    /* input_10.pb sorts before input_2.pb: read them by number. */
    for (int32_t k = 0; tin && k < n_in && st == LF_OK; k++) {
        snprintf(path, sizeof path, "%s/input_%d.pb", set_dir, (int)k);
        st = lf_onnx_read_tensor(path, &tin[k]);
    }
    if (st != LF_OK || !tin) {
        snprintf(c->why, sizeof c->why, "reading inputs: %.300s", lf_last_error());
        c->status = LF_CONF_UNSUPPORTED; /* not a tensor fusionplan reads (string, optional, sequence) */
        goto done;
    }
    lf_onnx_options opt = {0};
    opt.bind = tin;
    opt.n_bind = n_in;
    /* Free dimensions take the test's input shapes, only when the model has
     * some (a few test files disagree with their model's declared shapes). */
    lf_onnx_input_shape shapes[16];
    int32_t n_shapes = 0;
    for (int32_t k = 0; k < n_in && n_shapes < 16; k++)
        if (tin[k].name[0] && tin[k].rank > 0) {
            lf_onnx_input_shape *is = &shapes[n_shapes++];
            memset(is, 0, sizeof *is);
            snprintf(is->name, sizeof is->name, "%s", tin[k].name);
            is->rank = tin[k].rank;
            memcpy(is->dims, tin[k].dims, sizeof is->dims);
        }
    opt.folder = lf_exec_fold;
    opt.const_outputs = 1; /* all inputs bound (int64 Trilu, Where): outputs are the folded values */
    st = lf_onnx_import(model, &opt, &g, &rep);
    if (st == LF_EGRAPH && strstr(lf_last_error(), "free dimension")) {
        opt.input_shapes = shapes;
        opt.n_input_shapes = n_shapes;
        st = lf_onnx_import(model, &opt, &g, &rep);
        if (st == LF_EINVAL) /* the test's tensors disagree with the model's declared shapes */
            st = LF_EUNSUPPORTED;
    }
    if (st != LF_OK) {
        c->status = st == LF_EUNSUPPORTED ? LF_CONF_UNSUPPORTED : LF_CONF_FAIL;
        snprintf(c->why, sizeof c->why, "%s", lf_last_error());
        goto done;
    }
    lf_exec_options eo = {.seed = 1, .threads = 1, .keep_all = 0};
    if (g && (st = lf_exec_create(&ex, g, &eo)) != LF_OK) {
        c->status = LF_CONF_FAIL;
        snprintf(c->why, sizeof c->why, "executor: %s", lf_last_error());
        goto done;
    }
    for (int32_t v = 0, pos = 0; g && v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type != LF_OP_INPUT)
            continue;
        int32_t k = 0;
        while (k < n_in && strcmp(tin[k].name, g->ops[v].name) != 0)
            k++;
        if (k == n_in && pos < n_in && !tin[pos].name[0])
            k = pos; /* unnamed tensors: by position */
        pos++;
        if (k == n_in) {
            st = lf_set_error(LF_ENOTFOUND, "no input file for graph input '%s'", g->ops[v].name);
            break;
        }
        st = lf_exec_set_input(ex, v, tin[k].data, tin[k].count);
    }
    if (st == LF_OK && g)
        st = lf_exec_run(ex);
    if (st != LF_OK) {
        c->status = LF_CONF_FAIL;
        snprintf(c->why, sizeof c->why, "executor: %s", lf_last_error());
        goto done;
    }
    pass = 1;
    for (int32_t k = 0; k < n_out && pass; k++) {
        lf_onnx_tensor want;
        snprintf(path, sizeof path, "%s/output_%d.pb", set_dir, (int)k);
        if (lf_onnx_read_tensor(path, &want) != LF_OK) {
            snprintf(c->why, sizeof c->why, "reading output %d: %.300s", (int)k, lf_last_error());
            pass = 0;
            break;
        }
        const char *op = want.name[0] ? lf_onnx_report_output_op(rep, want.name) : NULL;
        if (!want.name[0] && n_out == 1)
            op = lf_onnx_report_output_op(rep, NULL); /* an unnamed file: the only output */
        int32_t v = op && g ? lf_graph_find(g, op) : -1;
        lf_shape s;
        const float *got = v >= 0 ? lf_exec_output(ex, v, &s) : NULL;
        int64_t got_count = got ? s.n * s.c * s.h * s.w : 0;
        if (!g && !lf_onnx_report_constant(rep, want.name[0] ? want.name : NULL, &got, &got_count))
            got = NULL; /* no graph: the outputs folded at import */
        if (!got || got_count != want.count) {
            snprintf(c->why, sizeof c->why, "output '%s' %s", want.name, got ? "has another element count" : "not produced");
            pass = 0;
        }
        for (int64_t e = 0; pass && e < want.count; e++) {
            double b = want.data[e], d = fabs((double)got[e] - b), tol = 1e-4 * (fabs(b) > 1 ? fabs(b) : 1);
            if (d > c->max_err || isnan(d))
                c->max_err = isnan(d) ? INFINITY : d;
            if (!(d <= tol) && !(isnan(b) && isnan(got[e]))) {
                snprintf(c->why, sizeof c->why, "output '%s' element %lld: %.9g, expected %.9g", want.name,
                         (long long)e, (double)got[e], b);
                pass = 0;
            }
        }
        lf_onnx_tensor_free(&want);
    }
    c->status = pass ? LF_CONF_PASS : LF_CONF_FAIL;
done:
    lf_exec_free(ex);
    lf_graph_free(g);
    lf_onnx_report_free(rep);
    for (int32_t k = 0; tin && k < n_in; k++)
        lf_onnx_tensor_free(&tin[k]);
    free(tin);
    lf__free_list(ins, n_in);
    lf__free_list(outs, n_out);
    return pass;
}

static int lf__has_model(const char *case_dir)
{
    char model[4400];
    snprintf(model, sizeof model, "%.4000s/model.onnx", case_dir);
    struct stat sb;
    return stat(model, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Runs the case in case_dir (holding model.onnx) and appends it to res. */
static lf_status lf__run_case(const char *case_dir, const char *name, lf_conf_result *res)
{
    char model[4400];
    snprintf(model, sizeof model, "%.4000s/model.onnx", case_dir);
    if (res->n == res->cap) {
        int32_t cap = res->cap ? 2 * res->cap : 256;
        lf_conf_case *more = realloc(res->cases, (size_t)cap * sizeof *more);
        if (!more)
            return lf_set_error(LF_ENOMEM, "out of memory");
        res->cases = more;
        res->cap = cap;
    }
    lf_conf_case *c = &res->cases[res->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    lf__op_label(model, c->op, sizeof c->op);
    int32_t n_sets = 0;
    char **sets = lf__list(case_dir, "test_data_set_", &n_sets);
    c->status = LF_CONF_PASS;
    for (int32_t s = 0; s < n_sets; s++) {
        char set_dir[4400];
        snprintf(set_dir, sizeof set_dir, "%.3100s/%.1000s", case_dir, sets[s]);
        if (!lf__run_set(set_dir, model, c))
            break;
    }
    if (n_sets == 0) {
        c->status = LF_CONF_FAIL;
        snprintf(c->why, sizeof c->why, "no test_data_set_*");
    }
    lf__free_list(sets, n_sets);
    return LF_OK;
}

lf_status lf_onnx_conformance(const char *dir, lf_conf_result *res)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return lf_set_error(LF_EIO, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return lf_set_error(LF_EIO, "%s: not a folder", dir);
    /* A case folder given itself (DIR/model.onnx) is that one case. */
    if (lf__has_model(dir)) {
        char name[256];
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/') /* "case/" is named "case" */
            len--;
        size_t from = len;
        while (from > 0 && dir[from - 1] != '/')
            from--;
        snprintf(name, sizeof name, "%.*s", (int)(len - from < 255 ? len - from : 255), dir + from);
        return lf__run_case(dir, name, res);
    }
    int32_t n_cases = 0, found = 0;
    char **cases = lf__list(dir, "", &n_cases);
    if (!cases)
        return lf_set_error(LF_EIO, "%s: cannot list the folder", dir);
    lf_status st = LF_OK;
    for (int32_t i = 0; i < n_cases && st == LF_OK; i++) {
        char case_dir[4096];
        snprintf(case_dir, sizeof case_dir, "%.2000s/%.1000s", dir, cases[i]);
        if (!lf__has_model(case_dir))
            continue;
        found++;
        st = lf__run_case(case_dir, cases[i], res);
    }
    lf__free_list(cases, n_cases);
    if (st == LF_OK && found == 0)
        return lf_set_error(LF_ENOTFOUND, "%s: no test cases (neither %s/model.onnx nor a folder "
                                          "CASE/model.onnx in it)", dir, dir);
    return st;
}

void lf_conf_result_free(lf_conf_result *res)
{
    free(res->cases);
    memset(res, 0, sizeof *res);
}
