/* scheduler.c: ready lists and the LRR and GTO policies. */
#include "models/scheduler.h"

void scheduler_init(Scheduler *s, int32_t max_warps, int nclasses)
{
    memset(s, 0, sizeof *s);
    s->cap = MAX(max_warps, 1);
    s->ready = g_new0(int32_t, s->cap);
    s->last = -1;
    s->pipe_free = g_new0(SimCycle, MAX(nclasses, 1));
}

void scheduler_clear(Scheduler *s)
{
    g_free(s->ready);
    g_free(s->pipe_free);
    memset(s, 0, sizeof *s);
}

void scheduler_enqueue(Scheduler *s, int32_t warp)
{
    g_assert(s->nready < s->cap);
    s->ready[s->nready++] = warp;
}

static int32_t take(Scheduler *s, int32_t i)
{
    int32_t w = s->ready[i];
    memmove(&s->ready[i], &s->ready[i + 1], (size_t) (s->nready - i - 1) * sizeof *s->ready);
    s->nready--;
    s->last = w;
    return w;
}

int32_t scheduler_pick(Scheduler *s, SchedPolicy policy)
{
    if (s->nready == 0) {
        return -1;
    }
    if (policy == SCHED_GTO) {
        /* Greedy: the last warp if it is ready again; then the oldest. */
        for (int32_t i = 0; i < s->nready; i++) {
            if (s->ready[i] == s->last) {
                return take(s, i);
            }
        }
        return take(s, 0);
    }
    /* Loose round-robin: the ready warp with the smallest id above the last
     * issued one, wrapping around. */
    int32_t best = -1;
    int32_t wrap = -1;
    for (int32_t i = 0; i < s->nready; i++) {
        int32_t w = s->ready[i];
        if (w > s->last && (best < 0 || w < s->ready[best])) {
            best = i;
        }
        if (wrap < 0 || w < s->ready[wrap]) {
            wrap = i;
        }
    }
    return take(s, best >= 0 ? best : wrap);
}
