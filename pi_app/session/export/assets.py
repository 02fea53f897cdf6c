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

# Renders the path root -> clicked node from the embedded entries and pre-rendered fragments.
JS = """
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('session-data').textContent);
  var byId = {};
  data.entries.forEach(function (e) { byId[e.id] = e; });
  var messages = document.getElementById('messages');

  function pathTo(id) {
    var path = [], seen = {}, cur = byId[id];
    while (cur && !seen[cur.id]) {
      seen[cur.id] = true;
      path.unshift(cur);
      if (cur.parentId === null || cur.parentId === undefined) break;
      cur = byId[cur.parentId];
    }
    return path;
  }

  function show(id, scroll) {
    if (!byId[id]) return;
    var path = pathTo(id), onPath = {};
    var html = '';
    path.forEach(function (e) { onPath[e.id] = true; html += data.rendered[e.id] || ''; });
    messages.innerHTML = html;
    document.querySelectorAll('#tree .tree-node').forEach(function (a) {
      var nid = a.getAttribute('data-id');
      a.classList.toggle('active-path', !!onPath[nid]);
      a.classList.toggle('current', nid === id);
    });
    if (scroll) {
      var target = document.getElementById('entry-' + id);
      if (target) target.scrollIntoView({ block: 'center' });
    }
  }

  document.getElementById('tree').addEventListener('click', function (ev) {
    var a = ev.target.closest('.tree-node');
    if (!a) return;
    ev.preventDefault();
    var id = a.getAttribute('data-id');
    show(id, true);
    try { history.replaceState(null, '', '?leafId=' + encodeURIComponent(id)); } catch (e) { /* file:// */ }
  });

  var wanted = new URLSearchParams(window.location.search).get('leafId');
  if (wanted && wanted !== data.leafId && byId[wanted]) show(wanted, true);
})();
"""
