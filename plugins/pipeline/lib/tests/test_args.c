/* test_args.c — job template argument schemas: the schema check, value
 * validation (every type, require, range, choice, defaults, templates)
 * and the command line as Cube Studio renders it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "args.h"

/* Single quotes stand for double quotes, to keep the JSON readable. */
static cJSON *json(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    cJSON *j = cJSON_Parse(s);
    if (!j)
        fail_msg("bad JSON in the test: %s", text);
    free(s);
    return j;
}

static const char *schema_json =
    "{'train': {"
    "  '--epochs': {'type': 'int', 'range': '1,100', 'default': 10, 'require': 1},"
    "  '--lr': {'type': 'float', 'range': '0,1', 'default': '0.01'},"
    "  '--shuffle': {'type': 'bool', 'default': true},"
    "  '--verbose': {'type': 'bool'},"
    "  '--name': {'type': 'str', 'require': true, 'label': 'Name'},"
    "  '--notes': {'type': 'text'},"
    "  '--model': {'type': 'enum', 'item_type': 'str', 'choice': ['xgb', 'lr']},"
    "  '--workers': {'type': 'enum', 'item_type': 'int', 'choice': [1, 2, 4]},"
    "  '--metrics': {'type': 'multiple', 'item_type': 'str', 'choice': ['auc', 'f1', 'acc']}"
    "}, 'io': {"
    "  '--params': {'type': 'dict', 'sub_args': {'depth': {'type': 'int', 'require': 1},"
    "                                           'mode': {'type': 'str', 'default': 'fast'}}},"
    "  '--layers': {'type': 'list', 'item_type': 'int'},"
    "  '--stages': {'type': 'list', 'item_type': 'dict',"
    "               'sub_args': {'name': {'type': 'str', 'require': 1}}},"
    "  '--input': {'type': 'file', 'default': '/mnt/{{ creator }}/in.csv'},"
    "  '--extra': {'type': 'json'},"
    "  'workdir': {'type': 'str', 'default': '/mnt/{{creator}}/'}"
    "}}";

static void test_schema_ok(void **state)
{
    char err[256] = "";
    cJSON *schema = json(schema_json);
    if (pl_args_check_schema(schema, err, sizeof err) != 0)
        fail_msg("%s", err);
    cJSON_Delete(schema);
}

static const struct {
    const char *schema, *error;
} bad_schemas[] = {
    {"[]", "args: the schema must be an object of groups"},
    {"{'g': 1}", "args: group \"g\" must be an object of arguments"},
    {"{'g': {'--a': 1}}", "g/--a: the definition must be an object"},
    {"{'g': {'--a': {}}}", "g/--a: \"type\" must be one of int, bool, str, text, enum, float, multiple, dict, list, file, json"},
    {"{'g': {'--a': {'type': 'string'}}}", "g/--a: \"type\" must be one of int, bool, str, text, enum, float, multiple, dict, list, file, json"},
    {"{'g': {'--a': {'type': 'enum', 'choice': ['x']}}}", "g/--a: \"item_type\" must be one of int, str, text, float"},
    {"{'g': {'--a': {'type': 'multiple', 'item_type': 'dict', 'choice': ['x']}}}", "g/--a: \"item_type\" must be one of int, str, text, float"},
    {"{'g': {'--a': {'type': 'list'}}}", "g/--a: \"item_type\" must be one of int, str, text, float, dict"},
    {"{'g': {'--a': {'type': 'enum', 'item_type': 'str'}}}", "g/--a: \"choice\" must be a non-empty list"},
    {"{'g': {'--a': {'type': 'enum', 'item_type': 'str', 'choice': []}}}", "g/--a: \"choice\" must be a non-empty list"},
    {"{'g': {'--a': {'type': 'enum', 'item_type': 'str', 'choice': [{}]}}}", "g/--a: \"choice\" items must be strings or numbers"},
    {"{'g': {'--a': {'type': 'int', 'range': '5'}}}", "g/--a: \"range\" must be \"min,max\" on an int or float"},
    {"{'g': {'--a': {'type': 'int', 'range': '9,1'}}}", "g/--a: \"range\" must be \"min,max\" on an int or float"},
    {"{'g': {'--a': {'type': 'str', 'range': '1,2'}}}", "g/--a: \"range\" must be \"min,max\" on an int or float"},
    {"{'g': {'--a': {'type': 'dict'}}}", "g/--a: \"sub_args\" must be an object of definitions"},
    {"{'g': {'--a': {'type': 'list', 'item_type': 'dict'}}}", "g/--a: \"sub_args\" must be an object of definitions"},
    {"{'g': {'--a': {'type': 'dict', 'sub_args': {'x': {'type': 'nope'}}}}}", "g/--a.x: \"type\" must be one of int, bool, str, text, enum, float, multiple, dict, list, file, json"},
    {"{'g': {'--a': {'type': 'int', 'default': 'ten'}}}", "\"default\" of g/--a: expected an integer, got \"ten\""},
    {"{'g': {'--a': {'type': 'int', 'range': '1,5', 'default': 6}}}", "\"default\" of g/--a: 6 is outside the range 1,5"},
    {"{'g': {'--a': {'type': 'enum', 'item_type': 'str', 'choice': ['x'], 'default': 'y'}}}", "\"default\" of g/--a: \"y\" is not one of the choices"},
    {"{'g': {'--a': {'type': 'str', 'label': 5}}}", "g/--a: \"label\" must be a string"},
    {"{'g': {'--a': {'type': 'str', 'require': 'yes'}}}", "g/--a: \"require\" and \"editable\" must be true or false"},
    {"{'g': {'--a': {'type': 'str'}}, 'h': {'--a': {'type': 'int'}}}", "h/--a: the argument is defined more than once"},
    {"{'g': {'': {'type': 'str'}}}", "g: an argument has an empty name"},
    {"{'g': {'--a': {'type': 'dict', 'sub_args': {'b': {'type': 'dict', 'sub_args': {'c': {'type': 'dict', 'sub_args': {'d': {'type': 'dict', 'sub_args': {'e': {'type': 'dict', 'sub_args': {}}}}}}}}}}}}}",
     "g/--a.b.c.d.e: sub_args nest deeper than 4 levels"},
};

