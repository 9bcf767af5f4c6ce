/* layout_dump.c — prints the plugin ABI as a table, one fact per line:
 *
 *     cube_host.log 40 8 void (*)(cube_plugin *, int, const char *, ...)
 *     cube_host sizeof 304
 *     cube_status.CUBE_EINVAL -1
 *     CUBE_ABI_MAJOR 1
 *
 * It is compiled twice, against the frozen 1.0 headers (tests/abi/v1.0) and
 * against today's (abi/); check_layout.py compares the two outputs and the
 * committed v1.0/layout.txt. A field line carries the field's type as
 * written below; when the header's type is not compatible with it (a slot
 * got a new signature) the line says so, so signature changes fail too.
 *
 * Fields added in a later minor go at the end of their struct's list under
 * `#if CUBE_ABI_MINOR >= N`, so this file still compiles against 1.0. A
 * struct whose listed fields do not reach its sizeof makes this program
 * fail: a field was added to a header but not here. */
#include <stdio.h>
#include <stdlib.h>

#include <cube/cube.h>

#if !defined(__GNUC__)
#error "layout_dump.c needs __typeof__ and __builtin_types_compatible_p (GCC or Clang)"
#endif

static const char *cur_struct; /* the struct being listed */
static size_t cur_end;         /* end of the last field listed */
static int failed;

static void begin(const char *name)
{
    cur_struct = name;
    cur_end = 0;
}

static void field(const char *name, size_t off, size_t size, const char *type,
                  int type_ok)
{
    /* Fields are listed in declaration order: anything else is a bug here. */
    if (off < cur_end) {
        fprintf(stderr, "layout_dump: %s.%s listed out of order\n", cur_struct, name);
        failed = 1;
    }
    cur_end = off + size;
    printf("%s.%s %zu %zu %s%s\n", cur_struct, name, off, size,
           type_ok ? "" : "TYPE CHANGED, was ", type);
}

/* Tail padding is at most alignof - 1 bytes; more means unlisted fields. */
static void end(size_t size, size_t align)
{
    size_t rounded = (cur_end + align - 1) / align * align;
    if (rounded != size) {
        fprintf(stderr, "layout_dump: struct %s: the listed fields end at %zu but "
                "sizeof is %zu: list the new fields in layout_dump.c\n",
                cur_struct, cur_end, size);
        failed = 1;
    }
    printf("%s sizeof %zu\n", cur_struct, size);
}

#define BEGIN(S) begin(#S)
#define FIELD(S, F, ...)                                                    \
    field(#F, offsetof(struct S, F), sizeof(((struct S *)0)->F), #__VA_ARGS__, \
          __builtin_types_compatible_p(__typeof__(((struct S *)0)->F), __VA_ARGS__))
#define END(S) end(sizeof(struct S), _Alignof(struct S))
#define TYPEDEF(T, ...) \
    printf(#T " type %s%s\n", __builtin_types_compatible_p(T, __VA_ARGS__) \
           ? "" : "TYPE CHANGED, was ", #__VA_ARGS__)
#define CONST(E, C) printf(#E "." #C " %lld\n", (long long)(C))
#define MACRO_INT(M) printf(#M " %lld\n", (long long)(M))
#define MACRO_HEX(M) printf(#M " 0x%08llx\n", (unsigned long long)(M))
#define MACRO_STR(M) printf(#M " \"%s\"\n", M)

static void dump_plugin_desc(void)
{
    BEGIN(cube_plugin_desc);
    FIELD(cube_plugin_desc, magic, uint32_t);
    FIELD(cube_plugin_desc, abi_major, uint16_t);
    FIELD(cube_plugin_desc, abi_minor, uint16_t);
    FIELD(cube_plugin_desc, size, uint32_t);
    FIELD(cube_plugin_desc, flags, uint32_t);
    FIELD(cube_plugin_desc, name, const char *);
    FIELD(cube_plugin_desc, version, const char *);
    FIELD(cube_plugin_desc, vendor, const char *);
    FIELD(cube_plugin_desc, license, const char *);
    FIELD(cube_plugin_desc, description, const char *);
    FIELD(cube_plugin_desc, config_schema, const char *);
    FIELD(cube_plugin_desc, init, int (*)(const struct cube_host *, cube_plugin *, void **));
    FIELD(cube_plugin_desc, start, int (*)(void *));
    FIELD(cube_plugin_desc, stop, void (*)(void *));
    FIELD(cube_plugin_desc, fini, void (*)(void *));
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_plugin_desc, dependencies, const char *const *);
#endif
    END(cube_plugin_desc);
}

