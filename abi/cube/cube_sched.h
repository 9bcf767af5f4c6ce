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
 *    replica to the devices it got (CUDA_VISIBLE_DEVICES ...); since 1.5
 *    also which device nodes and mounts (pin), how a partition is made and
 *    destroyed around a replica (prepare, release), and when a device
 *    turns unhealthy (cube_host.device_health).
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
 *     plugins (cube_host.local_devices). Since 1.5 the health an
 *     accelerator pushes (cube_host.device_health) overrides "healthy" on
 *     the nodes that describe this machine, those whose document left
 *     "devices" out or whose executor reads local_devices; "healthReason"
 *     (a sentence) says why a device is unhealthy, for people.
 *   - "schedulable" (since 1.5): false when the executor's engine will run
 *     no new work there (Slurm's drain, down, a cordon); absent: true.
 *     Another type is CUBE_EINVAL. The host places no new replica on such
 *     a node; replicas already there keep running and stay counted in its
 *     use; true again (a later node_set) makes it a candidate at once.
 *   - "message" (since 1.5): with "schedulable": false, why (a sentence
 *     for people, at most 255 bytes, else CUBE_EINVAL; a copy is kept): a
 *     Job waiting for room says "; 1 node of pool slurm is not schedulable
 *     (n3: DRAIN: maintenance)". Ignored on a schedulable node.
 *   An older host (1.4 and before) ignores both: a plugin that must keep
 *   work off a node on such a host removes it (node_remove) instead.
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
 *   Since 1.5 it also carries what pins the replica to its devices beyond
 *   "env" (see Pin below), joined over the replica's device resources:
 *     "deviceNodes": [{"path": "/dev/nvidia0", "hostPath": "/dev/nvidia0"}],
 *     "mounts": [{"hostPath": "/run/nvidia-mps",
 *                 "containerPath": "/run/nvidia-mps", "readOnly": true}]
 *   "deviceNodes" is then the complete list of device nodes the replica
 *   may open besides those every process has (/dev/null, zero, full,
 *   random, urandom, tty, pts, shm): an executor that confines replicas
 *   exposes these and no other node of the machine ("hostPath" is always
 *   filled in). It is [] for a replica without devices, and ABSENT when
 *   an accelerator without pin (a 1.3/1.4 plugin) pinned some of its
 *   devices, whose nodes are unknown: the executor then exposes the
 *   machine's /dev as before 1.5. "mounts" is always present ([] when
 *   none); an executor that cannot bind them (no sandbox, or a remote
 *   engine) may ignore both and rely on "env" alone.
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
 *
 * Pin (cube_accel_desc.pin, since 1.5): all a replica needs to reach its
 * devices of one resource, shaped after CDI's container edits:
 *   {"env": {"CUDA_VISIBLE_DEVICES": "GPU-8f6b..."},
 *    "deviceNodes": [{"path": "/dev/nvidia0"}, {"path": "/dev/nvidiactl"},
 *                    {"path": "/dev/sim0", "hostPath": "/dev/null"}],
 *    "mounts": [{"hostPath": "/run/nvidia-mps",
 *                "containerPath": "/run/nvidia-mps", "readOnly": false}]}
 *   - "env": string values; portable names ([A-Za-z_][A-Za-z0-9_]*), none
 *     of those Cube sets itself (CUBE_*, MASTER_ADDR, RANK, TF_CONFIG ...).
 *     They replace the Job's and the Project's variables of the same name.
 *   - "deviceNodes": at most 64; "path" is where the replica sees the
 *     node, an absolute path under /dev/ without "." or ".." segments;
 *     "hostPath" the node on this machine (absent: "path"), absolute and
 *     clean too.
 *   - "mounts": at most 32; "hostPath" and "containerPath" absolute and
 *     clean, "containerPath" neither "/" nor under /dev or /proc;
 *     "readOnly" (absent: true).
 *   Every member may be absent (an empty pin). Nodes and mounts of several
 *   resources are joined; the same "path" (or "containerPath") twice is
 *   kept once when both agree and refused when they differ. A document
 *   that breaks a rule fails the replica's start (reason StartError) with
 *   a message naming the member ("deviceNodes[1].path: ...").
 *
 * Partitions (cube_accel_desc.prepare and release, since 1.5): devices cut
 * per replica (a MIG slice of a GPU, a vNPU of an NPU) are made just
 * before the replica starts and destroyed after it ends. The request
 * prepare gets, and release gets again:
 *   {"job": {"project": "vision", "name": "train", "uid": "..."},
 *    "replica": 0, "attempt": 1, "node": "gpu-01",
 *    "resource": "nvidia.com/gpu", "devices": ["0"], "share": 0.25}
 *   "devices" are the ids the scheduler allocated (of this resource only)
 *   and "share" the fraction of one device (1 for whole devices). prepare
 *   answers a JSON object (at most 16 KiB) whose "devices", an array of 1
 *   to 64 non-empty strings, are the ids pin (or pin_env) then gets in
 *   place of the allocated ones ("MIG-5c7a..."); whatever else it holds
 *   is the plugin's own, handed back to release as is. The host keeps the
 *   pair in its own store (not in the Job, whose owner may write its
 *   status), so a partition is released after a restart of cubed too.
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
    /** Required (since 1.5: unless pin is set). The environment that pins
     *  a replica to its devices: device_ids_json is the array of ids it
     *  got, share the fraction of one device (1.0 for whole devices). Set
     *  *env_json to a malloc()ed object {"CUDA_VISIBLE_DEVICES": "0,1"}. */
    int (*pin_env)(void *state, const char *device_ids_json, double share,
                   char **env_json);
    /** Optional. Utilisation for monitoring: a malloc()ed JSON array
     *  [{"id": "0", "utilization": 0.93, "memoryUsed": "10Gi"}]. */
    int (*usage)(void *state, char **usage_json);

    /* since 1.5 */
    /**
     * Optional. Everything that pins a replica to its devices: env, device
     * nodes and mounts (the Pin document above). device_ids_json and share
     * as for pin_env (the ids prepare answered, when it did). Set
     * *pin_json to a malloc()ed Pin document, released by the host. When
     * pin is set the host calls it instead of pin_env (which a plugin
     * built for 1.5 hosts only may then leave NULL); when it is NULL the
     * host calls pin_env and the replica's device nodes are unknown (see
     * "deviceNodes" in the Replica document). On failure return an error
     * code, having called host->set_error(self, ...) on the calling
     * thread with the reason: the replica fails to start (reason
     * StartError) with it. Any thread (several replicas start at once);
     * called for each start and each re-adoption after a restart of
     * cubed; should answer within milliseconds.
     */
    int (*pin)(void *state, const char *device_ids_json, double share, char **pin_json);
    /**
     * Optional. Prepares a replica's devices before its executor starts
     * it (see Partitions above): request_json is the request; on success
     * set *prepared_json to a malloc()ed object (released by the host)
     * and return CUBE_OK. CUBE_DECLINED: nothing to prepare for this one
     * (whole devices, say): the allocated ids are pinned and release is
     * not called. Any other code, with host->set_error(self, ...) first on
     * the calling thread: the replica fails to start (reason StartError,
     * the message "prepare: <the reason>") and release is not called; so
     * prepare undoes its own half-done work. An answer that breaks the
     * rules (not an object, bad "devices") fails the start too, and is
     * released. Called on one of the host's replica-starting threads
     * (the Job stays Admitted meanwhile; other Jobs start on the others),
     * once per replica start (each retry of a Job is a new start, with
     * its "attempt"); may block (making a partition takes seconds), but
     * should return within a minute.
     */
    int (*prepare)(void *state, const char *request_json, char **prepared_json);
    /**
     * Required with prepare. Destroys what prepare made, once the replica
     * has ended for whatever reason (exit, stop, lost node, a start that
     * failed after prepare), with the request and prepare's answer as
     * prepare got and gave them (borrowed for the call). CUBE_OK (also
     * when it is gone already: release must be idempotent, as it may be
     * called again after a restart of cubed). Any other code, with
     * host->set_error(self, ...) first: the host logs the reason and calls
     * release again later (after 1 s, doubling to every 5 minutes), across
     * restarts, until it returns CUBE_OK or the plugin is no longer loaded
     * (then at its next start). Called on a host worker thread, never
     * concurrently for one partition; may block.
     */
    int (*release)(void *state, const char *request_json, const char *prepared_json);
};

#ifdef __cplusplus
}
#endif

#endif /* CUBE_SCHED_H */
