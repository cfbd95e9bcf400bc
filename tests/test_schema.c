/* test_schema.c: the `smpipe run --json` document against its schema,
 * docs/statistics.schema.json.
 *
 * A small JSON Schema (draft 2020-12) validator for the subset the schema
 * uses: $ref (local JSON pointers), type, enum, required, properties,
 * additionalProperties, items, minItems, maxItems, minimum, maximum; the
 * annotations $schema, $id, $defs, $comment, title and description are
 * ignored.  Any other keyword is an error, so the schema cannot come to
 * rely on a keyword this validator silently skips.
 *
 * Every bundled trace, and every valid program under tests/programs, is run
 * and its JSON validated, without --by and with --by warp and --by role. */
#include "test_util.h"

#include "sim/cli/cli.h"

#include <json-glib/json-glib.h>
#include <math.h>

/* ------------------------------------------------------------ validator */

typedef struct {
    JsonNode *root;   /* the whole schema, for $ref */
    GString *errors;  /* one line per violation */
    int depth;
} Validator;

static void violation(Validator *v, const char *path, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void violation(Validator *v, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_string_append_printf(v->errors, "%s: %s\n", *path ? path : "(document)", msg);
}

static bool is_number(JsonNode *n, double *out)
{
    if (!JSON_NODE_HOLDS_VALUE(n)) {
        return false;
    }
    GType t = json_node_get_value_type(n);
    if (t == G_TYPE_INT64) {
        *out = (double) json_node_get_int(n);
        return true;
    }
    if (t == G_TYPE_DOUBLE) {
        *out = json_node_get_double(n);
        return true;
    }
    return false;
}

static bool has_type(JsonNode *n, const char *type)
{
    double d;
    if (strcmp(type, "object") == 0) {
        return JSON_NODE_HOLDS_OBJECT(n);
    }
    if (strcmp(type, "array") == 0) {
        return JSON_NODE_HOLDS_ARRAY(n);
    }
    if (strcmp(type, "null") == 0) {
        return JSON_NODE_HOLDS_NULL(n);
    }
    if (strcmp(type, "string") == 0) {
        return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING;
    }
    if (strcmp(type, "boolean") == 0) {
        return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_BOOLEAN;
    }
    if (strcmp(type, "number") == 0) {
        return is_number(n, &d);
    }
    if (strcmp(type, "integer") == 0) {
        /* JSON Schema: a number with a zero fractional part is an integer. */
        return is_number(n, &d) && isfinite(d) && floor(d) == d;
    }
    return false;
}

/* Resolves "#/a/b" against the schema's root. */
static JsonNode *resolve(Validator *v, const char *ref)
{
    if (!g_str_has_prefix(ref, "#")) {
        return NULL;
    }
    JsonNode *n = v->root;
    g_auto(GStrv) parts = g_strsplit(ref + 1, "/", -1);
    for (int i = 0; parts[i]; i++) {
        if (parts[i][0] == '\0') {
            continue;
        }
        if (!JSON_NODE_HOLDS_OBJECT(n) || !json_object_has_member(json_node_get_object(n), parts[i])) {
            return NULL;
        }
        n = json_object_get_member(json_node_get_object(n), parts[i]);
    }
    return n;
}

static void validate(Validator *v, JsonNode *schema, JsonNode *inst, const char *path);

static void validate_keyword(Validator *v, JsonObject *so, const char *key, JsonNode *kn, JsonNode *inst,
                             const char *path)
{
    static const char *annotations[] = { "$schema", "$id", "$defs", "$comment", "title", "description" };
    for (size_t i = 0; i < G_N_ELEMENTS(annotations); i++) {
        if (strcmp(key, annotations[i]) == 0) {
            return;
        }
    }
    if (strcmp(key, "$ref") == 0) {
        JsonNode *target = resolve(v, json_node_get_string(kn));
        if (target == NULL) {
            violation(v, path, "schema error: unresolvable $ref %s", json_node_get_string(kn));
            return;
        }
        validate(v, target, inst, path);
        return;
    }
    if (strcmp(key, "type") == 0) {
        bool ok = false;
        GString *names = g_string_new(NULL);
        if (JSON_NODE_HOLDS_ARRAY(kn)) {
            JsonArray *a = json_node_get_array(kn);
            for (guint i = 0; i < json_array_get_length(a); i++) {
                const char *t = json_array_get_string_element(a, i);
                ok |= has_type(inst, t);
                g_string_append_printf(names, "%s%s", i ? " or " : "", t);
            }
        } else {
            ok = has_type(inst, json_node_get_string(kn));
            g_string_append(names, json_node_get_string(kn));
        }
        if (!ok) {
            violation(v, path, "expected %s", names->str);
        }
        g_string_free(names, TRUE);
        return;
    }
    if (strcmp(key, "enum") == 0) {
        JsonArray *a = json_node_get_array(kn);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            if (json_node_equal(json_array_get_element(a, i), inst)) {
                return;
            }
        }
        violation(v, path, "not one of the enumerated values");
        return;
    }
    if (strcmp(key, "required") == 0) {
        if (!JSON_NODE_HOLDS_OBJECT(inst)) {
            return;
        }
        JsonArray *a = json_node_get_array(kn);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            const char *name = json_array_get_string_element(a, i);
            if (!json_object_has_member(json_node_get_object(inst), name)) {
                violation(v, path, "required member \"%s\" is missing", name);
            }
        }
        return;
    }
    if (strcmp(key, "properties") == 0) {
        if (!JSON_NODE_HOLDS_OBJECT(inst)) {
            return;
        }
        JsonObject *props = json_node_get_object(kn);
        JsonObject *io = json_node_get_object(inst);
        g_autoptr(GList) names = json_object_get_members(props);
        for (GList *l = names; l; l = l->next) {
            if (json_object_has_member(io, l->data)) {
                g_autofree char *sub = g_strdup_printf("%s/%s", path, (const char *) l->data);
                validate(v, json_object_get_member(props, l->data), json_object_get_member(io, l->data), sub);
            }
        }
        return;
    }
    if (strcmp(key, "additionalProperties") == 0) {
        if (!JSON_NODE_HOLDS_OBJECT(inst)) {
            return;
        }
        JsonObject *props = json_object_has_member(so, "properties") ? json_object_get_object_member(so, "properties")
                                                                     : NULL;
        JsonObject *io = json_node_get_object(inst);
        g_autoptr(GList) names = json_object_get_members(io);
        for (GList *l = names; l; l = l->next) {
            if (props != NULL && json_object_has_member(props, l->data)) {
                continue;
            }
            g_autofree char *sub = g_strdup_printf("%s/%s", path, (const char *) l->data);
            if (JSON_NODE_HOLDS_VALUE(kn) && json_node_get_value_type(kn) == G_TYPE_BOOLEAN) {
                if (!json_node_get_boolean(kn)) {
                    violation(v, sub, "member not allowed (additionalProperties is false)");
                }
            } else {
                validate(v, kn, json_object_get_member(io, l->data), sub);
            }
        }
        return;
    }
    if (strcmp(key, "items") == 0) {
        if (!JSON_NODE_HOLDS_ARRAY(inst)) {
            return;
        }
        JsonArray *a = json_node_get_array(inst);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            g_autofree char *sub = g_strdup_printf("%s/%u", path, i);
            validate(v, kn, json_array_get_element(a, i), sub);
        }
        return;
    }
    if (strcmp(key, "minItems") == 0 || strcmp(key, "maxItems") == 0) {
        if (!JSON_NODE_HOLDS_ARRAY(inst)) {
            return;
        }
        gint64 len = json_array_get_length(json_node_get_array(inst));
        gint64 bound = json_node_get_int(kn);
        if (key[1] == 'i' ? len < bound : len > bound) {
            violation(v, path, "%" G_GINT64_FORMAT " items, %s is %" G_GINT64_FORMAT, len, key, bound);
        }
        return;
    }
    if (strcmp(key, "minimum") == 0 || strcmp(key, "maximum") == 0) {
        double x, bound;
        if (!is_number(inst, &x)) {
            return;
        }
        if (!is_number(kn, &bound)) {
            violation(v, path, "schema error: %s is not a number", key);
            return;
        }
        if (key[1] == 'i' ? x < bound : x > bound) {
            violation(v, path, "%g is %s %g", x, key[1] == 'i' ? "below the minimum" : "above the maximum", bound);
        }
        return;
    }
    if (strcmp(key, "pattern") == 0) {
        if (!JSON_NODE_HOLDS_VALUE(inst) || json_node_get_value_type(inst) != G_TYPE_STRING) {
            return;
        }
        const char *s = json_node_get_string(inst);
        if (!g_regex_match_simple(json_node_get_string(kn), s, 0, 0)) {
            violation(v, path, "'%s' does not match %s", s, json_node_get_string(kn));
        }
        return;
    }
    violation(v, path, "schema error: keyword \"%s\" is not supported by this validator", key);
}

