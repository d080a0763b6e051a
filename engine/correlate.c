/* Job-wide reasoning: the refiners of the catalog mark what explains
 * what, then the first cause in time among what remains is the verdict
 * (the scheduler's ending after a fault the job cannot outlive follows
 * from that fault).  Nothing here knows a particular failure; only kinds,
 * scopes, times, nodes and the catalog's tags. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static bool pid_in(long pid, const struct symptom *s)
{
	for (int i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return true;
	return false;
}

static bool pids_meet(const struct symptom *a, const struct symptom *b)
{
	for (int i = 0; i < a->npids; i++)
		if (pid_in(a->pids[i], b))
			return true;
	return false;
}

/* A symptom whose node is unknown (an application line with no rank or
 * host on it) may be on any node. */
static bool same_node(const struct symptom *t, const struct symptom *by)
{
	return t->node < 0 || by->node < 0 || t->node == by->node;
}

/* Whether an occurrence of by (its first or last) lies where the refiner
 * wants it relative to the target's first occurrence. */
static bool in_order(const struct refiner *r, double t, double b, double skew)
{
	double d = t - b; /* > 0: the target came after */

	if (r->order == ORDER_AFTER && d < -skew)
		return false;
	if (r->order == ORDER_BEFORE && d > skew)
		return false;
	return r->within <= 0 || fabs(d) <= r->within + skew;
}

static bool related(const struct refiner *r, const struct symptom *t, const struct symptom *by, double skew)
{
	switch (r->same) {
	case SAME_NODE:
		if (!same_node(t, by))
			return false;
		break;
	case SAME_PID:
		if (!same_node(t, by) || !pids_meet(t, by))
			return false;
		break;
	case SAME_GPU:
		if (!same_node(t, by) || !t->device || !by->device || strcmp(t->device, by->device))
			return false;
		break;
	case SAME_JOB:
		break;
	}
	return in_order(r, t->first, by->first, skew) || in_order(r, t->first, by->last, skew);
}

/* A selector's verdict on a symptom, from the table made at load when the
 * code has an index. */
static bool sel(const bool *by_code, const struct selector *s, const struct symptom *sym)
{
	return by_code && sym->code->index ? by_code[sym->code->index] && selector_sources(s, sym)
					   : selector_match(s, sym);
}

/* Whether b explains the target t; marks t if so. */
static bool try_explain(const struct refiner *r, struct symptom *t, int ti, const struct symptom *b, int bi,
			double skew)
{
	/* what a refiner set aside explains nothing */
	if (bi == ti || b->role == ROLE_INTERESTING || !related(r, t, b, skew))
		return false;
	t->refined_by = r->id;
	if (r->as) { /* read as another code; still a candidate */
		t->code = r->as;
		return true;
	}
	t->role = r->verdict;
	t->explained_by = b;
	return true;
}

void refiner_apply(const struct refiner *r, struct symptom **sym, int n, double skew)
{
	/* the symptoms that may explain, found once: n x n selector matches
	 * made 100,000 distinct symptoms a matter of hours */
	int *by = xmalloc((n + 1) * sizeof(int)), nby = 0, maxnode = -1;

	for (int j = 0; j < n; j++)
		if (sel(r->by_code, &r->by, sym[j])) {
			by[nby++] = j;
			if (sym[j]->node > maxnode)
				maxnode = sym[j]->node;
		}
	/* a refiner of one node looks only at that node's candidates and those
	 * of no known node, in the same order as a look at all of them: a
	 * thousand nodes' NCCL errors against a thousand nodes' detail lines
	 * were a million pairs.  bucket[0]: no node; bucket[node + 1] */
	int *first = NULL, *list = NULL;
	if (r->same != SAME_JOB && nby) {
		first = xcalloc(maxnode + 3, sizeof(int));
		list = xmalloc(nby * sizeof(int));
		for (int k = 0; k < nby; k++)
			first[sym[by[k]]->node + 2]++;
		for (int b = 1; b <= maxnode + 2; b++)
			first[b] += first[b - 1];
		int *fill = xmalloc((maxnode + 3) * sizeof(int));
		memcpy(fill, first, (maxnode + 3) * sizeof(int));
		for (int k = 0; k < nby; k++)
			list[fill[sym[by[k]]->node + 1]++] = by[k];
		free(fill);
	}
	for (int i = 0; i < n && nby; i++) {
		struct symptom *t = sym[i];

		if (t->role != ROLE_NONE || !sel(r->target_code, &r->target, t))
			continue;
		if (!first || t->node < 0) {
			for (int k = 0; k < nby; k++)
				if (try_explain(r, t, i, sym[by[k]], by[k], skew))
					break;
			continue;
		}
		/* merge of the no-node bucket and the target's node's bucket */
		int u = first[0], ue = first[1], v = 0, ve = 0;
		if (t->node <= maxnode) {
			v = first[t->node + 1];
			ve = first[t->node + 2];
		}
		while (u < ue || v < ve) {
			int k = v >= ve || (u < ue && list[u] < list[v]) ? list[u++] : list[v++];

			if (try_explain(r, t, i, sym[k], k, skew))
				break;
		}
	}
	free(first);
	free(list);
	free(by);
}