static void dump_host_core(void)
{
    FIELD(cube_host, size, size_t);
    FIELD(cube_host, abi_major, uint16_t);
    FIELD(cube_host, abi_minor, uint16_t);
    FIELD(cube_host, host_version, const char *(*)(void));
    FIELD(cube_host, free, void (*)(void *));
    FIELD(cube_host, log, void (*)(cube_plugin *, int, const char *, ...));
    FIELD(cube_host, logv, void (*)(cube_plugin *, int, const char *, va_list));
    FIELD(cube_host, log_enabled, int (*)(cube_plugin *, int));
    FIELD(cube_host, set_error, void (*)(cube_plugin *, const char *, ...));
    FIELD(cube_host, config_json, char *(*)(cube_plugin *));
    FIELD(cube_host, config_string, const char *(*)(cube_plugin *, const char *, const char *));
    FIELD(cube_host, config_int, int64_t (*)(cube_plugin *, const char *, int64_t));
    FIELD(cube_host, config_double, double (*)(cube_plugin *, const char *, double));
    FIELD(cube_host, config_bool, int (*)(cube_plugin *, const char *, int));
    FIELD(cube_host, data_dir, const char *(*)(cube_plugin *));
    FIELD(cube_host, register_route, int (*)(cube_plugin *, const struct cube_route_desc *));
}

static void dump_host_http(void)
{
    FIELD(cube_host, req_method, const char *(*)(cube_req *));
    FIELD(cube_host, req_path, const char *(*)(cube_req *));
    FIELD(cube_host, req_param, const char *(*)(cube_req *, const char *));
    FIELD(cube_host, req_query, const char *(*)(cube_req *, const char *));
    FIELD(cube_host, req_header, const char *(*)(cube_req *, const char *));
    FIELD(cube_host, req_body, const char *(*)(cube_req *, size_t *));
    FIELD(cube_host, req_client_addr, const char *(*)(cube_req *));
    FIELD(cube_host, req_id, const char *(*)(cube_req *));
    FIELD(cube_host, resp_header, int (*)(cube_req *, const char *, const char *));
    FIELD(cube_host, resp_json, int (*)(cube_req *, int, const char *));
    FIELD(cube_host, resp_text, int (*)(cube_req *, int, const char *, const char *));
    FIELD(cube_host, resp_bytes,
          int (*)(cube_req *, int, const char *, const void *, size_t));
    FIELD(cube_host, resp_error, int (*)(cube_req *, int, const char *, const char *));
    FIELD(cube_host, resp_stream, int (*)(cube_req *, int, const char *,
                                          const struct cube_stream_desc *, cube_stream **));
    FIELD(cube_host, stream_wake, void (*)(cube_stream *));
}

/* Callback types are spelled out, not named by their typedef: a changed
 * typedef would otherwise change both sides of the comparison. */
static void dump_host_tasks_metrics(void)
{
    FIELD(cube_host, timer_add, cube_timer *(*)(cube_plugin *, uint64_t, uint64_t,
                                                void (*)(void *, void *), void *));
    FIELD(cube_host, timer_cancel, void (*)(cube_plugin *, cube_timer *));
    FIELD(cube_host, submit, int (*)(cube_plugin *, void (*)(void *, void *), void *));
    FIELD(cube_host, metric_register,
          cube_metric *(*)(cube_plugin *, const struct cube_metric_desc *));
    FIELD(cube_host, metric_add, void (*)(cube_metric *, const char *const *, double));
    FIELD(cube_host, metric_set, void (*)(cube_metric *, const char *const *, double));
    FIELD(cube_host, metric_observe, void (*)(cube_metric *, const char *const *, double));
    /* Slots added in 1.1 and later go here, under #if CUBE_ABI_MINOR >= N. */
}

#if CUBE_ABI_MINOR >= 1
static void dump_host_1_1_objects(void)
{
    FIELD(cube_host, register_kind, int (*)(cube_plugin *, const struct cube_kind_desc *));
    FIELD(cube_host, register_action,
          int (*)(cube_plugin *, const struct cube_action_desc *));
    FIELD(cube_host, obj_get,
          char *(*)(cube_plugin *, const char *, const char *, const char *, int *));
    FIELD(cube_host, obj_list,
          char *(*)(cube_plugin *, const char *, const char *, const char *, int *));
    FIELD(cube_host, obj_create, char *(*)(cube_plugin *, const char *, int *));
    FIELD(cube_host, obj_update, char *(*)(cube_plugin *, const char *, int *));
    FIELD(cube_host, obj_update_status,
          char *(*)(cube_plugin *, const char *, const char *, const char *,
                    const char *, const char *, int *));
    FIELD(cube_host, obj_delete,
          int (*)(cube_plugin *, const char *, const char *, const char *));
    FIELD(cube_host, obj_event,
          int (*)(cube_plugin *, const char *, const char *, const char *,
                  const char *, const char *, const char *));
}

