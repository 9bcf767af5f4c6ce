/*
 * cube_sched.h — job executors and accelerator vendors (since ABI 1.3).
 *
 * Part of the Cube plugin ABI (append-only; see cube_plugin.h). The core
 * owns Jobs, queues, quotas and placement (the scheduler); plugins bring
 * the machines and the devices:
 *
 *  - An EXECUTOR serves one pool of nodes (this machine, a simulated
 *    cluster, Slurm, Kubernetes). It advertises its nodes with
 *    cube_host.node_set, starts the replicas the scheduler places on them,
 *    stops them on request, and reports each replica's end with
 *    cube_host.replica_exited. After a restart of cubed it re-adopts the
 *    replicas that were running. Since 1.5 it reports where each replica
 *    can be reached on its Job's named ports (cube_host.replica_endpoints,
 *    "Ports and endpoints" below).
 *  - An ACCELERATOR vendor discovers devices of one extended resource
 *    ("nvidia.com/gpu") on this machine and says which environment pins a
 *    replica to the devices it got (CUDA_VISIBLE_DEVICES ...).
 *
 * Documents crossing here are JSON text.
 *
 * Node (node_set):
 *   {"name": "gpu-01", "pool": "default", "address": "10.0.0.5",
 *    "labels": {"zone": "a"},
 *    "capacity": {"cpu": "16", "memory": "64Gi"},
 *    "jobPorts": {"min": 29500, "max": 30999},
 *    "devices": [{"id": "0", "resource": "nvidia.com/gpu", "model": "H200",
 *                 "memory": "141Gi", "numa": 0, "domain": "nvl-0",
 *                 "healthy": true}]}
 *   What the host reads (other members are ignored):
 *   - "name": required, a DNS label; a name another executor serves is
 *     CUBE_EEXIST.
 *   - "pool": the pool the node serves; absent or "": "default".
 *   - "address": how replicas on other nodes reach this one: the host
 *     writes it into MASTER_ADDR (replica 0's node), TF_CONFIG's worker
 *     list and MPI hostfile lines of distributed Jobs placed here. Absent:
 *     "127.0.0.1", right only while every replica runs on one machine.
 *   - "labels": string values (others are ignored), matched by Jobs' node
 *     selectors.
 *   - "capacity": required; "cpu" and "memory" quantities.
 *   - "jobPorts": the range the host takes distributed Jobs' ports from on
 *     this node (integers, 1024 <= min <= max <= 65535); absent:
 *     29500..30999. Two live Jobs never get the same port.
 *   - "devices": at most 64, each with an "id" and a "resource" containing
 *     a '/'; "model", "memory" (a quantity), "numa" (absent: unknown),
 *     "domain" (groups devices with a fast interconnect, an NVLink island)
 *     and "healthy" (absent: true; unhealthy devices get no replicas).
 *     Left out, the node gets the devices of this machine's accelerator
 *     plugins (cube_host.local_devices).
 *
 * Replica (start, adopt):
 *   {"job": {...the Job object...}, "replica": 0, "replicas": 2,
 *    "node": "gpu-01", "devices": ["0", "1"], "user": "alice",
 *    "project": "vision", "command": ["python3", "train.py"],
 *    "workdir": "/home/alice", "image": "", "timeoutSeconds": 3600,
 *    "limits": {"cpuMillis": 2000, "memoryBytes": 4294967296},
 *    "env": {"CUBE_TOKEN": "...", "CUBE_API": "...", "CUBE_PROJECT": "...",
 *            "CUDA_VISIBLE_DEVICES": "0,1", "RANK": "0", ...},
 *    "log": {"kind": "Job", "project": "vision", "name": "train",
 *            "stream": "replica-0"},
 *    "address": "10.0.0.5", "ports": {"http": 29517}}
 *   Since 1.5: "address" is the node's (as node_set gave it; "127.0.0.1"
 *   when it gave none) and "ports" the port the host allocated for each
 *   name of the Job's spec.ports (absent when it has none, or when the
 *   executor has CUBE_EXECUTOR_OWN_PORTS); the env carries them as
 *   CUBE_PORT_<NAME>.
 *   The executor writes the replica's output to that log stream
 *   (cube_host.log_append) and must never run it as root. "user" is the
 *   Job's metadata.owner (below); the executor runs the replica as that
 *   user's account and no other.
 *
 * Whom a Job runs as. Always its metadata.owner, a field only the host
 * writes; no label, annotation or spec field decides it:
 *   - a Job created over the API: the authenticated caller;
 *   - a Job a plugin creates with cube_host.obj_create_for (since 1.5): the
 *     signed-in caller of the request the plugin is handling, who must be
 *     allowed to create it (CUBE_EPERM otherwise);
 *   - a Job a plugin creates with cube_host.obj_create: the owner of the
 *     object its first ownerReference marked "controller": true names
 *     (same project; when the reference has a "uid", only the object with
 *     that uid), so a PipelineRun's task Jobs run as the run's owner. With
 *     no such object the owner is the plugin ("plugin:<name>"), and a Job
 *     whose owner is no user never starts: its replicas fail with reason
 *     StartError, the message saying "no user to run as".
 *   Users may not write ownerReferences marked controller nor label or
 *   annotation keys under "cube.dev/" (422): only plugins make them.
 *
 * Job status, as plugins read it (kind "Job", obj_get/obj_list; the core
 * writes it, a plugin writes only the stop request):
 *   {"phase": "Running", "reason": "Running", "message": "...",
 *    "attempts": 1, "queued": "...", "admitted": "...", "started": "...",
 *    "finished": "...", "waiting": "...", "queuePosition": 3,
 *    "retryAt": 1767225600, "preemptedBy": "...",
 *    "ports": {"master": 29501},
 *    "replicas": [{"index": 0, "node": "gpu-01", "phase": "Failed",
 *                  "devices": [{"id": "0", "resource": "nvidia.com/gpu",
 *                               "share": 1}],
 *                  "engineId": "...", "port": 29502, "exitCode": 1,
 *                  "reason": "Completed", "message": "...",
 *                  "finished": "..."}],
 *    "stopRequested": true, "stopGraceSeconds": 10}
 *   - "phase": Pending (waiting; "waiting" and "queuePosition" say why and
 *     where), Admitted (placed, replicas starting), Running, then one of
 *     Succeeded (every replica exited 0), Failed, Cancelled (stopped).
 *     Absent just after creation. Pending again after a preemption
 *     (reason Preempted), a lost node (NodeLost) or a failed attempt with
 *     retries left (BackOff until "retryAt", Unix seconds).
 *   - "reason"/"message": a CamelCase word and a sentence: Queued,
 *     Admitted, Running, StartError, Completed, Stopped, Preempting, Error
 *     or a replica's CUBE_EXIT_* reason on failure, Unschedulable,
 *     PoolNotAllowed, InvalidSpec ...
 *   - "attempts": admissions so far; "queued", "admitted", "started",
 *     "finished": RFC 3339 UTC times, set once each attempt reaches them.
 *   - "ports": {"master"} for pytorch and deepspeed Jobs; tensorflow Jobs
 *     have "port" per replica instead. Fresh at each admission.
 *   - "replicas": one per replica of the current attempt, by "index":
 *     "node", "devices" it got ("share": the fraction of one device),
 *     "phase" (Admitted, Pending, Running, Succeeded, Failed), "engineId"
 *     (the executor's id once started), and once ended "exitCode" (-1 when
 *     killed by a signal or unknown), "reason" (CUBE_EXIT_*), "message"
 *     and "finished". Since 1.5, a replica of an executor with
 *     CUBE_EXECUTOR_ENGINE_QUEUE is "Pending" from its start until the
 *     executor reports it Running (cube_host.replica_status), with the
 *     engine's "message" (why it waits) and the "node" the engine chose;
 *     meanwhile the Job is Admitted with reason EngineQueued, and Running
 *     (reason Running, "started" set) once every replica runs.
 *   - "stopRequested" (and optionally "stopGraceSeconds", 0..3600): the
 *     one thing a plugin that owns a Job writes, with obj_update_status,
 *     keeping the rest; the Job then ends Cancelled (reason Stopped), a
 *     Pending one is never admitted.
 *   - since 1.5, per replica: "ports" ({"http": 29517}, the ports the host
 *     allocated for spec.ports) and "endpoints" ({"http": "10.0.0.5:29517"},
 *     what its executor reported), below.
 *
 * Ports and endpoints (since 1.5). A Job names the ports its replicas
 * serve on: spec.ports [{"name": "http", "protocol": "http"}] (name: a DNS
 * label, unique within the Job; protocol "tcp" (the default) or "http",
 * for the plugins that reach it; at most CUBE_JOB_PORTS_MAX; a bad entry
 * is 422 naming the field, "spec.ports[1].name"). At each admission the
 * host allocates, per replica and name, a port from the replica's node's
 * range (jobPorts, as for MASTER_PORT; never one another live Job holds)
 * and passes it in the replica document's "ports" and in the env as
 * CUBE_PORT_<NAME> (upper case, '-' as '_': CUBE_PORT_HTTP), a reserved
 * prefix no spec.env may use; status.replicas[i].ports records it. An
 * executor with CUBE_EXECUTOR_OWN_PORTS gets none: its replicas have a
 * network of their own (Pods), and it sets CUBE_PORT_<NAME> itself. The
 * server listens there; the executor then reports where it is reachable
 * with cube_host.replica_endpoints, recorded in status.replicas[i].endpoints
 * ({"http": "host:port"}): the node's address and the allocated port for
 * executors on their nodes' network, a Pod's address for a cluster engine.
 * Plugins read the endpoints from the Job (obj_get; a watch sees them
 * arrive) and reach the replica there: a proxy's resolve names it as its
 * upstream (a numeric address; an endpoint on another machine needs
 * cube_proxy_desc.allow_remote, see cube_proxy.h: cubed then connects over
 * the cluster network to a server its owner controls, which must listen on
 * a non-loopback address and so be guarded by a credential of its own,
 * as a notebook's secret; the plugin turns allow_remote on only where the
 * administrator said so). A distributed pytorch
 * or deepspeed Job's MASTER_ADDR is the host of replica 0's first reported
 * endpoint (in spec.ports order) for every replica started after replica 0
 * reported it (replicas start in order, and a report from inside replica
 * 0's start counts); otherwise, and always for replica 0 itself (which is
 * started before anything is reported), it is replica 0's node address
 * as before. TF_CONFIG and MPI hostfiles keep the node addresses.
 */