void refine(const attrib_catalog *cat, struct symptom **sym, int n)
{
	for (int k = 0; k < cat->nrefiners; k++)
		refiner_apply(&cat->refiners[k], sym, n, cat->set.clock_skew);
}

static bool is_candidate(const struct symptom *s)
{
	return s->role == ROLE_NONE && !s->aside &&
		(s->code->kind == KIND_FAULT || s->code->kind == KIND_SCHEDULER);
}

/* Which faults the evidence corroborates (an Xid 31 with the program's
 * own exception or CUDA error beside it), for every symptom at once: a
 * search per root was quadratic when thousands of causes tie. */
static bool *corroboration(const struct analysis *a)
{
	bool *ok = xcalloc(a->nsym + 1, sizeof(bool));
	struct strlist subs = { 0 }; /* sub_domains of the faults that need no support */

	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *o = a->sym[i];

		if (!o->aside && o->code->kind == KIND_FAULT && !o->code->also && o->code->sub_domain &&
		    !strlist_has(&subs, o->code->sub_domain))
			strlist_add(&subs, o->code->sub_domain);
	}
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *o = a->sym[i];

		/* the program's own exception or error beside it */
		if (o->code->also && strlist_has(&subs, o->code->sub_domain))
			ok[i] = true;
		/* the program saw the fault as its kernel failing (a refiner
		 * made its CUDA error the Xid's echo); an Xid the process never
		 * reported, while it hung, is what stays open */
		if (!o->aside && o->explained_by && (o->source & SRC_APP) && o->code->kind == KIND_FAULT)
			ok[o->explained_by->idx] = true;
	}
	strlist_free(&subs);
	return ok;
}

/* A fault that fits two causes (an Xid 31: the program or the GPU) and
 * that the same GPU showed for other programs before this job: it follows
 * the GPU, not the code.  Returns the job's symptom, or NULL. */
static struct symptom *recurring_on_gpu(struct analysis *a)
{
	/* the history first: none (the common case) ends it at once, and a
	 * job with thousands of such faults is not searched n x n */
	const struct symptom **hist = xcalloc(a->nsym + 1, sizeof(*hist));
	int nhist = 0;
	struct symptom *found = NULL;

	for (int k = 0; k < a->nsym; k++) {
		const struct symptom *h = a->sym[k];

		if ((h->aside == ASIDE_BEFORE || h->aside == ASIDE_BEFORE_BOOT ||
		     h->aside == ASIDE_OTHER_JOB || h->aside == ASIDE_OTHER_PROCESS) &&
		    h->code->also && h->device)
			hist[nhist++] = h;
	}
	for (int i = 0; i < a->nsym && nhist && !found; i++) {
		struct symptom *s = a->sym[i];
		long other[2 * MAX_PIDS];
		int nother = 0;

		if (s->aside || !s->code->also || s->node < 0 || !s->device || !s->npids)
			continue;
		for (int k = 0; k < nhist; k++) {
			const struct symptom *h = hist[k];

			if (h->node != s->node || strcmp(h->device, s->device))
				continue;
			for (int p = 0; p < h->npids && nother < 2 * MAX_PIDS; p++) {
				bool dup = pid_in(h->pids[p], s);

				for (int q = 0; q < nother && !dup; q++)
					dup = other[q] == h->pids[p];
				if (!dup)
					other[nother++] = h->pids[p];
			}
		}
		if (nother >= 2)
			found = s;
	}
	free(hist);
	return found;
}

