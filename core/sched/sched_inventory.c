/* sched_inventory.c — read-only queries of the policy engine for the
 * nodes and pools API (job_infra_http.c): a node's capacity and what the
 * replicas placed on it take, its devices' shares, and a pool's totals.
 * Nothing here changes the engine; callers hold the scheduler's mu. */
#include "sched_priv.h"

#include <string.h>

int cube_sp_node_info(const struct cube_sched_policy *p, const char *name,
                      struct cube_sp_node_info *out)
{
    const struct sp_node *n = cube_strmap_get(p->nodes, name);
    memset(out, 0, sizeof *out);
    if (!n)
        return CUBE_ENOTFOUND;
    out->pool = n->pool->name;
    out->capacity = n->cap;
    out->used = n->used;
    for (const struct sp_alloc *a = n->allocs; a; a = a->nnext)
        out->replicas++;
    out->devices = n->n_dev;
    for (unsigned i = 0; i < n->n_dev; i++)
        if (n->devs[i].used > 0)
            out->devices_used++;
    return CUBE_OK;
}

int cube_sp_device_used(const struct cube_sched_policy *p, const char *node,
                        const char *resource, const char *id, int32_t *share_milli)
{
    const struct sp_node *n = cube_strmap_get(p->nodes, node);
    int slot = cube_sp_resource_index(p, resource);
    *share_milli = 0;
    if (!n || slot < 0)
        return CUBE_ENOTFOUND;
    for (unsigned i = 0; i < n->n_dev; i++)
        if (n->devs[i].res == slot && strcmp(n->devs[i].id, id) == 0) {
            *share_milli = n->devs[i].used;
            return CUBE_OK;
        }
    return CUBE_ENOTFOUND;
}

size_t cube_sp_pool_count(const struct cube_sched_policy *p)
{
    return p->n_pools;
}

int cube_sp_pool_info(const struct cube_sched_policy *p, size_t i,
                      struct cube_sp_pool_info *out)
{
    memset(out, 0, sizeof *out);
    if (i >= p->n_pools)
        return CUBE_ENOTFOUND;
    const struct sp_pool *pool = p->pool_v[i];
    out->name = pool->name;
    out->capacity = pool->cap;
    out->nodes = pool->n_nodes;
    for (size_t k = 0; k < pool->n_pqs; k++) {
        const struct sp_pq *pq = pool->pqs[k];
        for (int r = 0; r < CUBE_SP_NRES; r++)
            out->used.v[r] += pq->used.v[r];
        out->pending += pq->n_pending;
        out->running += pq->n_running;
    }
    return CUBE_OK;
}
