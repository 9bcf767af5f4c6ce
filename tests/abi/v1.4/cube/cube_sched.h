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
 *    replicas that were running.
 *  - An ACCELERATOR vendor discovers devices of one extended resource
 *    ("nvidia.com/gpu") on this machine and says which environment pins a
 *    replica to the devices it got (CUDA_VISIBLE_DEVICES ...).
 *
 * Documents crossing here are JSON text.
 *
 * Node (node_set):
 *   {"name": "gpu-01", "pool": "default",
 *    "labels": {"zone": "a"},
 *    "capacity": {"cpu": "16", "memory": "64Gi"},
 *    "devices": [{"id": "0", "resource": "nvidia.com/gpu", "model": "H200",
 *                 "memory": "141Gi", "numa": 0, "domain": "nvl-0",
 *                 "healthy": true}]}
 *   "domain" groups devices with a fast interconnect (an NVLink island);
 *   "devices" may be left out to get those of this machine's accelerator
 *   plugins (cube_host.local_devices).
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
 *            "stream": "replica-0"}}
 *   The executor writes the replica's output to that log stream
 *   (cube_host.log_append) and must never run it as root.
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
};

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
