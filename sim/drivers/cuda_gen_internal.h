/* cuda_gen_internal.h: what the CUDA backend's source files share:
 * cuda_gen.c (support checks, points, the whole program), cuda_kernel.c
 * (a point's kernel body from the Program's operations) and
 * cuda_harness.c (the fixed C++ text). */
#pragma once

#include "sim/drivers/cuda_gen.h"
#include "sim/lang/parser.h"

#include <stdarg.h>
#include <string.h>

/* compute(CLASS, n, k) clamps k as the simulator does (MAX_CHAINS). */
#define CUDA_GEN_MAX_CHAINS 64

/* The fixed C++ text of a generated program (cuda_harness.c). */
extern const char cuda_harness_device[];
extern const char cuda_harness_host[];
extern const char cuda_harness_main[];

/* One point's generator state. */
typedef struct {
    const Trace *trace;
    const Program *prog;
    const ArchParams *arch;
    GString *o;              /* output (not owned) */
    GError **error;
    int depth;               /* indentation, in levels of 4 spaces */
    char **buf_name;         /* per buffer (owned) */
    char **bar_name;         /* per barrier (owned) */
    char **ps_name;          /* per pipeline_shared_state (owned) */
    char **var_name;         /* per variable (owned) */
    bool *declared;          /* per variable: its C++ declaration is written */
    bool *read;              /* per variable: some operation reads it */
    bool *named;             /* per variable: some expression reads it (else [[maybe_unused]]) */
    int32_t *slot_var;       /* value slot -> variable index */
    GHashTable *pipe_name;   /* make_pipeline op index -> name (owned) */
    GHashTable *used;        /* C++ names taken */
    uint32_t last_line;      /* the trace line last quoted in a comment */
    bool ok;
} Gen;

/* The instruction classes compute(CLASS, n, k) can run as real
 * instructions: the PTX of one instruction on the accumulator %0. */
typedef struct {
    const char *name;
    const char *type;     /* accumulator type */
    const char *init;     /* start value of chain c */
    const char *asm_text; /* one instruction */
    const char *cons;     /* asm constraint of the accumulator */
    const char *fold;     /* the accumulator as 32 bits */
} ClassDef;

/* ------------------------------------------------ the kernel (cuda_kernel.c) */

/* The accumulators of class d's K chains are `TYPE acc[K]SUFFIX`: float
 * acc[K][4] for hmma (an m16n8k16 MMA's four f32 results a lane), else the
 * class's type, one a chain (cuda_gen.c). */
const char *gen_class_acc_type(const ClassDef *d);
const char *gen_class_acc_suffix(const ClassDef *d);
/* The chain count K of an operand-less compute(CLASS, n, K) (op). */
int64_t gen_class_chains(const Op *op);
/* Declares and starts (fold false) or folds into smp_sink (fold true) the
 * accumulators the kernel's operand-less compute statements share, one set
 * per class and chain count, smp_acc_CLASS_K, in the order of first use. */
void gen_class_accumulators(Gen *g, bool fold);

/* A C++ identifier for a trace name, unique among `used` (which takes it).
 * Returns a newly allocated string. */
char *gen_unique_name(GHashTable *used, const char *name);
/* Whether the program's blocks (grid) have more than one dimension. */
bool gen_block_is_multi_dim(const Program *p);
bool gen_grid_is_multi_dim(const Program *p);
/* The thread's rank in its block (the block's rank in the grid) as the
 * kernel spells it: threadIdx.x in a one-dimensional block, else smp_rank,
 * which the kernel computes in CUDA's order (x fastest). */
const char *gen_thread_rank_text(const Program *p);
const char *gen_block_rank_text(const Program *p);
/* Writes one line of C++ at the current indentation. */
void gen_line(Gen *g, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* The name of the variable a `var NAME = <call at loc>` declares, or NULL. */
const char *gen_find_var_name(GPtrArray *stmts, SrcLoc loc);
/* The C++ name of the pipeline made by operation make_op. */
const char *gen_pipe_name(Gen *g, int32_t make_op);
/* The C++ name of a thread group (tiles as declared by the kernel). */
const char *gen_group_name(int32_t group);
/* Whether the operation needs sm_90's transaction counts. */
bool gen_is_tx_op(OpCode code);
/* Writes ops [from, to) as structured C++. */
void gen_emit_range(Gen *g, int from, int to);

/* ---------------------------------------------------- the program (cuda_gen.c) */

/* The real instructions of a compute class, or NULL. */
const ClassDef *gen_class_def(const char *name);