static void test_schema_errors(void **state)
{
    char err[512];
    for (size_t i = 0; i < sizeof bad_schemas / sizeof bad_schemas[0]; i++) {
        cJSON *schema = json(bad_schemas[i].schema);
        err[0] = '\0';
        if (pl_args_check_schema(schema, err, sizeof err) == 0)
            fail_msg("%s: accepted", bad_schemas[i].schema);
        if (strcmp(err, bad_schemas[i].error) != 0)
            fail_msg("%s: got \"%s\", want \"%s\"", bad_schemas[i].schema, err,
                     bad_schemas[i].error);
        cJSON_Delete(schema);
    }
}

static const struct {
    const char *args, *error;  /* error NULL: valid */
} values[] = {
    {"{'--name': 'n'}", NULL},
    {"{'--name': 'n', '--epochs': 100, '--lr': 1, '--verbose': 'TRUE', '--model': 'lr',"
     " '--workers': '4', '--metrics': ['auc', 'f1'], '--params': {'depth': '3'},"
     " '--layers': [1, 2], '--stages': [{'name': 'a'}], '--extra': '{\\'k\\': 1}'}", NULL},
    {"{'--name': 'n', '--metrics': 'auc,acc', '--workers': 2, '--extra': {'k': [1]}}", NULL},
    {"{'--name': 'n', '--epochs': '{{ tasks.a.outputs.n }}'}", NULL},
    {"{'--name': 'n', '--layers': [1, '{{ n }}'], '--params': {'depth': '{{ d }}'}}", NULL},
    {"{'--name': 'n', '--notes': ''}", NULL},
    {"{}", "--name is required"},
    {"{'--name': ''}", "--name is required"},
    {"{'--name': null}", "--name is required"},
    {"{'--name': 'n', '--epochs': null}", NULL},  /* null takes the default */
    {"{'--name': 'n', '--bogus': 1}", "unknown argument \"--bogus\""},
    {"{'--name': 'n', '--epochs': 0}", "--epochs: 0 is outside the range 1,100"},
    {"{'--name': 'n', '--epochs': 101}", "--epochs: 101 is outside the range 1,100"},
    {"{'--name': 'n', '--epochs': 2.5}", "--epochs: expected an integer, got 2.5"},
    {"{'--name': 'n', '--epochs': '7x'}", "--epochs: expected an integer, got \"7x\""},
    {"{'--name': 'n', '--epochs': true}", "--epochs: expected an integer, got true"},
    {"{'--name': 'n', '--lr': '1.5'}", "--lr: 1.5 is outside the range 0,1"},
    {"{'--name': 'n', '--lr': 'fast'}", "--lr: expected a number, got \"fast\""},
    {"{'--name': 'n', '--shuffle': 'yes'}", "--shuffle: expected true or false"},
    {"{'--name': 5}", "--name: expected a string"},
    {"{'--name': 'n', '--model': 'svm'}", "--model: \"svm\" is not one of the choices"},
    {"{'--name': 'n', '--workers': 3}", "--workers: \"3\" is not one of the choices"},
    {"{'--name': 'n', '--metrics': ['auc', 'mse']}", "--metrics: \"mse\" is not one of the choices"},
    {"{'--name': 'n', '--metrics': 'auc,mse'}", "--metrics: \"mse\" is not one of the choices"},
    {"{'--name': 'n', '--metrics': 5}", "--metrics: expected a list of choices or a comma-separated string"},
    {"{'--name': 'n', '--params': 'x'}", "--params: expected an object"},
    {"{'--name': 'n', '--params': {}}", "--params.depth is required"},
    {"{'--name': 'n', '--params': {'depth': 1, 'x': 2}}", "--params: unknown field \"x\""},
    {"{'--name': 'n', '--params': {'depth': 'deep'}}", "--params.depth: expected an integer, got \"deep\""},
    {"{'--name': 'n', '--layers': 3}", "--layers: expected a list"},
    {"{'--name': 'n', '--layers': [1, 'x']}", "--layers[1]: expected an integer, got \"x\""},
    {"{'--name': 'n', '--stages': [{'name': 'a'}, {}]}", "--stages[1].name is required"},
    {"{'--name': 'n', '--stages': [5]}", "--stages[0]: expected an object"},
    {"{'--name': 'n', '--extra': '{oops'}", "--extra: not valid JSON"},
    {"[]", "args: expected an object of \"--arg\": value"},
};