#ifndef CUBE_SCHED_H
#define CUBE_SCHED_H

#include "cube_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Why a replica ended (cube_host.replica_exited), since 1.3. */
#define CUBE_EXIT_COMPLETED "Completed"  /**< exited; see the exit code */
#define CUBE_EXIT_OOM       "OOMKilled"  /**< killed for its memory limit */
#define CUBE_EXIT_TIMEOUT   "Timeout"    /**< ran past timeoutSeconds */
#define CUBE_EXIT_STOPPED   "Stopped"    /**< stopped on request */
#define CUBE_EXIT_LOST      "Lost"       /**< vanished (node gone) */
#define CUBE_EXIT_FAILED    "StartError" /**< could not be started */

/** An executor; passed to cube_host.register_executor (since 1.3). */
struct cube_executor_desc {
    /* since 1.3 */
    size_t size;            /**< sizeof(struct cube_executor_desc) */
    const char *name;       /**< unique DNS label: "local", "sim", "slurm" */
    /**
     * Required. Starts one replica (see the Replica document above). Must
     * not block for long: start the work and return. On success write an
     * engine id (opaque to the host; unique; e.g. "pid:1234:98765") into
     * engine_id and return CUBE_OK; the replica is then Running until
     * replica_exited names that id. On failure return an error with a
     * message: the replica fails with reason StartError.
     */
    int (*start)(void *state, const char *replica_json, char *engine_id,
                 size_t engine_id_len, char *msg, size_t msg_len);
    /** Required. Stops a running replica: a polite signal now, a forced
     *  one after grace_seconds. Its end is reported through
     *  replica_exited (reason Stopped). CUBE_ENOTFOUND when unknown. */
    int (*stop)(void *state, const char *engine_id, unsigned grace_seconds);
    /**
     * Optional. After cubed restarted, once per replica the store says was
     * running on this executor: CUBE_OK when it still runs (its end will be
     * reported as usual), CUBE_ENOTFOUND when it is gone and its end is
     * unknown (the host records it as Lost). An executor that learns the
     * exit status of a replica that ended meanwhile reports it with
     * replica_exited and returns CUBE_OK. NULL: every replica is Lost.
     */
    int (*adopt)(void *state, const char *engine_id, const char *replica_json);