static void validate(Validator *v, JsonNode *schema, JsonNode *inst, const char *path)
{
    if (JSON_NODE_HOLDS_VALUE(schema) && json_node_get_value_type(schema) == G_TYPE_BOOLEAN) {
        if (!json_node_get_boolean(schema)) {
            violation(v, path, "no value is allowed here");
        }
        return;
    }
    if (!JSON_NODE_HOLDS_OBJECT(schema)) {
        violation(v, path, "schema error: a schema is an object or a boolean");
        return;
    }
    if (++v->depth > 64) {
        violation(v, path, "schema error: $ref loop");
        v->depth--;
        return;
    }
    JsonObject *so = json_node_get_object(schema);
    g_autoptr(GList) keys = json_object_get_members(so);
    for (GList *l = keys; l; l = l->next) {
        validate_keyword(v, so, l->data, json_object_get_member(so, l->data), inst, path);
    }
    v->depth--;
}

static JsonNode *parse_json(const char *text)
{
    g_autoptr(JsonParser) p = json_parser_new();
    GError *err = NULL;
    ck_assert_msg(json_parser_load_from_data(p, text, -1, &err), "JSON does not parse: %s", err ? err->message : "");
    return json_node_copy(json_parser_get_root(p));
}

/* Validates instance text against schema text; returns the violations
 * (newly allocated, empty when valid). */