static void dump_host_1_1_storage(void)
{
    FIELD(cube_host, log_append,
          int (*)(cube_plugin *, const char *, const char *, const char *,
                  const char *, const void *, size_t));
    FIELD(cube_host, log_read,
          char *(*)(cube_plugin *, const char *, const char *, const char *,
                    const char *, uint64_t, size_t, size_t *, int *));
    FIELD(cube_host, resp_log,
          int (*)(cube_req *, const char *, const char *, const char *,
                  const char *, uint64_t, int));
    FIELD(cube_host, log_close,
          int (*)(cube_plugin *, const char *, const char *, const char *,
                  const char *));
    FIELD(cube_host, file_write,
          int (*)(cube_plugin *, const char *, const char *, const void *, size_t));
    FIELD(cube_host, file_read,
          char *(*)(cube_plugin *, const char *, const char *, size_t *, int *));
    FIELD(cube_host, file_delete, int (*)(cube_plugin *, const char *, const char *));
    FIELD(cube_host, file_list,
          char *(*)(cube_plugin *, const char *, const char *, int *));
}

#if CUBE_ABI_MINOR >= 2
static void dump_host_1_2_auth(void)
{
    FIELD(cube_host, register_auth_provider,
          int (*)(cube_plugin *, const struct cube_auth_desc *));
    FIELD(cube_host, auth_complete,
          int (*)(cube_req *, const char *, const char *, const char *));
    FIELD(cube_host, req_user, const char *(*)(cube_req *));
    FIELD(cube_host, req_project_role, const char *(*)(cube_req *, const char *));
    FIELD(cube_host, token_issue,
          char *(*)(cube_plugin *, const char *, unsigned, const char *, int *));
}

static void dump_auth_descriptors(void)
{
    BEGIN(cube_auth_desc);
    FIELD(cube_auth_desc, size, size_t);
    FIELD(cube_auth_desc, name, const char *);
    FIELD(cube_auth_desc, display_name, const char *);
    FIELD(cube_auth_desc, kind, int);
    FIELD(cube_auth_desc, password_login,
          int (*)(void *, const char *, const char *, char **, char *, size_t));
    FIELD(cube_auth_desc, login_path, const char *);
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_auth_desc, password_check,
          int (*)(void *, const char *, const char *, char **));
#endif
    END(cube_auth_desc);

    printf("cube_auth_kind enum_size %zu\n", sizeof(enum cube_auth_kind));
    CONST(cube_auth_kind, CUBE_AUTH_PASSWORD);
    CONST(cube_auth_kind, CUBE_AUTH_REDIRECT);
}
#endif

#if CUBE_ABI_MINOR >= 3
static void dump_host_1_3_sched(void)
{
    FIELD(cube_host, register_executor,
          int (*)(cube_plugin *, const struct cube_executor_desc *));
    FIELD(cube_host, register_accel, int (*)(cube_plugin *, const struct cube_accel_desc *));
    FIELD(cube_host, node_set, int (*)(cube_plugin *, const char *));
    FIELD(cube_host, node_remove, int (*)(cube_plugin *, const char *));
    FIELD(cube_host, replica_exited,
          int (*)(cube_plugin *, const char *, int, const char *, const char *));
    FIELD(cube_host, local_devices, char *(*)(cube_plugin *, int *));
}

static void dump_sched_descriptors(void)
{
    BEGIN(cube_executor_desc);
    FIELD(cube_executor_desc, size, size_t);
    FIELD(cube_executor_desc, name, const char *);
    FIELD(cube_executor_desc, start,
          int (*)(void *, const char *, char *, size_t, char *, size_t));
    FIELD(cube_executor_desc, stop, int (*)(void *, const char *, unsigned));
    FIELD(cube_executor_desc, adopt, int (*)(void *, const char *, const char *));
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_executor_desc, flags, unsigned);
#endif
    END(cube_executor_desc);

    BEGIN(cube_accel_desc);
    FIELD(cube_accel_desc, size, size_t);
    FIELD(cube_accel_desc, name, const char *);
    FIELD(cube_accel_desc, resource, const char *);
    FIELD(cube_accel_desc, discover, int (*)(void *, char **));
    FIELD(cube_accel_desc, pin_env, int (*)(void *, const char *, double, char **));
    FIELD(cube_accel_desc, usage, int (*)(void *, char **));
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_accel_desc, pin, int (*)(void *, const char *, double, char **));
    FIELD(cube_accel_desc, prepare, int (*)(void *, const char *, char **));
    FIELD(cube_accel_desc, release, int (*)(void *, const char *, const char *));
