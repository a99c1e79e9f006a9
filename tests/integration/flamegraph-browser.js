// SPDX-License-Identifier: MIT
// Drives a flame graph SVG of preport in Chromium through playwright-core; used by
// run-preport-flamegraph-browser.sh:
//   node flamegraph-browser.js MODULES SVG CLICK SEARCH SAMPLES [SHOT [LOW]]
// MODULES: a node_modules directory with playwright-core; CLICK: the name of a frame to click;
// SEARCH: a regular expression to search for, SAMPLES: the samples --folded gives the stacks
// it matches; SHOT: a PNG to write (and SHOT-img.png: the frames as an <img> shows them), ""
// for none; LOW: "low" to try the graph in a window lower than it too (lowWindow()).
// Chromium is /usr/bin/chromium unless $CHROMIUM says.
// Prints "ok: ..." or "FAIL: ..." per check; exits 1 when one failed, 2 when the browser
// could not be driven at all.
'use strict';
const fs = require('fs');
const path = require('path');
const [modules, svg, clickName, term, wantSamples, shot, low] = process.argv.slice(2);
const { chromium } = require(path.join(path.resolve(modules), 'playwright-core'));

let failed = 0;
function check(cond, msg) {
	console.log((cond ? 'ok: ' : 'FAIL: ') + msg);
	if (!cond)
		failed++;
}

// The SVG as an <img> (a wiki's, a README's), where scripts never run, against the page as
// the script leaves it before any click: the frames' area (between the controls and the
// details line) must be drawn, and alike in both.
async function withoutScript(page, svg, shot) {
	const box = await page.evaluate(() => {
		const d = JSON.parse(document.getElementById('flamedata').textContent);
		const svgEl = document.documentElement;
		return { w: +svgEl.getAttribute('width'), h: +svgEl.getAttribute('height'),
			 top: d.top };
	});
	const clip = { x: 0, y: box.top, width: box.w, height: box.h - 34 - box.top };
	const html = svg.replace(/\.svg$/, '') + '-img.html';
	fs.writeFileSync(html, '<!DOCTYPE html><html><body style="margin:0">' +
			 `<img src="${path.basename(svg)}"></body></html>\n`);
	// the whole SVG in the viewport (a full-page screenshot does not end on an SVG page)
	const viewport = { width: box.w + 20, height: box.h + 20 };
	const img = await page.context().browser().newPage({ viewport });
	await img.goto('file://' + path.resolve(html));
	await img.waitForFunction(() => document.images[0].complete);
	const shotImg = await img.screenshot({ clip });
	if (shot)
		fs.writeFileSync(shot.replace(/\.png$/, '') + '-img.png', shotImg);
	const before = page.viewportSize();
	await page.setViewportSize(viewport);
	const shotPage = await page.screenshot({ clip });
	await page.setViewportSize(before);
	// the pixels of both, decoded by the browser: how many are not the background, and how
	// many differ between them
	const r = await img.evaluate(async ([a, b]) => {
		const load = (png) => new Promise((ok, no) => {
			const i = new Image();
			i.onload = () => ok(i);
			i.onerror = () => no(new Error('cannot decode a screenshot'));
			i.src = 'data:image/png;base64,' + png;
		});
		const pixels = (i) => {
			const c = document.createElement('canvas');
			c.width = i.width;
			c.height = i.height;
			const g = c.getContext('2d');
			g.drawImage(i, 0, 0);
			return g.getImageData(0, 0, i.width, i.height).data;
		};
		const pa = pixels(await load(a)), pb = pixels(await load(b));
		const bg = (p, k) => Math.abs(p[k] - 0xf8) + Math.abs(p[k + 1] - 0xf8) +
			Math.abs(p[k + 2] - 0xf4) < 12;
		let drawnA = 0, drawnB = 0, differ = 0;
		for (let k = 0; k < pa.length; k += 4) {
			drawnA += !bg(pa, k);
			drawnB += !bg(pb, k);
			differ += Math.abs(pa[k] - pb[k]) + Math.abs(pa[k + 1] - pb[k + 1]) +
				Math.abs(pa[k + 2] - pb[k + 2]) > 24;
		}
		return { drawnA, drawnB, differ, all: pa.length / 4 };
	}, [shotImg.toString('base64'), shotPage.toString('base64')]);
	await img.close();
	check(r.drawnA > 0 && r.drawnA >= 0.95 * r.drawnB,
	      `as an <img>, without scripts: ${r.drawnA} pixels of frames drawn, ` +
	      `${r.drawnB} with the script`);
	check(r.differ <= 0.01 * r.all,
	      `as an <img>: ${r.differ} of ${r.all} pixels differ from the page with the script`);
}

