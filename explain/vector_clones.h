/* LF_VECTOR_CLONES: an AVX2 copy of a function next to the baseline one,
 * picked at load time where the CPU has it (GCC's target_clones; nothing
 * elsewhere). Only the vector width differs: every element is still one
 * multiply and one add in the same order (ISO C mode keeps the compiler
 * from fusing them, and the AVX2 target has no FMA), so both copies give
 * bit-identical results. Internal to explain/. */
#ifndef LF_EXPLAIN_VECTOR_CLONES_H
#define LF_EXPLAIN_VECTOR_CLONES_H

/* Not with clang: clang 14 accepts the attribute but emits no symbol for the
 * resolver, so programs that call these functions do not link. */
/* Defined empty beforehand (-DLF_VECTOR_CLONES=), only the baseline copy is
 * built: how the baseline's bits are checked on a machine with AVX2.
 * LF_NO_VECTOR_CLONES (the ThreadSanitizer build) does that for every
 * vector function of the project. */
#if !defined(LF_VECTOR_CLONES) && !defined(LF_NO_VECTOR_CLONES) && defined(__GNUC__) && \
    !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define LF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LF_VECTOR_CLONES
#define LF_VECTOR_CLONES
#endif

#endif
