/* host_table.c — the host function table handed to plugins (struct
 * cube_host, abi/cube/cube_host.h): every slot, in the ABI's order, with
 * the ABI minor that added it. The slots are implemented by the subsystem
 * that owns what they reach: plugins/ (host.c, host_objects.c,
 * host_owner.c, ui_ext.c), auth/host_auth.c, sched/sched_registry.c,
 * proxy/proxy.c, files/files_handle.c (open files); http/ (http_body.c:
 * streamed bodies) and metrics/ functions serve some slots directly.
 * A new ABI slot is added here, at the end, and nowhere else. */
#include <string.h>

#include "auth/auth.h"
#include "files/files.h"
#include "host_slots.h"
#include "http/http_req.h"
#include "metrics/metrics.h"
#include "net/net.h"
#include "proxy/proxy.h"
#include "sched/jobs.h"

void cube_host_table_init(struct cube_host *h)
{
    memset(h, 0, sizeof *h);
    h->size = sizeof *h;
    h->abi_major = CUBE_ABI_MAJOR;
    h->abi_minor = CUBE_ABI_MINOR;
    /* ABI 1.0 */
    h->host_version = cube_slot_host_version;
    h->free = cube_slot_free;
    h->log = cube_slot_log;
    h->logv = cube_slot_logv;
    h->log_enabled = cube_slot_log_enabled;
    h->set_error = cube_slot_set_error;
    h->config_json = cube_slot_config_json;
    h->config_string = cube_slot_config_string;
    h->config_int = cube_slot_config_int;
    h->config_double = cube_slot_config_double;
    h->config_bool = cube_slot_config_bool;
    h->data_dir = cube_slot_data_dir;
    h->register_route = cube_slot_register_route;
    h->req_method = cube_slot_req_method;
    h->req_path = cube_slot_req_path;
    h->req_param = cube_slot_req_param;
    h->req_query = cube_slot_req_query;
    h->req_header = cube_slot_req_header;
    h->req_body = cube_slot_req_body;
    h->req_client_addr = cube_slot_req_client_addr;
    h->req_id = cube_slot_req_id;
    h->resp_header = cube_http_add_header;
    h->resp_json = cube_slot_resp_json;
    h->resp_text = cube_slot_resp_text;
    h->resp_bytes = cube_slot_resp_bytes;
    h->resp_error = cube_slot_resp_error;
    h->resp_stream = cube_http_answer_stream;
    h->stream_wake = cube_http_stream_wake;
    h->timer_add = cube_slot_timer_add;
    h->timer_cancel = cube_slot_timer_cancel;
    h->submit = cube_slot_submit;
    h->metric_register = cube_slot_metric_register;
    h->metric_add = cube_metric_add;
    h->metric_set = cube_metric_set;
    h->metric_observe = cube_metric_observe;
    /* ABI 1.1 */
    h->register_kind = cube_slot_register_kind;
    h->register_action = cube_slot_register_action;
    h->obj_get = cube_slot_obj_get;
    h->obj_list = cube_slot_obj_list;
    h->obj_create = cube_slot_obj_create;
    h->obj_update = cube_slot_obj_update;
    h->obj_update_status = cube_slot_obj_update_status;
    h->obj_delete = cube_slot_obj_delete;
    h->obj_event = cube_slot_obj_event;
    h->log_append = cube_slot_log_append;
    h->log_read = cube_slot_log_read;
    h->resp_log = cube_slot_resp_log;
    h->log_close = cube_slot_log_close;
    h->file_write = cube_slot_file_write;
    h->file_read = cube_slot_file_read;
    h->file_delete = cube_slot_file_delete;
    h->file_list = cube_slot_file_list;
    /* ABI 1.2 */
    h->register_auth_provider = cube_slot_register_auth_provider;
    h->auth_complete = cube_slot_auth_complete;
    h->req_user = cube_slot_req_user;
    h->req_project_role = cube_slot_req_project_role;
    h->token_issue = cube_slot_token_issue;
    /* ABI 1.3 */
    h->register_executor = cube_slot_register_executor;
    h->register_accel = cube_slot_register_accel;
    h->node_set = cube_slot_node_set;
    h->node_remove = cube_slot_node_remove;
    h->replica_exited = cube_slot_replica_exited;
    h->local_devices = cube_slot_local_devices;
    /* ABI 1.4 */
    h->register_proxy = cube_slot_register_proxy;
    h->register_ui = cube_slot_register_ui;
    /* ABI 1.5 */
    h->obj_create_for = cube_slot_obj_create_for;
    /* ABI 1.5: watches and paged lists */
    h->watch = cube_slot_watch;
    h->watch_cancel = cube_slot_watch_cancel;
    h->obj_list_page = cube_slot_obj_list_page;
    /* ABI 1.5: plugin state, secrets, shared APIs and log resume */
    h->kv_put = cube_slot_kv_put;
    h->kv_get = cube_slot_kv_get;
    h->kv_delete = cube_slot_kv_delete;
    h->kv_list = cube_slot_kv_list;
    h->secret_put = cube_slot_secret_put;
    h->secret_get = cube_slot_secret_get;
    h->secret_delete = cube_slot_secret_delete;
    h->secret_list = cube_slot_secret_list;
    h->api_export = cube_slot_api_export;
    h->api_get = cube_slot_api_get;
    h->log_stat = cube_slot_log_stat;
    h->log_append_at = cube_slot_log_append_at;
    /* ABI 1.5: outbound HTTP */
    h->fetch = cube_slot_fetch;
    h->fetch_cancel = cube_slot_fetch_cancel;
    /* ABI 1.5: executors that place work themselves */
    h->replica_status = cube_slot_replica_status;
    /* ABI 1.5: Job metrics */
    h->job_metrics = cube_slot_job_metrics;
    /* ABI 1.5: one allocator and one error channel */
    h->alloc = cube_slot_alloc;
    h->set_error_field = cube_slot_set_error_field;
    h->retry_after = cube_slot_retry_after;
    /* ABI 1.5: replica endpoints */
    h->replica_endpoints = cube_slot_replica_endpoints;
    /* ABI 1.5: proxy mirror, park and counters */
    h->proxy_wake = cube_slot_proxy_wake;
    h->proxy_stats = cube_slot_proxy_stats;
    /* ABI 1.5: device pinning and health */
    h->device_health = cube_slot_device_health;
    /* ABI 1.5: streamed bodies and files */
    h->req_body_stream = cube_slot_req_body_stream;
    h->file_open = cube_slot_file_open;
    h->file_size = cube_slot_file_size;
    h->file_pread = cube_slot_file_pread;
    h->file_write_at = cube_slot_file_write_at;
    h->file_commit = cube_slot_file_commit;
    h->file_abort = cube_slot_file_abort;
    h->file_close = cube_slot_file_close;
    h->resp_file = cube_slot_resp_file;
    /* ABI 1.5: why an object write was refused */
    h->obj_error = cube_slot_obj_error;
    /* ABI 1.5: application credentials of proxied objects */
    h->proxy_credential_set = cube_slot_proxy_credential_set;
}
