// hosts.mjs: per-host --dump files loaded into a real DuckDB (@duckdb/node-api,
// tests/duckdb/install.sh). Checks that DuckDB's GROUP BY host totals of the
// block rows equal blktop's own per-host report, that the CSV and JSONL dumps
// load the same rows, and that DuckDB writes them to Parquet and reads them
// back equal. Prints PASS:/FAIL: lines; exit 0 unless it could not run.
// Usage: node hosts.mjs CACHE DIR REPORT.json   (DIR holds *.csv and *.jsonl)
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const [cache, dir, reportPath] = process.argv.slice(2);
const require = createRequire(cache + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

function out(ok, what) {
	console.log((ok ? 'PASS: ' : 'FAIL: ') + 'duckdb: ' + what);
}
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
async function rows(sql) {
	return (await c.runAndReadAll(sql)).getRowObjectsJson();
}
// The dump's op as the report classes it (window_opclass: write, write zeroes, secure erase write).
const cls = "CASE WHEN op = 0 THEN 'read' WHEN op IN (1, 4, 5) THEN 'write' ELSE 'other' END";
const totals = (from) => `SELECT host, ${cls} AS class, count(*) AS ios, sum(bytes) AS bytes
	FROM ${from} WHERE type = 'block' GROUP BY ALL ORDER BY ALL`;
await c.run(`CREATE TABLE csv AS SELECT * FROM read_csv('${dir}/*.csv', union_by_name = true)`);
await c.run(`CREATE TABLE jsonl AS SELECT * FROM read_json_auto('${dir}/*.jsonl')`);

const hosts = await rows('SELECT DISTINCT host, labels, schema FROM csv ORDER BY host');
out(hosts.length === 8 && hosts.every((h) => h.schema === '2' || h.schema === 2),
    `8 hosts in the CSV dumps, schema 2 in every row: ${JSON.stringify(hosts)}`);
out(hosts.every((h) => h.labels === `job=train;rank=${h.host.replace('node', '')}`),
    'each host\'s rows carry its labels (job=train;rank=N)');

// blktop's own per-host figures: the merged run's report.
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const want = new Map();
for (const h of report.hosts)
	for (const k of ['read', 'write', 'other'])
		want.set(`${h.host} ${k}`, [h[k].ios, h[k].bytes]);
const got = await rows(totals('csv'));
let bad = [];
for (const r of got) {
	const w = want.get(`${r.host} ${r.class}`);
	if (w === undefined || String(w[0]) !== String(r.ios) || String(w[1]) !== String(r.bytes))
		bad.push(`${r.host} ${r.class}: duckdb ${r.ios} ${r.bytes}, blktop ${w}`);
}
for (const [k, w] of want)
	if (w[0] !== 0 && !got.some((r) => `${r.host} ${r.class}` === k))
		bad.push(`${k}: blktop ${w}, duckdb none`);
out(bad.length === 0 && got.length > 0,
    `GROUP BY host totals equal blktop's per-host report (${got.length} host/class rows)` +
    (bad.length ? ': ' + bad.slice(0, 4).join('; ') : ''));
const all = await rows(`SELECT count(*) AS ios, sum(bytes) AS bytes FROM csv WHERE type = 'block'`);
const a = report.all_hosts;
out(String(all[0].ios) === String(a.read.ios + a.write.ios + a.other.ios) &&
    String(all[0].bytes) === String(a.read.bytes + a.write.bytes + a.other.bytes),
    `all hosts: ${all[0].ios} requests, ${all[0].bytes} bytes, as all_hosts says`);

const j = await rows(totals('jsonl'));
out(JSON.stringify(j) === JSON.stringify(got), 'the JSONL dumps give the CSV dumps\' totals');

const pq = `${dir}/dump.parquet`;
await c.run(`COPY csv TO '${pq}' (FORMAT parquet)`);
const diff = await rows(`SELECT (SELECT count(*) FROM (SELECT * FROM csv EXCEPT ALL
	SELECT * FROM read_parquet('${pq}'))) AS a, (SELECT count(*) FROM (SELECT * FROM
	read_parquet('${pq}') EXCEPT ALL SELECT * FROM csv)) AS b,
	(SELECT count(*) FROM csv) AS n, (SELECT count(*) FROM read_parquet('${pq}')) AS m`);
out(diff[0].a === '0' && diff[0].b === '0' && diff[0].n === diff[0].m && diff[0].n !== '0',
    `COPY TO parquet and read_parquet: the same ${diff[0].n} rows (${diff[0].m} read back)`);
const p = await rows(totals(`read_parquet('${pq}')`));
out(JSON.stringify(p) === JSON.stringify(got), 'the Parquet file gives the same GROUP BY host totals');
