/* table.c — the servers this plugin started: endpoint (address and port,
 * once the Job's executor reported it), generation, Job and the secret the
 * proxy adds. Kept in memory and, so that a restart of cubed
 * keeps running notebooks reachable, in one private file per server under
 * <plugin data dir>/servers (directory 0700, files 0600, written to a
 * temporary name and renamed). The secret never enters an object. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "notebook.h"

void nb_key(const char *project, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", project, name);
}

/* The file of a key: "project/name" becomes "<dir>/project.name". */
static void file_of(const struct nb_table *t, const char *key, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", t->dir, key);
    char *slash = strrchr(out, '/');
    char *sep = strchr(out + strlen(t->dir) + 1, '/');
    if (sep && sep == slash)
        *sep = '.';
}

int nb_table_init(struct nb_table *t, const char *data_dir, char *msg, size_t len)
{
    pthread_mutex_init(&t->mu, NULL);
    t->head = NULL;
    int n = snprintf(t->dir, sizeof t->dir, "%s/servers", data_dir);
    if (n < 0 || (size_t)n >= sizeof t->dir - NB_KEY_LEN)
        return snprintf(msg, len, "data dir path too long"), -1;
    if (mkdir(t->dir, 0700) < 0 && errno != EEXIST)
        return snprintf(msg, len, "cannot create %s: %s", t->dir, strerror(errno)), -1;
    if (chmod(t->dir, 0700) < 0)
        return snprintf(msg, len, "cannot chmod %s: %s", t->dir, strerror(errno)), -1;
    return 0;
}

void nb_table_fini(struct nb_table *t)
{
    for (struct nb_entry *e = t->head, *next; e; e = next) {
        next = e->next;
        free(e);
    }
    t->head = NULL;
    pthread_mutex_destroy(&t->mu);
}

static struct nb_entry *find(struct nb_table *t, const char *key)
{
    for (struct nb_entry *e = t->head; e; e = e->next)
        if (!strcmp(e->key, key))
            return e;
    return NULL;
}

/* Writes e's file; caller holds mu. */
static int write_file(struct nb_table *t, const struct nb_entry *e)
{
    char path[4352], tmp[4400], line[512];
    file_of(t, e->key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int n = snprintf(line, sizeof line, "%s %s %u %u %s %s %s %s\n", e->key, e->job, e->port,
                     e->generation, e->ide, *e->token ? e->token : "-", e->owner,
                     *e->host ? e->host : "-");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, line, (size_t)n) == n;
    close(fd);
    if (!ok || rename(tmp, path) < 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int nb_table_put(struct nb_table *t, const struct nb_entry *src)
{
    pthread_mutex_lock(&t->mu);
    struct nb_entry *e = find(t, src->key);
    if (!e && (e = calloc(1, sizeof *e))) {
        e->next = t->head;
        t->head = e;
    }
    int rc = -1;
    if (e) {
        struct nb_entry *next = e->next;
        *e = *src;
        e->next = next;
        rc = write_file(t, e);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

int nb_table_get(struct nb_table *t, const char *key, struct nb_entry *out)
{
    pthread_mutex_lock(&t->mu);
    struct nb_entry *e = find(t, key);
    if (e)
        *out = *e;
    pthread_mutex_unlock(&t->mu);
    return e ? 0 : -1;
}

void nb_table_drop(struct nb_table *t, const char *key)
{
    char path[4352];
    pthread_mutex_lock(&t->mu);
    for (struct nb_entry **pp = &t->head; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->key, key)) {
            struct nb_entry *e = *pp;
            *pp = e->next;
            explicit_bzero(e->token, sizeof e->token);
            free(e);
            break;
        }
    file_of(t, key, path, sizeof path);
    unlink(path);
    pthread_mutex_unlock(&t->mu);
}

int nb_table_set_token(struct nb_table *t, const char *key, unsigned gen, const char *token)
{
    pthread_mutex_lock(&t->mu);
    struct nb_entry *e = find(t, key);
    int rc = -1;
    if (e && e->generation == gen && !*e->token && strlen(token) <= NB_TOKEN_LEN) {
        snprintf(e->token, sizeof e->token, "%s", token);
        rc = write_file(t, e);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

int nb_table_set_endpoint(struct nb_table *t, const char *key, unsigned gen, const char *host,
                          unsigned port)
{
    pthread_mutex_lock(&t->mu);
    struct nb_entry *e = find(t, key);
    int rc = -1;
    if (e && e->generation == gen && strlen(host) < sizeof e->host) {
        snprintf(e->host, sizeof e->host, "%s", host);
        e->port = port;
        rc = write_file(t, e);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void nb_table_touch(struct nb_table *t, const char *key, int ready, time_t last)
{
    pthread_mutex_lock(&t->mu);
    struct nb_entry *e = find(t, key);
    if (e) {
        e->ready = ready;
        if (last > e->last_activity)
            e->last_activity = last;
    }
    pthread_mutex_unlock(&t->mu);
}

struct nb_entry *nb_table_snapshot(struct nb_table *t, size_t *n)
{
    pthread_mutex_lock(&t->mu);
    size_t c = 0;
    for (struct nb_entry *e = t->head; e; e = e->next)
        c++;
    struct nb_entry *v = calloc(c ? c : 1, sizeof *v);
    *n = 0;
    for (struct nb_entry *e = t->head; v && e; e = e->next)
        v[(*n)++] = *e;
    pthread_mutex_unlock(&t->mu);
    return v;
}

/* Parses one file's line into e; 0 or -1. A line of before endpoints
 * (seven fields) is a server on 127.0.0.1 at the port it names. */
static int parse_line(const char *line, struct nb_entry *e)
{
    char token[NB_TOKEN_LEN + 2], host[sizeof e->host] = "127.0.0.1";
    memset(e, 0, sizeof *e);
    int n = sscanf(line, "%159s %63s %u %u %7s %65s %63s %63s", e->key, e->job, &e->port,
                   &e->generation, e->ide, token, e->owner, host);
    if (n < 7 || !strchr(e->key, '/') || e->port > 65535)
        return -1;
    if (strcmp(token, "-") && strlen(token) <= NB_TOKEN_LEN)
        snprintf(e->token, sizeof e->token, "%s", token);
    if (strcmp(host, "-") && e->port)
        snprintf(e->host, sizeof e->host, "%s", host);
    return 0;
}

void nb_table_load(struct nb_table *t)
{
    DIR *d = opendir(t->dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char path[4352], line[512];
        if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
            continue;
        snprintf(path, sizeof path, "%s/%s", t->dir, de->d_name);
        FILE *f = fopen(path, "re");
        struct nb_entry e;
        if (f && fgets(line, sizeof line, f) && parse_line(line, &e) == 0) {
            struct nb_entry *n = malloc(sizeof *n);
            if (n) {
                *n = e;
                n->next = t->head;
                t->head = n;
            }
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
}