static int by_time(const void *x, const void *y)
{
	const struct symptom *a = *(struct symptom *const *)x, *b = *(struct symptom *const *)y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	/* an exact time before an approximate one */
	return (int)a->first_approx - (int)b->first_approx;
}

/* Survivors that blame one place: same sub_domain, and for node-scoped
 * causes the same node (an unknown node joins the one known node). */
static int group_count(struct symptom **r, int n, int *node_out)
{
	int node = -1;

	for (int i = 1; i < n; i++)
		if (strcmp(r[i]->code->sub_domain, r[0]->code->sub_domain))
			return 2;
	for (int i = 0; i < n; i++) {
		if (r[i]->code->scope != SCOPE_NODE || r[i]->node < 0)
			continue;
		if (node >= 0 && node != r[i]->node)
			return 2;
		node = r[i]->node;
	}
	*node_out = node;
	return 1;
}

/* ---- confidence: how far the evidence supports the verdict ----
 * From who wrote the causes' lines, what their rules say of them and what
 * else the evidence shows of them, never from which failure it is
 * (doc/formats.md, "confidence"). */

/* Lines the kernel or root wrote on the node (not the job's output, not a
 * file anyone may write). */
static bool node_vouched(const struct symptom *s)
{
	return (s->sources & (SRC_NODE | SRC_REPORT)) && s->trust == TRUST_VOUCHED;
}

/* A node fault a rule would take the node out of service for. */
static bool takes_node_out(const struct code *c)
{
	return c->kind == KIND_FAULT && c->scope == SCOPE_NODE &&
		(!strcmp(c->action, "drain") || !strcmp(c->action, "reboot") ||
		 !strcmp(c->action, "reset_gpu"));
}

/* A fault that proves itself: vouched for by the node, named by a rule
 * that takes the node out of service for it, and neither fitting another
 * cause (also:) nor typical of several (repeat-cause). */
static bool definitive(const struct symptom *s)
{
	const struct code *c = s->code;

	return node_vouched(s) && takes_node_out(c) && !c->also && !(c->flags & CODE_GENERIC);
}

/* The cause a downstream symptom was traced to: the end of its
 * explained_by chain (a refiner's links, then the first cause). */
static const struct symptom *traced_to(const struct symptom *s)
{
	for (int k = 0; s->explained_by && k < 64; k++)
		s = s->explained_by;
	return s;
}

static int kinds_of_source(int sources)
{
	int n = 0;

	for (int b = SRC_NODE; b <= SRC_REPORT; b <<= 1)
		n += !!(sources & b);
	return n;
}

/* Whether something beside the root's own lines shows the same cause:
 * the root in two kinds of evidence (a node's log and the job's output),
 * a co-root in another kind or on another node, a downstream symptom on
 * another node than the root's, or one a refiner traced to the cause in
 * another kind of evidence (the program's CUDA error an Xid explains). */
static bool corroborated(const struct analysis *a, const struct verdict *v, const struct symptom *r)
{
	if (kinds_of_source(r->sources) >= 2)
		return true;
	for (int i = 0; i < v->nroots; i++) {
		const struct symptom *q = v->roots[i];

		if (q != r &&
		    ((q->sources & ~r->sources) || (q->node >= 0 && r->node >= 0 && q->node != r->node)))
			return true;
	}
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];

		if (s->role != ROLE_DOWNSTREAM || s->aside ||
		    (s->code->kind != KIND_FAULT && s->code->kind != KIND_CONSEQUENCE))
			continue;
		if (s->node >= 0 && r->node >= 0 && s->node != r->node)
			return true;
		if (s->refined_by && traced_to(s)->role == ROLE_ROOT && (s->sources & ~r->sources))
			return true;
	}
	return false;
}

/* Why a cause is weak on its own (NULL: it is not): it fits more than one
 * failure, or it is the scheduler's word rather than the evidence's. */
static const char *weakness(const struct symptom *r)
{
	const struct code *c = r->code;

	if ((c->flags & CODE_GENERIC) || c->also)
		return "a cause typical of several failures";
	if (c->kind == KIND_SCHEDULER || !(r->sources & ~(SRC_SCHED | SRC_JOB)))
		return "a cause known only from the scheduler";
	if (takes_node_out(c) && !node_vouched(r))
		return "a node fault that only the scheduler or the job's output reports, not the node's own "
		       "logs";
	return NULL;
}

