/* yaml_emit.c — cJSON to YAML through libyaml's emitter; see yaml_conv.h.
 * libyaml picks plain vs quoted by lexical rules only, so strings that
 * would read back as another type are forced into double quotes here. */
#include "yaml_conv.h"

#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <cube/util/yaml.h>

#include "buf.h"

static int write_out(void *data, unsigned char *bytes, size_t n)
{
    return buf_add(data, bytes, n) == 0;
}

static int scalar(yaml_emitter_t *e, const char *text, int is_string)
{
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (is_string && !cu_yaml_plain_is_string(text))
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (is_string && strchr(text, '\n'))
        style = YAML_LITERAL_SCALAR_STYLE;  /* falls back when not allowed */
    else if (!is_string)
        style = YAML_PLAIN_SCALAR_STYLE;
    yaml_event_t ev;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
                                      (yaml_char_t *)text, (int)strlen(text),
                                      1, 1, style))
        return -1;
    return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int number(yaml_emitter_t *e, const cJSON *v)
{
    /* cJSON's own printer: the same digits as `-o json` shows. */
    char *text = cJSON_PrintUnformatted(v);
    if (!text)
        return -1;
    int rc = scalar(e, text, 0);
    free(text);
    return rc;
}

static int node(yaml_emitter_t *e, const cJSON *v);

static int collection(yaml_emitter_t *e, const cJSON *v)
{
    int map = cJSON_IsObject(v);
    yaml_event_t ev;
    int ok = map ? yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                                       YAML_BLOCK_MAPPING_STYLE)
                 : yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                                        YAML_BLOCK_SEQUENCE_STYLE);
    if (!ok || !yaml_emitter_emit(e, &ev))
        return -1;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (map && scalar(e, c->string ? c->string : "", 1))
            return -1;
        if (node(e, c))
            return -1;
    }
    ok = map ? yaml_mapping_end_event_initialize(&ev)
             : yaml_sequence_end_event_initialize(&ev);
    return ok && yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int node(yaml_emitter_t *e, const cJSON *v)
{
    if (cJSON_IsObject(v) || cJSON_IsArray(v))
        return collection(e, v);
    if (cJSON_IsString(v))
        return scalar(e, v->valuestring, 1);
    if (cJSON_IsNumber(v))
        return number(e, v);
    if (cJSON_IsBool(v))
        return scalar(e, cJSON_IsTrue(v) ? "true" : "false", 0);
    return scalar(e, "null", 0);
}

static int document(yaml_emitter_t *e, const cJSON *v, int explicit_start)
{
    yaml_event_t ev;
    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
        !yaml_emitter_emit(e, &ev))
        return -1;
    if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL,
                                              !explicit_start) ||
        !yaml_emitter_emit(e, &ev))
        return -1;
    if (node(e, v))
        return -1;
    if (!yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(e, &ev))
        return -1;
    if (!yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(e, &ev))
        return -1;
    return 0;
}

int yaml_emit(const cJSON *v, int explicit_start, struct buf *out)
{
    yaml_emitter_t e;
    if (!yaml_emitter_initialize(&e))
        return -1;
    yaml_emitter_set_output(&e, write_out, out);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, -1);   /* never fold long strings */
    yaml_emitter_set_indent(&e, 2);
    int rc = document(&e, v, explicit_start);
    yaml_emitter_delete(&e);
    /* libyaml leaves the last line open after some quoted scalars */
    if (!rc && out->len && out->data[out->len - 1] != '\n')
        rc = buf_puts(out, "\n");
    return rc;
}
