/* replay.c: runs a fuzz harness over files, without libFuzzer: the seed
 * corpus and the regression inputs (each a crash, hang or undefined
 * behaviour a fuzzer once found) become an ordinary test that also runs
 * under the sanitizer and valgrind set-ups.
 * Usage: fuzz_NAME_replay FILE|DIR... */
#include "fuzz_common.h"

/* g_ptr_array_sort passes pointers to the elements (char **). */
static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static int run_file(const char *path)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(path, &data, &len, &err)) {
        fprintf(stderr, "%s\n", err->message);
        g_error_free(err);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *) data, len);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        if (!g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            if (run_file(argv[i]) != 0) {
                return 1;
            }
            files++;
            continue;
        }
        GDir *d = g_dir_open(argv[i], 0, NULL);
        if (d == NULL) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
        const char *n;
        while ((n = g_dir_read_name(d)) != NULL) {
            if (n[0] != '.') {
                g_ptr_array_add(names, g_build_filename(argv[i], n, NULL));
            }
        }
        g_dir_close(d);
        g_ptr_array_sort(names, compare_names);
        for (guint k = 0; k < names->len; k++) {
            if (run_file(g_ptr_array_index(names, k)) != 0) {
                g_ptr_array_free(names, TRUE);
                return 1;
            }
            files++;
        }
        g_ptr_array_free(names, TRUE);
    }
    printf("%d inputs ran without a failure\n", files);
    return files > 0 ? 0 : 1;
}