static void assess(const struct analysis *a, struct verdict *v)
{
	const struct symptom *r = v->root;

	v->confidence = CONFIDENCE_LOW;
	if (v->pass) {
		v->confidence = CONFIDENCE_HIGH;
		v->basis = "the job record says the job completed";
	} else if (!r) {
		v->basis = v->nroots ? "several causes fit the evidence" : "no rule names a cause";
	} else if (r->trust == TRUST_UNAUTHENTICATED) {
		v->basis = "the cause's only lines are in files anyone on the node may write";
	} else if (definitive(r)) {
		v->confidence = CONFIDENCE_HIGH;
		v->basis = "a fault the node's kernel or root logged, which its rule takes the node out of "
			   "service for";
	} else {
		const char *weak = weakness(r);
		bool more = corroborated(a, v, r);

		/* corroboration lifts a cause one level */
		v->confidence = (weak ? CONFIDENCE_LOW : CONFIDENCE_MEDIUM) + more;
		v->basis = weak ? weak : "a specific failure signature in one kind of evidence";
		v->basis_more = more ? "; the rest of the evidence corroborates it"
				     : "; nothing else corroborates it";
	}
}

static bool job_completed(const struct job *j)
{
	return !strcmp(j->state, "COMPLETED") && (!j->exit_code || !strcmp(j->exit_code, "0:0"));
}

/* The scheduler's word on a job that a fault it cannot outlive (a GPU off
 * the bus, a task no signal ends) had already stopped, and did not run on
 * through (scope sets those aside): a time limit, a cancel or a node
 * failure that followed is that fault's consequence, whatever the order
 * of the lines.  A fault without a time of its own may have come earlier
 * than it looks.  Only on the word of the node or the scheduler, never on
 * the job's output or a file anyone may write alone (a printed "Xid 79"
 * must not turn a time limit into a node's fault), and for a fault that
 * names a process only when it is the job's (scope.c).  Returns how many
 * candidates remain (c sorted by time). */
static int after_fatal(struct symptom **c, int nc, double skew)
{
	const struct symptom *fatal = NULL;
	int k = 0;

	for (int i = 0; i < nc && !fatal; i++)
		if (c[i]->fatal)
			fatal = c[i];
	if (!fatal)
		return nc;
	for (int i = 0; i < nc; i++)
		if (c[i]->code->kind == KIND_SCHEDULER &&
		    (fatal->first_approx || fatal->first <= c[i]->first + skew)) {
			c[i]->role = ROLE_DOWNSTREAM;
			c[i]->explained_by = fatal;
		} else {
			c[k++] = c[i];
		}
	return k;
}

/* The job's output was printed while the job ran: a fault of its own
 * lines without a time of their own, dated only by when it was printed at
 * the latest (the next timestamped line, the job's end), came before the
 * scheduler's ending that its date meets (within the clock skew), however
 * the seconds compare.  It moves up past scheduler decisions only, never
 * past a dated fault, which may truly have come first (c sorted by time). */
static void printed_before_end(struct symptom **c, int nc, double skew)
{
	for (int j = 1; j < nc; j++) {
		struct symptom *s = c[j];
		int k = j;

		if (s->code->kind != KIND_FAULT || !s->first_no_later || (s->sources & ~SRC_APP))
			continue;
		while (k > 0 && c[k - 1]->code->kind == KIND_SCHEDULER && s->first <= c[k - 1]->first + skew)
			k--;
		memmove(&c[k + 1], &c[k], (j - k) * sizeof(*c));
		c[k] = s;
	}
}