// In a window lower than the graph (and `width` wide), scrolled halfway: the title, search box and details line
// are in view, Ctrl-F focuses the search without scrolling, and after a click on a frame in
// view Reset zoom is in view too and goes back without scrolling.
async function lowWindow(browser, url, width) {
	const page = await browser.newPage({ viewport: { width, height: 240 } });
	await page.goto(url);
	await page.waitForSelector('#f0', { state: 'attached' });
	const frame = () => page.evaluate(() => new Promise((ok) =>
		requestAnimationFrame(() => requestAnimationFrame(ok))));
	const h = await page.evaluate(() => +document.documentElement.getAttribute('height'));
	if (h < 240 + 100) {
		check(false, `the graph (${h} px) is not taller than the low window (240 px)`);
		return page.close();
	}
	await page.evaluate((y) => window.scrollTo(0, y), Math.round((h - 240) / 2));
	await frame();
	const where = () => page.evaluate(() => {
		// a text's line (from its baseline, as it may hold a space only), else the box
		const inView = (id) => {
			const e = document.getElementById(id);
			if (!e)
				return false;
			if (e.tagName === 'text') {
				const m = e.getScreenCTM(), y = m.f + m.d * +e.getAttribute('y');
				return y - 14 >= 0 && y + 4 <= window.innerHeight;
			}
			const r = e.getBoundingClientRect();
			return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
		};
		return { y: window.scrollY, title: inView('title'), search: inView('search'),
			 details: inView('details'), reset: inView('reset') };
	});
	const at = await where();
	check(at.y > 0 && at.title && at.search && at.details,
	      `${width} px wide: a ${h} px graph in a 240 px window scrolled to ${at.y}: title in view ${at.title}, ` +
	      `search ${at.search}, details ${at.details}`);
	await page.keyboard.press('Control+f');
	await frame();
	const f = await where();
	const focused = await page.evaluate(() => document.activeElement.id === 'search');
	check(focused && f.y === at.y && f.search,
	      `Ctrl-F: search focused ${focused}, scrolled from ${at.y} to ${f.y}`);
	await page.keyboard.press('Escape');
	// a frame in view, below the controls and above the details line, not the root
	const k = await page.evaluate(() => {
		const rs = document.querySelectorAll('#frames rect');
		for (let i = 1; i < rs.length; i++) {
			const r = rs[i].getBoundingClientRect();
			if (r.width > 2 && r.top > 80 && r.bottom < window.innerHeight - 40)
				return i;
		}
		return -1;
	});
	check(k > 0, `a frame in view to click: f${k}`);
	if (k > 0) {
		await page.click(`#f${k}`);
		await frame();
		const z = await where();
		check(z.reset && z.y === at.y, `after a zoom: Reset zoom in view ${z.reset}, ` +
		      `scrolled from ${at.y} to ${z.y}`);
		await page.click('#reset');
		await frame();
		const r = await where();
		check(r.y === at.y, `Reset zoom leaves the page where it was: ${at.y}, ${r.y}`);
	}
	await page.close();
}

// In windows narrower than the drawing (1000 px, then resized to 700 px), opened on its own:
// nothing is cut off (the search box, the legend, the frames and every text end inside the
// window, and the page does not scroll sideways), and a click still zooms a frame to the
// full width.  As an <img> the graph keeps its size (withoutScript()).
async function narrowWindow(browser, url) {
	const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
	await page.goto(url);
	await page.waitForSelector('#f0', { state: 'attached' });
	const frame = () => page.evaluate(() => new Promise((ok) =>
		requestAnimationFrame(() => requestAnimationFrame(ok))));
	for (const width of [1000, 700]) {
		await page.setViewportSize({ width, height: 700 });
		await frame();
		const r = await page.evaluate(() => {
			const de = document.documentElement;
			const els = [document.getElementById('search'), document.getElementById('f0'),
				     ...document.querySelectorAll('#controls text, #footer text, ' +
								  '#footer rect[x]')];
			let worst = 0, what = '';
			for (const e of els) {
				const b = e.getBoundingClientRect();
				if (b.width > 0 && b.right > worst) {
					worst = b.right;
					what = e.id || e.textContent || e.tagName;
				}
			}
			return { vw: de.clientWidth, sw: de.scrollWidth, worst: Math.round(worst),
				 what };
		});
		check(r.vw > 0 && r.worst <= r.vw && r.sw <= r.vw,
		      `in a ${width} px window: the rightmost element (${r.what}) ends at ` +
		      `${r.worst} px of ${r.vw}, the page is ${r.sw} px wide`);
	}
	const z = await page.evaluate(() => {
		const d = JSON.parse(document.getElementById('flamedata').textContent);
		return { full: d.width - 20, k: d.frames.length / 5 > 1 ? 1 : -1 };
	});
	if (z.k > 0) {
		await page.click('#f1');
		const w = await page.$eval('#f1', (e) => +e.getAttribute('width'));
		check(Math.abs(w - z.full) < 0.01, `in a 700 px window a click zooms f1 to the ` +
		      `full width: ${w} (${z.full} in the drawing's units)`);
	}
	await page.close();
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
	await withoutScript(page, svg, shot);

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
	if (low === 'low') {
		await lowWindow(browser, url, 1240);
		await lowWindow(browser, url, 900); // scaled down to the width as well
	}
	await narrowWindow(browser, url);
	check(errors.length === 0, 'no script errors' + (errors.length ? ': ' + errors.join('; ') : ''));
	const others = requests.filter((u) => u !== url);
	check(others.length === 0, `no request beside the file itself (${others.join(' ')})`);
	await browser.close();
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('FAIL: the browser could not be driven: ' + e.message.split('\n')[0]);
	process.exit(2);
});
