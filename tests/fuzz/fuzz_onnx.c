/* libFuzzer harness for the ONNX reader: any bytes go through the whole
 * import (protobuf unpack with the capped allocator, graph loading, shape
 * inference, constant folding, rewrites, lowering). The importer must return
 * a status for every input, never crash, leak or overflow; a refusal leaves
 * the outputs untouched and says why in one printable line that names the
 * file; an accepted model has a graph and a report.
 *
 * Built by tests/fuzz/CMakeLists.txt with clang -fsanitize=fuzzer,address,
 * undefined (LF_FUZZ=ON); .ci/run runs it for 60 s on the seed corpus in
 * tests/fuzz/corpus (the fixtures of tests/data/onnx). */
#include <stddef.h>
#include <stdint.h>

#include "planner/graph.h"
#include "planner/io/onnx.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Small caps keep every run fast: a fuzzed dimension cannot ask for gigabytes. */
    lf_onnx_input_shape shape = {.name = "", .rank = 4, .dims = {1, 3, 8, 8}};
    lf_onnx_options opt = {.max_const_bytes = 16 << 20, .max_elems = 1 << 22, .max_nodes = 4096};
    for (int pass = 0; pass < 2; pass++) {
        lf_graph *g = NULL;
        lf_onnx_report *rep = NULL;
        if (pass == 1) { /* again with a fixed input shape, which reaches further on free dims */
            opt.input_shapes = &shape;
            opt.n_input_shapes = 1;
        }
        if (lf_onnx_import_memory(data, size, "fuzz.onnx", &opt, &g, &rep) == LF_OK) {
            LF_FUZZ_REQUIRE(g != NULL && rep != NULL);
            LF_FUZZ_REQUIRE(lf_graph_compute_ops(g) >= 0);
            lf_graph_free(g);
            lf_onnx_report_free(rep);
        } else {
            LF_FUZZ_REQUIRE(g == NULL && rep == NULL);
            lf_fuzz_check_message("fuzz.onnx");
        }
    }
    return 0;
}
