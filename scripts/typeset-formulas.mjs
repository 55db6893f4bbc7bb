// SPDX-License-Identifier: MIT
// Typesets every TeX formula PosLab shows to a stand-alone SVG with MathJax (run by scripts/typeset-formulas.sh,
// which installs mathjax-full into a cache folder and passes it here).
//
//   node scripts/typeset-formulas.mjs MATHJAX_DIR [--check]
//
// Formulas: the "formula" of every step of every resources/lessons/L*.json, and every value of
// resources/formulas/schemes.json (scheme id -> TeX, shown in the scheme picker), of every derivation page
// (resources/derivations/*.json, each step's "formula"), and of every story page
// (resources/stories/*.json: "formula", and each "variants" entry's). Each one goes to
// resources/formulas/<sha1 of the TeX's UTF-8 bytes>.svg; resources/formulas/index.json maps TeX -> file and
// records the MathJax version; resources/formulas/formulas.cmake lists the SVGs for the build. An SVG no formula
// uses is deleted. A formula whose file exists and was made by the same MathJax version is not typeset again,
// and MathJax is not even loaded when nothing changed. A TeX error names the file and step and exits 1.
// --check writes nothing and exits 1 when anything is missing or stale.
import {createHash} from 'node:crypto';
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lessonsDir = path.join(root, 'resources', 'lessons');
const outDir = path.join(root, 'resources', 'formulas');
const schemesFile = path.join(outDir, 'schemes.json');
const indexFile = path.join(outDir, 'index.json');
const cmakeFile = path.join(outDir, 'formulas.cmake');

const args = process.argv.slice(2);
const check = args.includes('--check');
const mathjaxDir = args.find((a) => !a.startsWith('--'));
if (!mathjaxDir) {
    console.error('usage: node scripts/typeset-formulas.mjs MATHJAX_DIR [--check]');
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(mathjaxDir), 'node_modules', 'index.js'));
const mathjaxVersion = require('mathjax-full/package.json').version;

function readJson(file) {
    try {
        return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
        console.error(`typeset-formulas: ${path.relative(root, file)}: ${e.message}`);
        process.exit(1);
    }
}

// tex -> where it is used (for messages)
const formulas = new Map();
function use(tex, where) {
    if (typeof tex !== 'string' || tex.trim() === '') {
        console.error(`typeset-formulas: ${where}: the formula must be a non-empty string`);
        process.exit(1);
    }
    if (!formulas.has(tex))
        formulas.set(tex, where);
}

const lessonFiles = fs.existsSync(lessonsDir)
    ? fs.readdirSync(lessonsDir).filter((f) => /^L\d+\.json$/.test(f)).sort()
    : [];
for (const f of lessonFiles) {
    const lesson = readJson(path.join(lessonsDir, f));
    for (const [k, step] of (Array.isArray(lesson.steps) ? lesson.steps : []).entries())
        if (step && step.formula !== undefined)
            use(step.formula, `resources/lessons/${f} step ${step.id ?? k + 1}`);
}
const schemes = readJson(schemesFile);
for (const [id, tex] of Object.entries(schemes))
    use(tex, `resources/formulas/schemes.json scheme ${id}`);
// The scheme story pages: each story's formula and, for rope, each rope_type variant's.
const storiesDir = path.join(root, 'resources', 'stories');
const storyFiles = fs.existsSync(storiesDir)
    ? fs.readdirSync(storiesDir).filter((f) => f.endsWith('.json') && f !== 'timeline.json').sort()
    : [];
for (const f of storyFiles) {
    const story = readJson(path.join(storiesDir, f));
    if (story.formula !== undefined)
        use(story.formula, `resources/stories/${f}`);
    for (const v of Array.isArray(story.variants) ? story.variants : [])
        if (v && v.formula !== undefined)
            use(v.formula, `resources/stories/${f} ${v.rope_type}`);
}

// The derivation pages a lesson step opens: each step's formula.
const derivationsDir = path.join(root, 'resources', 'derivations');
const derivationFiles = fs.existsSync(derivationsDir)
    ? fs.readdirSync(derivationsDir).filter((f) => f.endsWith('.json')).sort()
    : [];
for (const f of derivationFiles) {
    const page = readJson(path.join(derivationsDir, f));
    for (const [k, step] of (Array.isArray(page.steps) ? page.steps : []).entries())
        if (step && step.formula !== undefined)
            use(step.formula, `resources/derivations/${f} step ${k + 1}`);
}

const sha1 = (tex) => createHash('sha1').update(tex, 'utf8').digest('hex');
const old = fs.existsSync(indexFile) ? readJson(indexFile) : {};
const sameVersion = old.mathjax === mathjaxVersion;

