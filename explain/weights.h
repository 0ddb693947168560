/* GNN weight files (DESIGN §9, §11).
 *
 * Layout, all little-endian:
 *   8 bytes  magic "LFGNNWT\0"
 *   u32      format version (LF_GNN_WEIGHTS_VERSION)
 *   u64      feature-schema hash (lf_feat_schema_hash)
 *   u32 x 5  in_dim, hidden, n_layers, n_classes, undirected
 *   8 bytes  scheme name, NUL-padded ("lbdf", "brr")
 *   u64      parameter count
 *   f32      standardization mean[in_dim], std[in_dim]
 *   f32      parameters (layout of lf_gnn, see gnn.h)
 *   u64      checksum of everything before it
 * Written atomically. Loading fails with one clear message on a wrong magic
 * (LF_EPARSE), another format version (LF_EUNSUPPORTED), another feature
 * schema or dimensions (LF_EINVAL), or a truncated or corrupted file
 * (LF_EPARSE). */
#ifndef LF_EXPLAIN_WEIGHTS_H
#define LF_EXPLAIN_WEIGHTS_H

#include "explain/gnn.h"

#define LF_GNN_WEIGHTS_VERSION 1
/* Largest GNN, PGExplainer or RG-Explainer weight file read (the shipped ones
 * are under 0.5 MiB); larger files and endless inputs are refused unread. */
#define LF_GNN_FILE_MAX ((int64_t)64 << 20)

lf_status lf_gnn_save(const lf_gnn *m, const char *path);

/* Loads into *m (initialised by this call; lf_gnn_destroy it after). `expect`,
 * when not NULL, must match the file's dimensions. */
lf_status lf_gnn_load(lf_gnn *m, const char *path, const lf_gnn_config *expect);

/* Same from a file image in memory; `origin` names it in messages. */
lf_status lf_gnn_load_memory(lf_gnn *m, const void *data, size_t len, const char *origin,
                             const lf_gnn_config *expect);

#endif
