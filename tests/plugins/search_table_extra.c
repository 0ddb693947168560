/* The search table compiled again with the test's extra row: linked before
 * libfusionplan.a, it stands in for the library's search_table.c (the same
 * symbols, so the archive's copy is never pulled in). */
#define LF_EXTRA_SEARCHES "tests/plugins/searches_extra.def"
#include "search/partition/search_table.c"
