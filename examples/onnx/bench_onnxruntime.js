#!/usr/bin/env node
// The figures `fusionplan bench exec` is compared with in docs/RESULTS.md:
// onnxruntime's CPU inference time for ONNX files, one and more threads,
// alone and next to a CPU-bound co-runner (a child process spinning on a
// core), printed as the same Markdown columns. Not a dependency of
// fusionplan: onnxruntime-node is installed in a folder of its own,
//
//   mkdir -p /tmp/ort && cd /tmp/ort && npm install --ignore-scripts onnxruntime-node
//   NODE_PATH=/tmp/ort/node_modules node examples/onnx/bench_onnxruntime.js \
//       --threads 1,2 --repeat 5 --co-runner both DIR/resnet50.onnx ...
//
// (--ignore-scripts is enough: the npm package carries its Linux x64 binary.)
// Inputs are seeded uniform [0, 1) values; a benchmark, it never fails on timing.
'use strict';
const ort = require('onnxruntime-node');
const { spawn } = require('child_process');
const path = require('path');

function parse(argv) {
  const o = { threads: [1, 2], repeat: 5, coRunner: 'off', files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--threads') o.threads = argv[++i].split(',').map(Number);
    else if (a === '--repeat') o.repeat = Number(argv[++i]);
    else if (a === '--co-runner') o.coRunner = argv[++i];
    else o.files.push(a);
  }
  if (!o.files.length || !['off', 'on', 'both'].includes(o.coRunner) || !(o.repeat >= 1)) {
    console.error('usage: bench_onnxruntime.js [--threads 1,2] [--repeat N] [--co-runner off|on|both] MODEL.onnx...');
    process.exit(2);
  }
  return o;
}

function seededInput(meta, dims) {
  let s = 1;
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s / 4294967296;
  }
  return new ort.Tensor('float32', data, dims);
}

async function bench(file, threads, repeat) {
  const sess = await ort.InferenceSession.create(file, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const name of sess.inputNames) {
    const meta = sess.inputMetadata ? sess.inputMetadata.find((m) => m.name === name) : null;
    let dims = meta && meta.shape ? meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1)) : null;
    if (!dims) dims = [1, 3, 224, 224];
    feeds[name] = seededInput(meta, dims);
  }
  await sess.run(feeds); // warm-up
  const times = [];
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < repeat; r++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const m = times.length;
  const median = m % 2 ? times[(m - 1) / 2] : 0.5 * (times[m / 2 - 1] + times[m / 2]);
  await sess.release();
  return { median, best: times[0], cpu: (cpu.user + cpu.system) / 1e6 / repeat };
}

async function main() {
  const o = parse(process.argv.slice(2));
  console.log(`# onnxruntime-node ${require('onnxruntime-node/package.json').version}, median of ${o.repeat}`);
  console.log('| network | threads | co-runner | median s/run | best s/run | CPU s/run |');
  console.log('|---|---|---|---|---|---|');
  const phases = o.coRunner === 'both' ? [false, true] : [o.coRunner === 'on'];
  for (const co of phases) {
    const child = co ? spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }) : null;
    try {
      for (const f of o.files)
        for (const t of o.threads) {
          const r = await bench(f, t, o.repeat);
          console.log(`| ${path.basename(f, '.onnx')} | ${t} | ${co ? 'yes' : 'no'} | ${r.median.toFixed(3)} | ` +
                      `${r.best.toFixed(3)} | ${r.cpu.toFixed(3)} |`);
        }
    } finally {
      if (child) child.kill('SIGKILL');
    }
  }
}

main().catch((e) => { console.error(`bench_onnxruntime: ${e.message}`); process.exit(1); });
