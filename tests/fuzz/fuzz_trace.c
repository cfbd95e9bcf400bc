/* fuzz_trace.c: libFuzzer harness of the trace language front end and a
 * short simulation: parse, instantiate and compile (program_new), then run
 * the program on the bundled h100 under tight limits, once with each engine.
 *
 * Properties checked beyond "no crash, leak, hang or undefined behaviour":
 * every failure is a SIM_ERROR with a message; the event-driven engine and
 * the cycle-stepped reference agree byte for byte (the same verdict, the
 * same message, the same JSON statistics). */
#include "fuzz_common.h"

#include "sim/out/report.h"
#include "sim/drivers/runner.h"

/* Small bounds keep one input well under libFuzzer's time-out. */
#define FUZZ_MAX_CYCLES 20000
#define FUZZ_MAX_OPS 20000

typedef struct {
    bool ok;
    char *message;   /* the error, or the JSON statistics (owned) */
} Outcome;

static Outcome simulate(const Program *prog, const ArchParams *arch, SimEngineKind engine)
{
    Outcome o = { false, NULL };
    SmOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.engine = engine;
    opt.max_cycles = FUZZ_MAX_CYCLES;
    opt.max_ops = FUZZ_MAX_OPS;
    opt.race_check = true;
    GError *err = NULL;
    g_autoptr(Sm) sm = sm_new(prog, arch, &opt, &err);
    if (sm == NULL) {
        fuzz_check_error(err);
        o.message = g_strdup(err->message);
        g_error_free(err);
        return o;
    }
    if (!sm_run(sm, &err)) {
        fuzz_check_error(err);
        o.message = g_strdup(err->message);
        g_error_free(err);
        return o;
    }
    o.ok = true;
    ReportInfo info;
    memset(&info, 0, sizeof info);
    g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint i = 0; i < prog->param_names->len; i++) {
        int64_t v = program_param(prog, g_ptr_array_index(prog->param_names, i), 0);
        g_array_append_val(values, v);
    }
    info.trace = "fuzz.trace";
    info.arch = arch->name;
    info.clock_mhz = arch->clock_mhz;
    info.param_names = prog->param_names;
    info.param_values = values;
    info.smem_per_block = sm_smem_per_block(prog, arch);
    info.engine = "either";
    GString *out = g_string_new(NULL);
    report_json(sm_stats(sm), &info, REPORT_BY_WARP, out);
    report_text(sm_stats(sm), &info, REPORT_BY_ROLE, out);
    report_csv_header(&info, out);
    report_csv_row(sm_stats(sm), &info, out);
    o.message = g_string_free(out, FALSE);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ArchParams *arch = fuzz_h100();
    GError *err = NULL;
    g_autoptr(Trace) t = trace_parse_string("fuzz.trace", (const char *) data, size, &err);
    if (t == NULL) {
        fuzz_check_error(err);
        g_error_free(err);
        return 0;
    }
    g_autoptr(Program) prog = program_new(t, NULL, arch->blocks, &err);
    if (prog == NULL) {
        fuzz_check_error(err);
        g_error_free(err);
        return 0;
    }
    g_autoptr(GString) dump = g_string_new(NULL);
    program_dump(prog, dump);

    Outcome ev = simulate(prog, arch, SIM_ENGINE_EVENT);
    Outcome st = simulate(prog, arch, SIM_ENGINE_STEPPED);
    FUZZ_CHECK(ev.ok == st.ok && strcmp(ev.message, st.message) == 0,
               "the engines disagree:\n--- event (%s):\n%s\n--- stepped (%s):\n%s", ev.ok ? "ok" : "failed",
               ev.message, st.ok ? "ok" : "failed", st.message);
    g_free(ev.message);
    g_free(st.message);
    return 0;
}
