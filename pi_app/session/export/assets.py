"""The page's stylesheet and script (our own; theme colours arrive as CSS custom properties)."""

from __future__ import annotations

CSS = """
:root { color-scheme: dark light; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--exportPageBg); color: var(--text);
  font: 14px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
#app { display: flex; min-height: 100vh; }
#sidebar { width: 340px; flex: none; position: sticky; top: 0; height: 100vh; overflow: auto;
  background: var(--exportCardBg); border-right: 1px solid var(--borderMuted); padding: 8px 0; font-size: 12px; }
#sidebar h2 { font-size: 12px; margin: 0 10px 6px; color: var(--muted); font-weight: normal; }
#tree-controls { margin: 0 8px 6px; }
#tree-search { width: 100%; font: inherit; color: var(--text); background: var(--exportPageBg);
  border: 1px solid var(--borderMuted); border-radius: 4px; padding: 3px 6px; }
#tree-filters { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
.filter-btn { font: inherit; font-size: 11px; color: var(--muted); background: none; cursor: pointer;
  border: 1px solid var(--borderMuted); border-radius: 4px; padding: 1px 6px; }
.filter-btn.active { color: var(--text); border-color: var(--accent); }
#tree-status { color: var(--dim); margin: 6px 10px 0; font-size: 11px; }
.tree-node[hidden], .tree-stub[hidden], [hidden] { display: none !important; }
.highlight { outline: 2px solid var(--accent); outline-offset: 2px; }
#content { flex: 1; min-width: 0; max-width: 1000px; margin: 0 auto; padding: 16px 24px 64px; }
a { color: var(--mdLink); }
.tree-node { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 1px 8px;
  color: var(--text); text-decoration: none; cursor: pointer; }
.tree-node:hover { background: var(--selectedBg); }
.tree-node.active-path { border-left: 2px solid var(--accent); }
.tree-node.current { background: var(--selectedBg); font-weight: bold; }
.tree-node.tree-setting, .tree-muted { color: var(--dim); }
.tree-role-user { color: var(--accent); } .tree-role-assistant { color: var(--success); }
.tree-role-tool { color: var(--muted); } .tree-error { color: var(--error); }
.tree-label { color: var(--warning); } .tree-compaction, .tree-branch-summary { color: var(--customMessageLabel); }
.tree-custom { color: var(--customMessageLabel); }
.header { background: var(--exportCardBg); border: 1px solid var(--borderMuted); border-radius: 6px;
  padding: 12px 16px; margin-bottom: 16px; }
.header h1 { font-size: 16px; margin: 0 0 8px; color: var(--accent); }
.info-item { display: flex; gap: 8px; } .info-label { color: var(--muted); min-width: 90px; }
details > summary { cursor: pointer; }
.system-prompt, .tools-list { background: var(--exportCardBg); border: 1px solid var(--borderMuted);
  border-radius: 6px; padding: 8px 12px; margin-bottom: 12px; }
.system-prompt pre { white-space: pre-wrap; margin: 8px 0 0; }
.tool-item { margin: 6px 0; } .tool-item-name { color: var(--accent); font-weight: bold; }
.tool-param { margin-left: 16px; color: var(--muted); } .tool-param-name { color: var(--text); }
.user-message { background: var(--userMessageBg); color: var(--userMessageText); border-radius: 6px;
  padding: 8px 14px; margin: 14px 0; }
.assistant-message { margin: 14px 0; padding: 0 4px; }
.message-timestamp { float: right; color: var(--dim); font-size: 11px; }
.markdown-content h1, .markdown-content h2, .markdown-content h3, .markdown-content h4 { color: var(--mdHeading); }
.markdown-content code { color: var(--mdCode); }
.markdown-content pre code, .tool-output pre, pre.hl { color: var(--text); }
.markdown-content blockquote { color: var(--mdQuote); border-left: 3px solid var(--mdQuoteBorder);
  margin: 0; padding-left: 10px; }
.markdown-content hr { border: 0; border-top: 1px solid var(--mdHr); }
.markdown-content li::marker { color: var(--mdListBullet); }
pre { overflow-x: auto; margin: 6px 0; white-space: pre-wrap; word-break: break-word; }
pre.code { border-left: 2px solid var(--mdCodeBlockBorder); padding: 6px 10px; background: var(--exportCardBg); }
.thinking-block { color: var(--thinkingText); font-style: italic; margin: 6px 0; }
.thinking-block > summary { color: var(--muted); font-style: normal; }
.thinking-text { white-space: pre-wrap; }
.tool-execution { border-radius: 6px; padding: 6px 12px; margin: 8px 0; background: var(--toolPendingBg); }
.tool-execution.success { background: var(--toolSuccessBg); } .tool-execution.error { background: var(--toolErrorBg); }
.tool-header, .tool-command { color: var(--toolTitle); font-weight: bold; }
.tool-path { color: var(--accent); font-weight: normal; } .line-numbers { color: var(--warning); }
.tool-output { color: var(--toolOutput); } .tool-output pre { margin: 4px 0; }
.tool-output.expandable > summary { list-style: none; } .tool-output.expandable[open] > summary { display: none; }
.expand-hint { color: var(--dim); font-style: italic; }
.tool-diff { margin: 4px 0; white-space: pre-wrap; }
.diff-added { color: var(--toolDiffAdded); } .diff-removed { color: var(--toolDiffRemoved); }
.diff-context { color: var(--toolDiffContext); }
.message-image, .tool-image { max-width: 100%; max-height: 480px; border-radius: 4px; margin: 4px 0; }
.model-change { color: var(--dim); font-size: 12px; margin: 6px 0; } .model-name { color: var(--muted); }
.compaction, .branch-summary, .custom-message { background: var(--customMessageBg); color: var(--customMessageText);
  border-radius: 6px; padding: 8px 14px; margin: 14px 0; }
.branch-summary-header, .custom-type, .compaction > summary { color: var(--customMessageLabel); font-weight: bold; }
.error-text { color: var(--error); } .warning-text { color: var(--warning); }
@media (max-width: 800px) { #app { display: block; } #sidebar { position: static; width: auto; height: auto;
  max-height: 40vh; } }
"""


