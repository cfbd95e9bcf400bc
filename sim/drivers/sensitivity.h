/* sensitivity.h: the parts of `smpipe sensitivity` that run nothing: the
 * perturbed value of a key, the elasticity of the cycles to it, and the
 * ranking of the keys.  cli_sensitivity.c runs the points (on the sweep's
 * machinery) and writes the outputs.
 *
 * The elasticity of the cycles to a key at one end of its step is
 *
 *   (cycles_end - cycles_base) / cycles_base
 *   ---------------------------------------- ,
 *     (value_end - value_base) / value_base
 *
 * the percent change in cycles per percent change in the key, with the
 * value actually set (integer keys are rounded, so a 10% step of a key of
 * 4 is 25%).  A key's score is the larger magnitude of its two ends, so a
 * key that binds in one direction only (more bandwidth gains nothing, less
 * costs) still ranks by the direction that matters. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* One end of a key's step. */
typedef struct {
    char *text;           /* the value set, as --set takes it; NULL when the step changes nothing (owned) */
    double value;         /* the value set (the base value when text is NULL) */
    double change_pct;    /* (value - base) / base x 100 */
    const char *status;   /* ok, rejected, failed, limit, or unchanged (no point ran: the value did not change) (static) */
    char *error;          /* first line of the message of a point that did not run, or NULL (owned) */
    guint64 cycles;       /* when status is ok */
    double cycles_pct;    /* (cycles - base cycles) / base cycles x 100 */
    double elasticity;    /* cycles_pct / change_pct */
    int64_t stages;       /* the recommended stage count at this end, -1 when none was made */
    bool effect;          /* some statistic differs from the base run's */
    bool widened;         /* an integer step that rounded to no change moved by one instead */
} SensEnd;

/* One key and both ends of its step. */
typedef struct {
    char *name;           /* section.key (owned) */
    guint index;          /* arch_key_name numbering */
    bool integer;         /* the key takes whole values */
    double base;          /* its value in the base configuration */
    char *base_text;      /* the same as arch show writes it (owned) */
    const char *source;   /* where the base value came from (interned) */
    SensEnd end[2];       /* [0] down by the step, [1] up */
    double score;         /* max |elasticity| of the ends that ran */
    guint rank;           /* 1.. for keys with an end that ran, 0 for the others */
} SensKey;

SensKey *sens_key_new(const char *name, guint index, bool integer, double base, const char *base_text,
                      const char *source);
void sens_key_free(SensKey *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SensKey, sens_key_free)

/* True for a key that describes the simulated kernel's launch rather than
 * the hardware (sm.blocks, sm.regs_per_thread, any launch.* key): moving it
 * changes the work, not the machine, so sensitivity leaves it alone. */
bool sens_key_is_launch(const char *name);

/* The value of a key at base x factor (factor 1 - step or 1 + step), rounded
 * to the nearest whole number for integer keys and kept within [lo, hi].
 * An integer step that rounds to no change moves by one instead (a latency
 * of 4 cycles has no 10% step), and *widened says so.  Returns false when
 * the value still equals base (the end of the key's range, or a base of 0,
 * which no relative step moves); otherwise sets *text (newly allocated; six
 * significant digits for fractional keys) and *value (the value it reads
 * back as). */
bool sens_perturb(double base, bool integer, double lo, double hi, double factor, char **text, double *value,
                  bool *widened);

/* Fills an end's cycles_pct and elasticity from the base cycles. */
void sens_end_measure(SensEnd *e, double base_value, guint64 base_cycles);

/* Computes every key's score and sorts keys (SensKey*): the keys with an
 * end that ran by decreasing score, ties by name; then the others by name.
 * Sets rank (1.. and 0).  The order depends on nothing but the values. */
void sens_rank(GPtrArray *keys);