static char *violations(JsonNode *schema, JsonNode *inst)
{
    Validator v = { schema, g_string_new(NULL), 0 };
    validate(&v, schema, inst, "");
    return g_string_free(v.errors, FALSE);
}

static char *violations_text(const char *schema, const char *inst)
{
    JsonNode *s = parse_json(schema);
    JsonNode *i = parse_json(inst);
    char *out = violations(s, i);
    json_node_unref(s);
    json_node_unref(i);
    return out;
}

static JsonNode *schema_node(void)
{
    g_autofree char *text = read_source("docs/statistics.schema.json");
    return parse_json(text);
}

/* ------------------------------------------------------------- running */

/* Runs a trace file (relative to the source tree) and returns its JSON. */
static char *json_of(const char *rel, ReportBy by, const char *const *sets)
{
    g_autofree char *text = read_source(rel);
    GError *err = NULL;
    Trace *t = trace_parse_string(rel, text, strlen(text), &err);
    ck_assert_msg(t != NULL, "%s", err ? err->message : "");
    GPtrArray *sl = g_ptr_array_new();
    for (int i = 0; sets && sets[i]; i++) {
        g_ptr_array_add(sl, (gpointer) sets[i]);
    }
    /* tests/programs set their parameters in "# set:" lines. */
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        if (g_str_has_prefix(lines[i], "# set:")) {
            g_ptr_array_add(sl, g_strstrip(lines[i] + 6));
        }
    }
    SimRunOptions o;
    memset(&o, 0, sizeof o);
    o.sets = sl;
    o.sm.engine = SIM_ENGINE_EVENT;
    o.sm.race_check = true;
    o.sm.max_cycles = 100000000;
    o.sm.by_line = by == REPORT_BY_LINE;
    SimRun r;
    bool ok = sim_run_trace(t, &o, &r, &err);
    g_ptr_array_free(sl, TRUE);
    ck_assert_msg(ok, "%s: %s", rel, err ? err->message : "");
    GArray *values = g_array_new(FALSE, FALSE, sizeof(int64_t));
    ReportInfo info;
    cli_report_info(&r, t, SIM_ENGINE_EVENT, values, &info);
    GString *j = g_string_new(NULL);
    report_json(sm_stats(r.sm), &info, by, j);
    g_array_free(values, TRUE);
    sim_run_clear(&r);
    trace_free(t);
    return g_string_free(j, FALSE);
}