#endif
    END(cube_accel_desc);

    MACRO_STR(CUBE_EXIT_COMPLETED);
    MACRO_STR(CUBE_EXIT_OOM);
    MACRO_STR(CUBE_EXIT_TIMEOUT);
    MACRO_STR(CUBE_EXIT_STOPPED);
    MACRO_STR(CUBE_EXIT_LOST);
    MACRO_STR(CUBE_EXIT_FAILED);
#if CUBE_ABI_MINOR >= 5
    MACRO_HEX(CUBE_EXECUTOR_ENGINE_QUEUE);
    MACRO_HEX(CUBE_EXECUTOR_OWN_PORTS);
    MACRO_INT(CUBE_JOB_PORTS_MAX);
#endif
}
#endif

#if CUBE_ABI_MINOR >= 4
static void dump_host_1_4_ext(void)
{
    FIELD(cube_host, register_proxy, int (*)(cube_plugin *, const struct cube_proxy_desc *));
    FIELD(cube_host, register_ui, int (*)(cube_plugin *, const struct cube_ui_desc *));
}

#if CUBE_ABI_MINOR >= 5
static void dump_host_1_5(void)
{
    FIELD(cube_host, obj_create_for, char *(*)(cube_plugin *, cube_req *, const char *, int *));
    /* since 1.5: watches and paged lists */
    FIELD(cube_host, watch, cube_watch *(*)(cube_plugin *, const struct cube_watch_desc *, int *));
    FIELD(cube_host, watch_cancel, void (*)(cube_plugin *, cube_watch *));
    FIELD(cube_host, obj_list_page, char *(*)(cube_plugin *, const char *, const char *,
                                              const char *, unsigned, const char *, int *));
    /* plugin state, secrets, shared APIs and log resume */
    FIELD(cube_host, kv_put, int (*)(cube_plugin *, const char *, const void *, size_t));
    FIELD(cube_host, kv_get, char *(*)(cube_plugin *, const char *, size_t *, int *));
    FIELD(cube_host, kv_delete, int (*)(cube_plugin *, const char *));
    FIELD(cube_host, kv_list, char *(*)(cube_plugin *, const char *, int *));
    FIELD(cube_host, secret_put, int (*)(cube_plugin *, const char *, const void *, size_t));
    FIELD(cube_host, secret_get, char *(*)(cube_plugin *, const char *, size_t *, int *));
    FIELD(cube_host, secret_delete, int (*)(cube_plugin *, const char *));
    FIELD(cube_host, secret_list, char *(*)(cube_plugin *, const char *, int *));
    FIELD(cube_host, api_export, int (*)(cube_plugin *, const char *, uint32_t, const void *));
    FIELD(cube_host, api_get,
          const void *(*)(cube_plugin *, const char *, uint32_t, uint32_t *, int *));
    FIELD(cube_host, log_stat, int (*)(cube_plugin *, const char *, const char *, const char *,
                                       const char *, uint64_t *, int *));
    FIELD(cube_host, log_append_at,
          int (*)(cube_plugin *, const char *, const char *, const char *, const char *,
                  uint64_t, const void *, size_t));
    FIELD(cube_host, fetch, uint64_t (*)(cube_plugin *, const struct cube_fetch_desc *, int *));
    FIELD(cube_host, fetch_cancel, int (*)(cube_plugin *, uint64_t));
    /* executors that place work themselves */
    FIELD(cube_host, replica_status,
          int (*)(cube_plugin *, const char *, const char *, const char *, const char *));
    /* Job metrics */
    FIELD(cube_host, job_metrics,
          char *(*)(cube_plugin *, const char *, const char *, const char *, int64_t, int *));
    /* one allocator and one error channel */
    FIELD(cube_host, alloc, void *(*)(size_t));
    FIELD(cube_host, set_error_field,
          void (*)(cube_plugin *, const char *, const char *, ...));
    FIELD(cube_host, retry_after, void (*)(cube_plugin *, unsigned));
    /* replica endpoints */
    FIELD(cube_host, replica_endpoints, int (*)(cube_plugin *, const char *, const char *));
    /* proxy mirror, park and counters */
    FIELD(cube_host, proxy_wake, int (*)(cube_plugin *, const char *, const char *));
    FIELD(cube_host, proxy_stats,
          int (*)(cube_plugin *, const char *, const char *, struct cube_proxy_stats *));
    /* device pinning and health */
    FIELD(cube_host, device_health,
          int (*)(cube_plugin *, const char *, const char *, int, const char *));
    /* streamed bodies and files */
    FIELD(cube_host, req_body_stream, int (*)(cube_req *, const struct cube_body_desc *));
    FIELD(cube_host, file_open,
          cube_file *(*)(cube_plugin *, const char *, const char *, unsigned, int *));
    FIELD(cube_host, file_size, int (*)(cube_file *, uint64_t *));
    FIELD(cube_host, file_pread, int (*)(cube_file *, uint64_t, void *, size_t, size_t *));
    FIELD(cube_host, file_write_at, int (*)(cube_file *, uint64_t, const void *, size_t));
    FIELD(cube_host, file_commit, int (*)(cube_file *, const char *, char *));
    FIELD(cube_host, file_abort, int (*)(cube_file *));
    FIELD(cube_host, file_close, void (*)(cube_file *));
    FIELD(cube_host, resp_file, int (*)(cube_req *, cube_file *, const char *));
    /* why an object write was refused */
    FIELD(cube_host, obj_error, char *(*)(cube_plugin *));
    /* application credentials of proxied objects */
    FIELD(cube_host, proxy_credential_set,
          int (*)(cube_plugin *, const char *, const char *, const char *));
}

