#!/usr/bin/env node
/* probe.js — open a page written by `dcprof html` in headless Chromium
 * (Debian's /usr/bin/chromium, driven by playwright-core) and print, as one
 * JSON object, what a person would see and do there; the Python tests
 * (tests/e2e/test_cli_html.py) assert on it.
 *
 *   node probe.js PAGE.html [--sort COLUMN] [--click BUCKET] [--screenshot OUT.png]
 *
 * Records console errors, uncaught exceptions, dialogs (alert, ...) and any
 * request other than the page itself; reads the bucket table, sorts it by
 * COLUMN (one click: descending for numbers, two: ascending), clicks the
 * row of BUCKET and reads its details, and reads every plot's SVG.
 * Exit status 0 with the JSON on stdout, 1 with a message on stderr.
 */
'use strict';

const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules', 'playwright-core'));

const CHROMIUM = process.env.DCPROF_CHROMIUM || '/usr/bin/chromium';

function parseArgs(argv) {
	const a = { page: null, sort: null, click: null, screenshot: null };
	for (let i = 0; i < argv.length; i++) {
		const v = argv[i];
		if (v === '--sort') a.sort = argv[++i];
		else if (v === '--click') a.click = argv[++i];
		else if (v === '--screenshot') a.screenshot = argv[++i];
		else if (!a.page) a.page = v;
		else throw new Error('unexpected argument ' + v);
	}
	if (!a.page) throw new Error('usage: probe.js PAGE.html [--sort COL] [--click BUCKET] [--screenshot OUT]');
	return a;
}

async function bucketRows(page) {
	return page.$$eval('table.buckets tbody tr', trs => trs.map(tr => {
		const cells = Array.from(tr.children).map(td => td.textContent);
		return { row: Number(tr.getAttribute('data-row')), cells, selected: tr.classList.contains('selected') };
	}));
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const url = 'file://' + path.resolve(args.page);
	const out = { console_errors: [], page_errors: [], dialogs: [], requests: [] };
	/* The flags keep Chromium from calling home on a machine without a
	 * network (it would log failed connections). */
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		       '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	try {
		const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
		const page = await context.newPage();
		page.on('console', m => { if (m.type() === 'error') out.console_errors.push(m.text()); });
		page.on('pageerror', e => out.page_errors.push(String(e)));
		page.on('dialog', async d => { out.dialogs.push(d.type() + ': ' + d.message()); await d.dismiss(); });
		page.on('request', r => { if (r.url() !== url) out.requests.push(r.url()); });
		await page.goto(url, { waitUntil: 'load' });
		out.ready = await page.evaluate(() => document.body.getAttribute('data-ready') === '1');
		out.title = await page.title();
		out.sections = await page.$$eval('main section', ss => ss.map(s => s.id));
		out.nav = await page.$$eval('nav a', as => as.map(a => a.textContent));
		out.summary = await page.$eval('#summary', s => s.innerText);
		out.columns = await page.$$eval('table.buckets thead th', ths => ths.map(th => th.getAttribute('data-col')));
		out.rows = await bucketRows(page);
		out.detail_initial = await page.evaluate(() => {
			const d = document.getElementById('bucket-detail');
			return d ? d.getAttribute('data-bucket') : null;
		});
		if (args.screenshot) {
			/* The page as it opens: summary, plots, the top of the table. */
			const h = await page.evaluate(() => document.body.scrollHeight);
			await page.screenshot({ path: args.screenshot, fullPage: true,
						clip: { x: 0, y: 0, width: 1360, height: Math.min(h, 1640) } });
		}
		/* Scripts that the page would have run if a name had broken out. */
		out.script_count = await page.$$eval('script', s => s.length);
		out.injected = await page.evaluate(() => window.__dcprof_injected === true);

		if (args.sort) {
			const th = page.locator('table.buckets thead th[data-col="' + args.sort + '"]');
			await th.click();
			out.sort1 = { aria: await th.getAttribute('aria-sort'), rows: await bucketRows(page) };
			await th.click();
			out.sort2 = { aria: await th.getAttribute('aria-sort'), rows: await bucketRows(page) };
		}
		if (args.click !== null) {
			const rows = await bucketRows(page);
			const hit = rows.find(r => r.cells[0] === args.click);
			if (!hit) throw new Error('no bucket row named ' + JSON.stringify(args.click));
			await page.locator('table.buckets tbody tr[data-row="' + hit.row + '"]').click();
			out.detail = await page.evaluate(() => {
				const d = document.getElementById('bucket-detail');
				const read = sel => Array.from(d.querySelectorAll(sel + ' tbody tr')).map(
					tr => Array.from(tr.children).map(td => td.textContent));
				const head = sel => Array.from(d.querySelectorAll(sel + ' thead th')).map(
					th => th.getAttribute('data-col'));
				return {
					bucket: d.getAttribute('data-bucket'),
					title: d.querySelector('h3').textContent,
					function_cols: head('table.functions'),
					functions: read('table.functions'),
					line_cols: head('table.lines'),
					lines: read('table.lines'),
					plots: Array.from(d.querySelectorAll('figure.plot')).map(f => f.getAttribute('data-plot')),
				};
			});
			out.selected_rows = (await bucketRows(page)).filter(r => r.selected).map(r => r.cells[0]);
		}
		out.plots = await page.$$eval('figure.plot', fs => fs.map(f => ({
			name: f.getAttribute('data-plot'),
			caption: f.querySelector('figcaption').textContent,
			svgs: f.querySelectorAll('svg').length,
			rects: f.querySelectorAll('svg rect.datum').length,
			paths: f.querySelectorAll('svg path.datum').length,
			circles: f.querySelectorAll('svg circle.datum').length,
			values: Array.from(f.querySelectorAll('svg .datum')).map(e => Number(e.getAttribute('data-value'))),
			labels: Array.from(f.querySelectorAll('svg .datum')).map(e => e.getAttribute('data-label')),
		})));
		out.sources = await page.$$eval('#source .srcfile:not(.nosource)', fs => fs.map(f => ({
			file: f.getAttribute('data-file'),
			hot: Array.from(f.querySelectorAll('tr.hot')).map(tr => Number(tr.getAttribute('data-line'))),
			text: Array.from(f.querySelectorAll('tr[data-line]')).map(tr => [Number(tr.getAttribute('data-line')),
											 tr.querySelector('td.text').textContent]),
		})));
		out.missing_sources = await page.$$eval('#source tr.nosrc', trs => trs.map(tr => ({
			file: tr.getAttribute('data-file'), line: Number(tr.getAttribute('data-line')),
			why: tr.lastChild.textContent,
		})));
		/* Dialogs and errors from the clicks above are in by now. */
		await page.waitForTimeout(100);
	} finally {
		await browser.close();
	}
	process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch(e => { process.stderr.write('probe.js: ' + (e && e.stack || e) + '\n'); process.exit(1); });