void correlate(struct analysis *a, struct verdict *v)
{
	struct symptom **c = xcalloc(a->nsym + 1, sizeof(*c));
	int nc = 0;
	double skew = a->cat->set.clock_skew, tie = a->cat->set.tie_window;

	memset(v, 0, sizeof(*v));
	if (job_completed(&a->job)) {
		for (int i = 0; i < a->nsym; i++)
			a->sym[i]->role = ROLE_INTERESTING;
		v->pass = true;
		v->sub_domain = "Pass";
		free(c);
		assess(a, v);
		return;
	}
	refine(a->cat, a->sym, a->nsym);
	/* a fault the job ran on through, that a refiner says explains a fault
	 * of the job (an ECC error on the same GPU some minutes later), was
	 * its cause after all, only slower to show */
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];
		struct symptom *b = s->explained_by ? a->sym[s->explained_by->idx] : NULL;

		if (b && b->aside == ASIDE_SURVIVED && !s->aside && s->code->kind == KIND_FAULT)
			b->aside = ASIDE_NONE;
	}
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if (s->aside && s->role == ROLE_NONE)
			s->role = ROLE_INTERESTING;
		if (is_candidate(s))
			c[nc++] = s;
	}
	if (nc)
		qsort(c, nc, sizeof(*c), by_time);
	printed_before_end(c, nc, skew);
	nc = after_fatal(c, nc, skew);
	/* a hang explains the time limit or the cancel that ended it */
	if (a->hang) {
		int k = 0;

		for (int i = 0; i < nc; i++)
			if (c[i]->code->kind == KIND_SCHEDULER && (c[i]->code->flags & CODE_ENDS_HANG))
				c[i]->role = ROLE_INTERESTING;
			else
				c[k++] = c[i];
		nc = k;
	}
	/* a cause seen only in files anyone on a node may write never beats
	 * one that is vouched for: a user's forged line would otherwise move
	 * the blame off the real culprit */
	int trusted = 0;
	for (int i = 0; i < nc; i++)
		trusted += c[i]->trust != TRUST_UNAUTHENTICATED;
	if (trusted && trusted < nc) {
		int k = 0;

		for (int i = 0; i < nc; i++)
			if (c[i]->trust != TRUST_UNAUTHENTICATED)
				c[k++] = c[i];
			else
				c[i]->role = ROLE_INTERESTING;
		nc = k;
	}

	/* first cause: the earliest candidate and those tied with it; a
	 * scheduler decision first wins over faults that follow it */
	int ns = 0;
	if (nc) {
		const struct symptom *first = c[0];
		enum kind k = first->code->kind;

		for (int i = 0; i < nc; i++) {
			bool tied = c[i]->first <= first->first + tie + (c[i]->first_approx ? 0 : skew);

			if (tied && c[i]->code->kind == k) {
				c[ns++] = c[i];
			} else {
				c[i]->role = ROLE_DOWNSTREAM;
				c[i]->explained_by = first;
			}
		}
	}
	/* a fault that recurs on the GPU for other programs joins the causes */
	struct symptom *rec = recurring_on_gpu(a);
	if (rec && rec->role != ROLE_ROOT) {
		int at = -1;

		for (int i = 0; i < nc; i++)
			if (c[i] == rec)
				at = i;
		if (at >= ns) { /* was set downstream of the first cause above */
			c[at] = c[ns];
			c[ns] = rec;
		} else if (at < 0) {
			c[nc] = c[ns]; /* c has room for every symptom */
			c[ns] = rec;
			nc++;
		}
		if (at < 0 || at >= ns)
			ns++;
		rec->explained_by = NULL;
	}
	v->recurring = rec;

	/* a cause that alone fits two sub_domains leaves the verdict open */
	bool doubtful = rec != NULL;
	bool *corroborated = NULL;
	for (int i = 0; i < ns && !doubtful; i++)
		if (c[i]->code->also) {
			if (!corroborated)
				corroborated = corroboration(a);
			doubtful = !corroborated[c[i]->idx];
		}
	free(corroborated);

	int node = -1;
	if (ns && !doubtful && switch_blame(a, c, nc, &ns, v)) {
		/* v names the leaf switch: no node is the culprit */
	} else if (ns && !doubtful && group_count(c, ns, &node) == 1) {
		v->sub_domain = c[0]->code->sub_domain;
		v->root = c[0];
		for (int i = 0; i < ns; i++) /* the root names the culprit if any does */
			if (c[i]->code->scope == SCOPE_NODE && c[i]->node == node && node >= 0) {
				v->root = c[i];
				break;
			}
	} else if (ns) {
		v->sub_domain = "ambiguous";
	} else {
		v->sub_domain = "unattributed";
	}
	v->roots = c;
	v->nroots = ns;
	for (int i = 0; i < ns; i++)
		c[i]->role = ROLE_ROOT;
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if (s->role != ROLE_NONE)
			continue;
		if (s->code->kind == KIND_CONSEQUENCE && ns)
			s->role = ROLE_DOWNSTREAM;
		else
			s->role = ROLE_INTERESTING;
	}
	assess(a, v);
}