static void dump_watch_descriptors(void)
{
    BEGIN(cube_watch_desc);
    FIELD(cube_watch_desc, size, size_t);
    FIELD(cube_watch_desc, kind, const char *);
    FIELD(cube_watch_desc, project, const char *);
    FIELD(cube_watch_desc, label_selector, const char *);
    FIELD(cube_watch_desc, resource_version, const char *);
    FIELD(cube_watch_desc, involved_kind, const char *);
    FIELD(cube_watch_desc, reason, const char *);
    FIELD(cube_watch_desc, max_pending, unsigned);
    FIELD(cube_watch_desc, fn, cube_watch_fn);
    FIELD(cube_watch_desc, arg, void *);
    END(cube_watch_desc);
}

static void dump_fetch_descriptors(void)
{
    BEGIN(cube_fetch_desc);
    FIELD(cube_fetch_desc, size, size_t);
    FIELD(cube_fetch_desc, method, const char *);
    FIELD(cube_fetch_desc, url, const char *);
    FIELD(cube_fetch_desc, headers, const char *const *);
    FIELD(cube_fetch_desc, body, const void *);
    FIELD(cube_fetch_desc, body_len, size_t);
    FIELD(cube_fetch_desc, timeout_ms, uint32_t);
    FIELD(cube_fetch_desc, max_bytes, uint64_t);
    FIELD(cube_fetch_desc, max_redirects, int);
    FIELD(cube_fetch_desc, chunk, int (*)(void *, void *, const void *, size_t));
    FIELD(cube_fetch_desc, done, void (*)(void *, void *, const struct cube_fetch_result *));
    FIELD(cube_fetch_desc, arg, void *);
    FIELD(cube_fetch_desc, ca_file, const char *);
    END(cube_fetch_desc);
    BEGIN(cube_fetch_result);
    FIELD(cube_fetch_result, size, size_t);
    FIELD(cube_fetch_result, error, int);
    FIELD(cube_fetch_result, message, const char *);
    FIELD(cube_fetch_result, status, int);
    FIELD(cube_fetch_result, headers, const char *);
    FIELD(cube_fetch_result, body, const char *);
    FIELD(cube_fetch_result, body_len, size_t);
    FIELD(cube_fetch_result, url, const char *);
    END(cube_fetch_result);
    CONST(cube_status, CUBE_EAGAIN);
    CONST(cube_status, CUBE_DECLINED);
    CONST(cube_status, CUBE_ETIMEDOUT);
    MACRO_INT(CUBE_FETCH_NO_REDIRECTS);
}

