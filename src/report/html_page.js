/* html_page.js — draws dcprof's HTML report from the JSON document in
 * #dcprof-data (src/report/html_data.c; docs/cli.md, "dcprof html").
 *
 * Plain DOM and inline SVG, no library (docs/cli.md says why).  Names from
 * the program only ever become text nodes (textContent, createTextNode,
 * setAttribute): nothing here parses a string as HTML.
 *
 * Each plot is a <figure class="plot" data-plot="NAME"> whose SVG marks its
 * data with class "datum" and a data-value attribute; the browser tests
 * count and read them.
 */
(function () {
	'use strict';

	var D = JSON.parse(document.getElementById('dcprof-data').textContent);
	var SVGNS = 'http://www.w3.org/2000/svg';
	var app = document.getElementById('app');
	var nav = document.getElementById('nav');
	var COLORS = ['#2f6eae', '#d9822b', '#3a9a6b', '#8e5ea2', '#c94f4f', '#5f8fbf'];

	/* ---- helpers ------------------------------------------------------- */

	/* An HTML element: attrs set with setAttribute, children appended (a
	 * string becomes a text node). */
	function el(tag, attrs, children) {
		var e = document.createElement(tag);
		setAttrs(e, attrs);
		append(e, children);
		return e;
	}
	function svgEl(tag, attrs, parent) {
		var e = document.createElementNS(SVGNS, tag);
		setAttrs(e, attrs);
		if (parent)
			parent.appendChild(e);
		return e;
	}
	function setAttrs(e, attrs) {
		if (!attrs)
			return;
		Object.keys(attrs).forEach(function (k) {
			if (attrs[k] !== null && attrs[k] !== undefined)
				e.setAttribute(k, String(attrs[k]));
		});
	}
	function append(e, children) {
		if (children === null || children === undefined)
			return;
		if (!Array.isArray(children))
			children = [children];
		children.forEach(function (c) {
			if (c === null || c === undefined)
				return;
			e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
		});
	}
	function svgText(parent, x, y, text, attrs) {
		var t = svgEl('text', attrs, parent);
		t.setAttribute('x', x);
		t.setAttribute('y', y);
		t.textContent = text;
		return t;
	}
	function tip(parent, text) {
		svgEl('title', null, parent).textContent = text;
	}

	function fmtInt(v) {
		return v === null || v === undefined ? '-' : Math.round(v).toLocaleString('en-US');
	}
	function fmtReal(v, d) {
		return v === null || v === undefined || !isFinite(v) ? '-' : v.toFixed(d);
	}
	function fmtPct(v) {
		return fmtReal(v, 2);
	}
	function share(part, whole) {
		return whole ? 100 * part / whole : 0;
	}
	function fmtBytes(b) {
		var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], u = 0;
		if (b === null || b === undefined)
			return 'inf';
		while (b >= 1024 && u < units.length - 1 && b % 1024 === 0) {
			b /= 1024;
			u++;
		}
		if (b >= 1024 * 10 && u < units.length - 1) {
			while (b >= 1024 && u < units.length - 1) {
				b /= 1024;
				u++;
			}
			return b.toFixed(1) + ' ' + units[u];
		}
		return b + ' ' + units[u];
	}
	function fmtShort(v) {
		var a = Math.abs(v);
		if (a >= 1e9)
			return (v / 1e9).toFixed(a >= 1e10 ? 0 : 1) + 'G';
		if (a >= 1e6)
			return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + 'M';
		if (a >= 1e4)
			return (v / 1e3).toFixed(a >= 1e5 ? 0 : 1) + 'k';
		return String(Math.round(v * 100) / 100);
	}
	/* A long name shortened in its middle, for labels; the whole name goes
	 * in the label's tooltip. */
	function shorten(s, n) {
		if (s.length <= n)
			return s;
		var head = Math.ceil((n - 1) * 0.6);
		return s.slice(0, head) + '\u2026' + s.slice(s.length - (n - 1 - head));
	}
	/* Round numbers for an axis from 0 to max. */
	function ticks(max, n) {
		if (!(max > 0))
			return [0];
		var step = Math.pow(10, Math.floor(Math.log10(max / n)));
		var err = max / n / step;
		if (err >= 7.5)
			step *= 10;
		else if (err >= 3.5)
			step *= 5;
		else if (err >= 1.5)
			step *= 2;
		var out = [];
		for (var v = 0; v <= max * 1.0001; v += step)
			out.push(v);
		return out;
	}

	var sections = [];
	function section(id, title, intro) {
		var s = el('section', { id: id, 'class': 'card' }, el('h2', null, title));
		if (intro)
			s.appendChild(el('p', { 'class': 'intro' }, intro));
		app.appendChild(s);
		sections.push([id, title]);
		return s;
	}
	function figure(name, caption, sub) {
		var f = el('figure', { 'class': 'plot', 'data-plot': name },
			   el('figcaption', null, caption));
		if (sub)
			f.appendChild(el('div', { 'class': 'sub' }, sub));
		return f;
	}
	function newSvg(w, h, label) {
		return svgEl('svg', { viewBox: '0 0 ' + w + ' ' + h, width: w, height: h,
				      role: 'img', 'aria-label': label });
	}

	/* ---- plots --------------------------------------------------------- */

	/* Horizontal bars: items [{label, value, text, title}], value in
	 * [0, max]. */
	function hbars(items, max, opts) {
		opts = opts || {};
		var labelW = opts.labelW || 240, barW = opts.barW || 300, rowH = 22;
		var w = labelW + barW + 90, h = items.length * rowH + 8;
		var svg = newSvg(w, h, opts.label || 'bar chart');
		items.forEach(function (it, i) {
			var y = 4 + i * rowH, bw = max > 0 ? Math.max(1, barW * it.value / max) : 0;
			var g = svgEl('g', null, svg);
			var t = svgText(g, labelW - 8, y + 15, shorten(it.label, opts.maxChars || 32),
					{ 'text-anchor': 'end', 'class': it.mono ? 'mono' : null });
			tip(t, it.label);
			svgEl('rect', { x: labelW, y: y + 2, width: barW, height: rowH - 6,
					fill: '#f0f2f5', rx: 2 }, g);
			var r = svgEl('rect', { x: labelW, y: y + 2, width: bw, height: rowH - 6,
						rx: 2, fill: it.color || COLORS[0], 'class': 'datum',
						'data-value': it.value, 'data-label': it.label }, g);
			tip(r, it.title || (it.label + ': ' + it.text));
			svgText(g, labelW + bw + 6, y + 15, it.text, { 'class': 'value' });
		});
		return svg;
	}

	/* Vertical bars over a list of bins, with an optional last bar in
	 * another colour; marks: [{index, label}] drawn at a bar's left edge. */
	function columns(bars, opts) {
		var padL = 50, padR = 12, padT = 18, padB = 58, plotH = 190;
		var bw = Math.max(8, Math.min(34, Math.floor(640 / Math.max(bars.length, 1))));
		var w = padL + bars.length * bw + padR, h = padT + plotH + padB;
		var max = 0;
		bars.forEach(function (b) { max = Math.max(max, b.value); });
		var tk = ticks(max, 4), top = tk[tk.length - 1] || 1;
		var svg = newSvg(w, h, opts.label);
		var y = function (v) { return padT + plotH - plotH * v / top; };
		tk.forEach(function (v) {
			svgEl('line', { x1: padL, x2: w - padR, y1: y(v), y2: y(v), 'class': 'grid' }, svg);
			svgText(svg, padL - 6, y(v) + 4, opts.yfmt(v), { 'text-anchor': 'end', 'class': 'axis' });
		});
		var every = Math.ceil(bars.length / 16);
		bars.forEach(function (b, i) {
			var x = padL + i * bw, bh = Math.max(b.value > 0 ? 1 : 0, plotH * b.value / top);
			var r = svgEl('rect', { x: x + 1, y: padT + plotH - bh, width: bw - 2, height: bh,
						fill: b.color || COLORS[0], 'class': 'datum',
						'data-value': b.value, 'data-label': b.label }, svg);
			tip(r, b.title);
			if (i % every === 0 || b.always) {
				var tx = x + bw / 2, ty = padT + plotH + 10;
				svgText(svg, tx, ty, b.label, { 'class': 'axis', 'text-anchor': 'end',
								 transform: 'rotate(-45 ' + tx + ' ' + ty + ')' });
			}
		});
		svgEl('line', { x1: padL, x2: w - padR, y1: padT + plotH, y2: padT + plotH,
				'class': 'axisline' }, svg);
		(opts.marks || []).forEach(function (m) {
			var x = padL + m.index * bw;
			svgEl('line', { x1: x, x2: x, y1: padT - 6, y2: padT + plotH, 'class': 'mark' }, svg);
			svgText(svg, x + 3, padT - 8, m.label, { 'class': 'marklabel' });
		});
		return svg;
	}

	/* ---- summary plots ------------------------------------------------- */

	var B = D.buckets, rows = B.rows, details = D.details;

	function overview() {
		var s = section('overview', 'Where the latency goes',
				'MissLat is the modelled cycles of the accesses that missed L1 (docs/cli.md, ' +
				'"Columns"); each bar is a bucket\'s share of the program\'s.');
		var plots = el('div', { 'class': 'plots' });
		s.appendChild(plots);
		var items = [], rest = 0, shown = 0;
		rows.forEach(function (r) {
			if (r.MissLat > 0 && shown < 12) {
				items.push({ label: r.bucket, value: r.MissLatPct, mono: true,
					     text: fmtPct(r.MissLatPct) + ' %',
					     title: r.bucket + ' (' + r.kind + '): ' + fmtInt(r.MissLat) +
						    ' cycles, ' + fmtPct(r.MissLatPct) + ' %' });
				shown++;
			} else if (r.MissLat > 0) {
				rest += r.MissLatPct;
			}
		});
		if (rest > 0)
			items.push({ label: 'other buckets', value: rest, text: fmtPct(rest) + ' %',
				     color: '#9aa5b1' });
		if (items.length) {
			var f = figure('latency', 'Share of MissLat per bucket',
				       fmtInt(D.latency.miss) + ' cycles in L1 misses');
			f.appendChild(hbars(items, Math.max(items[0].value, rest),
					    { label: 'share of MissLat per bucket' }));
			plots.appendChild(f);
		}
		var lv = D.levels.map(function (l, k) {
			var hit = 100 - share(l.misses, l.accesses);
			return { label: l.name, value: hit, color: COLORS[k % COLORS.length],
				 text: fmtPct(hit) + ' % of ' + fmtInt(l.accesses),
				 title: l.name + ': ' + fmtInt(l.accesses - l.misses) + ' hits of ' +
					fmtInt(l.accesses) + ' accesses (' + fmtPct(hit) + ' %)' };
		});
		if (lv.length) {
			var g = figure('levels', 'Hit ratio per cache level',
				       'of the accesses that reach the level');
			g.appendChild(hbars(lv, 100, { labelW: 60, barW: 300, label: 'hit ratio per level' }));
			plots.appendChild(g);
		}
	}

	/* ---- bucket table and details -------------------------------------- */

	var cols = B.columns;
	var selected = -1;

	function cellText(c, v) {
		if (v === null || v === undefined)
			return '-';
		if (c.type === 'int')
			return fmtInt(v);
		if (c.type === 'pct' || c.type === 'real')
			return fmtReal(v, 2);
		return String(v);
	}

	/* A table of rows (objects) whose header sorts it; cols [{name,
	 * label, type, cell(row) -> node?}]. */
	function sortableTable(tcols, trows, opts) {
		var table = el('table', { 'class': 'data sortable ' + (opts.cls || '') });
		var thead = el('thead'), tbody = el('tbody'), hr = el('tr');
		var state = { col: opts.sortCol, dir: -1 };
		table.appendChild(thead);
		table.appendChild(tbody);
		thead.appendChild(hr);
		var ths = tcols.map(function (c, j) {
			var th = el('th', { 'class': c.type === 'str' ? null : 'num', 'data-col': c.name,
					    title: 'sort by ' + c.label }, [c.label, el('span', { 'class': 'arrow' })]);
			th.addEventListener('click', function () {
				if (state.col === j)
					state.dir = -state.dir;
				else
					state = { col: j, dir: c.type === 'str' ? 1 : -1 };
				draw();
			});
			hr.appendChild(th);
			return th;
		});
		function value(r, c) {
			var v = c.value ? c.value(r) : r[c.name];
			return v === null || v === undefined ? null : v;
		}
		function draw() {
			var order = trows.map(function (r, i) { return i; });
			if (state.col !== null && state.col !== undefined) {
				var c = tcols[state.col];
				order.sort(function (a, b) {
					var x = value(trows[a], c), y = value(trows[b], c);
					if (x === null || y === null)
						return x === y ? a - b : x === null ? 1 : -1;
					var d = c.type === 'str' ? (x < y ? -1 : x > y ? 1 : 0) : x - y;
					return d ? d * state.dir : a - b;
				});
			}
			ths.forEach(function (th, j) {
				if (j === state.col)
					th.setAttribute('aria-sort', state.dir > 0 ? 'ascending' : 'descending');
				else
					th.removeAttribute('aria-sort');
				th.lastChild.textContent = j === state.col ? (state.dir > 0 ? '\u25b2' : '\u25bc') : '';
			});
			while (tbody.firstChild)
				tbody.removeChild(tbody.firstChild);
			order.forEach(function (i) {
				var r = trows[i], tr = el('tr', { 'data-row': i });
				tcols.forEach(function (c) {
					var td = c.cell ? c.cell(r) : el('td', { 'class': c.type === 'str' ? null : 'num' },
									 cellText(c, value(r, c)));
					tr.appendChild(td);
				});
				if (opts.onRow)
					opts.onRow(tr, i);
				tbody.appendChild(tr);
			});
		}
		draw();
		return table;
	}

	function shareCell(pctValue, text) {
		var td = el('td', { 'class': 'num share' });
		var bar = el('div', { 'class': 'bar' });
		bar.style.width = Math.max(0, Math.min(100, pctValue || 0)) + '%';
		td.appendChild(bar);
		td.appendChild(el('span', null, text));
		return td;
	}

	function bucketSection() {
		var s = section('buckets', 'Buckets',
				'Every bucket of the profile (the rows of dcprof report).  Click a column ' +
				'header to sort by it, a row for the bucket\'s functions and lines.');
		if (!rows.length) {
			s.appendChild(el('p', { 'class': 'note' }, 'The profile has no data accesses.'));
			return;
		}
		var tcols = cols.map(function (c) {
			var tc = { name: c.name, label: c.label, type: c.type };
			if (c.name === 'bucket')
				tc.cell = function (r) { return el('td', { 'class': 'name' }, r.bucket); };
			else if (c.name === 'kind')
				tc.cell = function (r) { return el('td', null, el('span', { 'class': 'kind' }, r.kind)); };
			else if (c.name === 'MissLatPct')
				tc.cell = function (r) { return shareCell(r.MissLatPct, fmtPct(r.MissLatPct)); };
			return tc;
		});
		var sortCol = 0;
		tcols.forEach(function (c, j) { if (c.name === 'MissLat') sortCol = j; });
		var table = sortableTable(tcols, rows, {
			cls: 'buckets', sortCol: sortCol,
			onRow: function (tr, i) {
				tr.setAttribute('tabindex', '0');
				if (i === selected)
					tr.classList.add('selected');
				tr.addEventListener('click', function () { select(i); });
				tr.addEventListener('keydown', function (ev) {
					if (ev.key === 'Enter' || ev.key === ' ') {
						ev.preventDefault();
						select(i);
					}
				});
			}
		});
		s.appendChild(el('div', { 'class': 'tablewrap' }, table));
		s.appendChild(el('div', { id: 'bucket-detail', 'aria-live': 'polite' }));
		select(0);
	}

	function missCols() {
		return cols.filter(function (c) { return /^D(\d|L)m[rw]$/.test(c.name); });
	}

	/* Columns of a bucket's functions or lines: keys, then MissLat, its
	 * share of the bucket's, Lat and the misses per level (read and write
	 * summed). */
	function detailCols(bucketMissLat, keys) {
		var out = keys.slice();
		out.push({ name: 'MissLat', label: 'MissLat', type: 'int' });
		out.push({ name: 'share', label: '% of bucket', type: 'pct',
			   value: function (r) { return share(r.MissLat, bucketMissLat); },
			   cell: function (r) {
				   var v = share(r.MissLat, bucketMissLat);
				   return shareCell(v, fmtPct(v));
			   } });
		out.push({ name: 'Lat', label: 'Lat', type: 'int' });
		var mc = missCols();
		for (var k = 0; k + 1 < mc.length; k += 2) {
			(function (r, w) {
				var name = r.replace(/r$/, '');
				out.push({ name: name, label: name + ' (r+w)', type: 'int',
					   value: function (x) { return x[r] + x[w]; } });
			})(mc[k].name, mc[k + 1].name);
		}
		return out;
	}

	function sourceOf(file, line) {
		var src = sourceMap[file];
		if (!src || !src.lines)
			return null;
		var t = src.lines[String(line)];
		return t === undefined ? null : t;
	}

	function select(i) {
		var box = document.getElementById('bucket-detail');
		var r = rows[i], d = details[i];
		selected = i;
		Array.prototype.forEach.call(document.querySelectorAll('table.buckets tbody tr'), function (tr) {
			tr.classList.toggle('selected', Number(tr.getAttribute('data-row')) === i);
		});
		while (box.firstChild)
			box.removeChild(box.firstChild);
		box.setAttribute('data-bucket', r.bucket);
		box.appendChild(el('h3', null, ['bucket ', el('span', { 'class': 'bname' }, r.bucket), ' ',
						el('span', { 'class': 'kind' }, r.kind)]));
		var d1 = missCols();
		var l1 = d1.length ? r[d1[0].name] + r[d1[1].name] : 0;
		box.appendChild(el('p', { 'class': 'note' },
				   fmtInt(r.MissLat) + ' cycles in L1 misses (' + fmtPct(r.MissLatPct) +
				   ' % of the program\'s), ' + fmtInt(r.Dr + r.Dw) + ' accesses, ' +
				   fmtInt(l1) + ' L1 misses' +
				   (r.LatPerMiss !== null ? ', ' + fmtReal(r.LatPerMiss, 1) + ' cycles per miss' : '')));
		var grid = el('div', { 'class': 'detail-grid' });
		box.appendChild(grid);

		var fcol = el('div');
		fcol.appendChild(el('h4', null, 'Functions'));
		fcol.appendChild(countNote(d.functions.length, d.functions_total, 'functions'));
		fcol.appendChild(el('div', { 'class': 'tablewrap' }, sortableTable(detailCols(r.MissLat, [
			{ name: 'function', label: 'function', type: 'str',
			  cell: function (x) { return el('td', { 'class': 'mono' }, x.function || '??'); } },
			{ name: 'file', label: 'file', type: 'str',
			  cell: function (x) { return el('td', { 'class': 'mono' }, x.file || '??'); } }
		]), d.functions, { cls: 'functions', sortCol: 2 })));
		grid.appendChild(fcol);

		var lcol = el('div');
		lcol.appendChild(el('h4', null, 'Lines'));
		lcol.appendChild(countNote(d.lines.length, d.lines_total, 'lines'));
		var lc = detailCols(r.MissLat, [
			{ name: 'location', label: 'file:line', type: 'str',
			  value: function (x) { return (x.file || '??') + ':' + String(1e9 + x.line); },
			  cell: function (x) {
				  return el('td', { 'class': 'mono' },
					    x.file ? x.file + ':' + (x.line === null ? '?' : x.line) : '??');
			  } },
			{ name: 'function', label: 'function', type: 'str',
			  cell: function (x) { return el('td', { 'class': 'mono' }, x.function || '??'); } }
		]);
		lc.push({ name: 'source', label: 'source', type: 'str',
			  value: function (x) { return sourceOf(x.file, x.line); },
			  cell: function (x) {
				  var t = sourceOf(x.file, x.line);
				  return el('td', { 'class': 'code', title: t === null ? null : t.trim() },
					    t === null ? '' : t.trim());
			  } });
		lcol.appendChild(el('div', { 'class': 'tablewrap' },
				    sortableTable(lc, d.lines, { cls: 'lines', sortCol: 2 })));
		grid.appendChild(lcol);

		if (d.fields)
			box.appendChild(fieldsTable(d.fields));
		var rh = D.reuse && D.reuse.buckets[String(i)];
		if (rh) {
			var f = figure('bucket-reuse', 'Reuse distances of this bucket',
				       reuseSub(rh));
			f.appendChild(reuseColumns(rh, 'reuse histogram of the bucket'));
			box.appendChild(f);
		}
	}

	function countNote(shown, total, what) {
		return el('p', { 'class': 'note' }, shown < total ?
			  'the ' + shown + ' with the most MissLat of ' + total + ' ' + what +
			  ' (dcprof html --top N shows more)' : total + ' ' + what);
	}

	/* A bucket's field view (report --by field): heat bars, one strip per
	 * measure, each field a rect as wide as its bytes and as dark as its
	 * share; then the rows.  {why} when no type is known. */
	function fieldsTable(f) {
		var wrap = el('div', { 'class': 'fields' }, el('h4', null, 'Fields'));
		if (f.why) {
			wrap.appendChild(el('p', { 'class': 'note' }, f.why));
			return wrap;
		}
		wrap.appendChild(el('p', { 'class': 'note' }, f.summary + ' (' + f.type + ', ' +
				    f.size + ' bytes; ' + fmtInt(f.counted) + ' accesses by offset, ' +
				    fmtInt(f.beyond) + ' beyond)'));
		var placed = f.rows.filter(function (r) { return r.offset !== null; });
		var utot = 0, hasU = f.rows.length && 'Unused1' in f.rows[0];
		f.rows.forEach(function (r) { if (r.field !== '(beyond)') utot += r.Unused1 || 0; });
		var strips = [{ label: 'L1 misses', value: function (r) { return r.MissPct || 0; } }];
		if (hasU)
			strips.push({ label: 'L1 unused bytes', value: function (r) {
				return utot ? 100 * (r.Unused1 || 0) / utot : 0; } });
		var labelW = 130, barW = 560, rowH = 30, size = f.size || 1;
		var svg = newSvg(labelW + barW + 10, strips.length * rowH + 24, 'field heat bars');
		strips.forEach(function (st, si) {
			var y = 4 + si * rowH;
			svgText(svg, labelW - 8, y + 18, st.label, { 'text-anchor': 'end' });
			placed.forEach(function (r) {
				var v = st.value(r), x = labelW + barW * r.offset / size;
				var w = Math.max(1, barW * r.size / size - 1);
				var rect = svgEl('rect', { x: x, y: y + 2, width: w, height: rowH - 6,
							   fill: heat(v), stroke: '#9aa5b1', 'stroke-width': 0.5,
							   'class': 'datum', 'data-value': v,
							   'data-label': st.label + ': ' + r.field }, svg);
				tip(rect, r.field + ' (offset ' + r.offset + ', ' + r.size + ' bytes): ' +
				    v.toFixed(2) + ' % of ' + st.label + (r.note ? '; ' + r.note : ''));
			});
		});
		placed.forEach(function (r) {
			var w = barW * r.size / size;
			if (w >= 36)
				svgText(svg, labelW + barW * r.offset / size + w / 2, strips.length * rowH + 16,
					shorten(r.field, Math.floor(w / 7)), { 'text-anchor': 'middle', 'class': 'axis' });
		});
		var fig = figure('field-heat', 'Fields of ' + f.type + ': share of L1 misses' +
				 (hasU ? ' and of L1 unused bytes' : '') + ' (darker: more)');
		fig.appendChild(svg);
		wrap.appendChild(fig);
		if (!f.rows.length)
			return wrap;
		var keys = Object.keys(f.rows[0]);
		wrap.appendChild(sortableTable(keys.map(function (k) {
			return { name: k, label: k, type: typeof f.rows[0][k] === 'number' ? 'int' : 'str' };
		}), f.rows, { cls: 'fields', sortCol: null }));
		return wrap;
	}

	/* 0 % white to 100 % deep red. */
	function heat(v) {
		var t = Math.max(0, Math.min(1, v / 100));
		return 'rgb(' + Math.round(255 - 55 * t) + ',' + Math.round(250 - 210 * t) + ',' +
			Math.round(245 - 205 * t) + ')';
	}

	/* ---- annotated source ---------------------------------------------- */

	var sourceMap = {};
	(D.sources || []).forEach(function (s) { sourceMap[s.file] = s; });

	function sourceSection() {
		var hot = D.hot || [];
		if (!hot.length)
			return;
		var total = D.latency.miss;
		var s = section('source', 'Hot source lines',
				'The ' + hot.length + ' source lines with the most MissLat, all buckets ' +
				'together, with the code around them as it was when the page was made.');
		var byFile = {}, files = [];
		hot.forEach(function (h) {
			var key = h.file;
			if (!byFile[key]) {
				byFile[key] = { file: h.file, misslat: 0, lines: {} };
				files.push(byFile[key]);
			}
			var f = byFile[key];
			f.misslat += h.MissLat;
			var ln = f.lines[h.line] || (f.lines[h.line] = { MissLat: 0, d1: 0, fns: [] });
			ln.MissLat += h.MissLat;
			ln.d1 += (h.D1mr || 0) + (h.D1mw || 0);
			if (ln.fns.indexOf(h.function) < 0)
				ln.fns.push(h.function);
		});
		files.sort(function (a, b) { return b.misslat - a.misslat; });
		var missing = [];
		files.forEach(function (f) {
			var src = sourceMap[f.file];
			if (!f.file || !src || src.error)
				missing.push(f);
			else
				s.appendChild(sourceFile(f, src, total));
		});
		if (missing.length)
			s.appendChild(missingSources(missing, total));
	}

	/* One file's hot lines with D.context lines around them. */
	function sourceFile(f, src, total) {
		var box = el('div', { 'class': 'srcfile', 'data-file': f.file });
		box.appendChild(el('div', null, [el('span', { 'class': 'fname' }, f.file),
						 el('span', { 'class': 'path' }, src.path),
						 el('span', { 'class': 'path' },
						    fmtPct(share(f.misslat, total)) + ' % of MissLat')]));
		var nums = Object.keys(f.lines).map(Number).sort(function (a, b) { return a - b; });
		var ctx = D.context || 0, shown = {}, list = [];
		nums.forEach(function (n) {
			for (var k = n - ctx; k <= n + ctx; k++)
				if (k > 0 && !shown[k] && (k === n || src.lines[String(k)] !== undefined)) {
					shown[k] = true;
					list.push(k);
				}
		});
		list.sort(function (a, b) { return a - b; });
		var table = el('table', { 'class': 'src' });
		table.appendChild(el('thead', null, el('tr', null, [
			el('th', { 'class': 'num' }, 'MissLat'), el('th', { 'class': 'num' }, '%'),
			el('th', { 'class': 'num' }, 'line'), el('th', null, 'source')])));
		var body = el('tbody');
		table.appendChild(body);
		list.forEach(function (k, idx) {
			if (idx > 0 && k > list[idx - 1] + 1)
				body.appendChild(el('tr', { 'class': 'gap' }, el('td', { colspan: 4 }, '\u22ef')));
			var h = f.lines[k], text = src.lines[String(k)];
			var tr = el('tr', { 'data-line': k, 'class': h ? 'hot' : null });
			tr.appendChild(el('td', { 'class': 'cost' }, h ? fmtInt(h.MissLat) : ''));
			tr.appendChild(el('td', { 'class': 'cost' }, h ? fmtPct(share(h.MissLat, total)) : ''));
			tr.appendChild(el('td', { 'class': 'ln' }, String(k)));
			var td = el('td', { 'class': 'text' });
			if (text !== undefined)
				td.textContent = text;
			else if (src.nlines !== null && k > src.nlines)
				td.appendChild(el('span', { 'class': 'missing' },
						  'line ' + k + ' is beyond the end of the file (' + src.nlines +
						  ' lines): the file changed since the run'));
			if (h) {
				var heat = Math.min(1, share(h.MissLat, total) / 20);
				tr.style.background = 'rgba(217, 130, 43, ' + (0.08 + 0.4 * heat).toFixed(3) + ')';
				tr.setAttribute('title', h.fns.join(', ') + ': ' + fmtInt(h.MissLat) +
						' cycles, ' + fmtInt(h.d1) + ' L1 misses');
			}
			tr.appendChild(td);
			body.appendChild(tr);
		});
		box.appendChild(table);
		return box;
	}

	/* Hot lines whose file could not be read, in one table. */
	function missingSources(files, total) {
		var box = el('div', { 'class': 'srcfile nosource' },
			     el('h4', null, 'Hot lines without source'));
		var dirs = (D.source_dirs || []).concat(['.']).map(function (d) { return "'" + d + "'"; });
		box.appendChild(el('p', { 'class': 'note' }, 'Sources were looked for in ' + dirs.join(', ') +
				   ' when the page was made; dcprof html --source-dir DIR looks elsewhere.'));
		var table = el('table', { 'class': 'data' });
		table.appendChild(el('thead', null, el('tr', null, [
			el('th', null, 'file:line'), el('th', null, 'function'), el('th', { 'class': 'num' }, 'MissLat'),
			el('th', { 'class': 'num' }, '%'), el('th', null, 'why no source')])));
		var body = el('tbody');
		table.appendChild(body);
		files.forEach(function (f) {
			var src = sourceMap[f.file];
			var why = !f.file ? 'the debug information names no file' : src ? src.error : 'not read';
			/* The search path is said once, above the table. */
			why = why.replace(/^not found in .*/, 'not found');
			Object.keys(f.lines).map(Number).sort(function (a, b) { return a - b; }).forEach(function (k, i) {
				var h = f.lines[k];
				body.appendChild(el('tr', { 'class': 'nosrc', 'data-file': f.file, 'data-line': k }, [
					el('td', { 'class': 'mono' }, (f.file || '??') + ':' + k),
					el('td', { 'class': 'mono' }, h.fns.join(', ')),
					el('td', { 'class': 'num' }, fmtInt(h.MissLat)),
					el('td', { 'class': 'num' }, fmtPct(share(h.MissLat, total))),
					el('td', { 'class': 'missing' }, i ? '' : why)]));
			});
		});
		box.appendChild(table);
		return box;
	}

	/* ---- reuse ------------------------------------------------------------ */

	function reuseSub(h) {
		var total = h.reuses + h.first;
		return fmtInt(total) + ' accesses: ' + fmtInt(h.reuses) + ' reuses, ' + fmtInt(h.first) +
			(D.reuse.source === 'sampled' ? ' never reused (estimates)' : ' first touches');
	}

	function binLabel(lo) {
		return D.reuse.kind === 'stack' ? fmtBytes(lo * D.reuse.block) : fmtShort(lo);
	}

	function reuseColumns(h, label) {
		var total = h.reuses + h.first, R = D.reuse;
		var unit = R.kind === 'stack' ? ' blocks' : ' accesses';
		var bars = h.bins.map(function (b) {
			var v = share(b[2], total);
			return { value: v, label: binLabel(b[0]),
				 title: '[' + fmtInt(b[0]) + ', ' + (b[1] === null ? 'inf' : fmtInt(b[1])) + ')' + unit +
					(R.kind === 'stack' ? ' = [' + fmtBytes(b[0] * R.block) + ', ' +
					 (b[1] === null ? 'inf' : fmtBytes(b[1] * R.block)) + ')' : '') +
					': ' + fmtInt(b[2]) + ' (' + fmtPct(v) + ' %)' };
		});
		bars.push({ value: share(h.first, total), label: R.source === 'sampled' ? 'no reuse' : 'first',
			    color: COLORS[1], always: true,
			    title: (R.source === 'sampled' ? 'never reused: ' : 'first touches: ') +
				   fmtInt(h.first) + ' (' + fmtPct(share(h.first, total)) + ' %)' });
		var marks = [];
		if (R.kind === 'stack') {
			D.levels.forEach(function (l) {
				var blocks = l.size / R.block;
				for (var i = 0; i < h.bins.length; i++) {
					if (h.bins[i][0] >= blocks) {
						marks.push({ index: i, label: l.name });
						return;
					}
				}
			});
		}
		return columns(bars, { label: label, marks: marks,
				       yfmt: function (v) { return fmtShort(v) + ' %'; } });
	}

	/* The miss-ratio curve: x = cache size (log2), y = miss ratio; the
	 * simulated caches' own miss ratios (of all accesses) as diamonds. */
	function mrcPlot(m, total) {
		var padL = 50, padR = 20, padT = 20, padB = 44, pw = 560, ph = 220;
		var w = padL + pw + padR, h = padT + ph + padB, R = D.reuse;
		var svg = newSvg(w, h, 'miss-ratio curve');
		var lo = Math.log2(m[0][0]), hi = Math.log2(m[m.length - 1][0]);
		D.levels.forEach(function (l) { hi = Math.max(hi, Math.log2(l.size / R.block)); });
		if (hi <= lo)
			hi = lo + 1;
		var x = function (blocks) { return padL + pw * (Math.log2(blocks) - lo) / (hi - lo); };
		var y = function (r) { return padT + ph - ph * r; };
		[0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
			svgEl('line', { x1: padL, x2: padL + pw, y1: y(v), y2: y(v), 'class': 'grid' }, svg);
			svgText(svg, padL - 6, y(v) + 4, (v * 100) + ' %', { 'text-anchor': 'end', 'class': 'axis' });
		});
		var step = Math.max(1, Math.ceil((hi - lo) / 10));
		for (var e = Math.ceil(lo); e <= hi; e += step)
			svgText(svg, x(Math.pow(2, e)), padT + ph + 16, fmtBytes(Math.pow(2, e) * R.block),
				{ 'text-anchor': 'middle', 'class': 'axis' });
		svgText(svg, padL + pw / 2, h - 6, 'fully-associative LRU cache size', { 'text-anchor': 'middle', 'class': 'axis' });
		svgEl('line', { x1: padL, x2: padL + pw, y1: y(0), y2: y(0), 'class': 'axisline' }, svg);
		var d = m.map(function (p, i) {
			return (i ? 'L' : 'M') + x(p[0]).toFixed(1) + ' ' + y(p[1] / total).toFixed(1);
		}).join(' ');
		svgEl('path', { d: d, fill: 'none', stroke: COLORS[0], 'stroke-width': 2, 'class': 'datum',
				'data-value': m.length }, svg);
		m.forEach(function (p) {
			var c = svgEl('circle', { cx: x(p[0]), cy: y(p[1] / total), r: 3.5, fill: p[2] ? COLORS[0] : '#fff',
						  stroke: COLORS[0], 'class': 'datum', 'data-value': p[1] }, svg);
			tip(c, fmtBytes(p[0] * R.block) + ' (' + fmtInt(p[0]) + ' blocks): ' + fmtInt(p[1]) +
			    ' misses, ' + fmtPct(share(p[1], total)) + ' %' + (p[2] ? '' : ' (lower bound)'));
		});
		var acc0 = D.levels.length ? D.levels[0].accesses : 0;
		D.levels.forEach(function (l) {
			var b = l.size / R.block, px = x(b), py = y(acc0 ? l.misses / acc0 : 0);
			svgEl('line', { x1: px, x2: px, y1: padT, y2: padT + ph, 'class': 'mark' }, svg);
			svgText(svg, px + 4, padT + 10, l.name + ' ' + fmtBytes(l.size), { 'class': 'marklabel' });
			var dm = svgEl('path', { d: 'M' + px + ' ' + (py - 6) + ' l6 6 l-6 6 l-6 -6 z',
						 fill: COLORS[1] }, svg);
			tip(dm, l.name + ' as simulated (' + l.assoc + '-way): ' + fmtInt(l.misses) + ' misses, ' +
			    fmtPct(share(l.misses, acc0)) + ' % of all accesses');
		});
		return svg;
	}

	function reuseSection() {
		var R = D.reuse;
		if (!R)
			return;
		var s = section('reuse', 'Reuse distances',
				R.kind === 'stack' ?
				'Stack distance: the distinct other blocks (' + R.block + ' bytes) touched between two ' +
				'accesses to a block (Wang, Liu, Chabbi, Featherlight Reuse-distance Measurement, \u00a7II; dcprof reuse).  An access hits a ' +
				'fully-associative LRU cache larger than its distance.' :
				'Time distances measured by sampling with watchpoints (RDX; dcprof reuse --sampled): ' +
				'estimates.');
		var plots = el('div', { 'class': 'plots' });
		s.appendChild(plots);
		var f = figure('reuse', 'Reuse histogram, whole program (' + R.source + ', ' + R.kind + ')',
			       reuseSub(R.hist) + '; dashed: the cache sizes');
		f.appendChild(reuseColumns(R.hist, 'reuse histogram'));
		plots.appendChild(f);
		if (R.mrc && R.mrc.length) {
			var g = figure('mrc', 'Miss-ratio curve',
				       'misses of a fully-associative LRU cache by size (dcprof mrc); diamonds: ' +
				       'the simulated caches');
			g.appendChild(mrcPlot(R.mrc, R.hist.reuses + R.hist.first));
			plots.appendChild(g);
		}
	}

	/* ---- evictions -------------------------------------------------------- */

	function heatColor(v) {
		/* white to the accent blue, by share 0..100 */
		var t = Math.sqrt(Math.max(0, Math.min(1, v / 100)));
		var c0 = [247, 250, 253], c1 = [31, 84, 145];
		return 'rgb(' + c0.map(function (a, i) { return Math.round(a + (c1[i] - a) * t); }).join(',') + ')';
	}

	function heatmap(ev) {
		var n = ev.victims.length, cell = 58, labelW = 190, top = 120;
		var w = labelW + n * cell + 10, h = top + (n + 1) * 26 + 30;
		var svg = newSvg(w, h, 'eviction matrix ' + ev.name);
		ev.victims.forEach(function (v, j) {
			var tx = labelW + j * cell + cell / 2, ty = top - 8;
			var t = svgText(svg, tx, ty, shorten(v.bucket, 22), { transform: 'rotate(-35 ' + tx + ' ' + ty + ')' });
			tip(t, v.bucket + ' (' + v.kind + '): ' + fmtInt(v.misses) + ' misses, ' +
			    fmtInt(v.evictions) + ' evictions');
		});
		ev.counts.forEach(function (row, i) {
			var y = top + i * 26, name = i < n ? ev.victims[i].bucket : 'other buckets';
			var t = svgText(svg, labelW - 8, y + 17, shorten(name, 28), { 'text-anchor': 'end' });
			tip(t, name);
			row.forEach(function (c, j) {
				var tot = ev.victims[j].evictions, v = tot ? 100 * c / tot : 0;
				var r = svgEl('rect', { x: labelW + j * cell + 1, y: y + 1, width: cell - 2, height: 24,
							fill: tot ? heatColor(v) : '#eee', 'class': 'datum', 'data-value': c,
							'data-evictor': name, 'data-victim': ev.victims[j].bucket }, svg);
				tip(r, name + ' evicted ' + ev.victims[j].bucket + ': ' + fmtInt(c) + ' of ' + fmtInt(tot) +
				    ' evictions (' + fmtPct(v) + ' %)');
				if (tot && v >= 0.05)
					svgText(svg, labelW + j * cell + cell / 2, y + 17, v >= 99.95 ? '100' : v.toFixed(1),
						{ 'text-anchor': 'middle', fill: v > 40 ? '#fff' : '#1f2933' });
			});
		});
		svgText(svg, labelW - 8, top - 8, 'evicted by \u2193 / victim \u2192', { 'text-anchor': 'end', 'class': 'axis' });
		return svg;
	}

	function evictionSection() {
		var E = D.evictions;
		if (!E)
			return;
		var s = section('evictions', 'Who evicts whom',
				'The eviction matrix (Buck, Data Centric Cache Measurement Using Hardware and Software Instrumentation, ch. 5; dcprof evictions): for the buckets ' +
				'with the most misses at a level, the share of each column\'s evictions made by ' +
				'accesses to each row\'s bucket.  Each column sums to 100 %.');
		var plots = el('div', { 'class': 'plots' });
		s.appendChild(plots);
		E.forEach(function (ev) {
			if (!ev.victims.length)
				return;
			var sub = ev.fill ? fmtInt(ev.fill.fills) + ' lines filled, ' + fmtInt(ev.fill.evictions) +
				' evictions' : '';
			var f = figure('evictions-L' + ev.level, ev.name + ': evictions, % of the victim\'s', sub);
			f.appendChild(heatmap(ev));
			plots.appendChild(f);
		});
	}

	/* ---- footprint -------------------------------------------------------- */

	function footprintSection() {
		var F = D.footprint;
		if (!F || !F.windows.length)
			return;
		var s = section('footprint', 'Footprint over time',
				'From the sampled trace (M\u00e1rquez et al., MemGaze, \u00a74; dcprof footprint): each window\'s ' +
				'distinct ' + F.block + '-byte blocks, scaled to its period, split into strided ' +
				'(F_str) and irregular (F_irr) by the class of their first access.');
		var padL = 60, padR = 16, padT = 14, padB = 44, pw = 760, ph = 200;
		var w = padL + pw + padR, h = padT + ph + padB;
		var end = 0, max = 0;
		F.windows.forEach(function (x) {
			end = Math.max(end, x[0] + x[1]);
			max = Math.max(max, (x[4] || 0) + (x[5] || 0));
		});
		var tk = ticks(max, 4), topv = tk[tk.length - 1] || 1;
		var svg = newSvg(w, h, 'footprint over time');
		var X = function (t) { return padL + pw * t / (end || 1); };
		var Y = function (v) { return padT + ph - ph * v / topv; };
		tk.forEach(function (v) {
			svgEl('line', { x1: padL, x2: padL + pw, y1: Y(v), y2: Y(v), 'class': 'grid' }, svg);
			svgText(svg, padL - 6, Y(v) + 4, fmtShort(v), { 'text-anchor': 'end', 'class': 'axis' });
		});
		ticks(end, 6).forEach(function (t) {
			svgText(svg, X(t), padT + ph + 16, fmtShort(t), { 'text-anchor': 'middle', 'class': 'axis' });
		});
		svgText(svg, padL + pw / 2, h - 6, 'time (records of the trace)', { 'text-anchor': 'middle', 'class': 'axis' });
		F.windows.forEach(function (x, i) {
			var x0 = X(x[0]), bw = Math.max(2, X(x[0] + x[1]) - x0 - 1), base = 0;
			[[x[4], COLORS[0], 'F_str'], [x[5], COLORS[1], 'F_irr']].forEach(function (part) {
				var v = part[0] || 0;
				if (!(v > 0))
					return;
				var r = svgEl('rect', { x: x0, y: Y(base + v), width: bw, height: Y(base) - Y(base + v),
							fill: part[1], 'class': 'datum', 'data-value': v,
							'data-window': i }, svg);
				tip(r, 'window ' + i + ' (accesses ' + fmtInt(x[0]) + ' to ' + fmtInt(x[0] + x[1]) +
				    '): ' + part[2] + ' ' + fmtInt(v) + ' blocks, F ' + fmtInt(x[3]));
				base += v;
			});
		});
		svgEl('line', { x1: padL, x2: padL + pw, y1: Y(0), y2: Y(0), 'class': 'axisline' }, svg);
		var f = figure('footprint', 'Footprint per window period (estimated distinct blocks)',
			       F.windows.length + ' windows of ' + fmtInt(F.w) + ' records; the run: F ' +
			       fmtInt(F.F) + ' blocks, growth dF ' + fmtReal(F.dF, 3) + ' per access');
		f.appendChild(svg);
		f.appendChild(el('div', { 'class': 'legend' }, [
			el('span', { 'class': 'sw', style: 'background:' + COLORS[0] }), 'F_str (strided)',
			el('span', { 'class': 'sw', style: 'background:' + COLORS[1] }), 'F_irr (irregular)']));
		s.appendChild(f);
	}

	/* ---- the page --------------------------------------------------------- */

	overview();
	bucketSection();
	sourceSection();
	reuseSection();
	evictionSection();
	footprintSection();

	sections.unshift(['summary', 'Summary']);
	sections.forEach(function (s) {
		nav.appendChild(el('a', { href: '#' + s[0] }, s[1]));
	});
	document.body.appendChild(el('footer', null,
		'dcprof ' + D.dcprof_version + ' \u00b7 profile ' + D.profile + ' (schema ' + D.schema_version + ')'));
	document.body.setAttribute('data-ready', '1');
})();