static void test_validate(void **state)
{
    cJSON *schema = json(schema_json);
    char err[512];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        cJSON *args = json(values[i].args);
        err[0] = '\0';
        int rc = pl_args_validate(schema, args, err, sizeof err);
        if (!values[i].error && rc != 0)
            fail_msg("%s: %s", values[i].args, err);
        if (values[i].error && (rc == 0 || strcmp(err, values[i].error) != 0))
            fail_msg("%s: got %d \"%s\", want \"%s\"", values[i].args, rc, err, values[i].error);
        cJSON_Delete(args);
    }
    cJSON_Delete(schema);
}

static void test_defaults_filled(void **state)
{
    cJSON *schema = json(schema_json), *args = json("{'--name': 'n', '--params': {'depth': 2}}");
    char err[256];
    assert_int_equal(pl_args_validate(schema, args, err, sizeof err), 0);
    char *text = cJSON_PrintUnformatted(args);
    assert_string_equal(text, "{\"--name\":\"n\",\"--params\":{\"depth\":2,\"mode\":\"fast\"},"
                              "\"--epochs\":10,\"--lr\":\"0.01\",\"--shuffle\":true,"
                              "\"--input\":\"/mnt/{{ creator }}/in.csv\","
                              "\"workdir\":\"/mnt/{{creator}}/\"}");
    free(text);
    cJSON_Delete(args);
    cJSON_Delete(schema);
}

static void expect_argv(const cJSON *schema, const char *args_json, const char *want)
{
    cJSON *args = json(args_json);
    cJSON *argv = pl_args_render(schema, args);
    assert_non_null(argv);
    char *got = cJSON_PrintUnformatted(argv);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got %s, want %s", args_json, got, want);
    free(got);
    cJSON_Delete(argv);
    cJSON_Delete(args);
}

static void test_render(void **state)
{
    cJSON *schema = json(schema_json);
    /* schema order; true bool bare, false omitted; numbers as str() */
    expect_argv(schema, "{'--verbose': false, '--name': 'n', '--shuffle': true, '--epochs': 3,"
                " '--lr': 0.25}",
                "[\"--epochs\",\"3\",\"--lr\",\"0.25\",\"--shuffle\",\"--name\",\"n\"]");
    expect_argv(schema, "{'--verbose': 'true', '--shuffle': 'false'}", "[\"--verbose\"]");
    /* empty values omitted; 0 is a value */
    expect_argv(schema, "{'--name': '', '--notes': null, '--layers': [], '--params': {},"
                " '--epochs': 0}", "[\"--epochs\",\"0\"]");
    /* multiple comma-joined (list or string), dict/list/json as JSON */
    expect_argv(schema, "{'--metrics': ['auc', 'f1'], '--params': {'depth': 2, 'mode': 'x'},"
                " '--layers': [1, 2], '--extra': {'a': [true, null]}, '--workers': 4}",
                "[\"--workers\",\"4\",\"--metrics\",\"auc,f1\",\"--params\","
                "\"{\\\"depth\\\":2,\\\"mode\\\":\\\"x\\\"}\",\"--layers\",\"[1,2]\","
                "\"--extra\",\"{\\\"a\\\":[true,null]}\"]");
    expect_argv(schema, "{'--metrics': 'auc,acc', '--extra': '{\\'k\\': 1}'}",
                "[\"--metrics\",\"auc,acc\",\"--extra\",\"{\\\"k\\\": 1}\"]");
    /* images and workdir are never flags; unknown names go by their JSON type */
    expect_argv(schema, "{'workdir': '/mnt/a', 'images': 'ubuntu', '--x': true, '--y': false,"
                " '--z': {'k': 1}, '--w': 1e100}",
                "[\"--x\",\"--z\",\"{\\\"k\\\":1}\",\"--w\",\"1e+100\"]");
    /* values with spaces stay one argv item */
    expect_argv(schema, "{'--name': 'a b; rm -rf /'}", "[\"--name\",\"a b; rm -rf /\"]");
    cJSON_Delete(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_ok),   cmocka_unit_test(test_schema_errors),
        cmocka_unit_test(test_validate),    cmocka_unit_test(test_defaults_filled),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