/* Validates the JSON of a run and checks what the schema cannot say. */
static void check_document(JsonNode *schema, const char *rel, ReportBy by, const char *const *sets)
{
    g_autofree char *json = json_of(rel, by, sets);
    JsonNode *doc = parse_json(json);
    g_autofree char *bad = violations(schema, doc);
    ck_assert_msg(bad[0] == '\0', "%s (--by %d): the JSON breaks the schema:\n%s", rel, (int) by, bad);
    JsonObject *o = json_node_get_object(doc);
    gint64 warps = json_object_get_int_member(o, "warps");
    gint64 cycles = json_object_get_int_member(o, "cycles");
    ck_assert(json_object_has_member(o, "by_warp") == (by == REPORT_BY_WARP));
    ck_assert(json_object_has_member(o, "by_role") == (by == REPORT_BY_ROLE));
    ck_assert(json_object_has_member(o, "by_line") == (by == REPORT_BY_LINE));
    if (by == REPORT_BY_LINE) {
        /* The lines sum to warps x cycles too. */
        JsonArray *lines = json_object_get_array_member(o, "by_line");
        gint64 total = 0;
        for (guint i = 0; i < json_array_get_length(lines); i++) {
            total += json_object_get_int_member(json_array_get_object_element(lines, i), "warp_cycles");
        }
        ck_assert_int_eq(total, warps * cycles);
    }
    if (by == REPORT_BY_WARP) {
        ck_assert_int_eq(json_array_get_length(json_object_get_array_member(o, "by_warp")), warps);
    }
    /* The warp states sum to warps x cycles. */
    JsonObject *st = json_object_get_object_member(o, "stalls");
    g_autoptr(GList) names = json_object_get_members(st);
    gint64 sum = 0;
    for (GList *l = names; l; l = l->next) {
        sum += json_object_get_int_member(st, l->data);
    }
    ck_assert_int_eq(sum, warps * cycles);
    JsonArray *stages = json_object_get_array_member(o, "stages");
    for (guint i = 0; i < json_array_get_length(stages); i++) {
        JsonObject *s = json_array_get_object_element(stages, i);
        ck_assert_int_eq(json_array_get_length(json_object_get_array_member(s, "occupancy_cycles")),
                         json_object_get_int_member(s, "stages") + 1);
    }
    json_node_unref(doc);
}

static const char *bundled[] = {
    "traces/with_staging.trace",
    "traces/with_staging_unified.trace",
    "traces/with_specialized_staging_unified.trace",
    "traces/with_staging_scope_thread.trace",
    "traces/pipeline_reference_example.trace",
    NULL
};

static const ReportBy modes[] = { REPORT_BY_NONE, REPORT_BY_WARP, REPORT_BY_ROLE, REPORT_BY_LINE };

/* ---------------------------------------------------------------- tests */

START_TEST(validator_checks_each_keyword)
{
    const char *obj = "{\"type\": \"object\", \"required\": [\"a\"], \"additionalProperties\": false,"
                      " \"properties\": {\"a\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 9}}}";
    static const struct {
        const char *inst;
        bool valid;
    } objs[] = {
        { "{\"a\": 1}", true },      { "{\"a\": 2.0}", true },  { "{}", false },           { "{\"a\": -1}", false },
        { "{\"a\": 10}", false },    { "{\"a\": 1.5}", false }, { "{\"a\": \"1\"}", false }, { "{\"a\": 1, \"b\": 2}", false },
        { "[1]", false },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(objs); i++) {
        g_autofree char *bad = violations_text(obj, objs[i].inst);
        ck_assert_msg((bad[0] == '\0') == objs[i].valid, "%s: %s", objs[i].inst, bad[0] ? bad : "accepted");
    }
    const char *arr = "{\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/s\"}, \"minItems\": 1, \"maxItems\": 2,"
                      " \"$defs\": {\"s\": {\"type\": [\"string\", \"null\"]}}}";
    static const struct {
        const char *inst;
        bool valid;
    } arrs[] = {
        { "[\"x\"]", true }, { "[\"x\", null]", true }, { "[]", false }, { "[1]", false }, { "[\"a\", \"b\", \"c\"]", false },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(arrs); i++) {
        g_autofree char *bad = violations_text(arr, arrs[i].inst);
        ck_assert_msg((bad[0] == '\0') == arrs[i].valid, "%s: %s", arrs[i].inst, bad[0] ? bad : "accepted");
    }
    g_autofree char *en = violations_text("{\"enum\": [\"event\", \"stepped\"]}", "\"evnet\"");
    ck_assert(en[0] != '\0');
    g_autofree char *ap = violations_text("{\"additionalProperties\": {\"type\": \"integer\"}}", "{\"k\": true}");
    ck_assert(ap[0] != '\0');
    g_autofree char *pat = violations_text("{\"pattern\": \"^[0-9a-f]{4}$\"}", "\"12g4\"");
    ck_assert_msg(strstr(pat, "does not match") != NULL, "%s", pat);
    g_autofree char *pat_ok = violations_text("{\"pattern\": \"^[0-9a-f]{4}$\"}", "\"12f4\"");
    ck_assert_msg(pat_ok[0] == '\0', "%s", pat_ok);
    g_autofree char *unknown = violations_text("{\"uniqueItems\": true}", "[1]");
    ck_assert_msg(strstr(unknown, "not supported") != NULL, "%s", unknown);
    g_autofree char *dangling = violations_text("{\"$ref\": \"#/$defs/none\"}", "1");
    ck_assert(strstr(dangling, "unresolvable") != NULL);
}
END_TEST