const wanted = new Map(); // file name -> tex
for (const tex of formulas.keys())
    wanted.set(`${sha1(tex)}.svg`, tex);
const todo = [...wanted].filter(([file]) => !sameVersion || !fs.existsSync(path.join(outDir, file)));
const unused = fs.readdirSync(outDir).filter((f) => f.endsWith('.svg') && !wanted.has(f));

const index = {
    format: 'poslab-formulas',
    version: 1,
    mathjax: mathjaxVersion,
    formulas: Object.fromEntries([...wanted].map(([file, tex]) => [tex, file]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
};
const indexText = JSON.stringify(index, null, 1) + '\n';
// The list CMake compiles in (ui/CMakeLists.txt includes it): the SVG files, one a line, sorted.
const cmakeText = '# SPDX-License-Identifier: MIT\n# Written by scripts/typeset-formulas.sh: the typeset formulas compiled in '
    + 'under :/formulas/.\nset(poslab_formula_svgs\n' + [...wanted.keys()].sort().map((f) => `  ${f}\n`).join('') + ')\n';
const stale = (file, text) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
const indexStale = stale(indexFile, indexText) || stale(cmakeFile, cmakeText);

if (check) {
    for (const [file, tex] of todo)
        console.error(`missing or stale: ${file} (${formulas.get(tex)})`);
    for (const f of unused)
        console.error(`unused: resources/formulas/${f}`);
    if (indexStale)
        console.error('stale: resources/formulas/index.json or formulas.cmake');
    const bad = todo.length + unused.length + (indexStale ? 1 : 0);
    console.log(bad ? `typeset-formulas --check: ${bad} problem(s); run scripts/typeset-formulas.sh`
                    : `typeset-formulas --check: all ${wanted.size} formulas current`);
    process.exit(bad ? 1 : 0);
}

// The bounding box {x0, y0, x1, y1} of a glyph path in MathJax's font data (absolute commands only; control
// points count, which for the straight bars that extenders are changes nothing).
function pathBox(d) {
    const box = {x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity};
    const addX = (x) => { box.x0 = Math.min(box.x0, x); box.x1 = Math.max(box.x1, x); };
    const addY = (y) => { box.y0 = Math.min(box.y0, y); box.y1 = Math.max(box.y1, y); };
    for (const [, cmd, args] of d.matchAll(/([A-Za-z])([^A-Za-z]*)/g)) {
        const n = (args.match(/-?[\d.]+(?:e-?\d+)?/g) || []).map(Number);
        if ('MLTQCS'.includes(cmd)) {
            for (let k = 0; k + 1 < n.length; k += 2) { addX(n[k]); addY(n[k + 1]); }
        } else if (cmd === 'H') {
            n.forEach(addX);
        } else if (cmd === 'V') {
            n.forEach(addY);
        } else if (cmd !== 'Z') {
            throw new Error(`glyph path command ${cmd} not handled`);
        }
    }
    return box;
}

// MathJax draws the stretched middle piece of a tall brace or a long overline as a scaled glyph inside a nested
// <svg> whose viewBox clips it. QtSvg (SVG Tiny 1.2) knows no nested <svg> and stops drawing the rest of the
// formula there, so each one becomes the rectangle it shows: the scaled glyph's box cut to the viewBox (the
// extender glyphs are straight bars), moved to where the nested <svg> sits.
function flattenExtenders(text) {
    const glyphs = new Map();
    for (const [, id, d] of text.matchAll(/<path id="([^"]+)" d="([^"]*)"/g))
        glyphs.set(id, d);
    const num = (s) => Number(s).toFixed(1).replace(/\.0$/, '');
    // Nested ones only (the root has the xmlns); they hold no <svg> themselves, so the lazy match is theirs.
    return text.replace(/<svg (?![^>]*xmlns=)([^>]*)>(.*?)<\/svg>/g, (whole, attrs, inner) => {
        const attr = (name) => {
            const m = attrs.match(new RegExp(`(?:^| )${name}="([^"]*)"`));
            return m ? m[1] : undefined;
        };
        const [vx, vy, vw, vh] = (attr('viewBox') || '').split(/[\s,]+/).map(Number);
        const x = Number(attr('x') || 0), y = Number(attr('y') || 0);
        if (![vx, vy, vw, vh, x, y].every(Number.isFinite))
            throw new Error(`nested <svg ${attrs}> not understood`);
        let rects = '';
        const uses = [...inner.matchAll(/<use [^>]*xlink:href="#([^"]+)"(?: transform="([^"]*)")?[^>]*><\/use>/g)];
        if (uses.map((u) => u[0]).join('') !== inner)
            throw new Error(`nested <svg> holding more than glyphs: ${inner.slice(0, 80)}`);
        for (const [, id, transform = ''] of uses) {
            let sx = 1, sy = 1, tx = 0, ty = 0;
            for (const [, fn, a] of transform.matchAll(/(\w+)\(([^)]*)\)/g)) {
                const v = a.split(/[\s,]+/).map(Number);
                if (fn === 'scale' && tx === 0 && ty === 0) { sx = v[0]; sy = v.length > 1 ? v[1] : v[0]; }
                else if (fn === 'translate' && sx === 1 && sy === 1) { tx = v[0]; ty = v[1] || 0; }
                else throw new Error(`extender transform ${transform} not handled`);
            }
            if (!glyphs.has(id))
                throw new Error(`extender glyph ${id} not defined`);
            const b = pathBox(glyphs.get(id));
            const xs = [b.x0 * sx + tx, b.x1 * sx + tx].sort((p, q) => p - q);
            const ys = [b.y0 * sy + ty, b.y1 * sy + ty].sort((p, q) => p - q);
            const x0 = Math.max(xs[0], vx), x1 = Math.min(xs[1], vx + vw);
            const y0 = Math.max(ys[0], vy), y1 = Math.min(ys[1], vy + vh);
            if (x1 > x0 && y1 > y0)
                rects += `<rect x="${num(x0 - vx + x)}" y="${num(y0 - vy + y)}" width="${num(x1 - x0)}" height="${num(y1 - y0)}"></rect>`;
        }
        return rects;
    });
}