static void dump_body_descriptors(void)
{
    BEGIN(cube_body_desc);
    FIELD(cube_body_desc, size, size_t);
    FIELD(cube_body_desc, data, int (*)(void *, cube_req *, const char *, size_t));
    FIELD(cube_body_desc, end, int (*)(void *, cube_req *));
    FIELD(cube_body_desc, close, void (*)(void *, int));
    FIELD(cube_body_desc, cls, void *);
    END(cube_body_desc);
    CONST(cube_status, CUBE_EDIGEST);
    MACRO_HEX(CUBE_FILE_READ);
    MACRO_HEX(CUBE_FILE_WRITE);
    MACRO_HEX(CUBE_FILE_TRUNCATE);
    MACRO_INT(CUBE_SHA256_HEX_SIZE);
}
#endif

static void dump_ext_descriptors(void)
{
    BEGIN(cube_proxy_upstream);
    FIELD(cube_proxy_upstream, size, size_t);
    FIELD(cube_proxy_upstream, host, char[64]);
    FIELD(cube_proxy_upstream, port, unsigned);
    FIELD(cube_proxy_upstream, header_name, char[64]);
    FIELD(cube_proxy_upstream, header_value, char[512]);
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_proxy_upstream, park_timeout_ms, uint64_t);
    FIELD(cube_proxy_upstream, key, char[128]);
    FIELD(cube_proxy_upstream, mirror_host, char[64]);
    FIELD(cube_proxy_upstream, mirror_port, unsigned);
    FIELD(cube_proxy_upstream, mirror_percent, unsigned);
    FIELD(cube_proxy_upstream, tag, uint64_t);
#endif
    END(cube_proxy_upstream);

    BEGIN(cube_proxy_desc);
    FIELD(cube_proxy_desc, size, size_t);
    FIELD(cube_proxy_desc, prefix, const char *);
    FIELD(cube_proxy_desc, permission, const char *);
    FIELD(cube_proxy_desc, kind, const char *);
    FIELD(cube_proxy_desc, login_redirect, int);
    FIELD(cube_proxy_desc, strip_prefix, int);
    FIELD(cube_proxy_desc, allow_remote, int);
    FIELD(cube_proxy_desc, resolve, int (*)(void *, cube_req *, struct cube_proxy_upstream *));
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_proxy_desc, done, void (*)(void *, const struct cube_proxy_done *));
    FIELD(cube_proxy_desc, park_max, unsigned);
    FIELD(cube_proxy_desc, mirror_body_max, size_t);
#endif
    END(cube_proxy_desc);
#if CUBE_ABI_MINOR >= 5

    BEGIN(cube_proxy_done);
    FIELD(cube_proxy_done, size, size_t);
    FIELD(cube_proxy_done, prefix, const char *);
    FIELD(cube_proxy_done, key, const char *);
    FIELD(cube_proxy_done, status, int);
    FIELD(cube_proxy_done, upstream, int);
    FIELD(cube_proxy_done, error, int);
    FIELD(cube_proxy_done, mirrored, int);
    FIELD(cube_proxy_done, parked, int);
    FIELD(cube_proxy_done, duration_us, uint64_t);
    FIELD(cube_proxy_done, parked_us, uint64_t);
    FIELD(cube_proxy_done, bytes_in, uint64_t);
    FIELD(cube_proxy_done, bytes_out, uint64_t);
    FIELD(cube_proxy_done, tag, uint64_t);
    FIELD(cube_proxy_done, credential, int);
    END(cube_proxy_done);

    BEGIN(cube_proxy_stats);
    FIELD(cube_proxy_stats, size, size_t);
    FIELD(cube_proxy_stats, requests, uint64_t);
    FIELD(cube_proxy_stats, inflight, uint64_t);
    FIELD(cube_proxy_stats, parked, uint64_t);
    FIELD(cube_proxy_stats, errors, uint64_t);
    FIELD(cube_proxy_stats, mirrored, uint64_t);
    FIELD(cube_proxy_stats, mirror_errors, uint64_t);
    FIELD(cube_proxy_stats, last_ms, int64_t);
    END(cube_proxy_stats);
#endif

    BEGIN(cube_ui_desc);
    FIELD(cube_ui_desc, size, size_t);
    FIELD(cube_ui_desc, id, const char *);
    FIELD(cube_ui_desc, group, const char *);
    FIELD(cube_ui_desc, label, const char *);
    FIELD(cube_ui_desc, label_zh, const char *);
    FIELD(cube_ui_desc, permission, const char *);
    FIELD(cube_ui_desc, module, const char *);
    FIELD(cube_ui_desc, asset_dir, const char *);
    FIELD(cube_ui_desc, link, const char *);
    FIELD(cube_ui_desc, order, int);
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_ui_desc, route, const char *);
    FIELD(cube_ui_desc, kind, const char *);
