/* fuzz_arch.c: libFuzzer harness of the architecture-file loader
 * (arch_load_data) and of the models' use of what it accepts.
 *
 * Input: an .ini text, optionally followed by a line "%%" and --set
 * assignments, one a line (section.key=value).  An accepted architecture
 * must survive a round trip (arch_format, then loading that text, gives the
 * same text again) and must run a small pipeline program to the end or to a
 * clear error, never a crash or undefined behaviour: validation has to keep
 * out every value the models cannot handle. */
#include "fuzz_common.h"

#include "models/sm.h"

static const char program_text[] =
    "smpipe 1\n"
    "block 64\n"
    "global int4 in[4096]\n"
    "shared int4 buf[256]\n"
    "shared pipeline_shared_state<block, 2> st\n"
    "barrier bar\n"
    "var pipe = make_pipeline(block, st)\n"
    "if threadIdx.x == 0\n"
    "    init(bar, 64)\n"
    "end\n"
    "__syncthreads()\n"
    "for i in 0 .. 4\n"
    "    pipe.producer_acquire()\n"
    "    memcpy_async(block, buf + (i % 2) * 128, in + i * 128, 2048, pipe)\n"
    "    pipe.producer_commit()\n"
    "    pipe.consumer_wait()\n"
    "    var x = load(buf + (i % 2) * 128 + threadIdx.x)\n"
    "    compute(x, 8)\n"
    "    compute(ffma, 4, 2)\n"
    "    pipe.consumer_release()\n"
    "end\n"
    "var tok = bar.arrive()\n"
    "bar.wait(tok)\n"
    "memcpy_async(block, buf, in, aligned_size_t<16>(4096), bar)\n"
    "bar.arrive_and_wait()\n";

static const Program *fuzz_program(void)
{
    static Trace *t;
    static Program *p;
    if (p == NULL) {
        GError *err = NULL;
        t = trace_parse_string("fuzz-arch.trace", program_text, strlen(program_text), &err);
        FUZZ_CHECK(t != NULL, "%s", err->message);
        p = program_new(t, NULL, 1, &err);
        FUZZ_CHECK(p != NULL, "%s", err->message);
    }
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *) data;
    size_t ini_len = size;
    g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i + 3 <= size; i++) {
        if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "%%\n", 3) == 0) {
            ini_len = i;
            g_autofree char *rest = g_strndup(text + i + 3, size - i - 3);
            g_auto(GStrv) lines = g_strsplit(rest, "\n", 16);
            for (int k = 0; lines[k] != NULL; k++) {
                if (lines[k][0] != '\0') {
                    g_ptr_array_add(sets, g_strdup(lines[k]));
                }
            }
            break;
        }
    }
    ArchParams a;
    GError *err = NULL;
    if (!arch_load_data("fuzz.ini", text, ini_len, sets, &a, &err)) {
        fuzz_check_error(err);
        g_error_free(err);
        return 0;
    }
    g_autoptr(GString) once = g_string_new(NULL);
    arch_format(&a, once);
    ArchParams b;
    FUZZ_CHECK(arch_load_data("formatted.ini", once->str, once->len, NULL, &b, &err),
               "arch_format wrote a file that does not load: %s\n%s", err->message, once->str);
    g_autoptr(GString) twice = g_string_new(NULL);
    arch_format(&b, twice);
    FUZZ_CHECK(strcmp(once->str, twice->str) == 0, "arch_format does not round-trip:\n%s\n---\n%s", once->str,
               twice->str);

    /* Room for the program: its needs are not what is being fuzzed. */
    a.blocks = 1;
    SmOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.max_cycles = 200000;
    opt.max_ops = 20000;
    opt.race_check = true;
    g_autoptr(Sm) sm = sm_new(fuzz_program(), &a, &opt, &err);
    if (sm == NULL) {
        fuzz_check_error(err);
        g_error_free(err);
        return 0;
    }
    if (!sm_run(sm, &err)) {
        fuzz_check_error(err);
        g_error_free(err);
    }
    return 0;
}