# Sidebar behaviour (our own script). Clicking a tree row shows the branch through it down to its newest
# leaf, scrolled to the clicked entry; search and the filters hide rows over the whole tree and re-indent
# what stays by its nearest shown ancestor, keeping the server's layout (spine and folded stubs on deep
# trees, indent capped with a depth marker). Rows arrive in tree order, parents first, so one pass each.
JS = r"""
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('session-data').textContent);
  var labels = data.labels || {};
  var byId = {}, kids = {};
  data.entries.forEach(function (e) { byId[e.id] = e; });
  function parentOf(e) {
    var p = e ? e.parentId : null;
    return p === null || p === undefined || p === e.id ? null : byId[p] || null;
  }
  function time(e) { var t = Date.parse(e.timestamp); return isNaN(t) ? 0 : t; }
  data.entries.forEach(function (e) {
    var p = parentOf(e);
    if (p) (kids[p.id] = kids[p.id] || []).push(e);
  });
  Object.keys(kids).forEach(function (k) { kids[k].sort(function (a, b) { return time(a) - time(b); }); });

  var messages = document.getElementById('messages');
  var tree = document.getElementById('tree');
  var status = document.getElementById('tree-status');
  var search = document.getElementById('tree-search');
  var buttons = Array.prototype.slice.call(document.querySelectorAll('#tree-filters .filter-btn'));
  var cap = parseInt(tree.getAttribute('data-indent-cap'), 10) || 8;
  var spine = tree.getAttribute('data-layout') === 'spine';
  var rows = Array.prototype.slice.call(tree.querySelectorAll('.tree-node'));
  var stubs = Array.prototype.slice.call(tree.querySelectorAll('details.tree-stub'));
  var rowById = {}, stubOf = {};
  rows.forEach(function (a) {
    var id = a.getAttribute('data-id');
    rowById[id] = a;
    stubOf[id] = a.closest('details.tree-stub');
  });
  var leafId = data.leafId, targetId = data.leafId;
  var filter = 'default', query = '';
  var SETTINGS = { label: 1, custom: 1, context_edit: 1, model_change: 1, thinking_level_change: 1, usage: 1 };

  function pathTo(id) {
    var path = [], seen = {}, cur = byId[id];
    while (cur && !seen[cur.id]) { seen[cur.id] = true; path.unshift(cur); cur = parentOf(cur); }
    return path;
  }
  function newestLeaf(id) {
    var cur = id, seen = {};
    while (kids[cur] && kids[cur].length && !seen[cur]) { seen[cur] = true; cur = kids[cur][kids[cur].length - 1].id; }
    return cur;
  }
  function rowParent(id) {  // nearest ancestor with a row (entries the tree leaves out are skipped)
    var e = parentOf(byId[id]), steps = 0;
    while (e && !rowById[e.id] && steps++ < rows.length) e = parentOf(e);
    return e && rowById[e.id] ? e.id : null;
  }
  function textOf(content) {
    if (typeof content === 'string') return content;
    if (!Array.isArray(content)) return '';
    return content.filter(function (c) { return c && c.type === 'text' && typeof c.text === 'string'; })
      .map(function (c) { return c.text; }).join('\n');
  }
  var haystacks = {};
  function haystack(e) {
    if (haystacks[e.id] !== undefined) return haystacks[e.id];
    var parts = [labels[e.id]], m = e.message || {};
    if (e.type === 'message') {
      parts.push(m.role, textOf(m.content), m.errorMessage);
      if (m.role === 'bashExecution') parts.push(m.command, m.output);
      if (m.role === 'toolResult') parts.push(m.toolName);
    } else if (e.type === 'custom_message') {
      parts.push(e.customType, textOf(e.content));
    } else if (e.type === 'compaction') {
      parts.push('compaction', e.summary);
    } else if (e.type === 'branch_summary') {
      parts.push('branch summary', e.summary);
    } else if (e.type === 'model_change') {
      parts.push('model', e.modelId);
    } else if (e.type === 'thinking_level_change') {
      parts.push('thinking', e.thinkingLevel);
    } else if (e.type === 'context_edit') {
      parts.push('context edit', e.replacement === null ? 'omit' : 'replace', e.targetId);
    } else if (e.type === 'label') {
      parts.push('label', e.label);
    } else if (e.type === 'session_info') {
      parts.push('name', e.name);
    } else {
      parts.push(e.type);
    }
    var text = parts.filter(function (p) { return typeof p === 'string' && p; }).join(' ').toLowerCase();
    return (haystacks[e.id] = text);
  }

  function passes(e, tokens) {
    if (e.id === leafId) return true;  // the shown branch's leaf stays findable
    var m = e.type === 'message' && e.message ? e.message : null, role = m ? m.role : null;
    // an assistant turn that only called tools says nothing of its own (its results are listed)
    if (role === 'assistant' && !/\S/.test(textOf(m.content)) &&
        (!m.stopReason || m.stopReason === 'stop' || m.stopReason === 'toolUse')) return false;
    var setting = !!SETTINGS[e.type], ok;
    if (filter === 'user-only') ok = role === 'user';
    else if (filter === 'no-tools') ok = !setting && role !== 'toolResult';
    else if (filter === 'labeled-only') ok = !!labels[e.id];
    else if (filter === 'all') ok = true;
    else ok = !setting;
    if (!ok) return false;
    var hay = tokens.length ? haystack(e) : '';
    return tokens.every(function (t) { return hay.indexOf(t) >= 0; });
  }

  function setMarker(a, depth) {
    var first = a.firstElementChild;
    var marker = first && /^\d+›$/.test(first.textContent) ? first : null;
    if (depth > cap) {
      if (!marker) {
        marker = document.createElement('span');
        marker.className = 'tree-muted';
        a.insertBefore(document.createTextNode(' '), a.firstChild);
        a.insertBefore(marker, a.firstChild);
      }
      marker.textContent = depth + '›';
    } else if (marker) {
      if (marker.nextSibling && marker.nextSibling.nodeType === 3) a.removeChild(marker.nextSibling);
      a.removeChild(marker);
    }
  }

  // As pi, a filter or search change lists the shown branch first at every fork (the server listed the
  // export's branch first). The deep-tree spine keeps the server's order: its stubs are built around it.
  var orderedFor = data.leafId;
  function reorder() {
    if (spine || orderedFor === leafId) return;
    orderedFor = leafId;
    var onPath = {}, holds = {}, pre = [], seen = {};
    pathTo(leafId).forEach(function (e) { onPath[e.id] = true; });
    var roots = data.entries.filter(function (e) { return !parentOf(e); });
    var stack = roots.slice();
    while (stack.length) {
      var e = stack.pop();
      if (seen[e.id]) continue;
      seen[e.id] = true;
      pre.push(e);
      (kids[e.id] || []).forEach(function (k) { stack.push(k); });
    }
    for (var i = pre.length - 1; i >= 0; i--) {
      var id = pre[i].id;
      holds[id] = !!onPath[id] || (kids[id] || []).some(function (k) { return holds[k.id]; });
    }
    function activeFirst(list) {
      return list.filter(function (e) { return holds[e.id]; })
        .concat(list.filter(function (e) { return !holds[e.id]; }));
    }
    var ordered = [], done = {};
    stack = activeFirst(roots).reverse();
    while (stack.length) {
      var cur = stack.pop();
      if (done[cur.id]) continue;
      done[cur.id] = true;
      if (rowById[cur.id]) ordered.push(rowById[cur.id]);
      activeFirst(kids[cur.id] || []).reverse().forEach(function (k) { stack.push(k); });
    }
    if (ordered.length !== rows.length) return;  // an odd file (a cycle): keep the server's order
    ordered.forEach(function (a) { tree.appendChild(a); });
    rows = ordered;
  }

  function apply() {
    reorder();
    var tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = {}, count = 0;
    rows.forEach(function (a) {
      var id = a.getAttribute('data-id'), ok = !!byId[id] && passes(byId[id], tokens);
      shown[id] = ok;
      if (ok) count++;
    });
    // nearest shown ancestor of every row, and how many shown rows hang under each
    var anc = {}, under = {}, roots = 0;
    rows.forEach(function (a) {
      var id = a.getAttribute('data-id'), p = rowParent(id);
      var up = p === null ? null : (shown[p] ? p : anc[p]);
      anc[id] = up === undefined ? null : up;
      if (!shown[id]) return;
      if (anc[id] === null) roots++;
      else under[anc[id]] = (under[anc[id]] || 0) + 1;
    });
    var depth = {}, base = roots > 1 ? 1 : 0;
    rows.forEach(function (a) {
      var id = a.getAttribute('data-id'), up = anc[id], d;
      a.hidden = !shown[id];
      if (!shown[id]) return;
      if (spine && !stubOf[id]) d = 0;  // the spine stays flush left
      else if (up === null || (spine && stubOf[up] !== stubOf[id])) d = spine ? 1 : base;
      else d = depth[up] + (under[up] > 1 ? 1 : 0);
      depth[id] = d;
      var holder = a.parentElement && a.parentElement.tagName === 'SUMMARY' ? a.parentElement : a;
      holder.style.paddingLeft = (0.4 + Math.min(d, cap) * 1.1).toFixed(1) + 'em';
      setMarker(a, d);
    });
    stubs.forEach(function (s) {
      var inside = s.querySelectorAll('.tree-node'), visible = 0;
      for (var i = 0; i < inside.length; i++) if (!inside[i].hidden) visible++;
      s.hidden = visible === 0;
      var size = s.querySelector('.tree-stub-size'), total = inside.length;
      if (size) {
        size.textContent = '└⊞ ' + (visible < total ? visible + ' of ' : '') + total +
          (total === 1 ? ' entry' : ' entries') + ' ·';
      }
      if (tokens.length && visible && !s.open) { s.open = true; s.setAttribute('data-opened-by-search', ''); }
      if (!tokens.length && s.hasAttribute('data-opened-by-search')) {
        s.open = false;
        s.removeAttribute('data-opened-by-search');
      }
    });
    status.textContent = count + ' / ' + rows.length + ' entries';
  }

  function mark() {
    var onPath = {};
    pathTo(leafId).forEach(function (e) { onPath[e.id] = true; });
    rows.forEach(function (a) {
      var id = a.getAttribute('data-id');
      a.classList.toggle('active-path', !!onPath[id]);
      a.classList.toggle('current', id === targetId);
    });
  }

  function scrollToEntry(id) {
    // tool results show inside their call: the nearest ancestor with an element of its own
    for (var e = byId[id], n = 0; e && n < rows.length + 1; e = parentOf(e), n++) {
      var el = document.getElementById('entry-' + e.id);
      if (el) {
        el.scrollIntoView({ block: 'center' });
        el.classList.add('highlight');
        setTimeout(function () { el.classList.remove('highlight'); }, 1500);
        return;
      }
    }
  }

  function show(leaf, target, scroll) {
    leafId = leaf;
    targetId = target;
    var html = '';
    pathTo(leaf).forEach(function (e) { html += data.rendered[e.id] || ''; });
    messages.innerHTML = html;
    mark();
    if (scroll) scrollToEntry(target);
  }

  tree.addEventListener('click', function (ev) {
    var a = ev.target.closest('.tree-node');
    if (!a || !byId[a.getAttribute('data-id')]) return;
    ev.preventDefault();
    var id = a.getAttribute('data-id');
    show(newestLeaf(id), id, true);
    try {
      history.replaceState(null, '', '?leafId=' + encodeURIComponent(leafId) + '&targetId=' + encodeURIComponent(id));
    } catch (e) { /* file:// in some browsers */ }
  });
  search.addEventListener('input', function () { query = search.value; apply(); });
  buttons.forEach(function (b) {
    b.addEventListener('click', function () {
      filter = b.getAttribute('data-filter');
      buttons.forEach(function (o) {
        o.classList.toggle('active', o === b);
        o.setAttribute('aria-pressed', o === b ? 'true' : 'false');
      });
      apply();
    });
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Escape') return;
    search.value = '';
    query = '';
    show(data.leafId, data.leafId, false);
    apply();
  });

  document.getElementById('tree-controls').hidden = false;
  var params = new URLSearchParams(window.location.search);
  var wantLeaf = params.get('leafId'), wantTarget = params.get('targetId');
  if (wantLeaf && byId[wantLeaf] && (wantLeaf !== data.leafId || wantTarget)) {
    show(wantLeaf, wantTarget && byId[wantTarget] ? wantTarget : wantLeaf, true);
  }
  apply();
  document.documentElement.setAttribute('data-ready', '');
})();
"""