#endif
    END(cube_ui_desc);
}
#endif

static void dump_kind_descriptors(void)
{
    BEGIN(cube_kind_desc);
    FIELD(cube_kind_desc, size, size_t);
    FIELD(cube_kind_desc, kind, const char *);
    FIELD(cube_kind_desc, plural, const char *);
    FIELD(cube_kind_desc, singular, const char *);
    FIELD(cube_kind_desc, scope, int);
    FIELD(cube_kind_desc, group, const char *);
    FIELD(cube_kind_desc, description, const char *);
    FIELD(cube_kind_desc, spec_schema, const char *);
    FIELD(cube_kind_desc, status_schema, const char *);
    FIELD(cube_kind_desc, printer_columns, const char *);
    FIELD(cube_kind_desc, defaulting, int (*)(void *, const char *, char **));
    FIELD(cube_kind_desc, validate,
          int (*)(void *, const char *, const char *, char *, size_t, char *, size_t));
    FIELD(cube_kind_desc, reconcile,
          int (*)(void *, const char *, const char *, const char *, const char *));
    FIELD(cube_kind_desc, finalize, int (*)(void *, const char *));
    FIELD(cube_kind_desc, resync_seconds, unsigned);
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_kind_desc, check, int (*)(void *, const char *, const char *));
    FIELD(cube_kind_desc, display_name, const char *);
    FIELD(cube_kind_desc, display_plural, const char *);
    FIELD(cube_kind_desc, display_name_zh, const char *);
    FIELD(cube_kind_desc, display_plural_zh, const char *);
    FIELD(cube_kind_desc, group_zh, const char *);
#endif
    END(cube_kind_desc);

    BEGIN(cube_action_desc);
    FIELD(cube_action_desc, size, size_t);
    FIELD(cube_action_desc, kind, const char *);
    FIELD(cube_action_desc, method, const char *);
    FIELD(cube_action_desc, action, const char *);
    FIELD(cube_action_desc, permission, const char *);
    FIELD(cube_action_desc, handler, int (*)(void *, cube_req *));
    FIELD(cube_action_desc, summary, const char *);
    END(cube_action_desc);

    CONST(cube_kind_scope, CUBE_SCOPE_PROJECT);
    CONST(cube_kind_scope, CUBE_SCOPE_CLUSTER);
    CONST(cube_status, CUBE_ECONFLICT);
}
#endif

static void dump_descriptors(void)
{
    BEGIN(cube_route_desc);
    FIELD(cube_route_desc, size, size_t);
    FIELD(cube_route_desc, method, const char *);
    FIELD(cube_route_desc, path, const char *);
    FIELD(cube_route_desc, permission, const char *);
    FIELD(cube_route_desc, handler, int (*)(void *, cube_req *));
    FIELD(cube_route_desc, summary, const char *);
#if CUBE_ABI_MINOR >= 5
    FIELD(cube_route_desc, stream_body, int);
    FIELD(cube_route_desc, max_body_bytes, uint64_t);
    FIELD(cube_route_desc, owner_kind, const char *);
#endif
    END(cube_route_desc);

    BEGIN(cube_stream_desc);
    FIELD(cube_stream_desc, size, size_t);
    FIELD(cube_stream_desc, read, long (*)(void *, char *, size_t));
    FIELD(cube_stream_desc, close, void (*)(void *));
    FIELD(cube_stream_desc, cls, void *);
    FIELD(cube_stream_desc, idle_ms, unsigned);
    END(cube_stream_desc);

    BEGIN(cube_metric_desc);
    FIELD(cube_metric_desc, size, size_t);
    FIELD(cube_metric_desc, type, enum cube_metric_type);
    FIELD(cube_metric_desc, name, const char *);
    FIELD(cube_metric_desc, help, const char *);
    FIELD(cube_metric_desc, label_names, const char *const *);
    FIELD(cube_metric_desc, label_count, unsigned);
    FIELD(cube_metric_desc, buckets, const double *);
    FIELD(cube_metric_desc, bucket_count, unsigned);
    END(cube_metric_desc);
}