    /* since 1.5 */
    /** CUBE_EXECUTOR_* bits (0: none). A descriptor of an older size has
     *  none. */
    unsigned flags;
};

/** cube_executor_desc.flags (since 1.5): the engine places and queues
 *  replicas itself (Slurm, Kubernetes). A replica whose start returned
 *  CUBE_OK is then Pending ("waiting in the engine's queue") rather than
 *  Running, until the executor reports it with cube_host.replica_status;
 *  its Job stays Admitted until every replica runs. Without this bit a
 *  replica is Running the moment start returns, as in 1.3. */
#define CUBE_EXECUTOR_ENGINE_QUEUE 0x1u

/** cube_executor_desc.flags (since 1.5): the engine gives each replica a
 *  network of its own (a Pod's address) and assigns the ports of the
 *  Job's spec.ports itself: the host allocates none on its nodes (the
 *  replica document has no "ports"), the executor sets CUBE_PORT_<NAME>
 *  and reports the endpoints with cube_host.replica_endpoints. */
#define CUBE_EXECUTOR_OWN_PORTS 0x2u

/** The most entries of a Job's spec.ports, and of an endpoints report
 *  (since 1.5). */
#define CUBE_JOB_PORTS_MAX 16

/** An accelerator vendor; passed to cube_host.register_accel (since 1.3). */
struct cube_accel_desc {
    /* since 1.3 */
    size_t size;            /**< sizeof(struct cube_accel_desc) */
    const char *name;       /**< unique DNS label: "nvidia", "sim" */
    /** The extended resource it serves: "nvidia.com/gpu", "huawei.com/npu". */
    const char *resource;
    /** Required. This machine's devices as a JSON array of device
     *  documents (see Node above; "resource" may be left out). Set
     *  *devices_json to a malloc()ed string (the host frees it). An
     *  absent driver is not an error: answer "[]" and say so in the log. */
    int (*discover)(void *state, char **devices_json);
    /** Required. The environment that pins a replica to its devices:
     *  device_ids_json is the array of ids it got, share the fraction of
     *  one device (1.0 for whole devices). Set *env_json to a malloc()ed
     *  object {"CUDA_VISIBLE_DEVICES": "0,1"}. */
    int (*pin_env)(void *state, const char *device_ids_json, double share,
                   char **env_json);
    /** Optional. Utilisation for monitoring: a malloc()ed JSON array
     *  [{"id": "0", "utilization": 0.93, "memoryUsed": "10Gi"}]. */
    int (*usage)(void *state, char **usage_json);
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_SCHED_H */
