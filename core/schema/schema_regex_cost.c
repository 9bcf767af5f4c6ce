/* schema_regex_cost.c — the cost model the translator uses to refuse
 * patterns that glibc's regcomp would take seconds or gigabytes to compile
 * (what it estimates is described at struct re_cost in schema_regex_priv.h).
 * Pure arithmetic on struct re_cost, apart from the pattern syntax that
 * schema_regex.c and schema_regex_class.c read. */
#include "schema_regex_priv.h"

#include <limits.h>

/* ---- cost model ---------------------------------------------------------- */

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static double max_double(double a, double b)
{
    return a > b ? a : b;
}

/* Nothing at all: costs nothing, matches only "". */
void cube_re_cost_empty(struct re_cost *c)
{
    *c = (struct re_cost){.copies = 1, .paths = 1, .empty = true,
                          .blank = true};
}

/* A node regcomp passes through without input. */
void cube_re_cost_epsilon(struct re_cost *c)
{
    *c = (struct re_cost){.nodes = 1, .first = 1, .last = 1, .closures = 1,
                          .copies = 1, .paths = 1, .empty = true,
                          .blank = true};
}

/* Only nodes that need no input have closures beyond themselves: an atom's
 * alternation nodes at its entry, none at its exit. */
void cube_re_cost_atom(struct re_cost *c, size_t bytes, size_t branches)
{
    double b = (double)(branches ? branches : 1);
    *c = (struct re_cost){.nodes = (double)bytes, .first = b,
                          .closures = (double)bytes + b * (b + 1) / 2,
                          .copies = 1, .through = -1};
}

/* An input-free node with a condition. */
void cube_re_cost_assertion(struct re_cost *c)
{
    *c = (struct re_cost){.nodes = 1, .first = 1, .last = 1, .closures = 1,
                          .copies = 1, .through = 1, .head = 1, .tail = 1,
                          .chain = 1, .paths = 1};
}

/* Nodes that reach a's exit without input now also reach b's entry. */
void cube_re_cost_concat(struct re_cost *a, const struct re_cost *b)
{
    bool a_open = a->through >= 0, b_open = b->through >= 0;
    a->closures += b->closures + a->last * b->first;
    a->nodes += b->nodes;
    a->first += a_open ? b->first : 0;
    a->last = b->last + (b_open ? a->last : 0);
    a->copies = max_double(a->copies, b->copies);
    a->chain = max_int(max_int(a->chain, b->chain), a->tail + b->head);
    int head = max_int(a->head, a_open ? a->through + b->head : 0);
    a->tail = max_int(b->tail, b_open ? a->tail + b->through : 0);
    a->head = head;
    a->through = a_open && b_open ? a->through + b->through : -1;
    a->paths *= b->paths;
    a->cyclic = a->cyclic || b->cyclic;
    a->empty = a->empty && b->empty;
    a->blank = a->blank && b->blank;
}

/* An alternation node reaches both sides' entries. */
void cube_re_cost_alternate(struct re_cost *a, const struct re_cost *b)
{
    a->nodes += b->nodes + 1;
    a->first += b->first + 1;
    a->last += b->last;
    a->closures += b->closures + a->first;
    a->copies = max_double(a->copies, b->copies);
    a->through = max_int(a->through, b->through);
    a->head = max_int(a->head, b->head);
    a->tail = max_int(a->tail, b->tail);
    a->chain = max_int(a->chain, b->chain);
    a->paths += b->paths;
    a->cyclic = a->cyclic || b->cyclic;
    a->empty = a->empty || b->empty;
    a->blank = a->blank && b->blank;
}

/* X? : one node that either skips X or enters it. */
static void cost_optional(struct re_cost *c)
{
    c->nodes += 1;
    c->first += 1;
    c->last += 1;
    c->closures += c->first;
    c->through = max_int(c->through, 0);
    c->paths += 1;
    c->empty = true;
}

/* X* : as X?, and X's exit leads back to its entry. */
static void cost_star(struct re_cost *c)
{
    c->closures += c->last * c->first;
    c->chain = max_int(c->chain, c->tail + c->head);
    c->cyclic = c->cyclic || c->through >= 0;
    cost_optional(c);
}

/* regcomp writes X{m,n} as m copies of X, then (((X?)X)?X)? up to n, and
 * X{m,} as m copies then X*. */
void cube_re_cost_repeat(struct re_cost *c, unsigned min, unsigned max)
{
    const struct re_cost x = *c;
    if (max == 0) {
        cube_re_cost_empty(c);
        return;
    }
    struct re_cost out, tail = x;
    cube_re_cost_empty(&out);
    for (unsigned i = 0; i < min; i++)
        cube_re_cost_concat(&out, &x);
    if (max == UINT_MAX) {
        cost_star(&tail);
        cube_re_cost_concat(&out, &tail);
    } else if (max > min) {
        cost_optional(&tail);
        for (unsigned i = min + 1; i < max; i++) {
            cube_re_cost_concat(&tail, &x);
            cost_optional(&tail);
        }
        cube_re_cost_concat(&out, &tail);
    }
    out.copies = x.copies * (max == UINT_MAX ? min + 1.0 : (double)max);
    *c = out;
}