static void dump_enums(void)
{
    printf("cube_status enum_size %zu\n", sizeof(enum cube_status));
    CONST(cube_status, CUBE_OK);
    CONST(cube_status, CUBE_EINVAL);
    CONST(cube_status, CUBE_ENOMEM);
    CONST(cube_status, CUBE_ENOTFOUND);
    CONST(cube_status, CUBE_EEXIST);
    CONST(cube_status, CUBE_EPERM);
    CONST(cube_status, CUBE_EIO);
    CONST(cube_status, CUBE_ESTATE);
    CONST(cube_status, CUBE_EVERSION);
    CONST(cube_status, CUBE_EINTERNAL);
    CONST(cube_status, CUBE_ETOOBIG);
    CONST(cube_status, CUBE_EUNAVAIL);
    printf("cube_log_level enum_size %zu\n", sizeof(enum cube_log_level));
    CONST(cube_log_level, CUBE_LOG_DEBUG);
    CONST(cube_log_level, CUBE_LOG_INFO);
    CONST(cube_log_level, CUBE_LOG_WARN);
    CONST(cube_log_level, CUBE_LOG_ERROR);
    printf("cube_metric_type enum_size %zu\n", sizeof(enum cube_metric_type));
    CONST(cube_metric_type, CUBE_METRIC_COUNTER);
    CONST(cube_metric_type, CUBE_METRIC_GAUGE);
    CONST(cube_metric_type, CUBE_METRIC_HISTOGRAM);
}

static void dump_macros_and_typedefs(void)
{
    MACRO_HEX(CUBE_PLUGIN_MAGIC);
    MACRO_INT(CUBE_ABI_MAJOR);
    MACRO_INT(CUBE_ABI_MINOR);
    MACRO_INT(CUBE_STREAM_END);
    MACRO_INT(CUBE_STREAM_ERROR);
    MACRO_INT(CUBE_METRIC_MAX_LABELS);
    MACRO_STR(CUBE_PERM_PUBLIC);
    MACRO_STR(CUBE_PERM_ADMIN);
#if CUBE_ABI_MINOR >= 2
    MACRO_STR(CUBE_PERM_USER);
    MACRO_STR(CUBE_PERM_PROJECT_VIEW);
    MACRO_STR(CUBE_PERM_PROJECT_EDIT);
    MACRO_STR(CUBE_PERM_PROJECT_OPERATE);
    MACRO_STR(CUBE_PERM_PROJECT_MANAGE);
#endif
#if CUBE_ABI_MINOR >= 5
    MACRO_INT(CUBE_DEPENDENCIES_MAX);
    MACRO_INT(CUBE_KV_KEY_MAX);
    MACRO_INT(CUBE_KV_VALUE_MAX);
    MACRO_INT(CUBE_SECRET_VALUE_MAX);
    MACRO_INT(CUBE_API_NAME_MAX);
#endif
    MACRO_STR(CUBE_PLUGIN_ENTRY_GENERIC);
    TYPEDEF(cube_plugin_entry_fn, const struct cube_plugin_desc *(*)(void));
    TYPEDEF(cube_route_fn, int (*)(void *, cube_req *));
    TYPEDEF(cube_task_fn, void (*)(void *, void *));
}

int main(void)
{
    /* The table is only comparable between builds with the same data model. */
    printf("abi data_model %s\n", sizeof(long) == 8 && sizeof(void *) == 8 ? "LP64"
           : sizeof(long) == 4 && sizeof(void *) == 4 ? "ILP32" : "other");
    dump_plugin_desc();
    BEGIN(cube_host);
    dump_host_core();
    dump_host_http();
    dump_host_tasks_metrics();
#if CUBE_ABI_MINOR >= 1
    dump_host_1_1_objects();
    dump_host_1_1_storage();
#endif
#if CUBE_ABI_MINOR >= 2
    dump_host_1_2_auth();
#endif
#if CUBE_ABI_MINOR >= 3
    dump_host_1_3_sched();
#endif
#if CUBE_ABI_MINOR >= 4
    dump_host_1_4_ext();
#endif
#if CUBE_ABI_MINOR >= 5
    dump_host_1_5();
#endif
    END(cube_host);
    dump_descriptors();
#if CUBE_ABI_MINOR >= 1
    dump_kind_descriptors();
#endif
#if CUBE_ABI_MINOR >= 2
    dump_auth_descriptors();
#endif
#if CUBE_ABI_MINOR >= 3
    dump_sched_descriptors();
#endif
#if CUBE_ABI_MINOR >= 4
    dump_ext_descriptors();
#endif
#if CUBE_ABI_MINOR >= 5
    dump_watch_descriptors();
    dump_fetch_descriptors();
    dump_body_descriptors();
#endif
    dump_enums();
    dump_macros_and_typedefs();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