let failed = 0;
if (todo.length) {
    const {mathjax} = require('mathjax-full/js/mathjax.js');
    const {TeX} = require('mathjax-full/js/input/tex.js');
    const {SVG} = require('mathjax-full/js/output/svg.js');
    const {liteAdaptor} = require('mathjax-full/js/adaptors/liteAdaptor.js');
    const {RegisterHTMLHandler} = require('mathjax-full/js/handlers/html.js');
    const {AllPackages} = require('mathjax-full/js/input/tex/AllPackages.js');
    const adaptor = liteAdaptor();
    RegisterHTMLHandler(adaptor);
    // Every package but those that would hide a mistake (noerrors, noundefined: an unknown macro must fail here,
    // not show up red in the app) or need a browser to load more code.
    const packages = AllPackages.filter((p) => !['noerrors', 'noundefined', 'autoload', 'require'].includes(p));
    const tex = new TeX({packages, formatError: (_jax, err) => { throw err; }});
    // fontCache 'local': each SVG holds the glyphs it uses once, in its own <defs>, so every SVG stands alone.
    const svg = new SVG({fontCache: 'local'});
    const doc = mathjax.document('', {InputJax: tex, OutputJax: svg});
    for (const [file, source] of todo) {
        let text;
        try {
            const node = doc.convert(source, {display: true});
            text = adaptor.innerHTML(node);
        } catch (e) {
            console.error(`typeset-formulas: ${formulas.get(source)}: TeX error: ${e.message}\n  ${source}`);
            ++failed;
            continue;
        }
        // MathJax numbers the glyph ids by conversion order; name them after the file instead, so a formula's SVG
        // is the same whichever formulas were typeset with it.
        text = text.replace(/MJX-\d+-/g, `MJX-${file.slice(0, 8)}-`);
        // Empty glyphs (spaces, U+2061 function application) draw nothing; drop them and their uses.
        for (const [, id] of text.matchAll(/<path id="([^"]+)" d=""><\/path>/g))
            text = text.replaceAll(`<path id="${id}" d=""></path>`, '')
                .replace(new RegExp(`<use[^>]*xlink:href="#${id}"[^>]*></use>`, 'g'), '');
        try {
            text = flattenExtenders(text);
        } catch (e) {
            console.error(`typeset-formulas: ${formulas.get(source)}: ${e.message}\n  ${source}`);
            ++failed;
            continue;
        }
        fs.writeFileSync(path.join(outDir, file), text + '\n');
        console.log(`typeset ${file}  ${formulas.get(source)}`);
    }
}
for (const f of unused) {
    fs.unlinkSync(path.join(outDir, f));
    console.log(`deleted unused ${f}`);
}
if (failed) {
    console.error(`typeset-formulas: ${failed} formula(s) failed; index.json left as it was`);
    process.exit(1);
}
if (indexStale) {
    fs.writeFileSync(indexFile, indexText);
    fs.writeFileSync(cmakeFile, cmakeText);
}
console.log(`typeset-formulas: ${wanted.size} formulas (${lessonFiles.length} lesson files, ${Object.keys(schemes).length} schemes); `
            + `${todo.length} typeset, ${unused.length} deleted, MathJax ${mathjaxVersion}`);
