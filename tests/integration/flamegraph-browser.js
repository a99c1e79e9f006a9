// SPDX-License-Identifier: MIT
// Drives a flame graph SVG of preport in Chromium through playwright-core; used by
// run-preport-flamegraph-browser.sh:
//   node flamegraph-browser.js MODULES SVG CLICK SEARCH SAMPLES [SHOT]
// MODULES: a node_modules directory with playwright-core; CLICK: the name of a frame to click;
// SEARCH: a regular expression to search for, SAMPLES: the samples --folded gives the stacks
// it matches; SHOT: a PNG to write.  Chromium is /usr/bin/chromium unless $CHROMIUM says.
// Prints "ok: ..." or "FAIL: ..." per check; exits 1 when one failed, 2 when the browser
// could not be driven at all.
'use strict';
const path = require('path');
const [modules, svg, clickName, term, wantSamples, shot] = process.argv.slice(2);
const { chromium } = require(path.join(path.resolve(modules), 'playwright-core'));

let failed = 0;
function check(cond, msg) {
	console.log((cond ? 'ok: ' : 'FAIL: ') + msg);
	if (!cond)
		failed++;
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox'],
	});
	const page = await browser.newPage({ viewport: { width: 1240, height: 800 } });
	const errors = [], requests = [];
	page.on('pageerror', (e) => errors.push('page error: ' + e.message));
	page.on('console', (m) => {
		if (m.type() === 'error')
			errors.push('console error: ' + m.text());
	});
	page.on('request', (r) => requests.push(r.url()));
	const url = 'file://' + path.resolve(svg);
	const t0 = Date.now();
	await page.goto(url);
	await page.waitForSelector('#f0', { state: 'attached' });
	const loaded = Date.now() - t0;
	const info = await page.evaluate(() => {
		const d = JSON.parse(document.getElementById('flamedata').textContent);
		return { frames: d.frames.length / 5, drawn: document.querySelectorAll('#frames rect').length,
			 width: d.width };
	});
	check(info.frames > 0 && info.drawn === info.frames,
	      `${info.drawn} frames drawn of ${info.frames} in the data (load ${loaded} ms)`);
	const full = info.width - 20;

	// click: the frame becomes the full width, reset brings its width back
	const idx = await page.evaluate((name) => {
		const d = JSON.parse(document.getElementById('flamedata').textContent);
		for (let i = 1; i < d.frames.length / 5; i++)
			if (d.strings[d.frames[5 * i + 1]] === name)
				return i;
		return -1;
	}, clickName);
	check(idx > 0, `a frame named ${clickName}: f${idx}`);
	if (idx > 0) {
		const width = () => page.$eval(`#f${idx}`, (r) => +r.getAttribute('width'));
		const before = await width();
		await page.hover(`#f${idx}`);
		const hover = await page.evaluate((i) => ({
			title: document.querySelector(`#f${i} title`).textContent,
			details: document.getElementById('details').textContent }), idx);
		check(hover.title.split('\n')[0] === clickName && hover.details.indexOf(clickName) === 0 &&
		      / samples? \(\d+\.\d\d%\)$/.test(hover.details),
		      `hover: title "${hover.title.split('\n').join(' | ')}", details "${hover.details}"`);
		await page.click(`#f${idx}`);
		const zoomed = await width();
		const resetShown = await page.$eval('#reset', (e) => !e.classList.contains('hidden'));
		check(Math.abs(zoomed - full) < 0.01 && before < full - 1 && resetShown,
		      `a click zooms ${clickName}: width ${before} -> ${zoomed} (full ${full}), ` +
		      `reset shown: ${resetShown}`);
		const root = await page.$eval('#f0', (r) => r.classList.contains('anc') &&
					      r.getAttribute('display') !== 'none');
		check(root, 'the root stays drawn as an ancestor of the zoomed frame');
		await page.click('#reset');
		const back = await width();
		const resetHidden = await page.$eval('#reset', (e) => e.classList.contains('hidden'));
		check(Math.abs(back - before) < 0.01 && resetHidden,
		      `reset: width ${back} again, reset hidden: ${resetHidden}`);
	}

	// Ctrl-F opens the search box; a search highlights frames, the share as --folded's
	await page.click('#f0');
	await page.keyboard.press('Control+f');
	const focused = await page.evaluate(() => document.activeElement &&
					    document.activeElement.id === 'search');
	check(focused, 'Ctrl-F puts the focus into the search box');
	await page.keyboard.type(term);
	const found = await page.evaluate(() => {
		const m = document.getElementById('matched');
		const hl = document.querySelectorAll('#frames rect.match');
		const fill = hl.length ? getComputedStyle(hl[0]).fill : '';
		return { text: m.textContent, samples: +m.getAttribute('data-samples'), n: hl.length,
			 fill, total: +JSON.parse(document.getElementById('flamedata').textContent)
					 .frames[4] };
	});
	const share = (100 * +wantSamples / found.total).toFixed(2) + '%';
	check(found.samples === +wantSamples && found.text.indexOf(share) >= 0,
	      `search ${term}: "${found.text}", --folded: ${wantSamples} samples, ${share}`);
	check(found.n > 0 && found.fill === 'rgb(224, 32, 224)',
	      `search ${term}: ${found.n} frames highlighted (${found.fill})`);
	await page.mouse.move(5, 5);
	if (shot)
		await page.screenshot({ path: shot });
	check(errors.length === 0, 'no script errors' + (errors.length ? ': ' + errors.join('; ') : ''));
	const others = requests.filter((u) => u !== url);
	check(others.length === 0, `no request beside the file itself (${others.join(' ')})`);
	await browser.close();
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('FAIL: the browser could not be driven: ' + e.message.split('\n')[0]);
	process.exit(2);
});
