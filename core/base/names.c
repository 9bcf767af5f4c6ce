/* names.c — see names.h. Keys are checked one by one; duplicate keys (which
 * cJSON accepts) are rejected too, since lookups would see only the first. */
#include "names.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names_priv.h"

#define NAME_MAX_LEN 63
#define PREFIX_MAX_LEN 253
#define LABELS_MAX 64
#define ANNOTATIONS_MAX_BYTES (256u * 1024u)

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([a-z0-9-]*[a-z0-9])? of any length >= 1. */
static bool dns_label_ok(const char *s, size_t len)
{
    if (len == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[len - 1]))
        return false;
    for (size_t i = 1; i + 1 < len; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

/* Dot-separated DNS labels, at most 253 chars in all. */
static bool dns_subdomain_ok(const char *s, size_t len)
{
    if (len == 0 || len > PREFIX_MAX_LEN)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.')
            continue;
        if (!dns_label_ok(s + start, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

/* The name syntax of label keys and values, without the length limit. */
static bool qualified_name_ok(const char *s, size_t len)
{
    if (len == 0 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
        return false;
    for (size_t i = 1; i + 1 < len; i++)
        if (!is_alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
            return false;
    return true;
}

static int name_part_valid(const char *s, size_t len, const char *what,
                           char *err, size_t errlen)
{
    if (len == 0 || len > NAME_MAX_LEN) {
        if (err && errlen)
            snprintf(err, errlen, "%s must be 1..63 characters long", what);
        return -1;
    }
    if (!qualified_name_ok(s, len)) {
        if (err && errlen)
            snprintf(err, errlen, "%s must consist of alphanumerics, '-', "
                     "'_' or '.', and start and end with an alphanumeric",
                     what);
        return -1;
    }
    return 0;
}

/* 0 when key[0..len) is a label key; -1 with a message otherwise. */
int cube_label_key_valid(const char *key, size_t len, char *err,
                         size_t errlen)
{
    const char *slash = memchr(key, '/', len);
    if (!slash)
        return name_part_valid(key, len, "key name", err, errlen);
    size_t plen = (size_t)(slash - key);
    if (!dns_subdomain_ok(key, plen)) {
        set_err(err, errlen, "key prefix must be a lowercase DNS subdomain "
                "of at most 253 characters");
        return -1;
    }
    return name_part_valid(slash + 1, len - plen - 1, "key name", err,
                           errlen);
}

/* 0 when value[0..len) is empty or a label name; -1 with a message. */
int cube_label_value_valid(const char *value, size_t len, char *err,
                           size_t errlen)
{
    if (len == 0)
        return 0;
    return name_part_valid(value, len, "value", err, errlen);
}

/* 0 when name is an RFC 1123 DNS label; -1 with a message otherwise. */
int cube_name_check(const char *name, char *err, size_t errlen)
{
    if (!name) {
        set_err(err, errlen, "name is missing");
        return -1;
    }
    size_t len = strlen(name);
    if (len == 0 || len > NAME_MAX_LEN) {
        set_err(err, errlen, "name must be 1..63 characters long");
        return -1;
    }
    if (!dns_label_ok(name, len)) {
        set_err(err, errlen, "name must consist of lowercase alphanumerics "
                "or '-', and start and end with an alphanumeric");
        return -1;
    }
    return 0;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Finds a key present twice: 0 (none, or *dup set), or -1 on OOM. */
static int find_duplicate(const cJSON *obj, size_t n, const char **dup)
{
    *dup = NULL;
    if (n < 2)
        return 0;
    const char **keys = malloc(n * sizeof *keys);
    if (!keys)
        return -1;
    size_t i = 0;
    for (const cJSON *m = obj->child; m && i < n; m = m->next)
        keys[i++] = m->string;
    qsort(keys, i, sizeof *keys, cmp_keys);
    for (size_t j = 1; j < i && !*dup; j++)
        if (strcmp(keys[j - 1], keys[j]) == 0)
            *dup = keys[j];
    free(keys);
    return 0;
}

/* Checks every member's key and that its value is a string; counts the
 * members into *n. */
static int check_members(const cJSON *obj, bool label_values, size_t *n,
                         const char **bad_key, char *err, size_t errlen)
{
    *n = 0;
    for (const cJSON *m = obj->child; m; m = m->next, (*n)++) {
        *bad_key = m->string;
        if (!m->string) {
            set_err(err, errlen, "key is missing");
            return -1;
        }
        if (cube_label_key_valid(m->string, strlen(m->string), err, errlen))
            return -1;
        if (!cJSON_IsString(m) || !m->valuestring) {
            set_err(err, errlen, "value must be a string");
            return -1;
        }
        if (label_values && cube_label_value_valid(
                m->valuestring, strlen(m->valuestring), err, errlen))
            return -1;
    }
    *bad_key = NULL;
    return 0;
}

/* The checks labels and annotations share: an object, valid keys, string
 * values (label syntax when label_values), no duplicate key. */
static int check_map(const cJSON *obj, bool label_values, size_t *n,
                     const char **bad_key, char *err, size_t errlen)
{
    *bad_key = NULL;
    if (!cJSON_IsObject(obj)) {
        set_err(err, errlen, "must be an object");
        return -1;
    }
    if (check_members(obj, label_values, n, bad_key, err, errlen))
        return -1;
    if (find_duplicate(obj, *n, bad_key)) {
        set_err(err, errlen, "out of memory");
        return -1;
    }
    if (*bad_key) {
        set_err(err, errlen, "key appears more than once");
        return -1;
    }
    return 0;
}

/* 0 for a valid labels object; -1 with a message and the bad key. */
int cube_labels_check(const cJSON *labels, const char **bad_key, char *err,
                      size_t errlen)
{
    const char *ignored;
    const char **bad = bad_key ? bad_key : &ignored;
    size_t n;
    if (check_map(labels, true, &n, bad, err, errlen))
        return -1;
    if (n > LABELS_MAX) {
        set_err(err, errlen, "at most 64 labels are allowed");
        return -1;
    }
    return 0;
}

/* 0 for a valid annotations object; -1 with a message and the bad key. */
int cube_annotations_check(const cJSON *annotations, const char **bad_key,
                           char *err, size_t errlen)
{
    const char *ignored;
    const char **bad = bad_key ? bad_key : &ignored;
    size_t n, total = 0;
    if (check_map(annotations, false, &n, bad, err, errlen))
        return -1;
    for (const cJSON *m = annotations->child; m; m = m->next)
        total += strlen(m->string) + strlen(m->valuestring);
    if (total > ANNOTATIONS_MAX_BYTES) {
        set_err(err, errlen, "keys and values must total at most 256 KiB");
        return -1;
    }
    return 0;
}
