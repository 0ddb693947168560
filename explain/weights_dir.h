/* Where the shipped explainer weights (gnn-, pg-, rg-SCHEME.bin) are found at
 * run time, without any source path compiled in:
 *   1. $FUSIONPLAN_WEIGHTS_DIR, when set (and then only there);
 *   2. share/fusionplan/weights next to the running executable (the build
 *      tree: build/fusionplan, build/share/fusionplan/weights);
 *   3. ../share/fusionplan/weights from the executable's folder (an installed
 *      prefix: PREFIX/bin and PREFIX/share; also build/tests);
 *   4. the data folder of the configured install prefix.
 * The first folder holding the file wins. */
#ifndef LF_EXPLAIN_WEIGHTS_DIR_H
#define LF_EXPLAIN_WEIGHTS_DIR_H

#include <stddef.h>

#include "planner/status.h"

/* Writes the path of shipped weight file `file` (e.g. "gnn-lbdf.bin") into
 * out. LF_EIO with a message listing the folders tried when none holds it. */
lf_status lf_weights_find(const char *file, char *out, size_t len);

#endif
