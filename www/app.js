/* attrib's dashboard: plain JavaScript, no framework, nothing fetched from
 * elsewhere.  Every string from the store reaches the page as a text node
 * (el() and textContent, never innerHTML), so a job name or a log line
 * is shown, never run.  Read only: it only GETs /api/v1/. */
'use strict';
(function () {
	const SVGNS = 'http://www.w3.org/2000/svg';
	const LANES_FULL = 64; /* above: lanes without a mark collapse into a count */
	const main = document.getElementById('main');

	function el(tag, attrs, kids) {
		const e = document.createElement(tag);
		for (const k in attrs || {}) {
			if (k === 'text') e.textContent = attrs[k];
			else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
			else if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
		}
		for (const c of kids || []) if (c !== null && c !== undefined) e.append(c);
		return e;
	}
	function sv(tag, attrs, kids) {
		const e = document.createElementNS(SVGNS, tag);
		for (const k in attrs || {}) {
			if (k === 'text') e.textContent = attrs[k];
			else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
			else e.setAttribute(k, attrs[k]);
		}
		for (const c of kids || []) if (c) e.append(c);
		return e;
	}
	function show(...kids) {
		main.replaceChildren(...kids);
	}
	function utc(s) {
		if (!s) return '';
		const d = new Date(s);
		return isNaN(d) ? String(s) : d.toISOString().replace('.000Z', 'Z').replace('T', ' ');
	}
	function offsetText() {
		const m = -new Date().getTimezoneOffset(), a = Math.abs(m);
		return 'Times in UTC; your local time is UTC' + (m < 0 ? '\u2212' : '+') +
			String(Math.floor(a / 60)).padStart(2, '0') + ':' + String(a % 60).padStart(2, '0');
	}
	function hashParams() {
		const h = location.hash.replace(/^#/, ''), i = h.indexOf('?');
		return { path: i < 0 ? h : h.slice(0, i), q: new URLSearchParams(i < 0 ? '' : h.slice(i + 1)) };
	}

	async function api(path) {
		const r = await fetch(path, { credentials: 'same-origin' });
		const body = await r.json().catch(() => ({ error: 'not JSON (HTTP ' + r.status + ')' }));
		if (!r.ok) throw { status: r.status, message: body.error || ('HTTP ' + r.status) };
		return body;
	}
	function failed(e) {
		show(el('p', { class: 'error', role: 'alert', text: (e && e.message) || String(e) }));
		if (!(e && e.status)) console.error(e);
	}

	/* ---- Jobs ---- */
	const SUBS = ['InfraHW', 'InfraNet', 'InfraSW', 'InfraStorage', 'UserCode', 'UserConfig', 'UserResource',
		'SchedTimeLimit', 'SchedPreempted', 'SchedCancelled', 'Pass', 'ambiguous', 'unattributed'];

	async function jobsPage(q) {
		const f = {};
		for (const k of ['since', 'sub_domain', 'node', 'user']) if (q.get(k)) f[k] = q.get(k);
		const inputs = {};
		const field = (k, label, input) => { inputs[k] = input; return el('label', {}, [label, input]); };
		const sel = el('select', { id: 'f-sub_domain' }, [el('option', { value: '', text: 'any' }),
			...SUBS.map(s => el('option', { value: s, text: s }))]);
		sel.value = f.sub_domain || '';
		const apply = () => {
			const p = new URLSearchParams();
			for (const k in inputs) if (inputs[k].value.trim()) p.set(k, inputs[k].value.trim());
			location.hash = '#/jobs' + (p.toString() ? '?' + p : '');
		};
		const filters = el('div', { class: 'filters', role: 'search' }, [
			field('since', 'since (7d, 2026-12-01T00:00:00Z)', el('input', { id: 'f-since', size: 14, value: f.since || '' })),
			field('sub_domain', 'sub-domain', sel),
			field('node', 'node', el('input', { id: 'f-node', size: 12, value: f.node || '' })),
			field('user', 'user', el('input', { id: 'f-user', size: 10, value: f.user || '' })),
			el('button', { type: 'button', text: 'Filter', onclick: apply }),
		]);
		filters.addEventListener('keydown', e => { if (e.key === 'Enter') apply(); });
		const tbody = el('tbody', { id: 'jobs' });
		const count = el('p', { class: 'muted', id: 'count' });
		const more = el('button', { type: 'button', id: 'more', text: 'More', hidden: '' });
		const table = el('table', {}, [el('thead', {}, [el('tr', {}, ['Time (UTC)', 'Job', 'User', 'Partition', 'Nodes',
			'Sub-domain', 'Root cause', 'Culprit', 'Actions'].map(h => el('th', { scope: 'col', text: h, class: h === 'Nodes' ? 'num' : null })))]), tbody]);
		show(el('h1', { text: 'Jobs' }), filters, count, table, el('p', {}, [more]));
		let shown = 0;
		async function load(cursor) {
			const p = new URLSearchParams(f);
			p.set('limit', '100');
			if (cursor) p.set('cursor', cursor);
			const r = await api('/api/v1/jobs?' + p);
			for (const j of r.jobs) {
				const acts = j.actions.map(a => a.action + ' ' + a.node);
				for (const d of j.drains) acts.push(d.decision + ' ' + d.node);
				tbody.append(el('tr', { 'data-job': j.job_id }, [
					el('td', { text: utc(j.end_time || j.stored) }),
					el('td', {}, [el('a', { href: '#/job/' + encodeURIComponent(j.job_id) + '?attempt=' + j.attempt, text: j.job_id }),
						j.job_name ? el('div', { class: 'muted job-name', text: j.job_name }) : null]),
					el('td', { text: j.user || '' }),
					el('td', { text: j.partition || '' }),
					el('td', { class: 'num', text: j.nodes ? String(j.nodes) : '' }),
					el('td', {}, [el('span', { class: 'tag', text: j.sub_domain || '' })]),
					el('td', { text: j.root_title || j.root_code || '' }),
					el('td', { text: j.culprit_nodes.join(', ') }),
					el('td', { text: acts.join('; ') }),
				]));
			}
			shown += r.count;
			count.textContent = shown + ' of ' + r.total + ' diagnoses';
			count.setAttribute('data-total', r.total);
			more.hidden = !r.next_cursor;
			more.onclick = () => load(r.next_cursor).catch(failed);
		}
		await load(null);
	}

	/* ---- Job ---- */
	function evidenceOf(s) {
		return s.evidence || [];
	}
	function evidenceBox(title, s, rootT) {
		const box = el('div', { class: 'evidence', role: 'region', 'aria-label': 'Evidence', id: 'evidence' });
		const off = s.first_time && rootT !== null ? ' (' + offset(Date.parse(s.first_time) - rootT) + ' from the root cause)' : '';
		box.append(el('strong', { text: title }), el('span', { class: 'muted', text: ' ' + (s.node || s.node_as_logged || '') + ' ' + utc(s.first_time) + off }));
		if (s.set_aside) box.append(el('div', { class: 'muted', text: 'Set aside: ' + s.set_aside }));
		for (const ev of evidenceOf(s))
			box.append(el('pre', {}, [el('span', { class: 'loc', text: ev.file + ':' + ev.line + '  ' }), ev.text]));
		if (!evidenceOf(s).length) box.append(el('p', { class: 'muted', text: 'No lines kept.' }));
		return box;
	}
	function offset(ms) {
		if (!isFinite(ms)) return '';
		const s = ms / 1000, a = Math.abs(s);
		const t = a < 120 ? a.toFixed(a < 10 ? 2 : 1) + ' s' : a < 7200 ? (a / 60).toFixed(1) + ' min' : (a / 3600).toFixed(1) + ' h';
		return (s < 0 ? '\u2212' : '+') + t;
	}

	function timeline(res, openEvidence) {
		const syms = (res.symptoms || []).filter(s => s.first_time);
		const root = res.root_cause;
		const rootNode = root && root.node;
		const silent = new Set();
		for (const c of res.coverage || []) {
			const m = /^nodes\/([^/:]+)$/.exec(c.source || '');
			if (m && c.status === 'missing') silent.add(m[1]);
		}
		let nodes = (res.job_nodes && res.job_nodes.length) ? res.job_nodes.slice()
			: [...new Set([...(res.culprit_nodes || []), ...(res.affected_nodes || []), ...syms.map(s => s.node).filter(Boolean)])];
		const byNode = new Map(nodes.map(n => [n, []]));
		const other = [];
		for (const s of syms) (byNode.get(s.node) || other).push(s);
		/* a large job: the healthy lanes (nothing but what every node says,
		 * such as the job's start) are one line, a count */
		let lanes = nodes, hidden = 0;
		if (nodes.length > LANES_FULL) {
			lanes = nodes.filter(n => byNode.get(n).some(s => s.role === 'root' || s.role === 'downstream' || s.set_aside) ||
				silent.has(n) || n === rootNode);
			hidden = nodes.length - lanes.length;
		}
		if (other.length) lanes = lanes.concat(['(elsewhere)']), byNode.set('(elsewhere)', other);
		const times = syms.map(s => Date.parse(s.first_time)).filter(isFinite);
		const rootT = root && root.time ? Date.parse(root.time) : null;
		let t0 = Math.min(...times), t1 = Math.max(...times);
		if (!times.length) t0 = t1 = 0;
		if (t1 - t0 < 1000) t1 = t0 + 1000;
		const W = 1100, L = 150, R = 20, H = 22, top = 24;
		const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
		const rows = lanes.length + (hidden ? 1 : 0);
		const svg = sv('svg', { width: W, height: top + rows * H + 8, viewBox: '0 0 ' + W + ' ' + (top + rows * H + 8),
			role: 'img', 'aria-label': 'Timeline: one lane per node', id: 'timeline' });
		svg.append(sv('text', { x: L, y: 14, text: utc(new Date(t0).toISOString()) }),
			sv('text', { x: W - R, y: 14, 'text-anchor': 'end', text: utc(new Date(t1).toISOString()) }));
		lanes.forEach((n, i) => {
			const y = top + i * H;
			const g = sv('g', { class: 'lane' + (n === rootNode ? ' root-lane' : '') + (silent.has(n) ? ' silent' : ''), 'data-node': n });
			g.append(sv('rect', { class: 'lane-bg', x: 0, y, width: W, height: H - 2 }),
				sv('text', { x: 4, y: y + 14, text: n + (silent.has(n) ? ' \u2014 sent nothing' : '') }));
			const marks = byNode.get(n) || [];
			/* the root last: drawn on top */
			marks.sort((a, b) => (a.role === 'root') - (b.role === 'root'));
			for (const s of marks) {
				const cls = s.set_aside ? 'set-aside' : (s.role || 'interesting');
				const t = Date.parse(s.first_time);
				const label = s.symptom + ' (' + s.code + ') on ' + n + ', ' + utc(s.first_time) +
					(rootT !== null && s.role !== 'root' ? ', ' + offset(t - rootT) + ' from the root cause' : '') +
					(s.set_aside ? ', set aside: ' + s.set_aside : '');
				const m = sv('circle', { class: 'mark ' + cls, cx: x(t), cy: y + H / 2 - 1, r: s.role === 'root' ? 7 : 5,
					tabindex: 0, role: 'button', 'aria-label': label, 'data-code': s.code, 'data-role': cls },
					[sv('title', { text: label })]);
				const open = () => openEvidence(s);
				m.addEventListener('click', open);
				m.addEventListener('keydown', e => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
				g.append(m);
			}
			svg.append(g);
		});
		if (hidden) {
			const y = top + lanes.length * H;
			svg.append(sv('g', { class: 'lane collapsed', 'data-count': hidden }, [
				sv('rect', { class: 'lane-bg', x: 0, y, width: W, height: H - 2 }),
				sv('text', { x: 4, y: y + 14, text: hidden + ' healthy nodes (lanes collapsed)' })]));
		}
		if (rootT !== null && isFinite(rootT))
			svg.append(sv('line', { class: 'rootline', x1: x(rootT), x2: x(rootT), y1: top - 4, y2: top + rows * H }));
		return { svg, rootT, nodes: nodes.length, hidden, silent };
	}

	async function jobPage(id, q) {
		const p = q.get('attempt') ? '?attempt=' + encodeURIComponent(q.get('attempt')) : '';
		const r = await api('/api/v1/jobs/' + encodeURIComponent(id) + p);
		const res = r.result, root = res.root_cause;
		const verdict = el('p', { class: 'verdict', id: 'verdict' }, [
			el('strong', { text: res.sub_domain || '?' }), ': ',
			root ? root.symptom + (root.node ? ' on ' + root.node : '') + (root.device ? ' (' + root.device + ')' : '')
				: 'no root cause',
			(res.culprit_nodes || []).length ? ' \u2014 culprit ' + res.culprit_nodes.join(', ') : '']);
		const evHolder = el('div', { id: 'evidence-holder', 'aria-live': 'polite' });
		const tl = timeline(res, s => evHolder.replaceChildren(evidenceBox(s.symptom + ' (' + s.code + ')', s, tl.rootT)));
		const head = el('h1', {}, ['Job ', el('span', { id: 'job-id', text: r.job_id }),
			r.attempt ? ' (attempt ' + r.attempt + ')' : '',
			res.job_name ? el('span', { class: 'muted', id: 'job-name', text: ' ' + res.job_name }) : null]);
		const facts = el('p', { class: 'muted', text: [res.user ? 'user ' + res.user : '', res.partition ? 'partition ' + res.partition : '',
			tl.nodes + ' nodes', res.terminal_state || '', res.start_time ? 'ran ' + utc(res.start_time) + ' \u2013 ' + utc(res.end_time) : ''].filter(Boolean).join(' \u00b7 ') });
		const legend = el('p', { class: 'legend' }, [['root', 'root cause'], ['downstream', 'downstream'], ['interesting', 'other'], ['set-aside', 'set aside']]
			.map(([c, t]) => el('span', {}, [el('i', { class: c }), t])));
		const down = (res.symptoms || []).filter(s => s.role === 'downstream' || s.set_aside)
			.sort((a, b) => Date.parse(a.first_time) - Date.parse(b.first_time));
		const dtable = el('table', { id: 'downstream' }, [el('thead', {}, [el('tr', {}, ['After the root', 'Node', 'Symptom', 'Lines'].map(h => el('th', { scope: 'col', text: h })))]),
			el('tbody', {}, down.map(s => el('tr', { class: s.set_aside ? 'set-aside' : '' }, [
				el('td', { class: 'num', text: tl.rootT !== null ? offset(Date.parse(s.first_time) - tl.rootT) : utc(s.first_time) }),
				el('td', { text: s.node || s.node_as_logged || '' }),
				el('td', {}, [el('a', { href: '#', text: s.symptom + (s.set_aside ? ' (set aside: ' + s.set_aside + ')' : ''),
					onclick: e => { e.preventDefault(); evHolder.replaceChildren(evidenceBox(s.symptom + ' (' + s.code + ')', s, tl.rootT)); } })]),
				el('td', { text: evidenceOf(s).map(e => e.file + ':' + e.line).join(', ') })])))]);
		const kids = [head, verdict];
		/* the admin's latest label, beside the verdict it judges */
		if (r.label) {
			const l = r.label;
			kids.push(el('p', { class: 'label', id: 'label' }, [el('strong', { text: l.confirm ? 'Confirmed' : 'Labelled ' + (l.sub_domain || '?') }),
				l.confirm ? '' : ' \u2014 culprit ' + ((l.culprit_nodes || []).length ? l.culprit_nodes.join(', ') : 'none') + (l.cause ? ', cause ' + l.cause : ''),
				' by ' + l.by + ', ' + utc(l.time) + (l.note ? ': ' + l.note : '')]));
		}
		kids.push(facts);
		if (res.explanation) kids.push(el('p', { text: res.explanation }));
		if (root) kids.push(evidenceBox('Root cause: ' + root.symptom + ' (' + root.code + ')',
			{ evidence: root.evidence, node: root.node, first_time: root.time }, null));
		kids.push(el('h2', { text: 'Timeline' }), legend, el('div', { class: 'timeline' }, [tl.svg]), evHolder);
		if (tl.silent.size) kids.push(el('p', { id: 'coverage', text: 'Sent nothing: ' + [...tl.silent].join(', ') }));
		kids.push(el('h2', { text: 'Downstream, in order' }), dtable);
		if (r.drains.length)
			kids.push(el('h2', { text: 'Drain decisions' }), el('ul', {}, r.drains.map(d =>
				el('li', { text: utc(d.time) + ' ' + d.node + ': ' + d.decision + ' by ' + d.by + ' \u2014 ' + d.reason }))));
		if ((r.findings || []).length)
			kids.push(el('h2', { text: 'Fleet findings' }), el('ul', {}, r.findings.map(f => el('li', { class: 'finding', text: utc(f.time) + ' ' + f.kind + ' ' + f.subject + ': ' + f.summary }))));
		if ((res.coverage || []).length)
			kids.push(el('h2', { text: 'Coverage' }), el('ul', {}, res.coverage.map(c => el('li', { text: c.source + ': ' + c.status + (c.detail ? ' \u2014 ' + c.detail : '') }))));
		show(...kids);
	}

	/* ---- Nodes ---- */
	function sparkline(days) {
		const max = Math.max(1, ...days), w = 3, H = 18;
		const s = sv('svg', { width: days.length * (w + 1), height: H, role: 'img', 'aria-label': 'faults per day, last ' + days.length + ' days' });
		days.forEach((n, i) => {
			const h = n ? Math.max(2, n / max * H) : 1;
			s.append(sv('rect', { class: n ? 'spark' : 'spark0', x: i * (w + 1), y: H - h, width: w, height: h }, [sv('title', { text: n + ' fault(s)' })]));
		});
		return s;
	}
	async function nodesPage(q) {
		const p = q.get('since') ? '?since=' + encodeURIComponent(q.get('since')) : '';
		const r = await api('/api/v1/nodes' + p);
		show(el('h1', { text: 'Nodes' }), el('p', { class: 'muted', id: 'count', text: r.nodes.length + ' nodes named by a diagnosis; faults: jobs the node was blamed for' }),
			el('table', {}, [el('thead', {}, [el('tr', {}, ['Node', 'Faults', 'Affected', 'Causes', 'Slurm state', 'Last', 'Faults per day (' + r.per_day_days + ' days)']
				.map(h => el('th', { scope: 'col', text: h })))]),
			el('tbody', { id: 'nodes' }, r.nodes.map(n => el('tr', { 'data-node': n.node }, [
				el('td', {}, [el('a', { href: '#/jobs?node=' + encodeURIComponent(n.node), text: n.node })]),
				el('td', { class: 'num', text: String(n.faults) }), el('td', { class: 'num', text: String(n.affected) }),
				el('td', { text: n.causes.map(c => c.cause + ' \u00d7' + c.count).join(', ') }),
				el('td', { text: n.state || '\u2014' }), el('td', { text: utc(n.last) }),
				el('td', {}, [sparkline(n.per_day)])])))]));
	}

	/* ---- Fleet ---- */
	function stacked(weeks, keys) {
		const W = 640, H = 200, L = 40, B = 20, bw = Math.max(6, Math.min(40, (W - L) / Math.max(1, weeks.length) - 4));
		const max = Math.max(1, ...weeks.map(w => keys.reduce((a, k) => a + (w.values[k] || 0), 0)));
		const step = Math.ceil(32 / (bw + 4));
		const s = sv('svg', { class: 'bars', width: W, height: H + B, role: 'img', 'aria-label': 'failed GPU-hours per week by sub-domain', id: 'weeks' });
		s.append(sv('text', { x: 0, y: 12, text: max.toFixed(0) + ' h' }));
		weeks.forEach((w, i) => {
			let y = H;
			keys.forEach((k, j) => {
				const v = w.values[k] || 0, h = v / max * (H - 16);
				if (!v) return;
				y -= h;
				s.append(sv('rect', { class: 'b' + (j % 8), x: L + i * (bw + 4), y, width: bw, height: h }, [sv('title', { text: w.week + ' ' + k + ': ' + v.toFixed(1) + ' GPU-h' })]));
			});
			if (i % step === 0) /* labels at least 32 px apart */
				s.append(sv('text', { x: L + i * (bw + 4), y: H + 14, text: String(w.week).slice(5) }));
		});
		return s;
	}
	/* how right attrib is by the admins' labels: a table by sub-domain and
	 * the weekly agreement */
	function ratio(x) {
		return x === null || x === undefined ? '\u2014' : (100 * x).toFixed(0) + '%';
	}
	function accuracyParts(a) {
		const head = ['Sub-domain', 'Jobs', 'Labelled', 'Sub-domain agrees', 'Culprits agree', 'False drains'];
		const row = (name, g) => el('tr', { 'data-group': name }, [el('td', { text: name }), el('td', { class: 'num', text: String(g.results) }),
			el('td', { class: 'num', text: String(g.labelled) }), el('td', { class: 'num', text: ratio(g.sub_domain_agreement) }),
			el('td', { class: 'num', text: ratio(g.culprit_agreement) }), el('td', { class: 'num', text: String(g.false_drains) })]);
		const table = el('table', { id: 'accuracy' }, [el('thead', {}, [el('tr', {}, head.map(h => el('th', { scope: 'col', text: h })))]),
			el('tbody', {}, [...(a.groups || []).map(g => row(g.sub_domain, g)), row('all', a)])]);
		const weeks = a.weeks || [], W = 640, H = 80, bw = Math.max(6, W / Math.max(1, weeks.length) - 4);
		const s = sv('svg', { class: 'bars', width: W, height: H + 20, role: 'img', 'aria-label': 'sub-domain agreement of the labelled jobs per week', id: 'accuracy-weeks' });
		weeks.forEach((w, i) => {
			const x = i * (bw + 4), v = w.sub_domain_agreement;
			if (v !== null && v !== undefined)
				s.append(sv('rect', { class: 'b0', x, y: H - v * H, width: bw, height: Math.max(1, v * H) }, [sv('title', { text: w.from.slice(0, 10) + ': ' + ratio(v) + ' of ' + w.labelled + ' labelled' })]));
			if (i % 2 === 0) s.append(sv('text', { x, y: H + 14, text: w.from.slice(5, 10) }));
		});
		return [el('h2', { text: 'How right attrib is, by the admins\u2019 labels' }),
			el('p', { class: 'muted', id: 'accuracy-total', text: a.labelled + ' of ' + a.results + ' diagnoses labelled; sub-domain agrees ' + ratio(a.sub_domain_agreement) + ', culprits ' + ratio(a.culprit_agreement) + ', ' + a.false_drains + ' false drains' }),
			table, el('h2', { text: 'Sub-domain agreement per week' }), s];
	}
	async function fleetPage(q) {
		const r = await api('/api/v1/report' + (q.get('since') ? '?since=' + encodeURIComponent(q.get('since')) : ''));
		const kids = [el('h1', { text: 'Fleet' })];
		const weeks = (r.weeks || []).map(w => ({ week: w.week, values: w.by_sub_domain || {} }));
		const keys = [...new Set(weeks.flatMap(w => Object.keys(w.values)))];
		kids.push(el('h2', { text: 'Failed GPU-hours per week, by sub-domain' }), stacked(weeks, keys),
			el('p', { class: 'legend' }, keys.map((k, j) => el('span', {}, [el('i', { class: 'b' + (j % 8) }), k]))));
		const list = (title, rows, id) => el('div', {}, [el('h2', { text: title }), el('table', { id }, [el('tbody', {}, (rows || []).slice(0, 15).map(x =>
			el('tr', {}, [el('td', { text: x.node || x.key || '' }), el('td', { class: 'num', text: Number(x.gpu_hours).toFixed(1) + ' GPU-h, ' + x.jobs + (x.jobs === 1 ? ' job' : ' jobs') })])))])]);
		kids.push(el('p', { id: 'fleet-total', text: Number(r.gpu_hours).toFixed(1) + ' GPU-hours lost by ' + r.jobs + ' failed jobs since ' + r.since + (r.unknown_gpus ? ' (' + r.unknown_gpus + ' without a GPU count)' : '') }));
		kids.push(el('div', { class: 'grid2' }, [list('Top causes', r.groups, 'top-causes'), list('Top nodes', r.top_nodes, 'top-nodes')]));
		kids.push(...accuracyParts(await api('/api/v1/accuracy' + (q.get('since') ? '?since=' + encodeURIComponent(q.get('since')) : ''))));
		show(...kids);
	}

	async function route() {
		const { path, q } = hashParams();
		const m = /^\/job\/(.+)$/.exec(path);
		for (const n of ['jobs', 'nodes', 'fleet'])
			document.getElementById('nav-' + n).toggleAttribute('aria-current', path === '/' + n || (n === 'jobs' && (!path || m)));
		document.querySelectorAll('nav a[aria-current]').forEach(a => a.setAttribute('aria-current', 'page'));
		try {
			if (m) await jobPage(decodeURIComponent(m[1]), q);
			else if (path === '/nodes') await nodesPage(q);
			else if (path === '/fleet') await fleetPage(q);
			else await jobsPage(q);
			document.body.setAttribute('data-ready', '1');
		} catch (e) {
			failed(e);
			document.body.setAttribute('data-ready', 'error');
		}
	}
	document.getElementById('tz').textContent = offsetText();
	window.addEventListener('hashchange', () => { document.body.removeAttribute('data-ready'); route(); main.focus(); });
	route();
})();
