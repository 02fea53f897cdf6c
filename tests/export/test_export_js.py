"""The page script, run under node with a tiny DOM stand-in: clicking a tree node shows root -> that node."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_app.session.export import export_session_html

BRANCHED = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "branched.jsonl"

HARNESS = r"""
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const clickId = process.argv[3];
const dataText = html.match(/<script id="session-data" type="application\/json">([\s\S]*?)<\/script>/)[1];
const script = html.match(/<script>([\s\S]*?)<\/script>\s*<\/body>/)[1];
const ids = [...html.matchAll(/class="tree-node[^"]*"[^>]*data-id="([^"]+)"/g)].map(m => m[1]);
function classList() { const s = new Set(); return { toggle(c, on) { on ? s.add(c) : s.delete(c); }, has: c => s.has(c) }; }
const anchors = ids.map(id => ({ id, classList: classList(), getAttribute: () => id,
  closest() { return this; } }));
let clickHandler = null;
const messages = { innerHTML: '' };
global.window = { location: { search: '' } };
global.history = { replaceState() {} };
global.document = {
  getElementById(id) {
    if (id === 'session-data') return { textContent: dataText };
    if (id === 'messages') return messages;
    if (id === 'tree') return { addEventListener(_t, h) { clickHandler = h; } };
    return { scrollIntoView() {} };
  },
  querySelectorAll() { return anchors; },
};
eval(script);
const target = anchors.find(a => a.id === clickId);
let prevented = false;
clickHandler({ target, preventDefault() { prevented = true; } });
console.log(JSON.stringify({ html: messages.innerHTML, prevented,
  current: anchors.filter(a => a.classList.has('current')).map(a => a.id),
  onPath: anchors.filter(a => a.classList.has('active-path')).map(a => a.id) }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_click_renders_other_branch(tmp_path: Path) -> None:
    out = export_session_html(str(BRANCHED), str(tmp_path / "b.html"))
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    run = subprocess.run(["node", str(harness), out, "b0b00004"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["prevented"] is True
    assert result["current"] == ["b0b00004"]
    assert result["onPath"] == ["a11ce001", "a11ce002", "b0b00001", "b0b00002", "b0b00003", "b0b00004"]
    shown = result["html"]
    assert "Use argparse" in shown and "Done with argparse." in shown and "Which argument parser" in shown
    assert "Use click instead" not in shown and "Branch Summary" not in shown
    assert re.findall(r'id="entry-([^"]+)"', shown) == result["onPath"]
