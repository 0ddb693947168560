/* The exact splitter: each invalid group is split optimally (least total
 * F_D of valid parts, lf_exact_split) when that takes at most
 * `max_candidates` candidate sets, and left to the search's random-split
 * fallback otherwise. Deterministic: the limit counts candidate sets, not
 * seconds. */
#ifndef LF_EXACT_SPLIT_H
#define LF_EXACT_SPLIT_H

#include <stdint.h>

#include "splitter/splitter.h"

#define LF_EXACT_SPLIT_DEFAULT_CANDIDATES 1000000

lf_status lf_splitter_exact_create(lf_splitter **out, int64_t max_candidates);

#endif
