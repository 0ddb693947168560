#!/usr/bin/env python3
"""Checks a fusionplan HTML page as Chromium rendered it (tests/cli/plan_html.sh).

usage: html_check.py DOM PAGE [PLAN.json ...]
       html_check.py --static PAGE [PLAN.json ...]

DOM is `chromium --headless --dump-dom` of PAGE (the DOM after the script
ran). The page must have finished without an error (body data-fp-ready="ok",
no #fp-error). For a plan page, the DOM must hold one op element per op of the
graph, named as the plan names it and in the group the plan puts it in, and
one cluster per group; each PLAN.json given (the `-o plan.json` export of the
same plan, or of each curve step in order) must equal the plan embedded in
the page. --static checks the page as written, without a browser: its data
blocks and that it refers to nothing outside itself. One line per failure;
exit 1 on any.
"""
import html.parser
import json
import sys


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body = {}
        self.ops = {}       # op id -> (data-name, data-group)
        self.clusters = set()
        self.bars = set()
        self.error = None
        self.blocks = {}    # id -> text of application/json scripts
        self._block = None
        self._in_error = False
        self.tables = 0
        self.rows = 0       # table rows with data cells in report tables
        self._in_rep = False
        self._new_row = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get('class') or '').split()
        if tag == 'body':
            self.body = a
        elif tag == 'g' and 'op' in cls:
            self.ops[int(a['data-op'])] = (a.get('data-name'), a.get('data-group'))
        elif tag == 'rect' and 'grp' in cls:
            self.clusters.add(int(a['data-g']))
        elif tag == 'rect' and 'bar' in cls:
            self.bars.add(int(a['data-g']))
        elif tag == 'pre' and a.get('id') == 'fp-error':
            self._in_error = True
            self.error = ''
        elif tag == 'script' and a.get('type') == 'application/json':
            self._block = a.get('id')
            self.blocks[self._block] = ''
        elif tag == 'table' and 'rep' in cls:
            self.tables += 1
            self._in_rep = True
        elif tag == 'td' and self._in_rep and self._new_row:
            self.rows += 1
            self._new_row = False
        if tag == 'tr':
            self._new_row = True

    def handle_endtag(self, tag):
        if tag == 'table':
            self._in_rep = False
        if tag == 'script':
            self._block = None
        if tag == 'pre':
            self._in_error = False

    def handle_data(self, data):
        if self._block:
            self.blocks[self._block] += data
        if self._in_error:
            self.error += data


def main():
    static = sys.argv[1] == '--static'
    dom_path, page_path, plan_paths = sys.argv[1 + static], sys.argv[2], sys.argv[3:]
    fails = []
    d = Dom()
    with open(dom_path, encoding='utf-8') as f:
        d.feed(f.read())
    if d.error is not None:
        fails.append('page error: ' + d.error.strip())
    if not static and d.body.get('data-fp-ready') != 'ok':
        fails.append('the page script did not finish (body data-fp-ready=%r)' % d.body.get('data-fp-ready'))
    if 'fp-graph' in d.blocks:
        graph = json.loads(d.blocks['fp-graph'])
        plans = []
        i = 0
        while 'fp-plan-%d' % i in d.blocks:
            plans.append(json.loads(d.blocks['fp-plan-%d' % i]))
            i += 1
        for i, path in enumerate(plan_paths):
            with open(path, encoding='utf-8') as f:
                want = json.load(f)
            if i >= len(plans) or plans[i] != want:
                fails.append('%s: the page does not embed this plan as plan %d' % (path, i))
        extra = json.loads(d.blocks['fp-extra']) if 'fp-extra' in d.blocks else None
        if extra and extra.get('kind') == 'curve':
            # A curve page: one plan per step, each reaching the step's DRAM at its buffer.
            if len(extra['steps']) != len(plans):
                fails.append('the curve has %d steps but the page %d plans' % (len(extra['steps']), len(plans)))
            # Under energy or latency the steps hold that objective (fJ, fs):
            # each plan names it, and the DRAM is not the step's figure.
            obj = extra.get('objective', 'dram')
            for st, pl in zip(extra['steps'], plans):
                if obj != 'dram':
                    if pl.get('objective') != obj or st['beta'] != pl['beta']:
                        fails.append('step at %d B: objective %s, its plan %s at %d B' %
                                     (st['beta'], obj, pl.get('objective'), pl['beta']))
                elif st['dram_all'] != pl['metrics']['dram_all'] or st['beta'] != pl['beta']:
                    fails.append('step at %d B: DRAM %d, its plan %d at %d B' %
                                 (st['beta'], st['dram_all'], pl['metrics']['dram_all'], pl['beta']))
        # The DOM shows the plan the page opens with: plan 0.
        p = plans[0]
        if len(graph['ops']) != p['model']['ops'] or len(p['group_of']) != len(graph['ops']):
            fails.append('the page has %d ops, its plan %d' % (len(graph['ops']), p['model']['ops']))
    if 'fp-graph' in d.blocks and not static:
        names = {}
        for g in p['groups']:
            for v, nm in zip(g['ops'], g['names']):
                names[v] = nm
        for u in p['unfusable']:
            names[u['id']] = u['name']
        if len(d.ops) != len(graph['ops']) or len(graph['ops']) != p['model']['ops']:
            fails.append('the DOM holds %d ops, the graph %d, the plan says %d' %
                         (len(d.ops), len(graph['ops']), p['model']['ops']))
        for v, k in enumerate(p['group_of']):
            if v not in d.ops:
                fails.append('op %d is not in the DOM' % v)
                continue
            nm, grp = d.ops[v]
            if k >= 0 and nm != names.get(v):
                fails.append('op %d is named %r in the DOM, %r in the plan' % (v, nm, names.get(v)))
            if grp != str(k):
                fails.append('op %d is in group %s in the DOM, %d in the plan' % (v, grp, k))
        ng = len(p['groups']) + len(p['unfusable'])  # metrics.groups counts the fusable ones
        if ng != max(p['group_of']) + 1:
            fails.append('the plan has %d groups and %d unfusable ops but group ids up to %d' %
                         (len(p['groups']), len(p['unfusable']), max(p['group_of'])))
        want_groups = set(range(ng))
        if d.clusters != want_groups:
            fails.append('the DOM has clusters %s, the plan groups 0..%d' %
                         (sorted(d.clusters ^ want_groups)[:5], ng - 1))
        if d.bars != want_groups:
            fails.append('the DRAM chart has %d bars for %d groups' % (len(d.bars), ng))
    elif 'fp-graph' not in d.blocks and not static:
        # A report page (compare, sweep-report): one table row per row of its CSV.
        extra = json.loads(d.blocks.get('fp-extra', '{}'))
        want = len(extra.get('tables_csv', '').strip().split('\n')) - 1
        if d.tables == 0 or d.rows != want:
            fails.append('the report page shows %d tables with %d rows for %d rows of CSV' %
                         (d.tables, d.rows, want))
    with open(page_path, encoding='utf-8') as f:
        page = f.read()
    # Nothing the browser would fetch: no src/href attribute, no CSS url() or @import.
    for bad in (' src=', ' href=', 'url(', '@import'):
        if bad in page:
            fails.append('the page refers to something outside it: %r' % bad)
    for line in fails[:20]:
        print('FAIL: %s: %s' % (page_path, line))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