START_TEST(schema_rejects_broken_documents)
{
    JsonNode *schema = schema_node();
    g_autofree char *json = json_of(bundled[1], REPORT_BY_NONE, NULL);
    JsonNode *good = parse_json(json);
    g_autofree char *ok = violations(schema, good);
    ck_assert_msg(ok[0] == '\0', "%s", ok);
    /* A required key missing, at the top and inside. */
    JsonNode *d = json_node_copy(good);
    json_object_remove_member(json_node_get_object(d), "cycles");
    g_autofree char *e1 = violations(schema, d);
    ck_assert_msg(strstr(e1, "\"cycles\" is missing") != NULL, "%s", e1);
    json_node_unref(d);
    d = json_node_copy(good);
    json_object_remove_member(json_object_get_object_member(json_node_get_object(d), "stalls"), "exited");
    g_autofree char *e2 = violations(schema, d);
    ck_assert_msg(strstr(e2, "/stalls: required member \"exited\"") != NULL, "%s", e2);
    json_node_unref(d);
    /* An unknown key where the set is closed. */
    d = json_node_copy(good);
    json_object_set_int_member(json_object_get_object_member(json_node_get_object(d), "copies"), "tma_bytes", 1);
    g_autofree char *e3 = violations(schema, d);
    ck_assert_msg(strstr(e3, "/copies/tma_bytes") != NULL, "%s", e3);
    json_node_unref(d);
    /* Out of range, wrong type. */
    d = json_node_copy(good);
    json_object_set_double_member(json_object_get_object_member(json_node_get_object(d), "overlap"),
                                  "hidden_copy_fraction", 1.5);
    json_object_set_int_member(json_node_get_object(d), "warps", -4);
    json_object_set_null_member(json_object_get_object_member(json_node_get_object(d), "params"), "stages");
    json_object_set_string_member(json_object_get_object_member(json_node_get_object(d), "provenance"), "trace_sha256",
                                  "not a hash");
    json_object_set_string_member(json_node_get_object(d), "engine", "fast");
    g_autofree char *e4 = violations(schema, d);
    ck_assert_msg(strstr(e4, "/overlap/hidden_copy_fraction") != NULL, "%s", e4);
    ck_assert_msg(strstr(e4, "/warps") != NULL, "%s", e4);
    ck_assert_msg(strstr(e4, "/params/stages") != NULL, "%s", e4);
    ck_assert_msg(strstr(e4, "/provenance/trace_sha256") != NULL, "%s", e4);
    ck_assert_msg(strstr(e4, "/engine") != NULL, "%s", e4);
    json_node_unref(d);
    json_node_unref(good);
    json_node_unref(schema);
}
END_TEST

START_TEST(every_bundled_trace_validates)
{
    JsonNode *schema = schema_node();
    for (int i = 0; bundled[i]; i++) {
        for (size_t k = 0; k < G_N_ELEMENTS(modes); k++) {
            check_document(schema, bundled[i], modes[k], NULL);
        }
    }
    /* Architecture keys appear in params as strings. */
    const char *sets[] = { "stages=3", "dram.latency=700", "sm.blocks=2", NULL };
    check_document(schema, bundled[1], REPORT_BY_ROLE, sets);
    json_node_unref(schema);
}
END_TEST

START_TEST(every_valid_program_validates)
{
    JsonNode *schema = schema_node();
    g_autofree char *dir = g_build_filename(SRCDIR, "tests", "programs", NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    ck_assert_ptr_nonnull(d);
    const char *n;
    int checked = 0;
    while ((n = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(n, ".trace")) {
            continue;
        }
        g_autofree char *rel = g_build_filename("tests", "programs", n, NULL);
        g_autofree char *text = read_source(rel);
        if (strstr(text, "# expect-exit: 0") == NULL) {
            continue;
        }
        for (size_t k = 0; k < G_N_ELEMENTS(modes); k++) {
            check_document(schema, rel, modes[k], NULL);
        }
        checked++;
    }
    g_dir_close(d);
    ck_assert_int_ge(checked, 4);
    json_node_unref(schema);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("schema");
    TCase *v = tcase_create("validator");
    tcase_add_test(v, validator_checks_each_keyword);
    tcase_add_test(v, schema_rejects_broken_documents);
    suite_add_tcase(s, v);
    TCase *runs = tcase_create("runs");
    tcase_set_timeout(runs, 300);
    tcase_add_test(runs, every_bundled_trace_validates);
    tcase_add_test(runs, every_valid_program_validates);
    suite_add_tcase(s, runs);
    return run_suite(s);
}
